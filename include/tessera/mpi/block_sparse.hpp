// tessera::mpi::block_sparse_from_cutoff: the block-sparsity pattern of a distributed
// interaction with a cutoff, built over every rank's clusters while only cluster summaries
// travel (centroids, radii, sizes), so that a distributed block-sparse genred (mpi/genred.hpp)
// moves only the clusters some local cluster needs.
//
//   auto pattern = tessera::mpi::block_sparse_from_cutoff(comm, space, x_r, y_r, voxel, cutoff);
//   // x_r and y_r are now sorted by cluster (pattern.perm_x / perm_y map back); sort the other
//   // per-point Views with permute_rows, then
//   tessera::mpi::genred(comm, space, tessera::Sum{}, kernel, tessera::i_vars(x_r),
//                        tessera::j_vars(y_r, b_r), out_r, pattern);
//
// Each rank clusters its own clouds as the single-rank block_sparse_from_cutoff does (voxels of
// `voxel_size`, sorted in place). The ranks allgather their clusters' summaries. For Axis::j,
// each rank keeps the pairs of its i-clusters and every rank's j-clusters whose bounding balls
// come within `cutoff`, and asks each rank for the j-clusters it keeps; its reduced rows are then
// the assembled rows: the kept j-clusters of rank 0, then of rank 1, ..., each in its rank's
// sorted order. Axis::i is the same with the roles of the clouds exchanged: a rank's j-clusters
// against every rank's i-clusters, assembling the i-rows it needs. Reduced indices refer to the
// whole sorted reduced range: the ranks' sorted rows in rank order. One pattern serves both axes,
// every reduction and any batch, as a single-rank BlockSparseRanges does.
#pragma once

#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/cluster/clustering.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/genred/options.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/gathered_clusters.hpp>
#include <tessera/mpi/impl/reduced_rows.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdint>
#include <vector>

namespace tessera {
namespace mpi {

/// What a rank gathers and reduces over along one axis of a distributed block-sparse call: the
/// rows of the reduced cloud (j-rows for Axis::j, i-rows for Axis::i) that its own clusters of
/// the other cloud keep, gathered from every rank ("assembled"), and the pattern of its call.
template <class MemorySpace>
struct DistributedReducedRows {
  /// The pattern of the rank's call: over its sorted i-rows and its assembled j-rows (Axis::j),
  /// or over its assembled i-rows and its sorted j-rows (Axis::i).
  BlockSparseRanges<MemorySpace> ranges;
  /// The rank's own rows of the reduced cloud (the slice the pattern was built for).
  int local_rows = 0;
  /// The rank's sorted reduced rows every rank asked for, destination after destination.
  Kokkos::View<int*, MemorySpace> send_rows;
  std::vector<int> send_counts;   ///< rows sent to each rank
  std::vector<int> send_offsets;  ///< each rank's first entry of send_rows
  std::vector<int> recv_counts;   ///< rows received from each rank
  std::vector<int> recv_offsets;  ///< each rank's first assembled row
  /// Assembled row -> its row in the whole sorted reduced range (the ranks' sorted rows in rank
  /// order).
  Kokkos::View<int*, MemorySpace> global_rows;
  /// The reduced rows of the rank's calls: the rows it assembles from every rank.
  int assembled_rows() const {
    return recv_offsets.empty() ? 0 : recv_offsets.back() + recv_counts.back();
  }
};

/// The pattern of a distributed block-sparse call on one rank, for both axes (see the file
/// comment).
template <class MemorySpace>
struct DistributedBlockSparsity {
  using memory_space = MemorySpace;            ///< Where the pattern's Views live.
  Kokkos::View<int*, MemorySpace> perm_x;      ///< sorted i-row k is the caller's row perm_x(k)
  Kokkos::View<int*, MemorySpace> perm_y;      ///< sorted j-row k is the caller's row perm_y(k)
  DistributedReducedRows<MemorySpace> over_j;  ///< the j-rows of the rank's Axis::j calls
  DistributedReducedRows<MemorySpace> over_i;  ///< the i-rows of the rank's Axis::i calls

  /// The reduced rows of calls along `axis`.
  const DistributedReducedRows<MemorySpace>& along(Axis axis) const {
    return axis == Axis::j ? over_j : over_i;
  }
};

/// Sorts each rank's clouds x (M_r, D) and y (N_r, D) in place by voxels of side `voxel_size`
/// and returns the rank's pattern for both axes (see the file comment): every pair (i, j) of the
/// whole clouds with |x_i - y_j| <= cutoff is kept. Collective over comm. Throws, on every rank
/// alike, std::invalid_argument for mismatched dimensions (on a rank, or between ranks),
/// voxel_size <= 0, cutoff < 0 or NaN coordinates (and for comm = MPI_COMM_NULL). Work per rank:
/// the single-rank builder's on its clouds, plus O(C_x * C_y) for its i-clusters against every
/// rank's j-clusters (C_y of all ranks) and its j-clusters against every rank's i-clusters;
/// messages: every rank's cluster summaries (allgather), then the kept clusters' ids (alltoall),
/// for each axis. Fences.
template <class ExecSpace, class PointsX, class PointsY>
DistributedBlockSparsity<typename ExecSpace::memory_space> block_sparse_from_cutoff(
    MPI_Comm comm, const ExecSpace& space, const PointsX& x, const PointsY& y, double voxel_size,
    double cutoff) {
  using Mem = typename ExecSpace::memory_space;
  using T   = typename PointsX::non_const_value_type;
  static_assert(PointsX::rank == 2 && PointsY::rank == 2,
                "tessera::mpi::block_sparse_from_cutoff: points are (rows, dim) Views");
  const char* fn = "mpi::block_sparse_from_cutoff";
  const tessera::Impl::ProfilingRegion region("tessera::", fn);
  Impl::require_communicator(comm, fn);
  const int dim = static_cast<int>(x.extent(1));

  // Each rank clusters and sorts its own clouds (errors agreed before any exchange).
  DistributedBlockSparsity<Mem> pattern;
  std::vector<std::int64_t> own{0, 0, 0, 0};  // i-clusters, i-rows, j-clusters, j-rows
  ClusterSummary<T, Mem> sx, sy;
  Impl::LocalVerdict verdict;
  try {
    tessera::Impl::require_equal(fn, "y", "dimension", y.extent(1), x.extent(1));
    tessera::Impl::require(cutoff >= 0, fn, "cutoff must be >= 0 (got ", cutoff, ")");
    const auto lx  = grid_cluster(space, x, voxel_size);
    pattern.perm_x = sort_clusters(space, lx.labels, x);
    sx             = cluster_ranges_centroids(space, x, lx.labels);
    const auto ly  = grid_cluster(space, y, voxel_size);
    pattern.perm_y = sort_clusters(space, ly.labels, y);
    sy             = cluster_ranges_centroids(space, y, ly.labels);
    own            = {sx.count(), static_cast<std::int64_t>(x.extent(0)), sy.count(),
                      static_cast<std::int64_t>(y.extent(0))};
  } catch (...) {
    verdict = Impl::LocalVerdict::from_current_exception();
  }
  const auto counts = Impl::agree(comm, fn, verdict, {{"the points' dimension", dim}}, own);
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  // Every rank's cluster summaries, then each axis's kept clusters.
  std::vector<int> x_clusters(size), x_rows(size), y_clusters(size), y_rows(size);
  for (int r = 0; r < size; ++r) {
    x_clusters[r] = static_cast<int>(counts[4 * r]);
    x_rows[r]     = static_cast<int>(counts[4 * r + 1]);
    y_clusters[r] = static_cast<int>(counts[4 * r + 2]);
    y_rows[r]     = static_cast<int>(counts[4 * r + 3]);
  }
  const auto all_x = Impl::gather_clusters(comm, sx, dim, x_clusters, x_rows);
  const auto all_y = Impl::gather_clusters(comm, sy, dim, y_clusters, y_rows);
  pattern.over_j   = Impl::reduced_rows(comm, space, sx, all_y, rank, dim, false, cutoff);
  pattern.over_i   = Impl::reduced_rows(comm, space, sy, all_x, rank, dim, true, cutoff);
  return pattern;
}

}  // namespace mpi
}  // namespace tessera
