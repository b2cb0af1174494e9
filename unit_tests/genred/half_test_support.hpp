// The typed suite GenredHalf: Views of other element types than the compute type. Each case
// runs the backend's kernel (the host kernel on host spaces) and the portable one, 1D and 2D
// schemes, both axes, against double references over the same rounded inputs. Where Kokkos has no
// 16-bit type (Kokkos 3.4, host-only Kokkos 4 builds), half_t and bhalf_t are float: the
// float/double cases then test the same conversions with a genuinely narrower storage type. The
// 16-bit storage cases are in test_genred_half.cpp, the mixed ones (float beside double, wide
// 16-bit weights, mixed groups, rejected element types) in test_genred_mixed_precision.cpp:
// translation units that compile in parallel. This header holds the fixture and the checks they
// share.
#pragma once

#include "genred/genred_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

TESSERA_TYPED_SUITE(GenredHalf);

namespace tessera_test::mixed_storage {

using tessera_test::check_formula;
using tessera_test::expect_rejected;
using tessera_test::random_values;
using tessera_test::to_view2;
// The compute type's tolerance of check_formula's comparisons, in units of the sum of |F| (Sum)
// or of 1 + max |F| (the other reductions): see its comment.
using tessera_test::tolerance;

/// Unit roundoff of a storage type: 2^-11 for a 16-bit half_t, 2^-8 for a 16-bit bhalf_t, that
/// of float or double otherwise (half_t and bhalf_t are float where Kokkos has no 16-bit type).
template <class S>
constexpr double unit_roundoff() {
  if constexpr (std::is_same_v<S, double>) {
    return 0x1p-53;
  } else if constexpr (std::is_same_v<S, float>) {
    return 0x1p-24;
  } else if constexpr (std::is_same_v<S, Kokkos::Experimental::half_t>) {
    return 0x1p-11;
  } else {
    return 0x1p-8;
  }
}

/// (M, N) pairs: empty, single and odd sizes on both sides of a tile.
inline const std::vector<std::pair<int, int>> sizes = {{0, 7},   {1, 1}, {7, 131},
                                                       {131, 7}, {7, 0}, {131, 131}};

/// Runs check_formula with the backend's kernel (the host kernel on host spaces, through
/// Implementation::automatic) and with the portable kernel.
template <class Space, class Out, class Reduction, class Formula, class PP, class II, class JJ>
void check_both_kernels(const Reduction& reduction, const Formula& formula, const PP& params,
                        const II& i_vars, const JJ& j_vars, int m, int n, int dim,
                        const tessera_test::PairFormula& f, const std::string& where, double tol) {
  for (tessera::Implementation implementation :
       {tessera::Implementation::automatic, tessera::Implementation::portable}) {
    tessera::GenredOptions options;
    options.implementation = implementation;
    check_formula<Space, Out>(
        reduction, formula, params, i_vars, j_vars, m, n, dim, f,
        where + (implementation == tessera::Implementation::portable ? " portable" : " automatic"),
        options, tol);
  }
}

/// Points: rows x dim values in [lo, hi), rounded to S, on the host (as doubles) and in a View.
template <class S, class Space>
struct Points {
  std::vector<double> host;
  Kokkos::View<S**, Kokkos::LayoutRight, typename Space::memory_space> view;
  Points(int rows, int dim, double lo, double hi, unsigned seed)
      : host(random_values<S>(static_cast<std::size_t>(rows) * dim, lo, hi, seed)),
        view(to_view2<S, Space>("points", host, rows, dim)) {}
  const double* row(int r, int dim) const {
    return host.data() + static_cast<std::size_t>(r) * dim;
  }
};

/// |a - b|^2 of two rows of dimension d, in double.
inline double squared_distance(const double* a, const double* b, int d) {
  double s = 0;
  for (int k = 0; k < d; ++k)
    s += (a[k] - b[k]) * (a[k] - b[k]);
  return s;
}

/// The Gaussian sum sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j with points stored as SX,
/// weights as SW and the output as Out. tol: the compute type's tolerance plus Out's rounding
/// (F >= 0, so the sum of |F| is the result itself).
template <class Space, class SX, class SW, class Out, int D, int W>
void check_gaussian_sum(double tol) {
  const double sigma = 0.5 * std::sqrt(static_cast<double>(D));
  const tessera::GaussianKernel<D, W> kernel(sigma);
  unsigned seed = 100 * D + W;
  for (const auto& [m, n] : sizes) {
    const Points<SX, Space> x(m, D, 0.0, 1.0, ++seed), y(n, D, 0.0, 1.0, ++seed);
    const Points<SW, Space> b(n, W, 0.5, 1.5, ++seed);
    const auto f = [&](int i, int j, double* out) {
      const double k =
          std::exp(-squared_distance(x.row(i, D), y.row(j, D), D) / (2 * sigma * sigma));
      for (int c = 0; c < W; ++c)
        out[c] = k * b.row(j, W)[c];
    };
    check_both_kernels<Space, Out>(
        tessera::Sum{}, kernel, tessera::Params<>{}, tessera::i_vars(x.view),
        tessera::j_vars(y.view, b.view), m, n, W, f,
        "Gaussian D=" + std::to_string(D) + " W=" + std::to_string(W), tol);
    if (::testing::Test::HasFailure()) return;
  }
}

/// A k-smallest reduction of |x_i - y_j|^2, points stored as S, values (if it writes them) as
/// Out.
template <class Space, class S, class Out, int D, class Reduction>
void check_k_min(const Reduction& reduction, double tol) {
  unsigned seed = 200 + D;
  for (const auto& [m, n] : sizes) {
    const Points<S, Space> x(m, D, 0.0, 1.0, ++seed), y(n, D, 0.0, 1.0, ++seed);
    const auto f = [&](int i, int j, double* out) {
      out[0] = squared_distance(x.row(i, D), y.row(j, D), D);
    };
    check_both_kernels<Space, Out>(reduction, tessera::SquaredDistance<D>{}, tessera::Params<>{},
                                   tessera::i_vars(x.view), tessera::j_vars(y.view), m, n, 1, f,
                                   "k smallest D=" + std::to_string(D), tol);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace tessera_test::mixed_storage
