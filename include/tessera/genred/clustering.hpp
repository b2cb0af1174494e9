// Clustering helpers for block-sparse reductions (KeOps' grid_cluster, sort_clusters,
// cluster_ranges_centroids), all Kokkos kernels on the given execution space: bin points into
// voxels, sort them so that each cluster is contiguous, and summarise each cluster by its index
// range, centroid, weight and radius.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/sorted_search.hpp>
#include <tessera/genred/block_sparse_ranges.hpp>
#include <tessera/genred/permute_rows.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace tessera {

/// A cluster label per point and the number of clusters.
template <class MemorySpace>
struct ClusterLabels {
  Kokkos::View<int*, MemorySpace> labels;
  int count = 0;
};

/// Per-cluster summary of a sorted cloud (cluster_ranges_centroids).
template <class T, class MemorySpace>
struct ClusterSummary {
  IndexRanges<MemorySpace> ranges;                                ///< (C, 2) index range
  Kokkos::View<T**, Kokkos::LayoutRight, MemorySpace> centroids;  ///< (C, D) weighted mean
  Kokkos::View<T*, MemorySpace> weights;                          ///< (C) sum of weights
  Kokkos::View<T*, MemorySpace> radii;  ///< (C) largest |x - centroid| over the cluster
  int count() const { return static_cast<int>(ranges.extent(0)); }
};

namespace Impl {

template <class Points>
void check_points(const char* fn, const Points& points) {
  static_assert(Kokkos::is_view<Points>::value && Points::rank == 2,
                "tessera: points are a rank-2 View (rows, dim)");
  using T = typename Points::non_const_value_type;
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tessera: points are float or double");
  require_int_extent(fn, "points", points.extent(0));
  require(points.extent(1) >= 1, fn, "points must have at least one dimension (got 0)");
}

/// Counts the points with a NaN coordinate (fences).
template <class ExecSpace, class Points>
int count_nan_points(const ExecSpace& space, const Points& points) {
  const int d = static_cast<int>(points.extent(1));
  int nan     = 0;
  Kokkos::parallel_reduce(
      "tessera::genred::count_nan_points",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(points.extent(0))),
      KOKKOS_LAMBDA(int i, int& count) {
        bool bad = false;
        for (int c = 0; c < d; ++c)
          bad = bad || points(i, c) != points(i, c);
        count += bad;
      },
      nan);
  return nan;
}

}  // namespace Impl

/// Labels each point with its voxel: point x falls in voxel floor((x_d - min_d) / voxel_size)
/// along each dimension d (min_d over the cloud), and labels are the ranks of the occupied
/// voxels in lexicographic order (first dimension most significant), so they lie in
/// [0, count). points: (n, D) View of float or double, any layout. Throws std::invalid_argument
/// if voxel_size is not a positive finite number or a coordinate is NaN, std::length_error if
/// the grid over the bounding box has more than 2^62 voxels. Work O(n D + n log n) (a sort);
/// fences (count is a host value).
template <class ExecSpace, class Points>
ClusterLabels<typename ExecSpace::memory_space> grid_cluster(const ExecSpace& space,
                                                             const Points& points,
                                                             double voxel_size) {
  using Mem      = typename ExecSpace::memory_space;
  const char* fn = "grid_cluster";
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Points::memory_space>::accessible,
                "tessera::grid_cluster: the points must be accessible from the execution space");
  Impl::check_points(fn, points);
  Impl::require(voxel_size > 0 && std::isfinite(voxel_size), fn,
                Impl::concat("voxel_size must be positive and finite (got ", voxel_size, ")"));
  const int n = static_cast<int>(points.extent(0));
  const int d = static_cast<int>(points.extent(1));
  ClusterLabels<Mem> result;
  result.labels = Kokkos::View<int*, Mem>(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::labels"), n);
  if (n == 0) return result;
  const int nan = Impl::count_nan_points(space, points);
  Impl::require(nan == 0, fn, Impl::concat("points has ", nan, " rows with NaN coordinates"));

  // Bounding box and voxel grid (row-major strides, first dimension most significant).
  using T          = typename Points::non_const_value_type;
  const auto alloc = [&](const char* label) {
    return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label));
  };
  Kokkos::View<double*, Mem> lo(alloc("tessera::genred::grid_origin"), d);
  Kokkos::View<std::int64_t*, Mem> st(alloc("tessera::genred::grid_strides"), d);
  Kokkos::View<std::int64_t*, Mem> cl(alloc("tessera::genred::grid_cells"), d);
  auto hlo      = Kokkos::create_mirror_view(lo);
  auto hst      = Kokkos::create_mirror_view(st);
  auto hcl      = Kokkos::create_mirror_view(cl);
  double voxels = 1;
  for (int c = 0; c < d; ++c) {
    T mn = 0, mx = 0;
    Kokkos::parallel_reduce(
        "tessera::genred::grid_bounds", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(int i, T& a) { a = points(i, c) < a ? points(i, c) : a; },
        Kokkos::Min<T>(mn));
    Kokkos::parallel_reduce(
        "tessera::genred::grid_bounds", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(int i, T& a) { a = points(i, c) > a ? points(i, c) : a; },
        Kokkos::Max<T>(mx));
    hlo(c) = mn;
    hcl(c) = static_cast<std::int64_t>(std::floor((double(mx) - double(mn)) / voxel_size)) + 1;
    voxels *= static_cast<double>(hcl(c));
  }
  if (!(voxels <= 4.6e18)) {  // 2^62, with the product taken in double to avoid overflow
    throw std::length_error(Impl::concat("tessera::grid_cluster: voxel_size ", voxel_size,
                                         " gives ", voxels,
                                         " voxels over the bounding box (more than 2^62)"));
  }
  std::int64_t stride = 1;
  for (int c = d - 1; c >= 0; --c) {
    hst(c) = stride;
    stride *= hcl(c);
  }
  Kokkos::deep_copy(space, lo, hlo);
  Kokkos::deep_copy(space, st, hst);
  Kokkos::deep_copy(space, cl, hcl);

  // Voxel ids, their sorted unique values, and each point's rank among them.
  Kokkos::View<std::int64_t*, Mem> ids(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::voxel_ids"), n);
  Kokkos::parallel_for(
      "tessera::genred::voxel_ids", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int i) {
        std::int64_t id = 0;
        for (int c = 0; c < d; ++c) {
          auto cell = static_cast<std::int64_t>(
              math::floor((static_cast<double>(points(i, c)) - lo(c)) / voxel_size));
          cell = cell < 0 ? 0 : (cell >= cl(c) ? cl(c) - 1 : cell);  // rounding at the edges
          id += cell * st(c);
        }
        ids(i) = id;
      });
  Kokkos::View<std::int64_t*, Mem> sorted(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::sorted_voxels"), n);
  Kokkos::deep_copy(space, sorted, ids);
  Impl::sort_view(space, sorted);
  Kokkos::View<std::int64_t*, Mem> unique(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::voxels"), n);
  int count = 0;
  Kokkos::parallel_scan(
      "tessera::genred::unique_voxels", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int t, int& pos, bool final) {
        if (t == 0 || sorted(t) != sorted(t - 1)) {
          if (final) unique(pos) = sorted(t);
          ++pos;
        }
      },
      count);
  const auto labels = result.labels;
  Kokkos::parallel_for(
      "tessera::genred::voxel_labels", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int i) { labels(i) = Impl::lower_bound(unique.data(), count, ids(i)); });
  result.count = count;
  space.fence();
  return result;
}

/// Sorts points by cluster: computes the stable permutation perm that sorts `labels` (equal
/// labels keep their order), sorts `labels` in place, and applies permute_rows(space, perm, v)
/// to every View v of `views` (rank 1 or 2, any layout, extent(0) = n). Returns perm: sorted
/// row k is original row perm(k) (unpermute_rows brings results back). labels: rank-1 int View
/// of n values >= 0. Everything is checked (std::invalid_argument) before anything is modified.
/// Work O(n log n) (a sort of 64-bit keys) plus O(n * width) per View; fences.
template <class ExecSpace, class Labels, class... Views>
Kokkos::View<int*, typename ExecSpace::memory_space> sort_clusters(const ExecSpace& space,
                                                                   const Labels& labels,
                                                                   const Views&... views) {
  using Mem      = typename ExecSpace::memory_space;
  const char* fn = "sort_clusters";
  static_assert(Labels::rank == 1 && std::is_same_v<typename Labels::value_type, int>,
                "tessera::sort_clusters: labels is a rank-1 View of (non-const) int");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Labels::memory_space>::accessible,
                "tessera::sort_clusters: labels must be accessible from the execution space");
  Impl::require_int_extent(fn, "labels", labels.extent(0));
  const int n = static_cast<int>(labels.extent(0));
  int v       = 0;
  (
      [&](const auto& view) {
        using V = std::decay_t<decltype(view)>;
        static_assert(V::rank == 1 || V::rank == 2,
                      "tessera::sort_clusters: Views to sort are rank 1 or rank 2");
        static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename V::memory_space>::accessible,
                      "tessera::sort_clusters: Views must be accessible from the execution space");
        Impl::require_equal(fn, Impl::concat("views[", v++, "]"), "rows", view.extent(0),
                            labels.extent(0));
      }(views),
      ...);
  int negative = 0;
  Kokkos::parallel_reduce(
      "tessera::genred::check_labels", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int i, int& count) { count += labels(i) < 0; }, negative);
  Impl::require(negative == 0, fn, Impl::concat("labels has ", negative, " negative values"));

  Kokkos::View<std::int64_t*, Mem> keys(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::cluster_keys"), n);
  Kokkos::parallel_for(
      "tessera::genred::cluster_keys", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int i) { keys(i) = static_cast<std::int64_t>(labels(i)) * n + i; });
  Impl::sort_view(space, keys);
  Kokkos::View<int*, Mem> perm(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tessera::genred::cluster_perm"), n);
  Kokkos::parallel_for(
      "tessera::genred::cluster_perm", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int k) {
        perm(k)   = static_cast<int>(keys(k) % n);
        labels(k) = static_cast<int>(keys(k) / n);
      });
  (Impl::gather_rows_in_place(space, perm, views), ...);
  space.fence();
  return perm;
}

namespace Impl {

/// One team per cluster: weight sum, weighted centroid and radius over the cluster's range.
template <class ExecSpace, class Points, class Weights, class T>
struct SummariseClusters {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Mem         = typename ExecSpace::memory_space;
  Points points;
  Weights weights;  // rank-1 View, or empty for unit weights
  bool weighted;
  ClusterSummary<T, Mem> out;

  KOKKOS_INLINE_FUNCTION double weight(int i) const {
    return weighted ? static_cast<double>(weights(i)) : 1.0;
  }
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int c     = team.league_rank();
    const int begin = out.ranges(c, 0), end = out.ranges(c, 1);
    const int d = static_cast<int>(points.extent(1));
    double wsum = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, begin, end), [&](int i, double& s) { s += weight(i); }, wsum);
    for (int k = 0; k < d; ++k) {
      double sum = 0;
      if (wsum > 0) {
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, begin, end),
            [&](int i, double& s) { s += weight(i) * static_cast<double>(points(i, k)); }, sum);
      } else {  // zero total weight: the plain mean (0 for an empty cluster)
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, begin, end),
            [&](int i, double& s) { s += static_cast<double>(points(i, k)); }, sum);
      }
      const double mean = wsum > 0 ? sum / wsum : (end > begin ? sum / (end - begin) : 0.0);
      Kokkos::single(Kokkos::PerTeam(team), [&]() { out.centroids(c, k) = static_cast<T>(mean); });
    }
    team.team_barrier();  // the rounded centroid is what the radius is measured from
    double r2 = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, begin, end),
        [&](int i, double& m) {
          double s = 0;
          for (int k = 0; k < d; ++k) {
            const double diff = static_cast<double>(points(i, k)) - out.centroids(c, k);
            s += diff * diff;
          }
          m = s > m ? s : m;
        },
        Kokkos::Max<double>(r2));
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      out.weights(c) = static_cast<T>(wsum);
      out.radii(c)   = static_cast<T>(r2 > 0 ? math::sqrt(r2) : 0.0);  // empty: Max's identity
    });
  }
};

template <class ExecSpace, class Points, class Labels, class Weights>
ClusterSummary<typename Points::non_const_value_type, typename ExecSpace::memory_space>
summarise_clusters(const ExecSpace& space, const Points& points, const Labels& labels,
                   const Weights& weights, bool weighted) {
  using Mem      = typename ExecSpace::memory_space;
  using T        = typename Points::non_const_value_type;
  const char* fn = "cluster_ranges_centroids";
  static_assert(Labels::rank == 1 && std::is_integral_v<typename Labels::non_const_value_type>,
                "tessera::cluster_ranges_centroids: labels is a rank-1 integer View");
  static_assert(
      Kokkos::SpaceAccessibility<ExecSpace, typename Points::memory_space>::accessible &&
          Kokkos::SpaceAccessibility<ExecSpace, typename Labels::memory_space>::accessible,
      "tessera::cluster_ranges_centroids: Views must be accessible from the execution "
      "space");
  check_points(fn, points);
  require_equal(fn, "labels", "extent", labels.extent(0), points.extent(0));
  if (weighted) require_equal(fn, "weights", "extent", weights.extent(0), points.extent(0));
  const int n  = static_cast<int>(points.extent(0));
  int unsorted = 0, bad_weights = 0;
  Kokkos::parallel_reduce(
      "tessera::genred::check_sorted_labels", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
      KOKKOS_LAMBDA(int i, int& count) {
        count += labels(i) < 0 || (i > 0 && labels(i) < labels(i - 1));
      },
      unsorted);
  require(unsorted == 0, fn,
          "labels must be non-negative and sorted (non-decreasing): call sort_clusters first");
  if (weighted) {
    Kokkos::parallel_reduce(
        "tessera::genred::check_weights", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
        KOKKOS_LAMBDA(int i, int& count) { count += !(weights(i) >= 0); }, bad_weights);
    require(bad_weights == 0, fn,
            concat("weights has ", bad_weights, " negative or NaN values (expected >= 0)"));
  }
  typename Labels::non_const_value_type last = -1;
  space.fence();
  if (n > 0) Kokkos::deep_copy(last, Kokkos::subview(labels, n - 1));
  const std::size_t clusters = static_cast<std::size_t>(last + 1);
  require_int_extent(fn, "clusters", clusters);
  const int count = static_cast<int>(clusters);

  ClusterSummary<T, Mem> s;
  s.ranges = IndexRanges<Mem>(Kokkos::view_alloc(space, "tessera::genred::cluster_ranges"), count);
  s.centroids = decltype(s.centroids)(Kokkos::view_alloc(space, "tessera::genred::centroids"),
                                      count, points.extent(1));
  s.weights =
      decltype(s.weights)(Kokkos::view_alloc(space, "tessera::genred::cluster_weights"), count);
  s.radii = decltype(s.radii)(Kokkos::view_alloc(space, "tessera::genred::cluster_radii"), count);
  const auto ranges = s.ranges;
  Kokkos::parallel_for(
      "tessera::genred::cluster_ranges", Kokkos::RangePolicy<ExecSpace>(space, 0, count),
      KOKKOS_LAMBDA(int c) {
        ranges(c, 0) = lower_bound(labels.data(), n, c);
        ranges(c, 1) = lower_bound(labels.data(), n, c + 1);
      });
  if (count > 0) {
    Kokkos::parallel_for(
        "tessera::genred::summarise_clusters",
        Kokkos::TeamPolicy<ExecSpace>(space, count, Kokkos::AUTO),
        SummariseClusters<ExecSpace, Points, Weights, T>{points, weights, weighted, s});
  }
  space.fence();
  return s;
}

}  // namespace Impl

/// Summarises the clusters of a cloud sorted by cluster (sort_clusters): with C = last label +
/// 1, for each cluster c, ranges(c) = [first index with label c, one past the last) (an empty
/// range where the label does not occur: the ranges partition [0, n) in order), centroids(c, :)
/// = sum w_i x_i / sum w_i over the cluster (the plain mean if the weights sum to 0; 0 for an
/// empty cluster), weights(c) = sum w_i, and radii(c) = max |x_i - centroids(c, :)|, so that
/// every point lies in its cluster's ball. Sums are taken in double, one team per cluster, in a
/// fixed order (deterministic). points: (n, D) float or double View; labels: rank-1 integer
/// View, non-negative and sorted (checked: std::invalid_argument); weights: rank-1 View of the
/// points' type, >= 0 (checked). Work O(n D); fences (C is a host value).
template <class ExecSpace, class Points, class Labels, class Weights>
ClusterSummary<typename Points::non_const_value_type, typename ExecSpace::memory_space>
cluster_ranges_centroids(const ExecSpace& space, const Points& points, const Labels& labels,
                         const Weights& weights) {
  static_assert(Weights::rank == 1, "tessera::cluster_ranges_centroids: weights is rank 1");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Weights::memory_space>::accessible,
                "tessera::cluster_ranges_centroids: weights must be accessible from the "
                "execution space");
  return Impl::summarise_clusters(space, points, labels, weights, true);
}

/// cluster_ranges_centroids with unit weights: centroids are plain means, weights are sizes.
template <class ExecSpace, class Points, class Labels>
ClusterSummary<typename Points::non_const_value_type, typename ExecSpace::memory_space>
cluster_ranges_centroids(const ExecSpace& space, const Points& points, const Labels& labels) {
  using T = typename Points::non_const_value_type;
  return Impl::summarise_clusters(space, points, labels,
                                  Kokkos::View<T*, typename ExecSpace::memory_space>(), false);
}

}  // namespace tessera
