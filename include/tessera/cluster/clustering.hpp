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

#include <tessera/core/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/memory_overlap.hpp>
#include <tessera/core/sort_view.hpp>
#include <tessera/core/sorted_search.hpp>
#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/cluster/permute_rows.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
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

namespace Impl {

template <class ExecSpace, class Points>
void check_points(const char* fn) {
  static_assert(Kokkos::is_view<Points>::value && Points::rank == 2,
                "tessera: points are a rank-2 Kokkos View (rows, dimension)");
  static_assert(std::is_same<typename Points::non_const_value_type, float>::value ||
                    std::is_same<typename Points::non_const_value_type, double>::value,
                "tessera: points hold float or double");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Points::memory_space>::accessible,
                "tessera: the points must be accessible from the execution space");
  (void)fn;
}

/// Index of the first point with a NaN or infinite coordinate (INT_MAX if none).
template <class Points>
struct FirstNonFinitePoint {
  Points points;
  int dim;
  KOKKOS_FUNCTION void operator()(int i, int& first) const {
    for (int c = 0; c < dim; ++c) {
      const double x = static_cast<double>(points(i, c));
      if (!(x - x == 0.0)) {  // NaN - NaN and inf - inf are NaN
        if (i < first) first = i;
        return;
      }
    }
  }
};

/// Smallest and largest coordinate along one dimension.
template <class Points, class T>
struct CoordinateBounds {
  Points points;
  int c;
  KOKKOS_FUNCTION void operator()(int i, Kokkos::MinMaxScalar<T>& b) const {
    const T x = points(i, c);
    if (x < b.min_val) b.min_val = x;
    if (x > b.max_val) b.max_val = x;
  }
};

/// Linear voxel id of each point (row-major over the grid: first dimension most significant).
template <class Points, class MemorySpace>
struct VoxelIds {
  Points points;
  Kokkos::View<const double*, MemorySpace> origin;        // per-dimension minimum
  Kokkos::View<const std::int64_t*, MemorySpace> cells;   // voxels per dimension
  Kokkos::View<const std::int64_t*, MemorySpace> stride;  // id step per dimension
  Kokkos::View<std::int64_t*, MemorySpace> ids;
  double voxel_size;
  int dim;
  KOKKOS_FUNCTION void operator()(int i) const {
    std::int64_t id = 0;
    for (int c = 0; c < dim; ++c) {
      const double q    = math::floor((static_cast<double>(points(i, c)) - origin(c)) / voxel_size);
      std::int64_t cell = static_cast<std::int64_t>(q);
      cell = cell < 0 ? 0 : (cell >= cells(c) ? cells(c) - 1 : cell);  // guard only: q is in range
      id += cell * stride(c);
    }
    ids(i) = id;
  }
};

/// Writes each distinct value of a sorted array once, in order; the scan total is their number.
template <class MemorySpace>
struct UniqueSorted {
  using value_type = int;
  Kokkos::View<const std::int64_t*, MemorySpace> sorted;
  Kokkos::View<std::int64_t*, MemorySpace> unique;
  KOKKOS_FUNCTION void operator()(int t, int& position, bool final) const {
    if (t == 0 || sorted(t) != sorted(t - 1)) {
      if (final) unique(position) = sorted(t);
      ++position;
    }
  }
};

/// labels(i) = rank of ids(i) among the sorted distinct ids.
template <class MemorySpace>
struct RankOfIds {
  Kokkos::View<const std::int64_t*, MemorySpace> ids;
  Kokkos::View<const std::int64_t*, MemorySpace> unique;
  Kokkos::View<int*, MemorySpace> labels;
  int count;
  KOKKOS_FUNCTION void operator()(int i) const {
    labels(i) = lower_bound(unique.data(), count, ids(i));
  }
};

/// Smallest label.
template <class Labels>
struct MinLabel {
  Labels labels;
  KOKKOS_FUNCTION void operator()(int i, int& m) const {
    if (labels(i) < m) m = labels(i);
  }
};

/// keys(i) = labels(i) * n + i: sorting them sorts by label, ties in index order.
template <class Labels, class MemorySpace>
struct StableSortKeys {
  Labels labels;
  Kokkos::View<std::int64_t*, MemorySpace> keys;
  std::int64_t n;
  KOKKOS_FUNCTION void operator()(int i) const {
    keys(i) = static_cast<std::int64_t>(labels(i)) * n + i;
  }
};

/// Splits the sorted keys back into the permutation and the sorted labels.
template <class Labels, class MemorySpace>
struct SplitSortKeys {
  Kokkos::View<const std::int64_t*, MemorySpace> keys;
  Kokkos::View<int*, MemorySpace> perm;
  Labels labels;
  std::int64_t n;
  KOKKOS_FUNCTION void operator()(int k) const {
    perm(k)   = static_cast<int>(keys(k) % n);
    labels(k) = static_cast<int>(keys(k) / n);
  }
};

/// First index i with labels(i) < 0 or labels(i) < labels(i - 1) (INT_MAX if none).
template <class Labels>
struct FirstUnsortedLabel {
  Labels labels;
  KOKKOS_FUNCTION void operator()(int i, int& first) const {
    if (labels(i) < 0 || (i > 0 && labels(i) < labels(i - 1))) {
      if (i < first) first = i;
    }
  }
};

/// First index i with weights(i) negative or NaN (INT_MAX if none).
template <class Weights>
struct FirstBadWeight {
  Weights weights;
  KOKKOS_FUNCTION void operator()(int i, int& first) const {
    if (!(weights(i) >= 0) && i < first) first = i;
  }
};

/// ranges(c) = [lower_bound(c), lower_bound(c + 1)) in the sorted labels.
template <class Labels, class MemorySpace>
struct ClusterRanges {
  Labels labels;
  IndexRanges<MemorySpace> ranges;
  int n;
  KOKKOS_FUNCTION int lower(std::int64_t value) const {
    int lo = 0, hi = n;
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(labels(mid)) < value) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }
  KOKKOS_FUNCTION void operator()(int c) const {
    ranges(c, 0) = lower(c);
    ranges(c, 1) = lower(static_cast<std::int64_t>(c) + 1);
  }
};

/// Unit weights (cluster_ranges_centroids without weights).
struct UnitWeights {
  KOKKOS_FORCEINLINE_FUNCTION double operator()(int) const { return 1.0; }
};
template <class Weights>
struct WeightsOf {
  Weights weights;
  KOKKOS_FORCEINLINE_FUNCTION double operator()(int i) const {
    return static_cast<double>(weights(i));
  }
};

/// One team per cluster: weight sum, weighted centroid and radius over the cluster's range, with
/// TeamThreadRange reductions in double (deterministic for a given team size; no atomics).
template <class ExecSpace, class Points, class Weight, class T>
struct SummariseClusters {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Mem         = typename ExecSpace::memory_space;
  Points points;
  Weight weight;
  IndexRanges<Mem> ranges;
  Kokkos::View<T**, Kokkos::LayoutRight, Mem> centroids;
  Kokkos::View<T*, Mem> weights;
  Kokkos::View<T*, Mem> radii;
  double epsilon;  // of T: rounds the radius up
  int dim;

  KOKKOS_FUNCTION void operator()(const member_type& team) const {
    const int c     = team.league_rank();
    const int begin = ranges(c, 0), end = ranges(c, 1);
    double wsum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, begin, end), [&](int i, double& s) { s += weight(i); }, wsum);
    const bool weighted = wsum > 0;  // else the plain mean (0 for an empty cluster)
    const double total  = weighted ? wsum : static_cast<double>(end - begin);
    for (int k = 0; k < dim; ++k) {
      double sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamThreadRange(team, begin, end),
          [&](int i, double& s) {
            s += (weighted ? weight(i) : 1.0) * static_cast<double>(points(i, k));
          },
          sum);
      Kokkos::single(Kokkos::PerTeam(team),
                     [&]() { centroids(c, k) = static_cast<T>(total > 0 ? sum / total : 0.0); });
    }
    team.team_barrier();  // the radius is measured from the stored (rounded) centroid
    double r2 = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, begin, end),
        [&](int i, double& m) {
          double s = 0;
          for (int k = 0; k < dim; ++k) {
            const double d =
                static_cast<double>(points(i, k)) - static_cast<double>(centroids(c, k));
            s += d * d;
          }
          if (s > m) m = s;
        },
        Kokkos::Max<double>(r2));
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      const double r = end > begin ? math::sqrt(r2) : 0.0;
      T rounded      = static_cast<T>(r);
      if (static_cast<double>(rounded) < r) {  // round up: every point stays inside its ball
        rounded = static_cast<T>(static_cast<double>(rounded) * (1.0 + epsilon));
      }
      weights(c) = static_cast<T>(wsum);
      radii(c)   = rounded;
    });
  }
};

template <class ExecSpace, class Points, class Labels, class Weight>
ClusterSummary<typename Points::non_const_value_type, typename ExecSpace::memory_space>
summarise_clusters(const ExecSpace& space, const Points& points, const Labels& labels,
                   const Weight& weight, int n, int count) {
  using Mem = typename ExecSpace::memory_space;
  using T   = typename Points::non_const_value_type;
  ClusterSummary<T, Mem> s;
  s.ranges    = IndexRanges<Mem>(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                                    std::string("tessera::cluster::cluster_ranges")),
                              count);
  s.centroids = Kokkos::View<T**, Kokkos::LayoutRight, Mem>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                         std::string("tessera::cluster::cluster_centroids")),
      count, points.extent(1));
  s.weights =
      Kokkos::View<T*, Mem>(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                               std::string("tessera::cluster::cluster_weights")),
                            count);
  s.radii =
      Kokkos::View<T*, Mem>(Kokkos::view_alloc(space, Kokkos::WithoutInitializing,
                                               std::string("tessera::cluster::cluster_radii")),
                            count);
  if (count == 0) return s;
  Kokkos::parallel_for("tessera::cluster::cluster_ranges",
                       Kokkos::RangePolicy<ExecSpace>(space, 0, count),
                       ClusterRanges<Labels, Mem>{labels, s.ranges, n});
  Kokkos::parallel_for("tessera::cluster::cluster_summaries",
                       Kokkos::TeamPolicy<ExecSpace>(space, count, Kokkos::AUTO),
                       SummariseClusters<ExecSpace, Points, Weight, T>{
                           points, weight, s.ranges, s.centroids, s.weights, s.radii,
                           static_cast<double>(std::numeric_limits<T>::epsilon()),
                           static_cast<int>(points.extent(1))});
  return s;
}

/// Validates points, labels (and weights) and returns the cluster count (fences).
template <class ExecSpace, class Points, class Labels, class Weights>
int check_summary_arguments(const ExecSpace& space, const Points& points, const Labels& labels,
                            const Weights* weights) {
  const char* fn = "cluster_ranges_centroids";
  check_points<ExecSpace, Points>(fn);
  static_assert(Kokkos::is_view<Labels>::value && Labels::rank == 1 &&
                    std::is_same<typename Labels::non_const_value_type, int>::value,
                "tessera::cluster_ranges_centroids: labels is a rank-1 View of int");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Labels::memory_space>::accessible,
                "tessera::cluster_ranges_centroids: labels must be accessible from the execution "
                "space");
  require_int_extent(fn, "points", points.extent(0));
  require_int_extent(fn, "points columns", points.extent(1));
  require_equal(fn, "labels", "extent", labels.extent(0), points.extent(0));
  if (weights) require_equal(fn, "weights", "extent", weights->extent(0), points.extent(0));
  const int n = static_cast<int>(points.extent(0));
  if (n == 0) return 0;

  int first = std::numeric_limits<int>::max();
  Kokkos::parallel_reduce("tessera::cluster::check_sorted_labels",
                          Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                          FirstUnsortedLabel<Labels>{labels}, Kokkos::Min<int>(first));
  if (first != std::numeric_limits<int>::max()) {
    int here = 0, before = 0;
    Kokkos::deep_copy(here, Kokkos::subview(labels, first));
    if (first > 0) Kokkos::deep_copy(before, Kokkos::subview(labels, first - 1));
    require(here >= 0, fn, "labels must be >= 0 (got labels(", first, ") = ", here, ")");
    require(false, fn,
            "labels must be sorted (non-decreasing): call sort_clusters first (got labels(", first,
            ") = ", here, " after labels(", first - 1, ") = ", before, ")");
  }
  if (weights) {
    first = std::numeric_limits<int>::max();
    Kokkos::parallel_reduce("tessera::cluster::check_weights",
                            Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                            FirstBadWeight<Weights>{*weights}, Kokkos::Min<int>(first));
    if (first != std::numeric_limits<int>::max()) {
      typename Weights::non_const_value_type w{};
      Kokkos::deep_copy(w, Kokkos::subview(*weights, first));
      require(false, fn, "weights must be >= 0 (got weights(", first, ") = ", w,
              ", expected >= 0)");
    }
  }
  int last = 0;
  Kokkos::deep_copy(last, Kokkos::subview(labels, n - 1));
  const std::size_t clusters = static_cast<std::size_t>(last) + 1;
  require_int_extent(fn, "clusters (last label + 1)", clusters);
  return static_cast<int>(clusters);
}

}  // namespace Impl

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

namespace Impl {
/// sort_clusters' Views share memory neither with labels nor with one another (views[v] in the
/// message is the v-th View after labels).
template <class Labels, class... Views>
void require_views_apart(const char* fn, const Labels& labels, const Views&... views) {
  const MemoryRange label_memory = memory_range(labels);
  const MemoryRange memory[]     = {memory_range(views)..., MemoryRange{}};
  for (std::size_t v = 0; v < sizeof...(Views); ++v) {
    require(!memory[v].overlaps(label_memory), fn, "views[", v, "] shares memory with labels");
    for (std::size_t w = v + 1; w < sizeof...(Views); ++w) {
      require(!memory[v].overlaps(memory[w]), fn, "views[", v, "] shares memory with views[", w,
              "]");
    }
  }
}
}  // namespace Impl

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
