// The typed suite GenredBuiltinFormulas (the built-in formulas of genred/builtin_formulas.hpp
// against direct host computations in double), whose tests are split by formula family over
// test_builtin_<family>.cpp so that they compile in parallel, and the checks they share. The
// kernel profiles are written here from their documented formulas, independently of the
// library's profile structs. Point dimension D = 3 (static) and D = dynamic_extent (5 at run
// time); weight dimension W = 0, 1, 3 and dynamic_extent (2 at run time); float and double.
#pragma once

#include "genred/genred_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

TESSERA_TYPED_SUITE(GenredBuiltinFormulas);

namespace tessera_test::builtin {

using tessera::dynamic_extent;

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
inline double reference_value(Kind kind, double sigma, const double* x, const double* y, int d) {
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

inline const char* name_of(Kind kind) {
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

inline constexpr double sigma = 0.7;  // of the order of the point spacing: kernel values in (0, 1]

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
/// tolerance; GaussianEveryDimensionCombination (test_builtin_gaussian.cpp) covers the full D x W
/// matrix.
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

}  // namespace tessera_test::builtin
