// Reusable device memory of the interval primitives.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace tessera {
namespace Impl {

/// A point of the merge path of output items and interval offsets (load_balance.hpp): its
/// first `items` items and first `offsets` offsets come before it. Consecutive points cut the
/// path into the pieces that teams take.
struct MergePoint {
  int items, offsets;
};

}  // namespace Impl

/// Device memory that calls of the interval primitives reuse: their merge-path partition, 8
/// bytes per piece of the tile's items_per_team entries, and for moves that take their
/// intervals by destination (IntervalOrder) the regrouped intervals, twice 16 bytes per interval
/// (32 for 64-bit gather or scatter types) and 8 KiB at most of counters. A call without a
/// workspace allocates and frees its own (a cost comparable to a small call, and on CUDA the
/// free waits for the device; perf/README.md); a call given one reuses it, growing it when it is
/// too small, and returns without waiting. Calls that share a workspace must be ordered: on one
/// execution space instance, or fenced in between.
template <class ExecSpace>
class IntervalWorkspace {
 public:
  /// View of merge-path points, the type points() returns.
  using points_type = Kokkos::View<Impl::MergePoint*, typename ExecSpace::memory_space>;
  /// View of 64-bit words, the type words() returns.
  using words_type = Kokkos::View<std::uint64_t*, typename ExecSpace::memory_space>;

  /// Memory for `count` merge-path points: this workspace's, reallocated first when smaller.
  points_type points(const ExecSpace& space, std::int64_t count) {
    return grown(points_, space, count, "tessera::interval::workspace");
  }

  /// Memory for `count` 64-bit words (the regrouped intervals): this workspace's, reallocated
  /// first when smaller.
  words_type words(const ExecSpace& space, std::int64_t count) {
    return grown(words_, space, count, "tessera::interval::workspace_words");
  }

  /// Bytes held.
  std::size_t size_bytes() const {
    return points_.span() * sizeof(Impl::MergePoint) + words_.span() * sizeof(std::uint64_t);
  }

 private:
  points_type points_;
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
