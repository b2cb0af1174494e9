// The distance formulas of genred/builtin_formulas.hpp against direct host computations in
// double: SquaredDistance (Sum and Min) and DotProduct, static and run-time D; the expanded and
// the matrix evaluation of the distance within their documented bounds, away from the origin and
// at any scale; the point-pair formulas (EuclideanDistance, CosineSimilarity, CosineDistance).
#include "genred/builtin_formulas_test_support.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace tessera_test::builtin;

TYPED_TEST(GenredBuiltinFormulas, SquaredDistanceSumAndMin) {
  using Space = TypeParam;
  check_builtin<Space, float>(tessera::SquaredDistance<3>{}, tessera::Sum{}, Kind::squared_distance,
                              3, 0, 11);
  check_builtin<Space, double>(tessera::SquaredDistance<dynamic_extent>{}, tessera::Sum{},
                               Kind::squared_distance, 5, 0, 12);
  // Min of |x - y|^2: the squared nearest-neighbour distance.
  check_builtin<Space, float>(tessera::SquaredDistance<3>{}, tessera::Min{}, Kind::squared_distance,
                              3, 0, 13);
  check_builtin<Space, double>(tessera::SquaredDistance<dynamic_extent>{}, tessera::Min{},
                               Kind::squared_distance, 5, 0, 14);
}

TYPED_TEST(GenredBuiltinFormulas, DotProductSum) {
  using Space = TypeParam;
  check_builtin<Space, float>(tessera::DotProduct<3>{}, tessera::Sum{}, Kind::dot, 3, 0, 21);
  check_builtin<Space, double>(tessera::DotProduct<3>{}, tessera::Sum{}, Kind::dot, 3, 0, 22);
  check_builtin<Space, float>(tessera::DotProduct<dynamic_extent>{}, tessera::Sum{}, Kind::dot, 5,
                              0, 23);
  check_builtin<Space, double>(tessera::DotProduct<dynamic_extent>{}, tessera::Sum{}, Kind::dot, 5,
                               0, 24);
}

// The expanded distance away from the origin: points in [10, 11]^3, where |x|^2 and |y|^2 are
// about 300 times |x - y|^2. The error stays within the documented bound on the scaled squared
// distance u = s r^2, |du| <= (D + 3) eps s (|x| + |y|)^2 (a relative error of ln 2 |du| in the
// Gaussian), here about 5e-4 in float: 15 times the tolerance the direct distance meets.
TYPED_TEST(GenredBuiltinFormulas, ExpandedDistanceWithinDocumentedBound) {
  using Space = TypeParam;
  using tessera::Distance;
  const double offset = 10;
  auto bound          = [&](double eps, int d = 3) {
    const double s       = tessera::log2_e / (2 * sigma * sigma);
    const double max_sum = 2 * std::sqrt(double(d)) * (offset + 1);  // |x| + |y|
    return std::log(2.0) * (d + 3) * eps * s * max_sum * max_sum + tessera_test::tolerance<float>();
  };
  const double float_bound = bound(std::numeric_limits<float>::epsilon() / 2);
  check_builtin<Space, float>(tessera::GaussianKernel<3, 1, Distance::expanded>(sigma),
                              tessera::Sum{}, Kind::gaussian, 3, 1, 91, offset, float_bound);
  check_builtin<Space, double>(tessera::GaussianKernel<3, 1, Distance::expanded>(sigma),
                               tessera::Sum{}, Kind::gaussian, 3, 1, 92, offset,
                               bound(std::numeric_limits<double>::epsilon() / 2));
  // The matrix units' split FP16 products keep the same bound (D = 9, so the bound's D + 3 is
  // 12).
  check_builtin<Space, float>(tessera::GaussianKernel<9, 1, Distance::matrix>(sigma),
                              tessera::Sum{}, Kind::gaussian, 9, 1, 93, offset,
                              bound(std::numeric_limits<float>::epsilon() / 2, 9));
  // The direct distance meets the ordinary tolerance on the same points.
  check_builtin<Space, float>(tessera::GaussianKernel<3, 1>(sigma), tessera::Sum{}, Kind::gaussian,
                              3, 1, 91, offset);
}

// Distance::matrix scales every row by a power of two before splitting it into FP16 parts:
// points and sigma at 1e-5 or 1e5 (where unscaled FP16 parts would underflow or overflow), rows
// whose scales differ by up to ten orders of magnitude, and y in LayoutLeft (staged column by
// column) all match the direct distance within the expansion's bound (about 4e-5 here).
TYPED_TEST(GenredBuiltinFormulas, MatrixDistanceAnyScale) {
  using Space     = TypeParam;
  using Mem       = typename Space::memory_space;
  using Out       = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
  constexpr int d = 16;
  const int m = 100, n = 700;
  auto scale_rows = [](std::vector<double>& v, int rows, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> power(-5, 5);
    for (int r = 0; r < rows; ++r) {
      const double f = std::pow(10.0, power(gen));
      for (int k = 0; k < d; ++k)
        v[r * d + k] = static_cast<double>(static_cast<float>(v[r * d + k] * f));
    }
  };
  for (const double c : {1e-5, 1.0, 1e5}) {
    for (const bool mixed : {false, true}) {
      auto xh = tessera_test::random_values<float>(std::size_t(m) * d, 0, c, 7);
      auto yh = tessera_test::random_values<float>(std::size_t(n) * d, 0, c, 8);
      if (mixed) {
        scale_rows(xh, m, 9);
        scale_rows(yh, n, 10);
      }
      const auto bh = tessera_test::random_values<float>(n, -1, 1, 11);
      auto x        = tessera_test::to_view2<float, Space>("x", xh, m, d);
      Kokkos::View<float**, Kokkos::LayoutLeft, Mem> y("y", n, d);
      Kokkos::deep_copy(y, tessera_test::to_view2<float, Space>("y_right", yh, n, d));
      auto b = tessera_test::to_view2<float, Space>("b", bh, n, 1);
      Out direct("direct", m, 1), matrix("matrix", m, 1);
      const tessera::GenredOptions opt = tessera_test::test_options();
      tessera::genred(Space(), tessera::Sum{},
                      tessera::GaussianKernel<d, 1, tessera::Distance::direct>(c),
                      tessera::i_vars(x), tessera::j_vars(y, b), direct, opt);
      tessera::genred(Space(), tessera::Sum{},
                      tessera::GaussianKernel<d, 1, tessera::Distance::matrix>(c),
                      tessera::i_vars(x), tessera::j_vars(y, b), matrix, opt);
      const auto dh = tessera_test::host_rows(direct), mh = tessera_test::host_rows(matrix);
      for (int i = 0; i < m; ++i) {
        double abs_sum = 0;  // sum_j |k_ij b_j| in double
        for (int j = 0; j < n; ++j) {
          double r2 = 0;
          for (int k = 0; k < d; ++k)
            r2 += (xh[i * d + k] - yh[j * d + k]) * (xh[i * d + k] - yh[j * d + k]);
          abs_sum += std::exp(-r2 / (2 * c * c)) * std::abs(bh[j]);
        }
        EXPECT_NEAR(mh[i], dh[i], 1e-4 * abs_sum + 1e-30)
            << "scale " << c << (mixed ? ", mixed rows" : "") << ", row " << i;
      }
    }
  }
}

// The point-pair formulas evaluated on one pair, against their documented values in double:
// EuclideanDistance, CosineSimilarity and CosineDistance, which is scipy's cosine distance
// 1 - x.y / (|x| |y|) for non-zero vectors and 1 where either vector is 0 (scipy gives NaN).
template <class Formula>
double point_pair_value(const double (&x)[3], const double (&y)[3]) {
  double out = 0;
  Formula{}(tessera::In<double, 3>(x, 3), tessera::In<double, 3>(y, 3),
            tessera::Out<double, 1>(&out, 1));
  return out;
}

TEST(GenredBuiltinFormulas, PointPairFormulasAndTheZeroVectorOfCosine) {
  const double x[3] = {1.5, -2.0, 0.25}, y[3] = {-0.5, 3.0, 2.0}, zero[3] = {0, 0, 0};
  const double xy = 1.5 * -0.5 + -2.0 * 3.0 + 0.25 * 2.0;
  const double nx = std::sqrt(1.5 * 1.5 + 4.0 + 0.0625), ny = std::sqrt(0.25 + 9.0 + 4.0);
  const double r = std::sqrt(2.0 * 2.0 + 5.0 * 5.0 + 1.75 * 1.75);
  // Tolerance: a few roundings of double arithmetic on values of order 1.
  EXPECT_NEAR(point_pair_value<tessera::EuclideanDistance<3>>(x, y), r, 1e-14);
  EXPECT_NEAR(point_pair_value<tessera::CosineSimilarity<3>>(x, y), xy / (nx * ny), 1e-14);
  EXPECT_NEAR(point_pair_value<tessera::CosineDistance<3>>(x, y), 1 - xy / (nx * ny), 1e-14);
  EXPECT_EQ(point_pair_value<tessera::CosineSimilarity<3>>(x, zero), 0.0);
  EXPECT_EQ(point_pair_value<tessera::CosineDistance<3>>(zero, y), 1.0);
  EXPECT_EQ(point_pair_value<tessera::CosineDistance<3>>(zero, zero), 1.0);
}

}  // namespace
