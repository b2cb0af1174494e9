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

#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/cluster/cluster_mask.hpp>
#include <tessera/cluster/clustering.hpp>
#include <tessera/core/errors.hpp>
#include <tessera/genred/options.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/reduced_slices.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <type_traits>
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

namespace Impl {

/// Host copy of a View, as a std::vector (row-major).
template <class View>
std::vector<typename View::non_const_value_type> to_host_vector(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<typename View::non_const_value_type> out(h.size());
  for (std::size_t e = 0; e < h.size(); ++e)
    out[e] = h.data()[e];
  return out;
}

/// A host vector as a rank-1 View in MemorySpace (a copy).
template <class MemorySpace, class Value>
Kokkos::View<Value*, MemorySpace> to_view(const char* label, const std::vector<Value>& v) {
  Kokkos::View<Value*, MemorySpace> out(std::string(label), v.size());
  Kokkos::deep_copy(out, Kokkos::View<const Value*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                             v.data(), v.size()));
  return out;
}

/// A row-major host vector as a (rows, cols) LayoutRight View in MemorySpace (a copy).
template <class MemorySpace, class Value>
Kokkos::View<Value**, Kokkos::LayoutRight, MemorySpace> to_view(const char* label,
                                                                const std::vector<Value>& v,
                                                                int cols) {
  Kokkos::View<Value**, Kokkos::LayoutRight, MemorySpace> out(std::string(label), v.size() / cols,
                                                              cols);
  Kokkos::deep_copy(
      out,
      Kokkos::View<const Value**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
          v.data(), v.size() / cols, cols));
  return out;
}

/// MPI_Allgatherv of `count_per_item` values per item of each rank's `mine` (host vectors of
/// int or the scalar type).
template <class Value>
std::vector<Value> allgather_items(MPI_Comm comm, const std::vector<Value>& mine, int items,
                                   int count_per_item, const std::vector<int>& items_per_rank) {
  const int size = static_cast<int>(items_per_rank.size());
  std::vector<int> counts(size), displs(size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = items_per_rank[r] * count_per_item;
    displs[r] = total;
    total += counts[r];
  }
  std::vector<Value> all(static_cast<std::size_t>(total));
  MPI_Datatype type = MPI_INT;
  if constexpr (!std::is_same_v<Value, int>) type = mpi_scalar<Value>();
  check_mpi(MPI_Allgatherv(mine.data(), items * count_per_item, type, all.data(), counts.data(),
                           displs.data(), type, comm),
            "MPI_Allgatherv");
  return all;
}

/// Every rank's clusters of one cloud, their summaries gathered in rank order (host).
template <class T>
struct GatheredClusters {
  std::vector<int> cluster_start;  ///< rank r's clusters are [cluster_start[r], [r + 1])
  std::vector<int> row_start;      ///< rank r's rows, in the whole range: [row_start[r], [r + 1])
  std::vector<T> centroids;        ///< (C, D) row-major
  std::vector<T> radii;            ///< (C)
  std::vector<int> ranges;         ///< (C, 2) row-major, in the owning rank's sorted rows
};

/// Gathers every rank's summary of one cloud; clusters[r] and rows[r] are rank r's counts.
template <class T, class MemorySpace>
GatheredClusters<T> gather_clusters(MPI_Comm comm, const ClusterSummary<T, MemorySpace>& mine,
                                    int dim, const std::vector<int>& clusters,
                                    const std::vector<int>& rows) {
  const int size = static_cast<int>(clusters.size());
  GatheredClusters<T> all;
  all.cluster_start.assign(size + 1, 0);
  all.row_start.assign(size + 1, 0);
  for (int r = 0; r < size; ++r) {
    all.cluster_start[r + 1] = all.cluster_start[r] + clusters[r];
    all.row_start[r + 1]     = all.row_start[r] + rows[r];
  }
  all.centroids =
      allgather_items(comm, to_host_vector(mine.centroids), mine.count(), dim, clusters);
  all.radii  = allgather_items(comm, to_host_vector(mine.radii), mine.count(), 1, clusters);
  all.ranges = allgather_items(comm, to_host_vector(mine.ranges), mine.count(), 2, clusters);
  return all;
}

/// Whether each column of a (rows, cols) mask holds a kept pair.
template <class ExecSpace, class Mask>
Kokkos::View<int*, typename ExecSpace::memory_space> kept_columns(const ExecSpace& space,
                                                                  const Mask& mask) {
  const int rows = static_cast<int>(mask.extent(0));
  Kokkos::View<int*, typename ExecSpace::memory_space> kept("tessera::mpi::kept_columns",
                                                            mask.extent(1));
  Kokkos::parallel_for(
      "tessera::mpi::kept_columns",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(mask.extent(1))),
      KOKKOS_LAMBDA(int b) {
        int any = 0;
        for (int a = 0; a < rows && !any; ++a)
          any = mask(a, b) ? 1 : 0;
        kept(b) = any;
      });
  return kept;
}

/// The kept columns of a (rows, cols) mask, side by side: out(a, c) = mask(a, columns(c)), or
/// out(c, a) when `transposed`.
template <class ExecSpace, class Mask, class Columns>
Kokkos::View<bool**, typename ExecSpace::memory_space> mask_columns(const ExecSpace& space,
                                                                    const Mask& mask,
                                                                    const Columns& columns,
                                                                    bool transposed) {
  const long rows = static_cast<long>(mask.extent(0)), cols = static_cast<long>(columns.extent(0));
  Kokkos::View<bool**, typename ExecSpace::memory_space> out(
      "tessera::mpi::kept_mask", transposed ? cols : rows, transposed ? rows : cols);
  Kokkos::parallel_for(
      "tessera::mpi::kept_mask",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(long a, long c) {
        if (transposed) {
          out(c, a) = mask(a, columns(c));
        } else {
          out(a, c) = mask(a, columns(c));
        }
      });
  return out;
}

/// The reduced rows of one axis on this rank: its clusters of the output cloud (`own`, with
/// their rows `own_rows`) against every rank's clusters of the reduced cloud (`reduced`); see
/// the file comment. `reduced_is_i` for Axis::i. Collective (one alltoall, one alltoallv).
template <class ExecSpace, class T, class MemorySpace>
DistributedReducedRows<MemorySpace> reduced_rows(MPI_Comm comm, const ExecSpace& space,
                                                 const ClusterSummary<T, MemorySpace>& own,
                                                 const GatheredClusters<T>& reduced, int rank,
                                                 int dim, bool reduced_is_i, double cutoff) {
  const int size = static_cast<int>(reduced.cluster_start.size()) - 1;
  DistributedReducedRows<MemorySpace> out;
  out.local_rows = reduced.row_start[rank + 1] - reduced.row_start[rank];

  // The rank's clusters against every reduced cluster; the reduced clusters it keeps.
  const auto mask = mask_from_centroid_distance(
      space, own.centroids, own.radii, to_view<MemorySpace>("centroids", reduced.centroids, dim),
      to_view<MemorySpace>("radii", reduced.radii), cutoff);
  const auto kept = to_host_vector(kept_columns(space, mask));

  // The assembled rows: the kept clusters in global order, and what to ask of each rank.
  std::vector<int> kept_ids, assembled_ranges, global_rows, asks(size, 0), asked;
  out.recv_counts.assign(size, 0);
  out.recv_offsets.assign(size, 0);
  int assembled = 0;
  for (int r = 0; r < size; ++r) {
    out.recv_offsets[r] = assembled;
    for (int c = reduced.cluster_start[r]; c < reduced.cluster_start[r + 1]; ++c) {
      if (!kept[c]) continue;
      const int first = reduced.ranges[2 * c], last = reduced.ranges[2 * c + 1];
      kept_ids.push_back(c);
      assembled_ranges.push_back(assembled);
      assembled_ranges.push_back(assembled + last - first);
      for (int k = first; k < last; ++k)
        global_rows.push_back(reduced.row_start[r] + k);
      assembled += last - first;
      out.recv_counts[r] += last - first;
      ++asks[r];
      asked.push_back(c - reduced.cluster_start[r]);
    }
  }
  const auto kept_mask =
      mask_columns(space, mask, to_view<MemorySpace>("kept_clusters", kept_ids), reduced_is_i);
  const auto kept_ranges = to_view<MemorySpace>("assembled_ranges", assembled_ranges, 2);
  out.ranges      = reduced_is_i ? ranges_from_mask(space, kept_mask, kept_ranges, own.ranges)
                                 : ranges_from_mask(space, kept_mask, own.ranges, kept_ranges);
  out.global_rows = to_view<MemorySpace>("tessera::mpi::global_rows", global_rows);

  // Each rank learns which of its clusters every rank asks for, and sends their rows.
  std::vector<int> asked_of_me(size), ask_offsets(size, 0), told_offsets(size, 0);
  check_mpi(MPI_Alltoall(asks.data(), 1, MPI_INT, asked_of_me.data(), 1, MPI_INT, comm),
            "MPI_Alltoall");
  int told = 0;
  for (int r = 0, a = 0; r < size; ++r) {
    ask_offsets[r]  = a;
    told_offsets[r] = told;
    a += asks[r];
    told += asked_of_me[r];
  }
  std::vector<int> requests(told);
  check_mpi(MPI_Alltoallv(asked.data(), asks.data(), ask_offsets.data(), MPI_INT, requests.data(),
                          asked_of_me.data(), told_offsets.data(), MPI_INT, comm),
            "MPI_Alltoallv");
  std::vector<int> send_rows;
  out.send_counts.assign(size, 0);
  out.send_offsets.assign(size, 0);
  for (int d = 0; d < size; ++d) {
    out.send_offsets[d] = static_cast<int>(send_rows.size());
    for (int q = told_offsets[d]; q < told_offsets[d] + asked_of_me[d]; ++q) {
      const int c = reduced.cluster_start[rank] + requests[q];
      for (int k = reduced.ranges[2 * c]; k < reduced.ranges[2 * c + 1]; ++k)
        send_rows.push_back(k);
    }
    out.send_counts[d] = static_cast<int>(send_rows.size()) - out.send_offsets[d];
  }
  out.send_rows = to_view<MemorySpace>("tessera::mpi::send_rows", send_rows);
  return out;
}

}  // namespace Impl

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
