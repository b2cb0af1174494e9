// Cluster masks: mask_from_centroid_distance against a host loop, and ranges_from_mask, whose
// pattern must keep exactly the pairs (i, j) with i in x-cluster a, j in y-cluster b and
// mask(a, b) true, merging equal rows and touching clusters; genred over such a pattern through
// every kernel that runs block-sparse calls (its reduction families compiled apart, in
// test_cluster_mask_genred_<family>.cpp).
#include "cluster/cluster_mask_test_support.hpp"

#include <tessera/cluster/cluster_mask.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tessera_test;

template <class Space>
class ClusterMask : public ::testing::Test {};
TYPED_TEST_SUITE(ClusterMask, ExecutionSpaces);

/// Cluster ranges partitioning [0, total) with random sizes, some empty.
std::vector<int> random_clusters(int count, int max_size, std::mt19937& gen) {
  std::uniform_int_distribution<int> size(0, max_size);
  std::vector<int> r;
  int start = 0;
  for (int c = 0; c < count; ++c) {
    const int s = c % 5 == 3 ? 0 : size(gen);
    r.push_back(start);
    r.push_back(start + s);
    start += s;
  }
  return r;
}

/// Runs ranges_from_mask and checks every pair of the plane against the mask, in both
/// directions; returns the forward triple on the host.
template <class Space>
HostPattern check_mask_pattern(const std::vector<char>& mask, const std::vector<int>& rx,
                               const std::vector<int>& ry) {
  const int cx = static_cast<int>(rx.size() / 2), cy = static_cast<int>(ry.size() / 2);
  const auto r = mask_ranges<Space>(mask, rx, ry);
  const int m = cx ? rx.back() : 0, n = cy ? ry.back() : 0;
  EXPECT_EQ(r.m(), m);
  EXPECT_EQ(r.n(), n);
  const HostPattern fwd = host_pattern(r, tessera::Axis::j);
  const HostPattern bwd = host_pattern(r, tessera::Axis::i);
  std::vector<int> cluster_of_i(m), cluster_of_j(n);
  for (int a = 0; a < cx; ++a) {
    for (int i = rx[2 * a]; i < rx[2 * a + 1]; ++i)
      cluster_of_i[i] = a;
  }
  for (int b = 0; b < cy; ++b) {
    for (int j = ry[2 * b]; j < ry[2 * b + 1]; ++j)
      cluster_of_j[j] = b;
  }
  std::int64_t kept = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      const bool want = mask[cluster_of_i[i] * cy + cluster_of_j[j]] != 0;
      kept += want;
      EXPECT_EQ(fwd.keeps(i, j), want) << "pair (" << i << ", " << j << ")";
      EXPECT_EQ(bwd.keeps(j, i), want) << "transposed pair (" << i << ", " << j << ")";
      if (::testing::Test::HasFailure()) return fwd;
    }
  }
  EXPECT_EQ(r.kept_pairs(), kept);
  return fwd;
}

TYPED_TEST(ClusterMask, RangesFromRandomMasks) {
  std::mt19937 gen(5);
  for (auto [cx, cy, density] : std::vector<std::tuple<int, int, double>>{
           {0, 0, 0.5}, {1, 1, 1.0}, {6, 9, 0.3}, {23, 17, 0.5}, {40, 31, 0.1}, {12, 50, 0.9}}) {
    const auto rx = random_clusters(cx, 9, gen);
    const auto ry = random_clusters(cy, 7, gen);
    std::bernoulli_distribution keep(density);
    std::vector<char> mask(static_cast<std::size_t>(cx) * cy);
    for (int a = 0; a < cx; ++a) {
      for (int b = 0; b < cy; ++b)  // repeat some rows to exercise the merging of equal rows
        mask[a * cy + b] = a % 4 == 1 ? mask[(a - 1) * cy + b] : keep(gen);
    }
    check_mask_pattern<TypeParam>(mask, rx, ry);
    if (::testing::Test::HasFailure()) return;
  }
}

// A full mask collapses to the single dense tile; an empty one keeps nothing.
TYPED_TEST(ClusterMask, FullAndEmptyMasks) {
  std::mt19937 gen(9);
  const auto rx          = random_clusters(13, 8, gen);
  const auto ry          = random_clusters(11, 8, gen);
  const HostPattern full = check_mask_pattern<TypeParam>(std::vector<char>(13 * 11, 1), rx, ry);
  EXPECT_EQ(full.segments, (std::vector<int>{0, rx.back()}));
  EXPECT_EQ(full.ranges, (std::vector<int>{0, ry.back()}));
  const HostPattern none = check_mask_pattern<TypeParam>(std::vector<char>(13 * 11, 0), rx, ry);
  EXPECT_EQ(none.segments, (std::vector<int>{0, rx.back()}));
  EXPECT_TRUE(none.ranges.empty());
}

// Genred over a cluster mask's pattern: every reduction, both axes, float and double, through
// every kernel that runs block-sparse calls, against the reference restricted to the mask's
// pairs (a pattern built from the mask cluster by cluster, independently of ranges_from_mask).
// Clusters of odd and zero sizes; x-cluster 2 keeps nothing, nothing keeps y-cluster 4.
// Each reduction family runs in a function compiled in a file of its own
// (cluster_mask_test_support.hpp).
TYPED_TEST(ClusterMask, GenredOverMaskPattern) {
  using Space  = TypeParam;
  const int cx = 19, cy = 23;
  std::mt19937 gen(17);
  const auto rx = random_clusters(cx, 13, gen);
  const auto ry = random_clusters(cy, 11, gen);
  std::bernoulli_distribution keep(0.3);
  std::vector<char> mask(cx * cy);
  for (int a = 0; a < cx; ++a) {
    for (int b = 0; b < cy; ++b)
      mask[a * cy + b] = a != 2 && b != 4 && keep(gen);
  }
  const int m = rx.back(), n = ry.back();
  HostPattern by_cluster(m, n);
  for (int a = 0; a < cx; ++a) {
    std::vector<std::pair<int, int>> kept;
    for (int b = 0; b < cy; ++b) {
      if (mask[a * cy + b]) kept.push_back({ry[2 * b], ry[2 * b + 1]});
    }
    by_cluster.add_segment(rx[2 * a + 1], kept);
  }
  const MaskCase c{mask, rx, ry, by_cluster, SparseCase{0, m, n, 0}};
  const int space = space_index<Space>(ExecutionSpaces{});
  for (const auto family : {genred_over_mask_sums, genred_over_mask_min_max,
                            genred_over_mask_k_selections, genred_over_mask_log_sum_exp}) {
    family(space, c);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(ClusterMask, RangesFromMaskRejectsBadInput) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  Kokkos::View<bool**, Mem> mask("mask", 2, 3);
  const auto rx = ranges_view<Space>({0, 4, 4, 9});
  const auto ry = ranges_view<Space>({0, 1, 1, 2, 2, 5});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::ranges_from_mask(Space(), mask, ry, ry); },
      {"tessera::ranges_from_mask: mask rows (got 2, expected 3)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::ranges_from_mask(Space(), mask, rx, rx); },
      {"tessera::ranges_from_mask: mask columns (got 3, expected 2)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::ranges_from_mask(Space(), mask, rx, ranges_view<Space>({0, 1, 2, 3, 3, 5}));
      },
      {"ranges_y[1] = [2, 3) starts at 2 (expected 1)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::ranges_from_mask(Space(), mask, ranges_view<Space>({0, 4, 4, 3}), ry);
      },
      {"ranges_x[1] = [4, 3) has start > end"});
}

template <class T, class Space>
Kokkos::View<T**, typename Space::memory_space> points_view(const std::vector<double>& data,
                                                            int rows, int dim) {
  Kokkos::View<T**, typename Space::memory_space> v("points", rows, dim);
  auto h = Kokkos::create_mirror_view(v);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < dim; ++c)
      h(r, c) = static_cast<T>(data[r * dim + c]);
  }
  Kokkos::deep_copy(v, h);
  return v;
}

TYPED_TEST(ClusterMask, MaskFromCentroidDistance) {
  using Space  = TypeParam;
  using T      = float;
  const int cx = 37, cy = 23, d = 3;
  const auto hx  = random_values<T>(cx * d, -1, 1, 1);
  const auto hy  = random_values<T>(cy * d, -1, 1, 2);
  const auto hrx = random_values<T>(cx, 0, 0.2, 3);
  const auto hry = random_values<T>(cy, 0, 0.2, 4);
  const auto x = points_view<T, Space>(hx, cx, d), y = points_view<T, Space>(hy, cy, d);
  Kokkos::View<T*, typename Space::memory_space> rx("rx", cx), ry("ry", cy);
  {
    auto h = Kokkos::create_mirror_view(rx);
    for (int a = 0; a < cx; ++a)
      h(a) = static_cast<T>(hrx[a]);
    Kokkos::deep_copy(rx, h);
    auto g = Kokkos::create_mirror_view(ry);
    for (int b = 0; b < cy; ++b)
      g(b) = static_cast<T>(hry[b]);
    Kokkos::deep_copy(ry, g);
  }
  for (double cutoff : {0.0, 0.4, 0.9, std::numeric_limits<double>::infinity()}) {
    for (bool with_radii : {false, true}) {
      const auto mask = with_radii
                            ? tessera::mask_from_centroid_distance(Space(), x, rx, y, ry, cutoff)
                            : tessera::mask_from_centroid_distance(Space(), x, y, cutoff);
      auto h          = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mask);
      int kept        = 0;
      for (int a = 0; a < cx; ++a) {
        for (int b = 0; b < cy; ++b) {
          double r2 = 0;
          for (int c = 0; c < d; ++c)
            r2 += (hx[a * d + c] - hy[b * d + c]) * (hx[a * d + c] - hy[b * d + c]);
          const double reach = cutoff + (with_radii ? hrx[a] + hry[b] : 0.0);
          const double dist  = std::sqrt(r2);
          if (std::fabs(dist - reach) < 1e-5) continue;  // within the rounding slack
          EXPECT_EQ(h(a, b), dist <= reach) << a << " " << b << " cutoff " << cutoff;
          kept += h(a, b);
        }
      }
      if (cutoff == 0.4) EXPECT_GT(kept, 0);
      if (cutoff == 0.4) EXPECT_LT(kept, cx * cy);
    }
  }
  expect_rejected<std::invalid_argument>(
      [&] { tessera::mask_from_centroid_distance(Space(), x, y, -1.0); },
      {"tessera::mask_from_centroid_distance: cutoff must be >= 0 (got -1)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::mask_from_centroid_distance(Space(), x, y, std::nan("")); },
      {"cutoff must be >= 0 (got nan)"});
  const auto y2 = points_view<T, Space>(std::vector<double>(cy * 2, 0.0), cy, 2);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::mask_from_centroid_distance(Space(), x, y2, 1.0); },
      {"centroids_y dimension (got 2, expected 3)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::mask_from_centroid_distance(Space(), x, ry, y, ry, 1.0); },
      {"radii_x extent (got 23, expected 37)"});
}

}  // namespace
