// Clustering helpers for block-sparse reductions (KeOps' grid_cluster, sort_clusters and
// cluster_ranges_centroids), all Kokkos kernels on the given execution space instance: bin points
// into voxels, sort them so that each cluster is contiguous, and summarise each cluster by its
// index range, centroid, weight and radius (the inputs of cluster_mask.hpp).
//
//   auto g    = tessera::grid_cluster(space, x, voxel);                // label per point
//   auto perm = tessera::sort_clusters(space, g.labels, x, other);      // sorted by label
//   auto s    = tessera::cluster_ranges_centroids(space, x, g.labels);  // per-cluster summary
//   ... reduce on the sorted data, then tessera::unpermute_rows(space, perm, result, original);
#pragma once

#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/cluster/impl/cluster_summary.hpp>
#include <tessera/cluster/impl/label_sort.hpp>
#include <tessera/cluster/impl/move_rows.hpp>
#include <tessera/cluster/impl/point_checks.hpp>
#include <tessera/cluster/impl/voxel_grid.hpp>
#include <tessera/cluster/permute_rows.hpp>
#include <tessera/core/impl/block_sparse_axis.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/sort_view.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tessera {

/// A cluster label per point, in [0, count), and the number of clusters (grid_cluster).
template <class MemorySpace>
struct ClusterLabels {
  Kokkos::View<int*, MemorySpace> labels;  ///< (n) the cluster of each point, in [0, count)
  int count = 0;                           ///< number of clusters (occupied voxels)
};

/// Per-cluster summary of a cloud sorted by cluster (cluster_ranges_centroids); C = count().
template <class T, class MemorySpace>
struct ClusterSummary {
  IndexRanges<MemorySpace> ranges;  ///< (C, 2): [first, one past the last) index of the cluster
  Kokkos::View<T**, Kokkos::LayoutRight, MemorySpace> centroids;  ///< (C, D) weighted means
  Kokkos::View<T*, MemorySpace> weights;  ///< (C) sums of the weights (sizes if unweighted)
  Kokkos::View<T*, MemorySpace> radii;    ///< (C) largest |x - centroid| over the cluster
  /// Number of clusters C (the rows of ranges).
  int count() const { return static_cast<int>(ranges.extent(0)); }
};

/// Labels each point by its voxel. Point x falls in the voxel of integer coordinates
///   v_d = floor((x_d - min_d) / voxel_size),  d in [0, D),
/// with min_d the smallest coordinate d over the points; labels(i) is the rank of point i's
/// voxel among the occupied voxels in lexicographic order of (v_0, ..., v_{D-1}) (first
/// dimension most significant), so labels lie in [0, count) and count is the number of occupied
/// voxels. n == 0 gives count 0 and an empty labels View.
/// Pre-conditions: points is an (n, D) View of float or double, any layout, accessible from
/// `space`, n <= INT_MAX; voxel_size > 0 and finite, and every coordinate finite (checked:
/// std::invalid_argument); the grid over the bounding box has at most 2^62 voxels (checked:
/// std::length_error naming voxel_size).
/// Complexity: O(n D) work plus one sort of n 64-bit keys; O(n) temporary memory (three int64
/// arrays). Fences (count is a host value); the last kernel (the labels) may still be running
/// when the function returns, ordered on `space`.
template <class ExecSpace, class Points>
ClusterLabels<typename ExecSpace::memory_space> grid_cluster(const ExecSpace& space,
                                                             const Points& points,
                                                             double voxel_size) {
  const Impl::ProfilingRegion region("tessera::cluster::grid_cluster");
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tessera::grid_cluster: the first argument must be an execution space");
  using Mem      = typename ExecSpace::memory_space;
  using T        = typename Points::non_const_value_type;
  using Policy   = Kokkos::RangePolicy<ExecSpace>;
  const char* fn = "grid_cluster";
  Impl::check_points<ExecSpace, Points>(fn);
  Impl::require(voxel_size > 0 && std::isfinite(voxel_size), fn,
                "voxel_size must be positive and finite (got ", voxel_size,
                ", expected a finite value > 0)");
  Impl::require_int_extent(fn, "points", points.extent(0));
  Impl::require_int_extent(fn, "points columns", points.extent(1));
  const int n   = static_cast<int>(points.extent(0));
  const int dim = static_cast<int>(points.extent(1));
  ClusterLabels<Mem> result;
  result.labels =
      Kokkos::View<int*, Mem>(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                                 std::string("tessera::cluster::labels")),
                              n);
  if (n == 0) return result;

  int first = std::numeric_limits<int>::max();
  Kokkos::parallel_reduce("tessera::cluster::check_points_finite", Policy(space, 0, n),
                          Impl::FirstNonFinitePoint<Points>{points, dim}, Kokkos::Min<int>(first));
  Impl::require(first == std::numeric_limits<int>::max(), fn,
                "points must have finite coordinates (got a NaN or infinite "
                "coordinate in row ",
                first, ")");

  // Bounding box and voxel grid, on the host (dim values); strides row-major.
  const auto small = [&](const char* label) {
    return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label));
  };
  Kokkos::View<double*, Mem> origin(small("tessera::cluster::grid_origin"), dim);
  Kokkos::View<std::int64_t*, Mem> cells(small("tessera::cluster::grid_cells"), dim);
  Kokkos::View<std::int64_t*, Mem> stride(small("tessera::cluster::grid_strides"), dim);
  auto h_origin          = Kokkos::create_mirror_view(origin);
  auto h_cells           = Kokkos::create_mirror_view(cells);
  auto h_stride          = Kokkos::create_mirror_view(stride);
  constexpr double limit = 4611686018427387904.0;  // 2^62
  std::int64_t voxels    = 1;
  double voxels_estimate = 1;  // for the message only
  bool too_many          = false;
  for (int c = 0; c < dim; ++c) {
    Kokkos::MinMaxScalar<T> bounds;
    Kokkos::parallel_reduce("tessera::cluster::grid_bounds", Policy(space, 0, n),
                            Impl::CoordinateBounds<Points, T>{points, c},
                            Kokkos::MinMax<T, Kokkos::HostSpace>(bounds));
    h_origin(c) = static_cast<double>(bounds.min_val);
    // the largest voxel coordinate is that of the maximum, computed as in VoxelIds
    const double top =
        std::floor((static_cast<double>(bounds.max_val) - h_origin(c)) / voxel_size) + 1;
    voxels_estimate *= top;
    if (too_many || !(top <= limit) ||
        static_cast<std::int64_t>(top) > static_cast<std::int64_t>(limit) / voxels) {
      too_many = true;
      continue;
    }
    h_cells(c) = static_cast<std::int64_t>(top);
    voxels *= h_cells(c);
  }
  if (too_many) {
    throw std::length_error(Impl::concat("tessera::grid_cluster: voxel_size ", voxel_size,
                                         " is too small for the bounding box of the points (got ",
                                         voxels_estimate, " voxels, expected at most 2^62)"));
  }
  std::int64_t step = 1;
  for (int c = dim - 1; c >= 0; --c) {
    h_stride(c) = step;
    step *= h_cells(c);
  }
  Kokkos::deep_copy(space, origin, h_origin);
  Kokkos::deep_copy(space, cells, h_cells);
  Kokkos::deep_copy(space, stride, h_stride);

  // Voxel ids, their sorted distinct values, and each point's rank among them.
  Kokkos::View<std::int64_t*, Mem> ids(small("tessera::cluster::voxel_ids"), n);
  Kokkos::parallel_for(
      "tessera::cluster::voxel_ids", Policy(space, 0, n),
      Impl::VoxelIds<Points, Mem>{points, origin, cells, stride, ids, voxel_size, dim});
  Kokkos::View<std::int64_t*, Mem> sorted(small("tessera::cluster::sorted_voxel_ids"), n);
  Kokkos::deep_copy(space, sorted, ids);
  Impl::sort_view(space, sorted);
  Kokkos::View<std::int64_t*, Mem> unique(small("tessera::cluster::voxels"), n);
  int count = 0;
  Kokkos::parallel_scan("tessera::cluster::unique_voxels", Policy(space, 0, n),
                        Impl::UniqueSorted<Mem>{sorted, unique}, count);
  Kokkos::parallel_for("tessera::cluster::voxel_labels", Policy(space, 0, n),
                       Impl::RankOfIds<Mem>{ids, unique, result.labels, count});
  result.count = count;
  return result;
}

/// Sorts points by cluster. Computes the stable permutation perm that sorts `labels`
/// (perm(k) = original index of the point that lands at position k; equal labels keep their
/// index order), sorts `labels` in place, and applies permute_rows(space, perm, v) to every View
/// v of `views`: v_new(k, :) = v_old(perm(k), :). Returns perm, so results computed on the sorted
/// data go back to the original order with unpermute_rows(space, perm, sorted_result, result).
/// Pre-conditions: labels is a rank-1 View of int, n = labels.extent(0) <= INT_MAX values >= 0;
/// each View of `views` is rank 1 or 2 (any layout, trivially copyable non-const type) with
/// extent(0) == n; all accessible from `space`; they must not alias labels or one another. All
/// of it is checked (std::invalid_argument, or std::length_error for n > INT_MAX) before
/// anything is modified.
/// Complexity: one sort of n 64-bit keys (labels(i) * n + i, which fits: both factors are below
/// 2^31) plus O(n * width) work and a temporary copy per View. Fences once (the label check).
template <class ExecSpace, class Labels, class... Views>
Kokkos::View<int*, typename ExecSpace::memory_space> sort_clusters(const ExecSpace& space,
                                                                   const Labels& labels,
                                                                   const Views&... views) {
  const Impl::ProfilingRegion region("tessera::cluster::sort_clusters");
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tessera::sort_clusters: the first argument must be an execution space");
  using Mem      = typename ExecSpace::memory_space;
  using Policy   = Kokkos::RangePolicy<ExecSpace>;
  const char* fn = "sort_clusters";
  static_assert(Kokkos::is_view<Labels>::value && Labels::rank == 1 &&
                    std::is_same<typename Labels::value_type, int>::value,
                "tessera::sort_clusters: labels is a rank-1 View of (non-const) int");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Labels::memory_space>::accessible,
                "tessera::sort_clusters: labels must be accessible from the execution space");
  static_assert(((Views::rank == 1 || Views::rank == 2) && ...),
                "tessera::sort_clusters: the Views to permute are rank 1 or rank 2");
  static_assert((!std::is_const<typename Views::value_type>::value && ...),
                "tessera::sort_clusters: the Views are permuted in place: they cannot be const");
  static_assert(
      (Kokkos::SpaceAccessibility<ExecSpace, typename Views::memory_space>::accessible && ...),
      "tessera::sort_clusters: the Views must be accessible from the execution space");
  (Impl::check_row_view<Views>(fn), ...);
  Impl::require_int_extent(fn, "labels", labels.extent(0));
  int v = 0;  // numbers the Views in the messages
  (void)v;
  (Impl::require_equal(fn, Impl::concat("views[", v++, "]"), "rows", views.extent(0),
                       labels.extent(0)),
   ...);
  (Impl::require_int_extent(fn, "view columns", Impl::row_width(views)), ...);
  Impl::require_views_apart(fn, labels, views...);
  const int n = static_cast<int>(labels.extent(0));
  Kokkos::View<int*, Mem> perm(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                                  std::string("tessera::cluster::cluster_perm")),
                               n);
  if (n == 0) return perm;
  int smallest = 0;
  Kokkos::parallel_reduce("tessera::cluster::check_labels", Policy(space, 0, n),
                          Impl::MinLabel<Labels>{labels}, Kokkos::Min<int>(smallest));
  Impl::require(smallest >= 0, fn, "labels must be >= 0 (got min ", smallest, ", expected >= 0)");

  Kokkos::View<std::int64_t*, Mem> keys(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                         std::string("tessera::cluster::cluster_keys")),
      n);
  Kokkos::parallel_for("tessera::cluster::cluster_keys", Policy(space, 0, n),
                       Impl::StableSortKeys<Labels, Mem>{labels, keys, n});
  Impl::sort_view(space, keys);
  Kokkos::parallel_for("tessera::cluster::cluster_perm", Policy(space, 0, n),
                       Impl::SplitSortKeys<Labels, Mem>{keys, perm, labels, n});
  (Impl::gather_rows_in_place(space, perm, views), ...);
  return perm;
}

/// Summarises the clusters of a cloud sorted by cluster (sort_clusters). With C = labels(n-1) + 1
/// (0 if n == 0), for each cluster c in [0, C):
///   ranges(c)       = [first index with label c, one past the last); a label that does not
///                     occur gets the empty range [p, p) at the position p where it would be, so
///                     the ranges partition [0, n) in order;
///   weights(c)      = sum_{i in c} w_i (the cluster's size without weights);
///   centroids(c, :) = sum_{i in c} w_i x_i / weights(c); the plain mean if weights(c) == 0,
///                     0 for an empty cluster;
///   radii(c)        = max_{i in c} |x_i - centroids(c, :)| (Euclidean, from the stored centroid,
///                     rounded up to T; 0 for an empty cluster), so every point lies in its
///                     cluster's ball and centroid distances give guaranteed bounds.
/// Sums are taken in double, one team per cluster with TeamThreadRange reductions (a huge
/// cluster is spread over a team; no atomics: deterministic for a given backend).
/// Pre-conditions: points is an (n, D) View of float or double, any layout, n <= INT_MAX; labels
/// a rank-1 int View of n values, >= 0 and sorted non-decreasing; weights (this overload) a
/// rank-1 View of n values >= 0. All accessible from `space`; all checked (std::invalid_argument)
/// before any output is allocated.
/// Complexity: O(n D + C log n) work in two kernels after the checks; O(C D) output memory.
/// Fences (C is a host value): the checks and the reading of the last label.
template <class ExecSpace, class Points, class Labels, class Weights>
ClusterSummary<typename Points::non_const_value_type, typename ExecSpace::memory_space>
cluster_ranges_centroids(const ExecSpace& space, const Points& points, const Labels& labels,
                         const Weights& weights) {
  const Impl::ProfilingRegion region("tessera::cluster::cluster_ranges_centroids");
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tessera::cluster_ranges_centroids: the first argument must be an execution space");
  static_assert(Kokkos::is_view<Weights>::value && Weights::rank == 1 &&
                    std::is_same<typename Weights::non_const_value_type,
                                 typename Points::non_const_value_type>::value,
                "tessera::cluster_ranges_centroids: weights is a rank-1 View of the points' "
                "scalar type");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Weights::memory_space>::accessible,
                "tessera::cluster_ranges_centroids: weights must be accessible from the "
                "execution space");
  const int count = Impl::check_summary_arguments(space, points, labels, &weights);
  return Impl::summarise_clusters(space, points, labels, Impl::WeightsOf<Weights>{weights},
                                  static_cast<int>(points.extent(0)), count);
}

/// cluster_ranges_centroids with unit weights: centroids are plain means and weights(c) is the
/// size of cluster c. Same pre-conditions (without weights), complexity and fence.
template <class ExecSpace, class Points, class Labels>
ClusterSummary<typename Points::non_const_value_type, typename ExecSpace::memory_space>
cluster_ranges_centroids(const ExecSpace& space, const Points& points, const Labels& labels) {
  const Impl::ProfilingRegion region("tessera::cluster::cluster_ranges_centroids");
  static_assert(Kokkos::is_execution_space<ExecSpace>::value,
                "tessera::cluster_ranges_centroids: the first argument must be an execution space");
  using NoWeights =
      Kokkos::View<const typename Points::non_const_value_type*, typename ExecSpace::memory_space>;
  const int count =
      Impl::check_summary_arguments(space, points, labels, static_cast<const NoWeights*>(nullptr));
  return Impl::summarise_clusters(space, points, labels, Impl::UnitWeights{},
                                  static_cast<int>(points.extent(0)), count);
}

}  // namespace tessera
