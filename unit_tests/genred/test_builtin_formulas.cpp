// The built-in formulas of genred/builtin_formulas.hpp (SquaredDistance, DotProduct and the
// radial kernels, with and without weights) against direct host computations in double. The
// kernel profiles are written here from their documented formulas, independently of the
// library's profile structs. Point dimension D = 3 (static) and D = dynamic_extent (5 at run
// time); weight dimension W = 0, 1, 3 and dynamic_extent (2 at run time); float and double.
#include "genred/genred_test_support.hpp"

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
/// reference value of `kind` (times b_j when weighted).
template <class Space, class T, class Formula, class Reduction>
void check_builtin(const Formula& formula, const Reduction& reduction, Kind kind, int d, int w,
                   unsigned seed) {
  constexpr bool weighted = Formula::j_dims::count == 2;
  const int out_dim       = weighted ? w : 1;
  const std::string where =
      std::string(name_of(kind)) + (std::is_same_v<T, float> ? " float" : " double") +
      " D=" + std::to_string(d) + " W=" + std::to_string(weighted ? w : 0) +
      (all_static(typename Formula::j_dims{}) ? " (static dims)" : " (run-time dims)");
  // 37 output rows, 300 reduced rows: a full 256-row tile and a partial one; then 1 x 1.
  for (const auto& [m, n] : std::vector<std::pair<int, int>>{{37, 300}, {1, 1}}) {
    const auto xh = tessera_test::random_values<T>(static_cast<std::size_t>(m) * d, 0, 1, seed);
    const auto yh = tessera_test::random_values<T>(static_cast<std::size_t>(n) * d, 0, 1, seed + 1);
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
                                            out_dim, f, where);
    } else {
      tessera_test::check_formula<Space, T>(reduction, formula, tessera::Params<>{},
                                            tessera::i_vars(x), tessera::j_vars(y), m, n, out_dim,
                                            f, where);
    }
  }
}

/// One radial kernel with (D, W) combinations that cover each code path at least once: D
/// static and dynamic (5 at run time), W = 0, 1, 3 and dynamic (2 at run time); float and
/// double. The Gaussian test below covers the full D x W matrix.
template <class Space, class T, template <int, int> class Kernel>
void check_radial_paths_of_type(Kind kind, unsigned seed) {
  check_builtin<Space, T>(Kernel<3, 0>(sigma), tessera::Sum{}, kind, 3, 0, seed);
  check_builtin<Space, T>(Kernel<dynamic_extent, 1>(sigma), tessera::Sum{}, kind, 5, 1, seed + 1);
  check_builtin<Space, T>(Kernel<3, 3>(sigma), tessera::Sum{}, kind, 3, 3, seed + 2);
  check_builtin<Space, T>(Kernel<dynamic_extent, dynamic_extent>(sigma), tessera::Sum{}, kind, 5, 2,
                          seed + 3);
}
template <class Space, template <int, int> class Kernel>
void check_radial_paths(Kind kind, unsigned seed) {
  check_radial_paths_of_type<Space, float, Kernel>(kind, seed);
  check_radial_paths_of_type<Space, double, Kernel>(kind, seed + 5);
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

}  // namespace
