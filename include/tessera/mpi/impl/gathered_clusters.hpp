// Every rank's clusters of one cloud, summarised (centroids, radii, row ranges) and gathered in
// rank order on every rank: what a rank of a distributed block-sparsity pattern
// (mpi/block_sparse.hpp) tests its own clusters against, without the points travelling.
#pragma once

#include <tessera/cluster/clustering.hpp>
#include <tessera/mpi/impl/host_vectors.hpp>

#include <mpi.h>

#include <vector>

namespace tessera {
namespace mpi {
namespace Impl {

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

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
