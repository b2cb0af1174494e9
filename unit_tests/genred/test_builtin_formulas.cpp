// The built-in formulas of genred/builtin_formulas.hpp (SquaredDistance, DotProduct and the
// radial kernels, with and without weights) against direct host computations in double. The
// kernel profiles are written here from their documented formulas, independently of the
// library's profile structs. Point dimension D = 3 (static) and D = dynamic_extent (5 at run
// time); weight dimension W = 0, 1, 3 and dynamic_extent (2 at run time); float and double.
#include "genred/genred_test_support.hpp"

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using tessera::dynamic_extent;

template <class Space>
class GenredBuiltinFormulas : public ::testing::Test {};
TYPED_TEST_SUITE(GenredBuiltinFormulas, tessera_test::ExecutionSpaces);

enum class Kind {
  squared_distance,
  dot,
  gaussian,
  laplace,
  cauchy,
  inverse_multiquadric,
  matern32
};

/// The documented value of each formula for one pair of points, in double.
double reference_value(Kind kind, double sigma, const double* x, const double* y, int d) {
  double r2 = 0, xy = 0;
  for (int c = 0; c < d; ++c) {
    r2 += (x[c] - y[c]) * (x[c] - y[c]);
    xy += x[c] * y[c];
  }
  const double r = std::sqrt(r2);
  switch (kind) {
    case Kind::squared_distance:
      return r2;
    case Kind::dot:
      return xy;
    case Kind::gaussian:
      return std::exp(-r2 / (2 * sigma * sigma));
    case Kind::laplace:
      return std::exp(-r / sigma);
    case Kind::cauchy:
      return 1 / (1 + r2 / (sigma * sigma));
    case Kind::inverse_multiquadric:
      return 1 / std::sqrt(1 + r2 / (sigma * sigma));
    case Kind::matern32: {
      const double u = std::sqrt(3.0) * r / sigma;
      return (1 + u) * std::exp(-u);
    }
  }
  return std::nan("");
}

const char* name_of(Kind kind) {
  switch (kind) {
    case Kind::squared_distance:
      return "SquaredDistance";
    case Kind::dot:
      return "DotProduct";
    case Kind::gaussian:
      return "GaussianKernel";
    case Kind::laplace:
      return "LaplaceKernel";
    case Kind::cauchy:
      return "CauchyKernel";
    case Kind::inverse_multiquadric:
      return "InverseMultiquadricKernel";
    case Kind::matern32:
      return "Matern32Kernel";
  }
  return "?";
}

template <int... D>
constexpr bool all_static(tessera::Dims<D...>) {
  return ((D >= 0) && ...);
}

constexpr double sigma = 0.7;  // of the order of the point spacing: kernel values in (0, 1]

/// Runs `formula` (whose j-variables are (y) or (y, b), per its j_dims) with `reduction` on
/// M x N random points of dimension d and weights of dimension w, and compares with the
/// reference value of `kind` (times b_j when weighted). The points lie in [offset, offset + 1]^d;
/// `tol` is relative to sum |F| (see genred_test_support.hpp).
template <class Space, class T, class Formula, class Reduction>
void check_builtin(const Formula& formula, const Reduction& reduction, Kind kind, int d, int w,
                   unsigned seed, double offset = 0, double tol = tessera_test::tolerance<T>()) {
  constexpr bool weighted = Formula::j_dims::count == 2;
  const int out_dim       = weighted ? w : 1;
  const std::string where =
      std::string(name_of(kind)) + (std::is_same_v<T, float> ? " float" : " double") +
      " D=" + std::to_string(d) + " W=" + std::to_string(weighted ? w : 0) +
      (all_static(typename Formula::j_dims{}) ? " (static dims)" : " (run-time dims)");
  // 37 output rows, 300 reduced rows: a full 256-row tile and a partial one; 613 x 1301: two
  // 512-row output blocks and three 512-row staged tiles of the tensor-core kernel, the last one
  // partial; then 1 x 1.
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{{37, 300}, {613, 1301}, {1, 1}}) {
    const auto xh =
        tessera_test::random_values<T>(static_cast<std::size_t>(m) * d, offset, offset + 1, seed);
    const auto yh = tessera_test::random_values<T>(static_cast<std::size_t>(n) * d, offset,
                                                   offset + 1, seed + 1);
    // Signed weights: the sums cancel, which the |F|-relative tolerance of expect_matches allows.
    const auto bh = tessera_test::random_values<T>(static_cast<std::size_t>(n) * (weighted ? w : 1),
                                                   -1, 1, seed + 2);
    auto x        = tessera_test::to_view2<T, Space>("x", xh, m, d);
    auto y        = tessera_test::to_view2<T, Space>("y", yh, n, d);
    const tessera_test::PairFormula f = [&](int i, int j, double* out) {
      const double k = reference_value(kind, sigma, &xh[static_cast<std::size_t>(i) * d],
                                       &yh[static_cast<std::size_t>(j) * d], d);
      if (!weighted) {
        out[0] = k;
      } else {
        for (int c = 0; c < w; ++c)
          out[c] = k * bh[static_cast<std::size_t>(j) * w + c];
      }
    };
    if constexpr (weighted) {
      auto b = tessera_test::to_view2<T, Space>("b", bh, n, w);
      tessera_test::check_formula<Space, T>(reduction, formula, tessera::Params<>{},
                                            tessera::i_vars(x), tessera::j_vars(y, b), m, n,
                                            out_dim, f, where, tessera_test::test_options(), tol);
    } else {
      tessera_test::check_formula<Space, T>(reduction, formula, tessera::Params<>{},
                                            tessera::i_vars(x), tessera::j_vars(y), m, n, out_dim,
                                            f, where, tessera_test::test_options(), tol);
    }
  }
}

/// One radial kernel with (D, W) combinations that cover each code path at least once: D
/// static and dynamic (5 at run time), W = 0, 1, 3 and dynamic (2 at run time); float and
/// double; the direct and (static dims) the expanded distance. The points lie in [0, 1]^D, where
/// the expanded distance's cancellation error (about 1e-6 relative in float) is far inside the
/// tolerance; the Gaussian test below covers the full D x W matrix.
template <class Space, class T, template <int, int, tessera::Distance> class Kernel>
void check_radial_paths_of_type(Kind kind, unsigned seed) {
  using tessera::Distance;
  check_builtin<Space, T>(Kernel<3, 0, Distance::direct>(sigma), tessera::Sum{}, kind, 3, 0, seed);
  check_builtin<Space, T>(Kernel<dynamic_extent, 1, Distance::direct>(sigma), tessera::Sum{}, kind,
                          5, 1, seed + 1);
  check_builtin<Space, T>(Kernel<3, 3, Distance::direct>(sigma), tessera::Sum{}, kind, 3, 3,
                          seed + 2);
  check_builtin<Space, T>(Kernel<dynamic_extent, dynamic_extent, Distance::direct>(sigma),
                          tessera::Sum{}, kind, 5, 2, seed + 3);
  check_builtin<Space, T>(Kernel<3, 0, Distance::expanded>(sigma), tessera::Sum{}, kind, 3, 0,
                          seed + 4);
  check_builtin<Space, T>(Kernel<5, 1, Distance::expanded>(sigma), tessera::Sum{}, kind, 5, 1,
                          seed + 5);
  check_builtin<Space, T>(Kernel<3, 3, Distance::expanded>(sigma), tessera::Sum{}, kind, 3, 3,
                          seed + 6);
  check_builtin<Space, T>(Kernel<3, 3, Distance::matrix>(sigma), tessera::Sum{}, kind, 3, 3,
                          seed + 8);
}
template <class Space, template <int, int, tessera::Distance> class Kernel>
void check_radial_paths(Kind kind, unsigned seed) {
  check_radial_paths_of_type<Space, float, Kernel>(kind, seed);
  check_radial_paths_of_type<Space, double, Kernel>(kind, seed + 7);
}

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

// The Gaussian kernel on every (D, W) combination, both types: the plumbing of static and
// run-time point and weight dimensions, which all radial kernels share.
TYPED_TEST(GenredBuiltinFormulas, GaussianEveryDimensionCombination) {
  using Space = TypeParam;
  auto run    = [](auto type_tag) {
    using T      = typename decltype(type_tag)::type;
    const Kind g = Kind::gaussian;
    check_builtin<Space, T>(tessera::GaussianKernel<3, 0>(sigma), tessera::Sum{}, g, 3, 0, 31);
    check_builtin<Space, T>(tessera::GaussianKernel<3, 1>(sigma), tessera::Sum{}, g, 3, 1, 32);
    check_builtin<Space, T>(tessera::GaussianKernel<3, 3>(sigma), tessera::Sum{}, g, 3, 3, 33);
    check_builtin<Space, T>(tessera::GaussianKernel<3, dynamic_extent>(sigma), tessera::Sum{}, g, 3,
                            2, 34);
    check_builtin<Space, T>(tessera::GaussianKernel<dynamic_extent, 0>(sigma), tessera::Sum{}, g, 5,
                            0, 35);
    check_builtin<Space, T>(tessera::GaussianKernel<dynamic_extent, 1>(sigma), tessera::Sum{}, g, 5,
                            1, 36);
    check_builtin<Space, T>(tessera::GaussianKernel<dynamic_extent, 3>(sigma), tessera::Sum{}, g, 5,
                            3, 37);
    check_builtin<Space, T>(tessera::GaussianKernel<dynamic_extent, dynamic_extent>(sigma),
                            tessera::Sum{}, g, 5, 2, 38);
    using tessera::Distance;
    check_builtin<Space, T>(tessera::GaussianKernel<3, 0, Distance::expanded>(sigma),
                            tessera::Sum{}, g, 3, 0, 39);
    check_builtin<Space, T>(tessera::GaussianKernel<3, 1, Distance::expanded>(sigma),
                            tessera::Sum{}, g, 3, 1, 40);
    check_builtin<Space, T>(tessera::GaussianKernel<16, 3, Distance::expanded>(sigma),
                            tessera::Sum{}, g, 16, 3, 41);
    // Distance::matrix: the tensor-core path on CUDA (float, Sum over j, 8 < D <= 32), with D
    // padded to whole 16-wide k-steps (13) or not (16, 32), W = 0, 2 and 3; D = 3, Min and
    // Axis::i (tested by check_builtin) take the expanded evaluation.
    check_builtin<Space, T>(tessera::GaussianKernel<3, 0, Distance::matrix>(sigma), tessera::Sum{},
                            g, 3, 0, 42);
    check_builtin<Space, T>(tessera::GaussianKernel<13, 0, Distance::matrix>(sigma), tessera::Sum{},
                            g, 13, 0, 43);
    check_builtin<Space, T>(tessera::GaussianKernel<16, 3, Distance::matrix>(sigma), tessera::Sum{},
                            g, 16, 3, 44);
    check_builtin<Space, T>(tessera::GaussianKernel<32, 2, Distance::matrix>(sigma), tessera::Sum{},
                            g, 32, 2, 45);
    check_builtin<Space, T>(tessera::GaussianKernel<3, 1, Distance::matrix>(sigma), tessera::Min{},
                            g, 3, 1, 46);
  };
  run(std::common_type<float>{});
  run(std::common_type<double>{});
}

TYPED_TEST(GenredBuiltinFormulas, LaplaceKernel) {
  check_radial_paths<TypeParam, tessera::LaplaceKernel>(Kind::laplace, 41);
}
TYPED_TEST(GenredBuiltinFormulas, CauchyKernel) {
  check_radial_paths<TypeParam, tessera::CauchyKernel>(Kind::cauchy, 51);
}
TYPED_TEST(GenredBuiltinFormulas, InverseMultiquadricKernel) {
  check_radial_paths<TypeParam, tessera::InverseMultiquadricKernel>(Kind::inverse_multiquadric, 61);
}
TYPED_TEST(GenredBuiltinFormulas, Matern32Kernel) {
  check_radial_paths<TypeParam, tessera::Matern32Kernel>(Kind::matern32, 71);
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

// A radial kernel with Min: the largest distance gives the smallest Gaussian value.
TYPED_TEST(GenredBuiltinFormulas, GaussianMin) {
  using Space = TypeParam;
  check_builtin<Space, float>(tessera::GaussianKernel<3>(sigma), tessera::Min{}, Kind::gaussian, 3,
                              0, 81);
  check_builtin<Space, double>(tessera::LaplaceKernel<dynamic_extent, 3>(sigma), tessera::Min{},
                               Kind::laplace, 5, 3, 82);
}

template <class Kernel>
void expect_sigma_rejected(double s, const std::string& shown) {
  try {
    Kernel k(s);
    (void)k;
    ADD_FAILURE() << "sigma = " << shown << " was accepted";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    for (const std::string& part :
         std::vector<std::string>{"tessera::RadialKernel", "sigma", "got " + shown}) {
      EXPECT_NE(msg.find(part), std::string::npos) << "message \"" << msg << "\" lacks " << part;
    }
  }
}

TEST(GenredBuiltinFormulas, RadialKernelRejectsBadSigma) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  expect_sigma_rejected<tessera::GaussianKernel<3>>(0.0, "0");
  expect_sigma_rejected<tessera::GaussianKernel<3, 1>>(-1.5, "-1.5");
  expect_sigma_rejected<tessera::LaplaceKernel<dynamic_extent>>(nan, "nan");
  expect_sigma_rejected<tessera::CauchyKernel<3, 3>>(-0.0, "-0");
  expect_sigma_rejected<tessera::InverseMultiquadricKernel<3>>(-inf, "-inf");
  expect_sigma_rejected<tessera::Matern32Kernel<3, dynamic_extent>>(inf, "inf");
  // Positive finite values are accepted, tiny and large ones included.
  EXPECT_NO_THROW({
    tessera::GaussianKernel<3> k(1e-3);
    (void)k;
  });
  EXPECT_NO_THROW({
    tessera::Matern32Kernel<3> k(1e6);
    (void)k;
  });
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
