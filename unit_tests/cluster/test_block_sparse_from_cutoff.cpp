// block_sparse_from_cutoff end to end on clustered clouds: the clouds come back sorted with
// their permutations, every pair closer than the cutoff is kept (and far pairs are dropped),
// block-sparse reductions equal the host reference restricted to the kept pairs, and a kernel
// that vanishes beyond the cutoff gives the dense result.
#include "cluster/block_sparse_genred_check.hpp"
#include "cluster/block_sparse_test_support.hpp"
#include "genred/genred_test_support.hpp"
#include "profiling_regions.hpp"

#include <tessera/cluster/block_sparse_from_cutoff.hpp>
#include <tessera/genred/genred.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace tessera_test;

template <class Space>
class BlockSparseFromCutoff : public ::testing::Test {};
TYPED_TEST_SUITE(BlockSparseFromCutoff, ExecutionSpaces);

/// n points in `blobs` Gaussian blobs of the unit cube (rounded to T).
template <class T>
std::vector<double> blobs(int n, int count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::normal_distribution<double> spread(0, 0.05);
  std::vector<double> centres(3 * count);
  for (double& c : centres)
    c = unit(gen);
  std::vector<double> p(3 * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int b = static_cast<int>(gen() % count);
    for (int c = 0; c < 3; ++c)
      p[3 * i + c] = static_cast<T>(centres[3 * b + c] + spread(gen));
  }
  return p;
}

/// F = exp(-|x - y|^2 / (2 s^2)) b if |x - y| <= cutoff, else 0: an SPH-like kernel with
/// compact support.
struct TruncatedGaussian {
  using param_dims             = tessera::Dims<>;
  using i_dims                 = tessera::Dims<3>;
  using j_dims                 = tessera::Dims<3, 1>;
  static constexpr int out_dim = 1;
  double cutoff, sigma;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(tessera::In<T, 3> x, tessera::In<T, 3> y,
                                         tessera::In<T, 1> b, tessera::Out<T, 1> out) const {
    const T r2 = tessera::squared_distance(x, y);
    out[0] =
        r2 <= T(cutoff * cutoff) ? tessera::math::exp(-r2 / T(2 * sigma * sigma)) * b[0] : T(0);
  }
};

TYPED_TEST(BlockSparseFromCutoff, KeepsEveryPairWithinTheCutoff) {
  using Space = TypeParam;
  using T     = float;
  const int m = 1500, n = 1100;
  const double cutoff = 0.08, voxel = 0.1;
  const auto hx = blobs<T>(m, 6, 1);
  const auto hy = blobs<T>(n, 6, 2);
  auto x        = to_view2<T, Space>("x", hx, m, 3);
  auto y        = to_view2<T, Space>("y", hy, n, 3);
  auto b        = to_view2<T, Space>("b", random_values<T>(n, 0.5, 1.5, 3), n, 1);
  const auto hb = host_rows(b);
  const auto s  = tessera::block_sparse_from_cutoff(Space(), x, y, voxel, cutoff);
  tessera::permute_rows(Space(), s.perm_y, b);

  // sorted clouds are the originals permuted
  auto perm_x   = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.perm_x);
  auto perm_y   = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.perm_y);
  const auto sx = host_rows(x), sy = host_rows(y), sb = host_rows(b);
  for (int k = 0; k < m; ++k) {
    for (int c = 0; c < 3; ++c)
      ASSERT_EQ(sx[3 * k + c], hx[3 * perm_x(k) + c]) << "x row " << k;
  }
  for (int k = 0; k < n; ++k) {
    for (int c = 0; c < 3; ++c)
      ASSERT_EQ(sy[3 * k + c], hy[3 * perm_y(k) + c]) << "y row " << k;
    ASSERT_EQ(sb[k], hb[perm_y(k)]) << "b row " << k;
  }

  // every close pair is kept; the pattern is genuinely sparse
  const HostPattern p = host_pattern(s.ranges, tessera::Axis::j);
  std::int64_t close  = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double r2 = 0;
      for (int c = 0; c < 3; ++c)
        r2 += (sx[3 * i + c] - sy[3 * j + c]) * (sx[3 * i + c] - sy[3 * j + c]);
      if (r2 <= cutoff * cutoff) {
        ++close;
        ASSERT_TRUE(p.keeps(i, j)) << "close pair (" << i << ", " << j << ") dropped";
      }
    }
  }
  EXPECT_GT(close, 0);
  EXPECT_LT(s.ranges.kept_pairs(), static_cast<std::int64_t>(m) * n / 2);

  // reductions restricted to the pattern, both axes, against the restricted host reference,
  // through every kernel that runs block-sparse calls here
  const ProblemData d{0, m, n, {4.0}, sx, sy, std::vector<double>(2 * n, 1.0)};
  auto bb = to_view2<T, Space>("bb", d.b, n, 2);
  auto pp = to_view2<T, Space>("pp", d.p, 1, 1);
  for (tessera::Implementation implementation : sparse_implementations<Space>()) {
    const std::string kernel = " kernel " + implementation_name(implementation);
    for (tessera::Axis axis : {tessera::Axis::j, tessera::Axis::i}) {
      const int rows = axis == tessera::Axis::j ? m : n;
      const auto ref = tessera_ref::reduce(
          tessera::MinArgMin{}, 1, rows, axis == tessera::Axis::j ? n : m, 3,
          reference_formula(d, axis), [&](int outer, int inner) {
            return axis == tessera::Axis::j ? p.keeps(outer, inner) : p.keeps(inner, outer);
          });
      Kokkos::View<T**, typename Space::memory_space> v("v", rows, 3);
      Kokkos::View<int**, typename Space::memory_space> ix("ix", rows, 3);
      tessera::GenredOptions opt = tessera_test::test_options();
      opt.axis                   = axis;
      opt.implementation         = implementation;
      tessera::genred(Space(), tessera::MinArgMin{}, MixedFormula{}, tessera::params(pp),
                      tessera::i_vars(x), tessera::j_vars(y, bb), tessera::outputs(v, ix), s.ranges,
                      opt);
      expect_matches(tessera::MinArgMin{}, ref, host_rows(v), host_rows(ix), 3, 1, tolerance<T>(),
                     (axis == tessera::Axis::j ? "axis j" : "axis i") + kernel);
    }

    // a kernel that vanishes beyond the cutoff: block-sparse equals dense
    Kokkos::View<T**, typename Space::memory_space> dense("dense", m, 1), sparse("sparse", m, 1);
    const TruncatedGaussian k{cutoff, 0.03};
    tessera::GenredOptions opt = tessera_test::test_options();
    opt.implementation         = implementation;
    tessera::genred(Space(), tessera::Sum{}, k, tessera::i_vars(x), tessera::j_vars(y, b), dense,
                    opt);
    tessera::genred(Space(), tessera::Sum{}, k, tessera::i_vars(x), tessera::j_vars(y, b), sparse,
                    s.ranges, opt);
    const auto hd = host_rows(dense), hs = host_rows(sparse);
    double largest = 0;
    for (int i = 0; i < m; ++i)
      largest = std::max(largest, hd[i]);
    EXPECT_GT(largest, 0.1) << kernel;  // the kernel does not vanish everywhere
    for (int i = 0; i < m; ++i)         // same terms, summed in another order: float rounding
      ASSERT_NEAR(hs[i], hd[i], 1e-5 * largest) << "row " << i << kernel;
  }
}

// One cloud interacting with itself: passing the same View twice sorts it once.
TYPED_TEST(BlockSparseFromCutoff, OneCloud) {
  using Space   = TypeParam;
  const int n   = 700;
  const auto h  = blobs<double>(n, 4, 5);
  auto x        = to_view2<double, Space>("x", h, n, 3);
  const auto s  = tessera::block_sparse_from_cutoff(Space(), x, x, 0.1, 0.05);
  auto px       = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.perm_x);
  auto py       = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.perm_y);
  const auto sx = host_rows(x);
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(px(k), py(k));
    for (int c = 0; c < 3; ++c)
      ASSERT_EQ(sx[3 * k + c], h[3 * px(k) + c]);
  }
  EXPECT_EQ(s.ranges.m(), n);
  EXPECT_EQ(s.ranges.n(), n);
  const HostPattern p = host_pattern(s.ranges, tessera::Axis::j);
  for (int i = 0; i < n; ++i)
    ASSERT_TRUE(p.keeps(i, i)) << "a point must interact with itself";
}

// A profiler sees the call as one Kokkos Tools region holding its steps' regions (one cloud:
// clustered and sorted once), every region closed.
TYPED_TEST(BlockSparseFromCutoff, IsOneToolsRegionHoldingItsSteps) {
  using Space  = TypeParam;
  const int n  = 300;
  const auto h = blobs<double>(n, 3, 11);
  auto x       = to_view2<double, Space>("x", h, n, 3);
  Kokkos::fence();
  RegionRecording recording;
  tessera::block_sparse_from_cutoff(Space(), x, x, 0.1, 0.05);
  const std::vector<std::string> expected{
      "tessera::cluster::block_sparse_from_cutoff", "tessera::cluster::grid_cluster",
      "tessera::cluster::sort_clusters", "tessera::cluster::cluster_ranges_centroids",
      "tessera::cluster::ranges_from_mask"};
  EXPECT_EQ(RegionRecording::pushed(), expected);
  EXPECT_TRUE(RegionRecording::balanced());
}

TYPED_TEST(BlockSparseFromCutoff, RejectsBadInput) {
  using Space = TypeParam;
  auto x      = to_view2<float, Space>("x", std::vector<double>(6, 0.0), 3, 2);
  auto y      = to_view2<float, Space>("y", std::vector<double>(9, 0.0), 3, 3);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::block_sparse_from_cutoff(Space(), x, y, 0.1, 0.1); },
      {"tessera::block_sparse_from_cutoff: y dimension (got 3, expected 2)"});
  auto y2 = to_view2<float, Space>("y2", std::vector<double>(6, 0.0), 3, 2);
  expect_rejected<std::invalid_argument>(
      [&] { tessera::block_sparse_from_cutoff(Space(), x, y2, 0.1, -0.5); },
      {"cutoff must be >= 0 (got -0.5)"});
  expect_rejected<std::invalid_argument>(
      [&] { tessera::block_sparse_from_cutoff(Space(), x, y2, 0.0, 0.5); },
      {"voxel_size must be positive and finite"});
}

}  // namespace
