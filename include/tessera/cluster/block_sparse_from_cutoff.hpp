// The one-call route from two point clouds and an interaction cutoff to a block-sparsity
// pattern: grid clustering, sorting, cluster summaries, the centroid-distance mask and its
// ranges (clustering.hpp, cluster_mask.hpp).
#pragma once

#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/cluster/cluster_mask.hpp>
#include <tessera/cluster/clustering.hpp>
#include <tessera/core/impl/errors.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {

/// What block_sparse_from_cutoff returns: the pattern over the sorted clouds and the
/// permutations that sorted them (sorted row k is original row perm(k); apply permute_rows to
/// every other per-point View, unpermute_rows to bring results back).
template <class MemorySpace>
struct CutoffBlockSparsity {
  BlockSparseRanges<MemorySpace> ranges;   ///< The pattern over the sorted x (i) and y (j).
  Kokkos::View<int*, MemorySpace> perm_x;  ///< (M) sorted row k of x is original row perm_x(k)
  Kokkos::View<int*, MemorySpace> perm_y;  ///< (N) sorted row k of y is original row perm_y(k)
};

/// Sorts the clouds x (M, D) and y (N, D) in place by voxels of side `voxel_size`, and returns
/// a pattern keeping every pair of clusters whose bounding balls (centroid, radius) come within
/// `cutoff`: every pair (i, j) with |x_i - y_j| <= cutoff is kept, so a reduction of a kernel
/// that vanishes beyond the cutoff (SPH, truncated Gaussians) is exact. Passing the same View
/// as x and y (one cloud interacting with itself) sorts it once, and perm_y = perm_x.
/// Voxels of about the cutoff give tiles of a few clusters per row; clusters should hold at
/// least a team of points (256 on GPUs) for full speed. Throws std::invalid_argument for
/// mismatched dimensions, voxel_size <= 0, cutoff < 0 or NaN coordinates. Work O((M + N) log
/// + Cx * Cy * D); fences (the cluster counts are host values).
template <class ExecSpace, class PointsX, class PointsY>
CutoffBlockSparsity<typename ExecSpace::memory_space> block_sparse_from_cutoff(
    const ExecSpace& space, const PointsX& x, const PointsY& y, double voxel_size, double cutoff) {
  const Impl::ProfilingRegion region("tessera::cluster::block_sparse_from_cutoff");
  const char* fn = "block_sparse_from_cutoff";
  static_assert(PointsX::rank == 2 && PointsY::rank == 2,
                "tessera::block_sparse_from_cutoff: points are (rows, dim) Views");
  static_assert(std::is_same_v<typename PointsX::non_const_value_type,
                               typename PointsY::non_const_value_type>,
                "tessera::block_sparse_from_cutoff: both clouds have the same scalar type");
  Impl::require_equal(fn, "y", "dimension", y.extent(1), x.extent(1));
  Impl::require(cutoff >= 0, fn, "cutoff must be >= 0 (got ", cutoff, ")");
  CutoffBlockSparsity<typename ExecSpace::memory_space> result;
  const bool one_cloud = static_cast<const void*>(x.data()) == static_cast<const void*>(y.data()) &&
                         x.extent(0) == y.extent(0) && x.span() == y.span();
  const auto lx = grid_cluster(space, x, voxel_size);
  result.perm_x = sort_clusters(space, lx.labels, x);
  const auto sx = cluster_ranges_centroids(space, x, lx.labels);
  auto sy       = sx;
  result.perm_y = result.perm_x;
  if (!one_cloud) {
    const auto ly = grid_cluster(space, y, voxel_size);
    result.perm_y = sort_clusters(space, ly.labels, y);
    sy            = cluster_ranges_centroids(space, y, ly.labels);
  }
  const auto mask =
      mask_from_centroid_distance(space, sx.centroids, sx.radii, sy.centroids, sy.radii, cutoff);
  result.ranges = ranges_from_mask(space, mask, sx.ranges, sy.ranges);
  return result;
}

}  // namespace tessera
