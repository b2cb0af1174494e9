// tessera::BlockSparseRanges: which tiles of the (i, j) plane a block-sparse reduction visits
// (the "ranges" of KeOps' block-sparse reductions; tessera::genred takes one after its output).
//
// The i-indices are cut into Q contiguous segments ranges_i(q) = [start_q, end_q) that partition
// [0, M) in order; segment q reduces over a list of contiguous j-ranges,
//   redranges_j(l) = [start_l, end_l)  for l in [slices_i(q - 1), slices_i(q))  (slices_i(-1) = 0),
// sorted and disjoint. For i in segment q,
//   a_i = Reduction over j in the union of the segment's j-ranges of F(p, x_i, y_j),
// and a segment without j-ranges gets the reduction's empty-range value. Reductions over i
// (genred's Axis::i) use the transposed triple (ranges_j, slices_j, redranges_i), which describes
// the same set of (i, j) pairs column by column and is built on construction: its j-segments are
// the intervals between consecutive range end points, and each lists the runs of consecutive
// i-segments covering it, merged into one i-range.
//
// Build one from clustered data with the helpers of clustering.hpp and cluster_mask.hpp, or
// from a triple of your own. Once built, the object is immutable and cheap to copy (it holds
// Views); it serves every reduction, both axes and any batch over the same M-by-N plane.
#pragma once

#include <tessera/cluster/impl/block_sparse_build.hpp>
#include <tessera/core/impl/errors.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {

/// A validated block-sparsity pattern over an M-by-N plane, in both directions; see the file
/// comment. MemorySpace is where its Views live (that of the execution space that runs the
/// reductions).
template <class MemorySpace>
class BlockSparseRanges {
 public:
  using memory_space = MemorySpace;  ///< Where the pattern's Views live.

  /// An empty pattern over a 0-by-0 plane.
  BlockSparseRanges() = default;

  /// Copies, validates and transposes the triple (ranges_i, slices_i, redranges_j) on `space`.
  /// ranges_i and redranges_j are (rows, 2) int Views of any layout, slices_i a rank-1 int View
  /// with one entry per segment. Throws std::invalid_argument naming the first violation of:
  /// ranges_i partitions [0, m) in order (empty segments allowed); slices_i is non-decreasing
  /// and ends at redranges_j.extent(0); each redranges_j row is a range inside [0, n); the
  /// ranges of one segment are sorted and disjoint. Cost: O(Q + P + T) work and memory, T the
  /// number of transposed ranges, and a few small kernels; fences (it returns host values).
  template <class ExecSpace, class RangesI, class SlicesI, class RedrangesJ>
  BlockSparseRanges(const ExecSpace& space, int m, int n, const RangesI& ranges_i,
                    const SlicesI& slices_i, const RedrangesJ& redranges_j)
      : m_(m), n_(n) {
    static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                  "tessera::BlockSparseRanges: the first argument must be an execution space");
    static_assert(
        std::is_same_v<typename ExecSpace::memory_space, MemorySpace>,
        "tessera::BlockSparseRanges: build the pattern on an execution space of its memory "
        "space");
    static_assert(RangesI::rank == 2 && RedrangesJ::rank == 2 && SlicesI::rank == 1,
                  "tessera::BlockSparseRanges: ranges_i and redranges_j are (rows, 2) Views, "
                  "slices_i is a rank-1 View");
    static_assert(std::is_same_v<typename RangesI::non_const_value_type, int> &&
                      std::is_same_v<typename SlicesI::non_const_value_type, int> &&
                      std::is_same_v<typename RedrangesJ::non_const_value_type, int>,
                  "tessera::BlockSparseRanges: ranges and slices hold int");
    static_assert(
        Kokkos::SpaceAccessibility<ExecSpace, typename RangesI::memory_space>::accessible &&
            Kokkos::SpaceAccessibility<ExecSpace, typename SlicesI::memory_space>::accessible &&
            Kokkos::SpaceAccessibility<ExecSpace, typename RedrangesJ::memory_space>::accessible,
        "tessera::BlockSparseRanges: the Views must be accessible from the execution "
        "space");
    const char* fn = "BlockSparseRanges";
    Impl::require(m >= 0 && n >= 0, fn, "M and N must be >= 0 (got M = ", m, ", N = ", n, ")");
    Impl::require_equal(fn, "ranges_i", "columns", ranges_i.extent(1), 2);
    Impl::require_equal(fn, "redranges_j", "columns", redranges_j.extent(1), 2);
    Impl::require_int_extent(fn, "ranges_i", ranges_i.extent(0));
    Impl::require_int_extent(fn, "redranges_j", redranges_j.extent(0));

    by_rows_.segments = Impl::copy_ranges(space, ranges_i, "tessera::cluster::ranges_i");
    by_rows_.slices   = Impl::copy_offsets(space, slices_i, "tessera::cluster::slices_i");
    by_rows_.ranges   = Impl::copy_ranges(space, redranges_j, "tessera::cluster::redranges_j");
    static const char* const names[5] = {"ranges_i", "slices_i", "redranges_j", "M", "N"};
    Impl::validate_axis(space, by_rows_.segments, by_rows_.slices, by_rows_.ranges, m, n, names);

    by_columns_ = Impl::transpose_axis(space, by_rows_, n);
    Impl::build_team_tables(space, by_rows_);
    Impl::build_team_tables(space, by_columns_);
    pairs_ = Impl::covered_pairs(space, by_rows_);
  }

  int m() const { return m_; }  ///< rows of the i-index
  int n() const { return n_; }  ///< rows of the j-index
  /// Number of (i, j) pairs the pattern keeps (out of M * N).
  std::int64_t kept_pairs() const { return pairs_; }

  /// (Q, 2) i-segments [start, end), partitioning [0, M) in order (a copy of the input).
  const IndexRanges<MemorySpace>& ranges_i() const { return by_rows_.segments; }
  /// (Q) end of each i-segment's j-ranges in redranges_j (a copy of the input).
  const Kokkos::View<int*, MemorySpace>& slices_i() const { return by_rows_.slices; }
  /// (P, 2) j-ranges [start, end) of the i-segments, segment by segment (a copy of the input).
  const IndexRanges<MemorySpace>& redranges_j() const { return by_rows_.ranges; }
  /// j-segments [start, end) of the transposed pattern, partitioning [0, N) in order.
  const IndexRanges<MemorySpace>& ranges_j() const { return by_columns_.segments; }
  /// End of each j-segment's i-ranges in redranges_i (transposed pattern).
  const Kokkos::View<int*, MemorySpace>& slices_j() const { return by_columns_.slices; }
  /// i-ranges [start, end) of the j-segments, segment by segment (transposed pattern).
  const IndexRanges<MemorySpace>& redranges_i() const { return by_columns_.ranges; }

  /// The pattern as a reduction over j walks it: i-segments, each with its j-ranges.
  const Impl::BlockSparseAxis<MemorySpace>& by_rows() const { return by_rows_; }
  /// The pattern as a reduction over i walks it: j-segments, each with its i-ranges.
  const Impl::BlockSparseAxis<MemorySpace>& by_columns() const { return by_columns_; }

 private:
  int m_ = 0, n_ = 0;
  std::int64_t pairs_ = 0;
  Impl::BlockSparseAxis<MemorySpace> by_rows_;     // ranges_i, slices_i, redranges_j
  Impl::BlockSparseAxis<MemorySpace> by_columns_;  // ranges_j, slices_j, redranges_i
};

/// BlockSparseRanges in the memory space of `space`; see its constructor.
template <class ExecSpace, class RangesI, class SlicesI, class RedrangesJ>
BlockSparseRanges<typename ExecSpace::memory_space> make_block_sparse_ranges(
    const ExecSpace& space, int m, int n, const RangesI& ranges_i, const SlicesI& slices_i,
    const RedrangesJ& redranges_j) {
  return BlockSparseRanges<typename ExecSpace::memory_space>(space, m, n, ranges_i, slices_i,
                                                             redranges_j);
}

}  // namespace tessera
