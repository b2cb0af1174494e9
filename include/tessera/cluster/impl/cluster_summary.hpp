// The checks and kernels of cluster_ranges_centroids (clustering.hpp): the labels sorted and the
// weights non-negative, then each cluster's index range (a binary search in the sorted labels)
// and one team per cluster for its weight, centroid and radius.
#pragma once

#include <tessera/cluster/impl/point_checks.hpp>
#include <tessera/core/impl/block_sparse_axis.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace tessera {

/// Per-cluster summary of a cloud sorted by cluster, the result of summarise_clusters (defined in
/// clustering.hpp, whose cluster_ranges_centroids is the one caller).
template <class T, class MemorySpace>
struct ClusterSummary;

namespace Impl {

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
}  // namespace tessera
