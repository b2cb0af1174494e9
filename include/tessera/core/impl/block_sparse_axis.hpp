// A block-sparse pattern as the block-sparse reductions read it: one direction of the pattern
// (BlockSparseAxis) with the team tables of the block-sparse schedule, and the index-range View
// type. Shared by the module that builds patterns (cluster: BlockSparseRanges and the kernels of
// cluster/impl/block_sparse_build.hpp, which fill these fields, team tables included) and the one
// that reads them (genred: impl/schedule.hpp walks a direction tile by tile), hence in core.
//
// Kept apart from the kernels that build a pattern, which sort and so bring Kokkos_Sort.hpp
// (Thrust under CUDA, about 9 s of nvcc time per translation unit) to whoever includes them.
// tessera::genred includes this header and declares BlockSparseRanges itself (genred.hpp): a call
// that passes one has included cluster/block_sparse_ranges.hpp to build it.
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {

/// (rows, 2) index ranges [start, end), one a row: the segments and ranges of a block-sparse
/// pattern, the cluster ranges of cluster/clustering.hpp.
template <class MemorySpace>
using IndexRanges = Kokkos::View<int* [2], Kokkos::LayoutRight, MemorySpace>;

namespace Impl {

/// Team sizes 2^0 .. 2^(tile_levels - 1) have a precomputed team table.
inline constexpr int tile_levels = 11;

/// One direction of a block-sparse pattern, as the kernel reads it.
template <class MemorySpace>
struct BlockSparseAxis {
  IndexRanges<MemorySpace> segments;            // (Q, 2): partition of [0, n_outer) in order
  Kokkos::View<int*, MemorySpace> slices;       // (Q): end offsets of each segment's ranges
  IndexRanges<MemorySpace> ranges;              // (P, 2): inner ranges, sorted and disjoint per q
  Kokkos::View<int*, MemorySpace> tile_starts;  // (tile_levels * (Q + 1)): first team of q
  Kokkos::Array<int, tile_levels> teams{};      // host copy of the team count per level

  KOKKOS_INLINE_FUNCTION int segment_count() const { return static_cast<int>(segments.extent(0)); }
  KOKKOS_INLINE_FUNCTION int range_count() const { return static_cast<int>(ranges.extent(0)); }
};

}  // namespace Impl
}  // namespace tessera
