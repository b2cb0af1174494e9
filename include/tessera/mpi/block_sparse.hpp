// tessera::mpi::block_sparse_from_cutoff: the block-sparsity pattern of a distributed
// interaction with a cutoff, built over every rank's clusters while only cluster summaries
// travel (centroids, radii, sizes), so that a distributed block-sparse genred (mpi/genred.hpp)
// moves only the j-clusters some local i-cluster needs.
//
//   auto pattern = tessera::mpi::block_sparse_from_cutoff(comm, space, x_r, y_r, voxel, cutoff);
//   // x_r and y_r are now sorted by cluster (pattern.perm_x / perm_y map back); sort the other
//   // per-point Views with permute_rows, then
//   tessera::mpi::genred(comm, space, tessera::Sum{}, kernel, tessera::i_vars(x_r),
//                        tessera::j_vars(y_r, b_r), out_r, pattern);
//
// Each rank clusters its own clouds as the single-rank block_sparse_from_cutoff does (voxels of
// `voxel_size`, sorted in place). The ranks allgather their j-clusters' summaries; each rank keeps
// the pairs of its i-clusters and every rank's j-clusters whose bounding balls come within
// `cutoff`, and asks each rank for the j-clusters it keeps. Its reduced rows are then the
// assembled rows: the kept j-clusters of rank 0, then of rank 1, ..., each in its rank's sorted
// order. Reduced indices refer to the whole sorted j-range: the ranks' sorted j-rows in rank
// order.
#pragma once

#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/cluster/cluster_mask.hpp>
#include <tessera/cluster/clustering.hpp>
#include <tessera/core/errors.hpp>
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

/// The pattern of a distributed block-sparse call on one rank (see the file comment).
template <class MemorySpace>
struct DistributedBlockSparsity {
  using memory_space = MemorySpace;  ///< Where the pattern's Views live.
  /// The pattern over the rank's sorted i-rows and its assembled j-rows.
  BlockSparseRanges<MemorySpace> ranges;
  Kokkos::View<int*, MemorySpace> perm_x;  ///< sorted i-row k is the caller's row perm_x(k)
  Kokkos::View<int*, MemorySpace> perm_y;  ///< sorted j-row k is the caller's row perm_y(k)
  int local_rows = 0;  ///< the rank's j-rows (the pattern is for a j-slice of this size)
  /// The rank's sorted j-rows every rank asked for, destination after destination.
  Kokkos::View<int*, MemorySpace> send_rows;
  std::vector<int> send_counts;   ///< rows sent to each rank
  std::vector<int> send_offsets;  ///< each rank's first entry of send_rows
  std::vector<int> recv_counts;   ///< rows received from each rank
  std::vector<int> recv_offsets;  ///< each rank's first assembled row
  /// Assembled j-row -> its row in the whole sorted j-range (the ranks' sorted rows in rank order).
  Kokkos::View<int*, MemorySpace> global_rows;
  /// The reduced rows of the rank's calls: the j-rows it assembles from every rank.
  int assembled_rows() const {
    return recv_offsets.empty() ? 0 : recv_offsets.back() + recv_counts.back();
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

/// mask(:, columns(c)) for each c: the kept columns of a mask, side by side.
template <class ExecSpace, class Mask, class Columns>
Kokkos::View<bool**, typename ExecSpace::memory_space> mask_columns(const ExecSpace& space,
                                                                    const Mask& mask,
                                                                    const Columns& columns) {
  Kokkos::View<bool**, typename ExecSpace::memory_space> out("tessera::mpi::kept_mask",
                                                             mask.extent(0), columns.extent(0));
  Kokkos::parallel_for(
      "tessera::mpi::kept_mask",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(
          space, {0, 0}, {static_cast<long>(mask.extent(0)), static_cast<long>(columns.extent(0))}),
      KOKKOS_LAMBDA(long a, long c) { out(a, c) = mask(a, columns(c)); });
  return out;
}

/// A host vector as a View in MemorySpace.
template <class MemorySpace, class Value>
Kokkos::View<Value*, MemorySpace> to_view(const char* label, const std::vector<Value>& v) {
  Kokkos::View<Value*, Kokkos::HostSpace> h(std::string(label), v.size());
  for (std::size_t e = 0; e < v.size(); ++e)
    h(e) = v[e];
  return Kokkos::create_mirror_view_and_copy(MemorySpace(), h);
}

}  // namespace Impl

/// Sorts each rank's clouds x (M_r, D) and y (N_r, D) in place by voxels of side `voxel_size`
/// and returns the rank's pattern (see the file comment): every pair (i, j) of the whole clouds
/// with |x_i - y_j| <= cutoff is kept. Collective over comm. Throws, on every rank alike,
/// std::invalid_argument for mismatched dimensions (on a rank, or between ranks), voxel_size
/// <= 0, cutoff < 0 or NaN coordinates. Work per rank: the single-rank builder's on its clouds,
/// plus O(C_x * C_y) for its i-clusters against every rank's j-clusters (C_y of all ranks);
/// messages: every rank's j-cluster summaries (allgather), then the kept clusters' ids
/// (alltoall). Fences.
template <class ExecSpace, class PointsX, class PointsY>
DistributedBlockSparsity<typename ExecSpace::memory_space> block_sparse_from_cutoff(
    MPI_Comm comm, const ExecSpace& space, const PointsX& x, const PointsY& y, double voxel_size,
    double cutoff) {
  using Mem = typename ExecSpace::memory_space;
  using T   = typename PointsX::non_const_value_type;
  static_assert(PointsX::rank == 2 && PointsY::rank == 2,
                "tessera::mpi::block_sparse_from_cutoff: points are (rows, dim) Views");
  const char* fn = "mpi::block_sparse_from_cutoff";
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int dim = static_cast<int>(x.extent(1));

  // 1. Each rank clusters and sorts its own clouds (errors agreed before any exchange).
  DistributedBlockSparsity<Mem> pattern;
  std::vector<std::int64_t> own{0, 0};  // j-clusters, j-rows
  ClusterSummary<T, Mem> sx, sy;
  Impl::LocalVerdict verdict;
  try {
    tessera::Impl::require_equal(fn, "y", "dimension", y.extent(1), x.extent(1));
    tessera::Impl::require(cutoff >= 0, fn, "cutoff must be >= 0 (got ", cutoff, ")");
    const auto lx      = grid_cluster(space, x, voxel_size);
    pattern.perm_x     = sort_clusters(space, lx.labels, x);
    sx                 = cluster_ranges_centroids(space, x, lx.labels);
    const auto ly      = grid_cluster(space, y, voxel_size);
    pattern.perm_y     = sort_clusters(space, ly.labels, y);
    sy                 = cluster_ranges_centroids(space, y, ly.labels);
    pattern.local_rows = static_cast<int>(y.extent(0));
    own                = {sy.count(), static_cast<std::int64_t>(y.extent(0))};
  } catch (...) {
    verdict = Impl::LocalVerdict::from_current_exception();
  }
  const auto counts = Impl::agree(comm, fn, verdict, {{"the points' dimension", dim}}, own);

  // 2. Every rank's j-cluster summaries: centroids, radii, ranges (in its own sorted rows).
  std::vector<int> clusters(size), rows(size), cluster_start(size + 1, 0), row_start(size + 1, 0);
  for (int r = 0; r < size; ++r) {
    clusters[r]          = static_cast<int>(counts[2 * r]);
    rows[r]              = static_cast<int>(counts[2 * r + 1]);
    cluster_start[r + 1] = cluster_start[r] + clusters[r];
    row_start[r + 1]     = row_start[r] + rows[r];
  }
  const int cy = cluster_start[size];
  const auto centroids =
      Impl::allgather_items(comm, Impl::to_host_vector(sy.centroids), sy.count(), dim, clusters);
  const auto radii =
      Impl::allgather_items(comm, Impl::to_host_vector(sy.radii), sy.count(), 1, clusters);
  const auto ranges =
      Impl::allgather_items(comm, Impl::to_host_vector(sy.ranges), sy.count(), 2, clusters);

  // 3. The rank's i-clusters against every j-cluster; the j-clusters it keeps.
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> hc("centroids", cy, dim);
  for (std::size_t e = 0; e < centroids.size(); ++e)
    hc.data()[e] = centroids[e];
  const auto all_centroids = Kokkos::create_mirror_view_and_copy(Mem(), hc);
  const auto all_radii     = Impl::to_view<Mem>("radii", radii);
  const auto mask =
      mask_from_centroid_distance(space, sx.centroids, sx.radii, all_centroids, all_radii, cutoff);
  const auto kept = Impl::to_host_vector(Impl::kept_columns(space, mask));

  // 4. The assembled j-rows: the kept clusters in global order, and what to ask of each rank.
  std::vector<int> kept_ids, assembled_ranges, global_rows, asks(size, 0), asked;
  pattern.recv_counts.assign(size, 0);
  pattern.recv_offsets.assign(size, 0);
  int assembled = 0;
  for (int r = 0; r < size; ++r) {
    pattern.recv_offsets[r] = assembled;
    for (int c = cluster_start[r]; c < cluster_start[r + 1]; ++c) {
      if (!kept[c]) continue;
      const int first = ranges[2 * c], last = ranges[2 * c + 1];
      kept_ids.push_back(c);
      assembled_ranges.push_back(assembled);
      assembled_ranges.push_back(assembled + last - first);
      for (int k = first; k < last; ++k)
        global_rows.push_back(row_start[r] + k);
      assembled += last - first;
      pattern.recv_counts[r] += last - first;
      ++asks[r];
      asked.push_back(c - cluster_start[r]);
    }
  }
  const auto columns = Impl::to_view<Mem>("kept_clusters", kept_ids);
  Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace> hr("assembled_ranges",
                                                                 kept_ids.size(), 2);
  for (std::size_t e = 0; e < assembled_ranges.size(); ++e)
    hr.data()[e] = assembled_ranges[e];
  pattern.ranges      = ranges_from_mask(space, Impl::mask_columns(space, mask, columns), sx.ranges,
                                         Kokkos::create_mirror_view_and_copy(Mem(), hr));
  pattern.global_rows = Impl::to_view<Mem>("tessera::mpi::global_rows", global_rows);

  // 5. Each rank learns which of its clusters every rank asks for, and sends their rows.
  std::vector<int> asked_of_me(size), ask_offsets(size, 0), told_offsets(size, 0);
  Impl::check_mpi(MPI_Alltoall(asks.data(), 1, MPI_INT, asked_of_me.data(), 1, MPI_INT, comm),
                  "MPI_Alltoall");
  int told = 0;
  for (int r = 0, a = 0; r < size; ++r) {
    ask_offsets[r]  = a;
    told_offsets[r] = told;
    a += asks[r];
    told += asked_of_me[r];
  }
  std::vector<int> requests(told);
  Impl::check_mpi(
      MPI_Alltoallv(asked.data(), asks.data(), ask_offsets.data(), MPI_INT, requests.data(),
                    asked_of_me.data(), told_offsets.data(), MPI_INT, comm),
      "MPI_Alltoallv");
  std::vector<int> send_rows;
  pattern.send_counts.assign(size, 0);
  pattern.send_offsets.assign(size, 0);
  for (int d = 0; d < size; ++d) {
    pattern.send_offsets[d] = static_cast<int>(send_rows.size());
    for (int q = told_offsets[d]; q < told_offsets[d] + asked_of_me[d]; ++q) {
      const int c = cluster_start[rank] + requests[q];
      for (int k = ranges[2 * c]; k < ranges[2 * c + 1]; ++k)
        send_rows.push_back(k);
    }
    pattern.send_counts[d] = static_cast<int>(send_rows.size()) - pattern.send_offsets[d];
  }
  pattern.send_rows = Impl::to_view<Mem>("tessera::mpi::send_rows", send_rows);
  return pattern;
}

}  // namespace mpi
}  // namespace tessera
