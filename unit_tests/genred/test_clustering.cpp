// Clustering helpers: grid_cluster labels against voxels recomputed on the host, sort_clusters
// (stable permutation, permuted Views), cluster_ranges_centroids (ranges, weighted centroids,
// weights, radii, empty clusters, one huge cluster) against host loops, and their checks.
#include "genred/genred_test_support.hpp"

#include <tessera/genred/clustering.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <vector>

namespace {

using namespace tessera_test;

template <class Space>
class Clustering : public ::testing::Test {};
TYPED_TEST_SUITE(Clustering, ExecutionSpaces);

/// Host reference of grid_cluster: voxel coordinates, then ranks of the sorted distinct ones.
std::vector<int> reference_labels(const std::vector<double>& x, int n, int d, double voxel,
                                  int& count) {
  std::vector<double> lo(d, std::numeric_limits<double>::infinity()),
      hi(d, -std::numeric_limits<double>::infinity());
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < d; ++c) {
      lo[c] = std::min(lo[c], x[i * d + c]);
      hi[c] = std::max(hi[c], x[i * d + c]);
    }
  }
  std::vector<std::vector<long>> cells(n, std::vector<long>(d));
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < d; ++c) {
      const long top = static_cast<long>(std::floor((hi[c] - lo[c]) / voxel));
      cells[i][c]    = std::min(top, static_cast<long>(std::floor((x[i * d + c] - lo[c]) / voxel)));
    }
  }
  std::map<std::vector<long>, int> rank;
  for (const auto& cell : cells)
    rank[cell] = 0;
  int r = 0;
  for (auto& entry : rank)
    entry.second = r++;
  count = r;
  std::vector<int> labels(n);
  for (int i = 0; i < n; ++i)
    labels[i] = rank[cells[i]];
  return labels;
}

template <class Space, class T>
void check_grid_cluster(int n, int d, double voxel, unsigned seed) {
  const auto hx   = random_values<T>(static_cast<std::size_t>(n) * d, -1, 1, seed);
  const auto x    = to_view2<T, Space>("x", hx, n, d);
  const auto g    = tessera::grid_cluster(Space(), x, voxel);
  int count       = 0;
  const auto want = reference_labels(hx, n, d, voxel, count);
  ASSERT_EQ(g.count, count) << "n " << n << " d " << d << " voxel " << voxel;
  EXPECT_EQ(host_ints(g.labels), want) << "n " << n << " d " << d << " voxel " << voxel;
}

TYPED_TEST(Clustering, GridClusterMatchesHostVoxels) {
  unsigned seed = 1;
  for (int n : {0, 1, 2, 7, 1000, 4099}) {
    for (int d : {1, 2, 3}) {
      for (double voxel : {0.05, 0.3, 5.0}) {
        check_grid_cluster<TypeParam, float>(n, d, voxel, ++seed);
        check_grid_cluster<TypeParam, double>(n, d, voxel, ++seed);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(Clustering, GridClusterRejectsBadInput) {
  using Space  = TypeParam;
  const auto x = to_view2<double, Space>("x", {0, 0, 1, 1, 2, 2}, 3, 2);
  for (double v : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    expect_rejected<std::invalid_argument>([&] { tessera::grid_cluster(Space(), x, v); },
                                           {"tessera::grid_cluster: voxel_size must be positive "
                                            "and finite"});
  }
  expect_rejected<std::length_error>([&] { tessera::grid_cluster(Space(), x, 1e-30); },
                                     {"voxel_size 1e-30", "more than 2^62"});
  const auto bad = to_view2<double, Space>("bad", {0, 0, std::nan(""), 1, 2, 2}, 3, 2);
  expect_rejected<std::invalid_argument>([&] { tessera::grid_cluster(Space(), bad, 0.5); },
                                         {"points has 1 rows with NaN coordinates"});
}

TYPED_TEST(Clustering, SortClustersIsStableAndPermutesViews) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  for (int n : {0, 1, 2, 1000, 4099}) {
    std::mt19937 gen(n);
    std::uniform_int_distribution<int> label(0, 19);
    std::vector<int> hl(n);
    for (int& l : hl)
      l = label(gen);
    auto labels = int_view<Space>(hl);
    Kokkos::View<int*, Mem> ids("ids", n);
    Kokkos::View<double**, Kokkos::LayoutLeft, Mem> pts("pts", n, 3);
    auto hi = Kokkos::create_mirror_view(ids);
    auto hp = Kokkos::create_mirror_view(pts);
    for (int i = 0; i < n; ++i) {
      hi(i) = 7 * i;
      for (int c = 0; c < 3; ++c)
        hp(i, c) = i + 0.25 * c;
    }
    Kokkos::deep_copy(ids, hi);
    Kokkos::deep_copy(pts, hp);
    const auto perm = tessera::sort_clusters(Space(), labels, ids, pts);

    std::vector<int> want(n);
    std::iota(want.begin(), want.end(), 0);
    std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return hl[a] < hl[b]; });
    ASSERT_EQ(host_ints(perm), want) << "n " << n;
    const auto sorted_labels = host_ints(labels);
    const auto sorted_ids    = host_ints(ids);
    const auto sorted_pts    = host_rows(pts);
    for (int k = 0; k < n; ++k) {
      ASSERT_EQ(sorted_labels[k], hl[want[k]]);
      ASSERT_EQ(sorted_ids[k], 7 * want[k]);
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(sorted_pts[k * 3 + c], want[k] + 0.25 * c);
    }
  }
}

TYPED_TEST(Clustering, SortClustersRejectsBadInputWithoutWriting) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  auto labels = int_view<Space>({2, 1, 0, 1});
  Kokkos::View<float*, Mem> short_view("short", 3), ok("ok", 4);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::sort_clusters(Space(), labels, ok, short_view); },
      {"tessera::sort_clusters: views[1] rows (got 3, expected 4)"});
  EXPECT_EQ(host_ints(labels), (std::vector<int>{2, 1, 0, 1}));
  auto negative = int_view<Space>({2, -1, 0, 1});
  expect_rejected<std::invalid_argument>([&] { tessera::sort_clusters(Space(), negative, ok); },
                                         {"labels has 1 negative values"});
  EXPECT_EQ(host_ints(negative), (std::vector<int>{2, -1, 0, 1}));
}

/// Host reference of cluster_ranges_centroids for sorted labels.
struct SummaryRef {
  std::vector<int> ranges;
  std::vector<double> centroids, weights, radii;
};
SummaryRef reference_summary(const std::vector<double>& x, int d, const std::vector<int>& labels,
                             const std::vector<double>& w) {
  const int n = static_cast<int>(labels.size());
  const int c = n ? labels.back() + 1 : 0;
  SummaryRef s;
  s.centroids.assign(static_cast<std::size_t>(c) * d, 0.0);
  s.weights.assign(c, 0.0);
  s.radii.assign(c, 0.0);
  for (int k = 0; k < c; ++k) {
    const int b =
        static_cast<int>(std::lower_bound(labels.begin(), labels.end(), k) - labels.begin());
    const int e =
        static_cast<int>(std::lower_bound(labels.begin(), labels.end(), k + 1) - labels.begin());
    s.ranges.push_back(b);
    s.ranges.push_back(e);
    double ws = 0;
    for (int i = b; i < e; ++i)
      ws += w.empty() ? 1.0 : w[i];
    s.weights[k] = ws;
    for (int t = 0; t < d; ++t) {
      double sum = 0;
      for (int i = b; i < e; ++i)
        sum += (ws > 0 && !w.empty() ? w[i] : 1.0) * x[i * d + t];
      s.centroids[k * d + t] =
          ws > 0 ? sum / (w.empty() ? e - b : ws) : (e > b ? sum / (e - b) : 0);
    }
    for (int i = b; i < e; ++i) {
      double r2 = 0;
      for (int t = 0; t < d; ++t)
        r2 += (x[i * d + t] - s.centroids[k * d + t]) * (x[i * d + t] - s.centroids[k * d + t]);
      s.radii[k] = std::max(s.radii[k], std::sqrt(r2));
    }
  }
  return s;
}

template <class Space, class T>
void check_summary(std::vector<double> hx, int d, const std::vector<int>& hl,
                   std::vector<double> hw, const std::string& what) {
  using Mem = typename Space::memory_space;
  for (double& v : hx)  // the reference sees exactly the device's inputs
    v = static_cast<T>(v);
  for (double& v : hw)
    v = static_cast<T>(v);
  const int n  = static_cast<int>(hl.size());
  const auto x = to_view2<T, Space>("x", hx, n, d);
  const auto l = int_view<Space>(hl);
  Kokkos::View<T*, Mem> w("w", n);
  auto h = Kokkos::create_mirror_view(w);
  for (int i = 0; i < n && !hw.empty(); ++i)
    h(i) = static_cast<T>(hw[i]);
  Kokkos::deep_copy(w, h);
  const auto s       = hw.empty() ? tessera::cluster_ranges_centroids(Space(), x, l)
                                  : tessera::cluster_ranges_centroids(Space(), x, l, w);
  const SummaryRef r = reference_summary(hx, d, hl, hw);
  ASSERT_EQ(s.count(), static_cast<int>(r.weights.size())) << what;
  EXPECT_EQ(host_ints(s.ranges), r.ranges) << what;
  const double tol = std::is_same_v<T, float> ? 1e-6 : 1e-13;  // sums in double, one rounding
  const auto c     = host_rows(s.centroids);
  for (std::size_t e = 0; e < c.size(); ++e)
    EXPECT_NEAR(c[e], r.centroids[e], tol * (1 + std::fabs(r.centroids[e]))) << what << " " << e;
  auto hwts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.weights);
  auto hrad = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.radii);
  for (int k = 0; k < s.count(); ++k) {
    EXPECT_NEAR(hwts(k), r.weights[k], tol * (1 + r.weights[k])) << what << " cluster " << k;
    // the radius is measured from the rounded centroid: it may differ by that rounding
    EXPECT_NEAR(hrad(k), r.radii[k], 4 * tol * (1 + r.radii[k])) << what << " cluster " << k;
  }
  // every point lies in its cluster's ball (the property block_sparse_from_cutoff relies on)
  for (int i = 0; i < n; ++i) {
    double r2 = 0;
    for (int t = 0; t < d; ++t)
      r2 += (hx[i * d + t] - c[hl[i] * d + t]) * (hx[i * d + t] - c[hl[i] * d + t]);
    EXPECT_LE(std::sqrt(r2), hrad(hl[i]) * (1 + 4 * tol)) << what << " point " << i;
  }
}

TYPED_TEST(Clustering, ClusterRangesCentroids) {
  const std::vector<int> gaps = {0, 0, 2, 2, 2, 5};  // clusters 1, 3, 4 empty
  const auto x6               = random_values<double>(6 * 2, -1, 1, 3);
  check_summary<TypeParam, double>(x6, 2, gaps, {}, "gaps, unit weights");
  check_summary<TypeParam, float>(x6, 2, gaps, {1, 3, 0.5, 0.5, 2, 4}, "gaps, weights");
  check_summary<TypeParam, double>(x6, 2, gaps, {0, 0, 1, 0, 2, 4}, "zero-weight cluster");
  check_summary<TypeParam, double>({}, 3, {}, {}, "empty cloud");

  std::mt19937 gen(4);
  std::uniform_int_distribution<int> step(0, 2);
  std::vector<int> sorted(4099);
  int l = 0;
  for (int& v : sorted)
    v = (l += step(gen) == 0);
  const auto x  = random_values<float>(4099 * 3, -1, 1, 5);
  const auto wt = random_values<float>(4099, 0, 2, 6);
  check_summary<TypeParam, float>(x, 3, sorted, wt, "random sorted labels");
  check_summary<TypeParam, double>(x, 3, sorted, {}, "random sorted labels, unit weights");

  const std::vector<int> one(20011, 0);  // one cluster: the team reduction spans all points
  const auto xh = random_values<double>(20011, 0, 1, 7);
  check_summary<TypeParam, double>(xh, 1, one, {}, "one huge cluster");
}

TYPED_TEST(Clustering, ClusterRangesCentroidsRejectsBadInput) {
  using Space  = TypeParam;
  using Mem    = typename Space::memory_space;
  const auto x = to_view2<double, Space>("x", {0, 1, 2, 3}, 4, 1);
  Kokkos::View<double*, Mem> w("w", 4), w3("w3", 3);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 1, 0, 1}));
      },
      {"tessera::cluster_ranges_centroids: labels must be non-negative and sorted",
       "call sort_clusters first"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 1, 1}));
      },
      {"labels extent (got 3, expected 4)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 0, 1, 1}), w3);
      },
      {"weights extent (got 3, expected 4)"});
  Kokkos::deep_copy(w, -1.0);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 0, 1, 1}), w);
      },
      {"weights has 4 negative or NaN values"});
}

}  // namespace
