// cdist of PCFs and of point vectors against direct host computation in double: dense outputs,
// batch shapes, symmetry, Genred formulas as pairwise functions, the generic pairwise().
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/pairwise/pairwise.hpp>

#include "execution_spaces.hpp"
#include "reference/pcf_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

using tessera_test::HostPcf;

template <class ExecSpace>
class Cdist : public ::testing::Test {};
TYPED_TEST_SUITE(Cdist, tessera_test::ExecutionSpaces);

TYPED_TEST(Cdist, PcfCrossDistancesAndInnerProducts) {
  const auto fx = tessera_test::random_pcfs(23, 21, 1, 30);
  const auto fy = tessera_test::random_pcfs(31, 22, 1, 45, tessera_test::PcfTimes::interleaved);
  const auto X  = tessera_test::to_collection<double>(fx);
  const auto Y  = tessera_test::to_collection<double>(fy);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> l1("l1", 23, 31), l3("l3", 23, 31),
      ip("ip", 23, 31);
  tessera::PairwiseOptions options;
  options.budget_bytes   = 4 * 10 * 10 * sizeof(double);  // many blocks, rectangular grid
  options.min_block_side = 0;
  tessera::cdist(TypeParam{}, tessera::PcfL1{}, X, Y, l1, options);
  tessera::cdist(TypeParam{}, tessera::PcfLp{3}, X, Y, l3);
  tessera::cdist(TypeParam{}, tessera::PcfL2InnerProduct{}, X, Y, ip);
  for (int i = 0; i < 23; ++i) {
    for (int j = 0; j < 31; ++j) {
      const double d1 = tessera_test::lp_distance(fx[i], fy[j], 1, options.end_time);
      const double d3 = tessera_test::lp_distance(fx[i], fy[j], 3, options.end_time);
      const double g  = tessera_test::l2_inner_product(fx[i], fy[j], options.end_time);
      ASSERT_NEAR(l1(i, j), d1, 1e-11 * (1 + d1)) << i << ", " << j;
      ASSERT_NEAR(l3(i, j), d3, 1e-11 * (1 + d3)) << i << ", " << j;
      ASSERT_NEAR(ip(i, j), g, 1e-11 * (1 + std::abs(g))) << i << ", " << j;
    }
  }
}

TYPED_TEST(Cdist, OfACollectionWithItselfIsSymmetricWithAZeroDiagonal) {
  const auto f = tessera_test::random_pcfs(29, 23, 1, 50);
  const auto X = tessera_test::to_collection<float>(f);
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> d("d", 29, 29);
  tessera::cdist(TypeParam{}, tessera::PcfL1{}, X, X, d);
  for (int i = 0; i < 29; ++i) {
    EXPECT_EQ(d(i, i), 0.0f) << i;
    for (int j = 0; j < i; ++j) {
      // The walk visits the same rectangles in the same order from either side.
      EXPECT_EQ(d(i, j), d(j, i)) << i << ", " << j;
      EXPECT_GT(d(i, j), 0.0f) << i << ", " << j;
    }
  }
}

TYPED_TEST(Cdist, BatchShapesGiveTheConcatenatedShape) {
  const auto fx = tessera_test::random_pcfs(15, 24, 1, 20);
  const auto fy = tessera_test::random_pcfs(12, 25, 1, 20);
  const auto X  = tessera_test::to_collection<double>(fx).reshaped({3, 5});
  const auto Y  = tessera_test::to_collection<double>(fy).reshaped({2, 2, 3});
  Kokkos::View<double*****, Kokkos::LayoutRight, Kokkos::HostSpace> out("out", 3, 5, 2, 2, 3);
  tessera::cdist(TypeParam{}, tessera::PcfL1{}, X, Y, out);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 5; ++b)
      for (int c = 0; c < 2; ++c)
        for (int d = 0; d < 2; ++d)
          for (int e = 0; e < 3; ++e) {
            const double ref = tessera_test::lp_distance(fx[a * 5 + b], fy[c * 6 + d * 3 + e], 1,
                                                         tessera::PairwiseOptions{}.end_time);
            ASSERT_NEAR(out(a, b, c, d, e), ref, 1e-11 * (1 + ref));
          }
  // The same output streamed to a .npy file keeps the shape.
  const std::string path = ::testing::TempDir() + "tessera_cdist_batch.npy";
  tessera::cdist(TypeParam{}, tessera::PcfL1{}, X, Y, tessera::NpyFile{path});
  const auto a = tessera::read_npy<double>(path);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{3, 5, 2, 2, 3}));
  for (std::size_t k = 0; k < a.values.extent(0); ++k)
    ASSERT_EQ(a.values(k), out.data()[k]);
  std::remove(path.c_str());
}

template <class T>
Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> random_points(int n, int d,
                                                                        unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal;
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> x("points", n, d);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k)
      x(i, k) = static_cast<T>(normal(gen));
  return x;
}

/// F over all pairs of x and y against a host reference ref(x_i, y_j) in double, for points in
/// host memory (streamed) and in the execution space's memory (resident), with outputs in host
/// memory and in the execution space's memory.
template <class ExecSpace, int D, class F, class T, class Ref>
void check_points(int n, int m, const F& formula, Ref ref, double tol) {
  using DevSpace = typename ExecSpace::memory_space;
  const auto x   = random_points<T>(n, D, 31 + n);
  const auto y   = random_points<T>(m, D, 37 + m);
  const auto xd  = Kokkos::create_mirror_view_and_copy(DevSpace{}, x);
  const auto yd  = Kokkos::create_mirror_view_and_copy(DevSpace{}, y);
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> out("out", n, m);
  Kokkos::View<T**, Kokkos::LayoutRight, DevSpace> out_d("out_d", n, m);
  tessera::PairwiseOptions options;
  options.budget_bytes   = 4 * 40 * 40 * sizeof(T);
  options.min_block_side = 0;
  tessera::cdist(ExecSpace{}, formula, x, y, out, options);
  tessera::cdist(ExecSpace{}, formula, xd, yd, out_d, options);
  const auto back = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out_d);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      double xi[D], yj[D];
      for (int k = 0; k < D; ++k) {
        xi[k] = x(i, k);
        yj[k] = y(j, k);
      }
      const double r = ref(xi, yj);
      ASSERT_NEAR(out(i, j), r, tol * (1 + std::abs(r))) << i << ", " << j;
      ASSERT_EQ(back(i, j), out(i, j)) << i << ", " << j;
    }
  }
}

TYPED_TEST(Cdist, PointVectorsWithGenredFormulas) {
  auto dot = [](const double* a, const double* b, int d) {
    double s = 0;
    for (int k = 0; k < d; ++k)
      s += a[k] * b[k];
    return s;
  };
  auto euclid = [](const double* a, const double* b) {
    double s = 0;
    for (int k = 0; k < 16; ++k)
      s += (a[k] - b[k]) * (a[k] - b[k]);
    return std::sqrt(s);
  };
  // float: 16 products summed in float, relative error ~1e-6.
  for (auto [n, m] : {std::pair{67, 33}, std::pair{1, 1}, std::pair{0, 5}, std::pair{5, 0}}) {
    check_points<TypeParam, 16, tessera::EuclideanDistance<16>, float>(
        n, m, tessera::EuclideanDistance<16>{}, euclid, 1e-5);
  }
  check_points<TypeParam, 5, tessera::CosineSimilarity<5>, double>(
      41, 29, tessera::CosineSimilarity<5>{},
      [&](const double* a, const double* b) {
        return dot(a, b, 5) / std::sqrt(dot(a, a, 5) * dot(b, b, 5));
      },
      1e-13);
  // GaussianKernel's exp2 is the fast one (relative error below 2^-22 even in double).
  const double sigma = 1.3;
  check_points<TypeParam, 3, tessera::GaussianKernel<3>, double>(
      35, 50, tessera::GaussianKernel<3>(sigma),
      [&](const double* a, const double* b) {
        double r2 = 0;
        for (int k = 0; k < 3; ++k)
          r2 += (a[k] - b[k]) * (a[k] - b[k]);
        return std::exp(-r2 / (2 * sigma * sigma));
      },
      1e-6);
}

TYPED_TEST(Cdist, GenericPairwiseRunsAnyBlockOp) {
  const auto f = tessera_test::random_pcfs(19, 26, 1, 25);
  const auto X = tessera_test::to_collection<double>(f);
  const auto s = tessera::validate_pcfs(X);
  tessera::PcfBlockOp<TypeParam, tessera::PcfL2InnerProduct, double, double, Kokkos::HostSpace> op(
      tessera::PcfL2InnerProduct{}, X, s, X, s, tessera::math::infinity<double>());
  Kokkos::View<double*, Kokkos::HostSpace> packed("packed", 19 * 20 / 2), dense("dense", 19 * 19);
  tessera::pairwise(TypeParam{}, op, tessera::MatrixLayout::symmetric, packed);
  tessera::pairwise(TypeParam{}, op, tessera::MatrixLayout::dense, dense);
  for (int i = 0; i < 19; ++i) {
    for (int j = 0; j < 19; ++j) {
      const double ref =
          tessera_test::l2_inner_product(f[i], f[j], tessera::math::infinity<double>());
      ASSERT_NEAR(dense(i * 19 + j), ref, 1e-11 * (1 + std::abs(ref)));
      if (i <= j) ASSERT_EQ(packed(19 * i - i * (i - 1) / 2 + j - i), dense(i * 19 + j));  // triu
    }
  }
}

}  // namespace
