// The reduced rows of one axis of a distributed block-sparsity pattern on one rank
// (mpi/block_sparse.hpp): its clusters of the output cloud tested against every rank's clusters of
// the reduced cloud, the kept clusters assembled in global order, and what each rank sends for
// them. mpi/block_sparse.hpp includes this header and defines DistributedReducedRows, declared
// below.
#pragma once

#include <tessera/cluster/clustering.hpp>
#include <tessera/cluster/cluster_mask.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/gathered_clusters.hpp>
#include <tessera/mpi/impl/host_vectors.hpp>
#include <tessera/mpi/impl/kept_columns.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <vector>

namespace tessera {
namespace mpi {

/// What a rank gathers and reduces over along one axis (mpi/block_sparse.hpp).
template <class MemorySpace>
struct DistributedReducedRows;

namespace Impl {

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
}  // namespace mpi
}  // namespace tessera
