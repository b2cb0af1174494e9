// Reusable device memory of the interval primitives.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace tessera {
namespace Impl {

/// A piece of the merged sequence: items [a0, a0 + items) and offsets [b0, b0 + m).
struct TeamPiece {
  int a0, items, b0, m;
};

}  // namespace Impl

/// Device memory that calls of the interval primitives reuse: their merge-path partition, 16
/// bytes per piece of the tile's items_per_team entries, and for moves that take their
/// intervals by destination (IntervalOrder) the regrouped intervals, 4 bytes plus the sizes of
/// the gather and scatter types per interval and 8 KiB at most of counters. A call without a
/// workspace allocates and frees its own (on an H100 about 80 us for 2^27 items, and on CUDA the
/// free waits for the device); a call given one reuses it, growing it when it is too small, and
/// returns without waiting. Calls that share a workspace must be ordered: on one execution space
/// instance, or fenced in between.
template <class ExecSpace>
class IntervalWorkspace {
 public:
  using pieces_type = Kokkos::View<Impl::TeamPiece*, typename ExecSpace::memory_space>;
  using words_type  = Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space>;

  /// Memory for `count` pieces: this workspace's, reallocated first when smaller.
  pieces_type pieces(const ExecSpace& space, std::int64_t count) {
    return grown(pieces_, space, count, "tessera::interval::workspace");
  }

  /// Memory for `count` 64-bit words (the regrouped intervals): this workspace's, reallocated
  /// first when smaller.
  words_type words(const ExecSpace& space, std::int64_t count) {
    return grown(words_, space, count, "tessera::interval::workspace_words");
  }

  /// Bytes held.
  std::size_t size_bytes() const {
    return pieces_.span() * sizeof(Impl::TeamPiece) + words_.span() * sizeof(std::uint64_t);
  }

 private:
  pieces_type pieces_;
  words_type words_;

  /// held, reallocated (the old memory freed first) when it has fewer than count entries.
  template <class V>
  static V grown(V& held, const ExecSpace& space, std::int64_t count, const char* label) {
    if (static_cast<std::int64_t>(held.extent(0)) < count) {
      held = V();
      held = V(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label)), count);
    }
    return held;
  }
};

}  // namespace tessera
