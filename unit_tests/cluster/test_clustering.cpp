// Clustering helpers: grid_cluster labels against voxels recomputed on the host, sort_clusters
// (stable permutation, permuted Views of both layouts and several types, unpermute_rows round
// trip), cluster_ranges_centroids (ranges, weighted centroids, weights, radii, empty clusters,
// one huge cluster) against host loops in double, and every argument check.
#include "genred/genred_test_support.hpp"

#include <tessera/cluster/clustering.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace tessera_test;

template <class Space>
class Clustering : public ::testing::Test {};
TYPED_TEST_SUITE(Clustering, ExecutionSpaces);

// ------------------------------------------------------------------------------ grid_cluster

/// Host voxel coordinates of every point (row-major host data x, n rows of d values).
std::vector<std::vector<std::int64_t>> host_voxels(const std::vector<double>& x, int n, int d,
                                                   double voxel) {
  std::vector<double> lo(d, std::numeric_limits<double>::infinity());
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < d; ++c)
      lo[c] = std::min(lo[c], x[static_cast<std::size_t>(i) * d + c]);
  }
  std::vector<std::vector<std::int64_t>> cells(n, std::vector<std::int64_t>(d));
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < d; ++c) {
      cells[i][c] = static_cast<std::int64_t>(
          std::floor((x[static_cast<std::size_t>(i) * d + c] - lo[c]) / voxel));
    }
  }
  return cells;
}

/// Host reference of grid_cluster: ranks of the voxels among the distinct ones, in
/// lexicographic order (std::map orders vectors lexicographically).
std::vector<int> reference_labels(const std::vector<double>& x, int n, int d, double voxel,
                                  int& count) {
  const auto cells = host_voxels(x, n, d, voxel);
  std::map<std::vector<std::int64_t>, int> rank;
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

template <class Space, class T, class Layout = Kokkos::LayoutRight>
void check_grid_cluster(const std::vector<double>& hx, int n, int d, double voxel,
                        const std::string& what) {
  Kokkos::View<T**, Layout, typename Space::memory_space> x("x", n, d);
  Kokkos::deep_copy(x, to_view2<T, Space>("x", hx, n, d));
  const auto g    = tessera::grid_cluster(Space(), x, voxel);
  int count       = 0;
  const auto want = reference_labels(hx, n, d, voxel, count);
  ASSERT_EQ(g.count, count) << what;
  ASSERT_EQ(g.labels.extent(0), static_cast<std::size_t>(n)) << what;
  EXPECT_EQ(host_ints(g.labels), want) << what;
}

TYPED_TEST(Clustering, GridClusterMatchesHostVoxels) {
  unsigned seed = 1;
  for (int n : {0, 1, 2, 7, 1000, 4099}) {
    for (int d : {1, 2, 3}) {
      // voxels of 5 hold the whole cloud (one cluster); 0.3: a few; 0.02: many (mostly singletons
      // for n = 4099 in 3-D)
      for (double voxel : {5.0, 0.3, 0.02}) {
        const std::string what = "n " + std::to_string(n) + " d " + std::to_string(d) + " voxel " +
                                 std::to_string(voxel);
        const auto xf = random_values<float>(static_cast<std::size_t>(n) * d, -1, 1, ++seed);
        check_grid_cluster<TypeParam, float>(xf, n, d, voxel, what + " float");
        const auto xd = random_values<double>(static_cast<std::size_t>(n) * d, -1, 1, ++seed);
        check_grid_cluster<TypeParam, double, Kokkos::LayoutLeft>(xd, n, d, voxel,
                                                                  what + " double LayoutLeft");
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

// Points on integer lattice sites with many duplicates: coordinates fall exactly on voxel faces.
TYPED_TEST(Clustering, GridClusterLatticeWithDuplicates) {
  std::mt19937 gen(17);
  std::uniform_int_distribution<int> site(-3, 3);
  const int n = 4099, d = 3;
  std::vector<double> x(static_cast<std::size_t>(n) * d);
  for (double& v : x)
    v = site(gen);
  check_grid_cluster<TypeParam, double>(x, n, d, 1.0, "lattice, voxel 1");
  check_grid_cluster<TypeParam, float>(x, n, d, 2.0, "lattice, voxel 2");
  int count = 0;
  reference_labels(x, n, d, 1.0, count);
  EXPECT_EQ(count, 343) << "every site of the 7^3 lattice is occupied";
}

TYPED_TEST(Clustering, GridClusterHandExample) {
  using Space = TypeParam;
  // 1-D: voxels 0, 2, 0, 5, 2 -> ranks 0, 1, 0, 2, 1
  auto g = tessera::grid_cluster(
      Space(), to_view2<double, Space>("x", {0.0, 2.5, 0.9, 5.0, 2.0}, 5, 1), 1.0);
  EXPECT_EQ(g.count, 3);
  EXPECT_EQ(host_ints(g.labels), (std::vector<int>{0, 1, 0, 2, 1}));
  // 2-D: the first coordinate is the most significant: voxel (0, 1) before (1, 0)
  g = tessera::grid_cluster(Space(), to_view2<float, Space>("x", {1, 0, 0, 1, 1, 1}, 3, 2), 1.0);
  EXPECT_EQ(g.count, 3);
  EXPECT_EQ(host_ints(g.labels), (std::vector<int>{1, 0, 2}));
  // a grid of 2^61 + 1 voxels is accepted
  g = tessera::grid_cluster(Space(), to_view2<double, Space>("x", {1, 0, 1}, 3, 1),
                            std::ldexp(1.0, -61));
  EXPECT_EQ(g.count, 2);
  EXPECT_EQ(host_ints(g.labels), (std::vector<int>{1, 0, 1}));
}

TYPED_TEST(Clustering, GridClusterRejectsBadInput) {
  using Space  = TypeParam;
  const auto x = to_view2<double, Space>("x", {0, 0, 1, 1, 2, 2}, 3, 2);
  for (double v : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    expect_rejected<std::invalid_argument>(
        [&] { tessera::grid_cluster(Space(), x, v); },
        {"tessera::grid_cluster: voxel_size must be positive and finite (got "});
  }
  expect_rejected<std::length_error>(
      [&] { tessera::grid_cluster(Space(), x, 1e-30); },
      {"tessera::grid_cluster: voxel_size 1e-30 is too small", "expected at most 2^62"});
  // (2^31 + 1)^2 voxels: just over 2^62
  const auto square = to_view2<double, Space>("square", {0, 0, 1, 1}, 2, 2);
  expect_rejected<std::length_error>(
      [&] { tessera::grid_cluster(Space(), square, std::ldexp(1.0, -31)); },
      {"tessera::grid_cluster: voxel_size", "expected at most 2^62"});
  const auto nan = to_view2<double, Space>("nan", {0, 0, 1, std::nan(""), 2, 2}, 3, 2);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::grid_cluster(Space(), nan, 0.5); },
      {"tessera::grid_cluster: points must have finite coordinates (got a NaN or infinite "
       "coordinate in row 1)"});
  const auto inf = to_view2<float, Space>(
      "inf", {0, 0, 1, 1, -std::numeric_limits<double>::infinity(), 2}, 3, 2);
  expect_rejected<std::invalid_argument>([&] { tessera::grid_cluster(Space(), inf, 0.5); },
                                         {"coordinate in row 2)"});
}

// ----------------------------------------------------------------------------- sort_clusters

TYPED_TEST(Clustering, SortClustersIsStableAndPermutesViews) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  for (int n : {0, 1, 2, 7, 1000, 4099}) {
    std::mt19937 gen(n);
    std::uniform_int_distribution<int> label(0, n / 10 + 2);  // many ties
    std::vector<int> hl(n);
    for (int& l : hl)
      l = label(gen);
    auto labels = int_view<Space>(hl);
    Kokkos::View<int*, Mem> ids("ids", n);
    Kokkos::View<double*, Mem> values("values", n);
    Kokkos::View<double**, Kokkos::LayoutLeft, Mem> left("left", n, 3);
    Kokkos::View<int**, Kokkos::LayoutRight, Mem> right("right", n, 2);
    auto h_ids    = Kokkos::create_mirror_view(ids);
    auto h_values = Kokkos::create_mirror_view(values);
    auto h_left   = Kokkos::create_mirror_view(left);
    auto h_right  = Kokkos::create_mirror_view(right);
    for (int i = 0; i < n; ++i) {
      h_ids(i)    = 7 * i;
      h_values(i) = 0.5 * i;
      for (int c = 0; c < 3; ++c)
        h_left(i, c) = i + 0.25 * c;
      for (int c = 0; c < 2; ++c)
        h_right(i, c) = -i - 100000 * c;
    }
    Kokkos::deep_copy(ids, h_ids);
    Kokkos::deep_copy(values, h_values);
    Kokkos::deep_copy(left, h_left);
    Kokkos::deep_copy(right, h_right);
    const auto perm = tessera::sort_clusters(Space(), labels, ids, values, left, right);

    std::vector<int> want(n);
    std::iota(want.begin(), want.end(), 0);
    std::stable_sort(want.begin(), want.end(), [&](int a, int b) { return hl[a] < hl[b]; });
    ASSERT_EQ(host_ints(perm), want) << "n " << n;
    const auto sorted_labels = host_ints(labels);
    Kokkos::deep_copy(h_ids, ids);
    Kokkos::deep_copy(h_values, values);
    Kokkos::deep_copy(h_left, left);
    Kokkos::deep_copy(h_right, right);
    for (int k = 0; k < n; ++k) {
      const int i = want[k];
      ASSERT_EQ(sorted_labels[k], hl[i]) << "n " << n << " k " << k;
      if (k > 0 && sorted_labels[k] == sorted_labels[k - 1]) {
        ASSERT_LT(want[k - 1], i) << "ties keep index order";
      }
      ASSERT_EQ(h_ids(k), 7 * i);
      ASSERT_EQ(h_values(k), 0.5 * i);
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(h_left(k, c), i + 0.25 * c);
      for (int c = 0; c < 2; ++c)
        ASSERT_EQ(h_right(k, c), -i - 100000 * c);
    }

    // results computed on the sorted data go back to the original order
    Kokkos::View<double**, Kokkos::LayoutRight, Mem> back("back", n, 3);
    tessera::unpermute_rows(Space(), perm, left, back);
    const auto h_back = host_rows(back);
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c)
        ASSERT_EQ(h_back[static_cast<std::size_t>(i) * 3 + c], i + 0.25 * c) << "round trip";
    }
  }
}

TYPED_TEST(Clustering, SortClustersWithoutViewsAndLargeLabels) {
  using Space     = TypeParam;
  const int big   = std::numeric_limits<int>::max();  // label * n + index still fits in int64
  auto labels     = int_view<Space>({big, 3, big, 0, 3});
  const auto perm = tessera::sort_clusters(Space(), labels);
  EXPECT_EQ(host_ints(perm), (std::vector<int>{3, 1, 4, 0, 2}));
  EXPECT_EQ(host_ints(labels), (std::vector<int>{0, 3, 3, big, big}));
}

TYPED_TEST(Clustering, SortClustersRejectsBadInputWithoutWriting) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  auto labels = int_view<Space>({2, 1, 0, 1});
  Kokkos::View<float*, Mem> short_view("short", 3), ok("ok", 4);
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> wide("wide", 5, 2);
  Kokkos::deep_copy(ok, 3.0f);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::sort_clusters(Space(), labels, ok, short_view); },
      {"tessera::sort_clusters: views[1] rows (got 3, expected 4)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::sort_clusters(Space(), labels, wide, ok); },
      {"tessera::sort_clusters: views[0] rows (got 5, expected 4)"});
  EXPECT_EQ(host_ints(labels), (std::vector<int>{2, 1, 0, 1}));
  auto negative = int_view<Space>({2, -1, 0, -5});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::sort_clusters(Space(), negative, ok); },
      {"tessera::sort_clusters: labels must be >= 0 (got min -5, expected >= 0)"});
  EXPECT_EQ(host_ints(negative), (std::vector<int>{2, -1, 0, -5}));
  auto h_ok = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ok);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(h_ok(i), 3.0f) << "written before the exception";
}

// The Views sort_clusters permutes share memory neither with labels nor with one another
// (documented; a shared row would be permuted twice).
TYPED_TEST(Clustering, SortClustersRejectsAliasedViews) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  auto labels = int_view<Space>({2, 1, 0, 1});
  Kokkos::View<float*, Mem> a("a", 4);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> both("both", 4, 2);
  Kokkos::deep_copy(a, 3.0f);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::sort_clusters(Space(), labels, labels); },
      {"tessera::sort_clusters: views[0] shares memory with labels"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::sort_clusters(Space(), labels, a, a); },
      {"tessera::sort_clusters: views[0] shares memory with views[1]"});
  auto column0 = Kokkos::subview(both, Kokkos::ALL, 0);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::sort_clusters(Space(), labels, a, both, column0); },
      {"tessera::sort_clusters: views[1] shares memory with views[2]"});
  EXPECT_EQ(host_ints(labels), (std::vector<int>{2, 1, 0, 1}));
  auto h_a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(h_a(i), 3.0f) << "written before the exception";
}

// ------------------------------------------------------------------ cluster_ranges_centroids

/// Host reference of cluster_ranges_centroids for sorted labels (w empty: unit weights).
struct SummaryRef {
  std::vector<int> ranges;
  std::vector<double> centroids, weights;
};
SummaryRef reference_summary(const std::vector<double>& x, int d, const std::vector<int>& labels,
                             const std::vector<double>& w) {
  const int n = static_cast<int>(labels.size());
  const int c = n ? labels.back() + 1 : 0;
  SummaryRef s;
  s.centroids.assign(static_cast<std::size_t>(c) * d, 0.0);
  s.weights.assign(c, 0.0);
  for (int k = 0; k < c; ++k) {
    int b = 0;
    while (b < n && labels[b] < k)
      ++b;
    int e = b;
    while (e < n && labels[e] == k)
      ++e;
    s.ranges.push_back(b);
    s.ranges.push_back(e);
    double ws = 0;
    for (int i = b; i < e; ++i)
      ws += w.empty() ? 1.0 : w[i];
    s.weights[k] = ws;
    for (int t = 0; t < d; ++t) {
      double sum = 0, plain = 0;
      for (int i = b; i < e; ++i) {
        sum += (w.empty() ? 1.0 : w[i]) * x[static_cast<std::size_t>(i) * d + t];
        plain += x[static_cast<std::size_t>(i) * d + t];
      }
      s.centroids[static_cast<std::size_t>(k) * d + t] =
          ws > 0 ? sum / ws : (e > b ? plain / (e - b) : 0.0);
    }
  }
  return s;
}

template <class Space, class T, class Layout = Kokkos::LayoutRight>
void check_summary(std::vector<double> hx, int d, const std::vector<int>& hl,
                   std::vector<double> hw, const std::string& what) {
  using Mem = typename Space::memory_space;
  for (double& v : hx)  // the reference sees exactly the device's inputs
    v = static_cast<T>(v);
  for (double& v : hw)
    v = static_cast<T>(v);
  const int n = static_cast<int>(hl.size());
  Kokkos::View<T**, Layout, Mem> x("x", n, d);
  Kokkos::deep_copy(x, to_view2<T, Space>("x", hx, n, d));
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
  ASSERT_EQ(s.centroids.extent(0), r.weights.size()) << what;
  ASSERT_EQ(s.centroids.extent(1), static_cast<std::size_t>(d)) << what;
  EXPECT_EQ(host_ints(s.ranges), r.ranges) << what;
  // sums in double in another order (up to n ulps of double, n <= 2e4), then one rounding to T
  const double eps = std::numeric_limits<T>::epsilon();
  const auto tol = [&](double ref) { return eps * std::fabs(ref) + 1e-11 * (1 + std::fabs(ref)); };
  const auto c   = host_rows(s.centroids);
  for (std::size_t e = 0; e < c.size(); ++e)
    ASSERT_NEAR(c[e], r.centroids[e], tol(r.centroids[e])) << what << " centroid entry " << e;
  auto h_weights = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.weights);
  auto h_radii   = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.radii);
  // radii: the largest distance from the stored centroid, rounded up to T
  std::vector<double> radius(s.count(), 0.0);
  for (int i = 0; i < n; ++i) {
    double r2 = 0;
    for (int t = 0; t < d; ++t) {
      const double diff =
          hx[static_cast<std::size_t>(i) * d + t] - c[static_cast<std::size_t>(hl[i]) * d + t];
      r2 += diff * diff;
    }
    radius[hl[i]] = std::max(radius[hl[i]], std::sqrt(r2));
  }
  for (int k = 0; k < s.count(); ++k) {
    ASSERT_NEAR(h_weights(k), r.weights[k], tol(r.weights[k])) << what << " cluster " << k;
    // every point inside its ball (up to the last bits of double), and no more than a few ulps of T
    ASSERT_GE(static_cast<double>(h_radii(k)), radius[k] * (1 - 1e-15)) << what << " cluster " << k;
    ASSERT_LE(static_cast<double>(h_radii(k)), radius[k] * (1 + 4 * eps))
        << what << " cluster " << k;
  }
}

TYPED_TEST(Clustering, ClusterRangesCentroidsWithGaps) {
  using Space                 = TypeParam;
  const std::vector<int> gaps = {0, 0, 2, 2, 2, 5};  // clusters 1, 3, 4 empty
  const auto x6               = random_values<double>(6 * 2, -1, 1, 3);
  check_summary<Space, double>(x6, 2, gaps, {}, "gaps, unit weights");
  check_summary<Space, float>(x6, 2, gaps, {1, 3, 0.5, 0.5, 2, 4}, "gaps, weights");
  check_summary<Space, double, Kokkos::LayoutLeft>(x6, 2, gaps, {0, 0, 1, 0, 2, 4},
                                                   "zero-weight cluster");
  check_summary<Space, double>({}, 3, {}, {}, "empty cloud");
  check_summary<Space, float>({}, 2, {}, {}, "empty cloud, weights");
  check_summary<Space, double>({2.5}, 1, {3}, {}, "one point in cluster 3");

  // the same by hand: ranges, empty clusters, weighted centroids
  const auto x = to_view2<double, Space>("x", {0, 1, 2, 3, 4, 5}, 6, 1);
  const auto w = to_view2<double, Space>("w", {1, 3, 1, 1, 2, 7}, 6, 1);
  const auto s = tessera::cluster_ranges_centroids(Space(), x, int_view<Space>(gaps),
                                                   Kokkos::subview(w, Kokkos::ALL, 0));
  ASSERT_EQ(s.count(), 6);
  EXPECT_EQ(host_ints(s.ranges), (std::vector<int>{0, 2, 2, 2, 2, 5, 5, 5, 5, 5, 5, 6}));
  EXPECT_EQ(host_rows(s.centroids), (std::vector<double>{0.75, 0, 3.25, 0, 0, 5}));
  auto h_weights = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.weights);
  auto h_radii   = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.radii);
  const std::vector<double> want_w = {4, 0, 4, 0, 0, 7}, want_r = {0.75, 0, 1.25, 0, 0, 0};
  for (int c = 0; c < 6; ++c) {
    EXPECT_EQ(h_weights(c), want_w[c]) << "cluster " << c;
    EXPECT_EQ(h_radii(c), want_r[c]) << "cluster " << c;
  }
}

TYPED_TEST(Clustering, ClusterRangesCentroidsRandomAndHuge) {
  using Space = TypeParam;
  for (int n : {1, 2, 7, 1000, 4099}) {
    std::mt19937 gen(n);
    std::uniform_int_distribution<int> step(0, 2);
    std::vector<int> sorted(n);
    int l = step(gen);  // may start above 0: leading empty clusters
    for (int& v : sorted)
      v = (l += step(gen) == 0);
    for (int d : {1, 2, 3}) {
      const std::string what = "n " + std::to_string(n) + " d " + std::to_string(d);
      const auto x  = random_values<float>(static_cast<std::size_t>(n) * d, -1, 1, 5 + n + d);
      const auto wt = random_values<float>(n, 0, 2, 6 + n + d);
      check_summary<Space, float>(x, d, sorted, wt, what + " float, weights");
      check_summary<Space, double, Kokkos::LayoutLeft>(x, d, sorted, {}, what + " double");
    }
  }
  const std::vector<int> one(20011, 0);  // one cluster: the team reduction spans all points
  const auto xh = random_values<double>(20011 * 3, 0, 1, 7);
  const auto wh = random_values<double>(20011, 0, 1, 8);
  check_summary<Space, double>(xh, 3, one, {}, "one huge cluster");
  check_summary<Space, float>(xh, 3, one, wh, "one huge cluster, weights");
}

// grid_cluster -> sort_clusters -> cluster_ranges_centroids: every range holds one voxel.
TYPED_TEST(Clustering, PipelineRangesHoldOneVoxelEach) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  const int n = 4099, d = 2;
  const auto h = random_values<float>(static_cast<std::size_t>(n) * d, 0, 1, 9);
  Kokkos::View<float**, Kokkos::LayoutLeft, Mem> x("x", n, d);
  Kokkos::deep_copy(x, to_view2<float, Space>("x", h, n, d));
  const auto g    = tessera::grid_cluster(Space(), x, 0.125);
  const auto perm = tessera::sort_clusters(Space(), g.labels, x);
  const auto s    = tessera::cluster_ranges_centroids(Space(), x, g.labels);
  ASSERT_EQ(g.count, 64);
  ASSERT_EQ(s.count(), 64);
  const auto voxels = host_voxels(h, n, d, 0.125);
  const auto p      = host_ints(perm);
  const auto ranges = host_ints(s.ranges);
  const auto sorted = host_rows(x);
  EXPECT_EQ(ranges.front(), 0);
  EXPECT_EQ(ranges.back(), n);
  for (int c = 0; c < 64; ++c) {
    ASSERT_LT(ranges[2 * c], ranges[2 * c + 1]) << "every voxel of the 8 x 8 grid is occupied";
    if (c > 0) ASSERT_EQ(ranges[2 * c], ranges[2 * c - 1]) << "ranges partition [0, n)";
    for (int k = ranges[2 * c]; k < ranges[2 * c + 1]; ++k) {
      ASSERT_EQ(voxels[p[k]], voxels[p[ranges[2 * c]]]) << "cluster " << c << " position " << k;
      for (int t = 0; t < d; ++t)
        ASSERT_EQ(sorted[static_cast<std::size_t>(k) * d + t],
                  h[static_cast<std::size_t>(p[k]) * d + t]);
    }
    if (c > 0) {
      ASSERT_LT(voxels[p[ranges[2 * c - 2]]], voxels[p[ranges[2 * c]]]) << "lexicographic order";
    }
  }
}

TYPED_TEST(Clustering, ClusterRangesCentroidsRejectsBadInput) {
  using Space  = TypeParam;
  using Mem    = typename Space::memory_space;
  const auto x = to_view2<double, Space>("x", {0, 1, 2, 3}, 4, 1);
  Kokkos::View<double*, Mem> w("w", 4), w3("w3", 3);
  const char* fn = "tessera::cluster_ranges_centroids: ";
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 1, 0, 1}));
      },
      {fn,
       "labels must be sorted (non-decreasing): call sort_clusters first (got labels(2) = 0 "
       "after labels(1) = 1)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({-1, 0, 0, 1}));
      },
      {fn, "labels must be >= 0 (got labels(0) = -1)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 1, 1}));
      },
      {fn, "labels extent (got 3, expected 4)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 0, 1, 1}), w3);
      },
      {fn, "weights extent (got 3, expected 4)"});
  auto h = Kokkos::create_mirror_view(w);
  h(0) = 1, h(1) = -1, h(2) = 1, h(3) = -2;
  Kokkos::deep_copy(w, h);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 0, 1, 1}), w);
      },
      {fn, "weights must be >= 0 (got weights(1) = -1, expected >= 0)"});
  h(1) = 1, h(3) = std::nan("");
  Kokkos::deep_copy(w, h);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::cluster_ranges_centroids(Space(), x, int_view<Space>({0, 0, 1, 1}), w);
      },
      {fn, "weights must be >= 0 (got weights(3) = ", "nan"});
}

}  // namespace
