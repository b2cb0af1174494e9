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
/// bytes per piece of the tile's items_per_team entries. A call without a workspace allocates and
/// frees its own (on an H100 about 80 us for 2^27 items, and on CUDA the free waits for the
/// device); a call given one reuses it, growing it when it is too small, and returns without
/// waiting. Calls that share a workspace must be ordered: on one execution space instance, or
/// fenced in between.
template <class ExecSpace>
class IntervalWorkspace {
 public:
  using pieces_type = Kokkos::View<Impl::TeamPiece*, typename ExecSpace::memory_space>;

  /// Memory for `count` pieces: this workspace's, reallocated first when smaller.
  pieces_type pieces(const ExecSpace& space, std::int64_t count) {
    if (static_cast<std::int64_t>(pieces_.extent(0)) < count) {
      pieces_ = pieces_type();  // free the old memory before taking the new
      pieces_ = pieces_type(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                               std::string("tessera::interval::workspace")),
                            count);
    }
    return pieces_;
  }

  /// Bytes held.
  std::size_t size_bytes() const { return pieces_.span() * sizeof(Impl::TeamPiece); }

 private:
  pieces_type pieces_;
};

}  // namespace tessera
