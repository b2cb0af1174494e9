// The tensor-core paths of tessera::genred (on CUDA; the expanded evaluation elsewhere) against
// direct double-precision references: radial-kernel sums with Distance::matrix at dimensions
// from 33 to 1030 (D not a multiple of the 32-wide k-step), weights of width 0, 1 and 3, every
// profile, sizes 0, 1, primes and more than one 128-row tile, the 1D and 2D schemes, both
// MatrixPrecision modes. Points are centred, uniform in [-1/2, 1/2)^D, with sigma = sqrt(D) / 4
// (the bandwidth of the benchmarks: s r^2 of order 1).
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>

#include "execution_spaces.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using tessera::Distance;
using tessera::MatrixPrecision;

template <class Space>
class GenredMatrixUnits : public ::testing::Test {};
TYPED_TEST_SUITE(GenredMatrixUnits, tessera_test::ExecutionSpaces);

/// rows x cols uniform in [lo, lo + 1), row-major, from seed.
std::vector<double> uniform(int rows, int cols, double lo, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(lo, lo + 1.0);
  std::vector<double> v(static_cast<std::size_t>(rows) * cols);
  for (double& e : v)
    e = static_cast<double>(static_cast<float>(u(gen)));  // exactly representable in float
  return v;
}

template <class Space>
Kokkos::View<float**, Kokkos::LayoutRight, typename Space::memory_space> device_rows(
    const std::vector<double>& v, int rows, int cols, const char* label) {
  Kokkos::View<float**, Kokkos::LayoutRight, typename Space::memory_space> d(std::string(label),
                                                                             rows, cols);
  auto h = Kokkos::create_mirror_view(d);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      h(r, c) = static_cast<float>(v[static_cast<std::size_t>(r) * cols + c]);
  Kokkos::deep_copy(d, h);
  return d;
}

/// k(r^2) of the profile named by Kernel, in double, for length scale sigma.
template <class Profile>
double profile_value(double r2, double sigma);
template <>
double profile_value<tessera::GaussianProfile>(double r2, double sigma) {
  return std::exp(-r2 / (2 * sigma * sigma));
}
template <>
double profile_value<tessera::LaplaceProfile>(double r2, double sigma) {
  return std::exp(-std::sqrt(r2) / sigma);
}
template <>
double profile_value<tessera::CauchyProfile>(double r2, double sigma) {
  return 1.0 / (1.0 + r2 / (sigma * sigma));
}
template <>
double profile_value<tessera::InverseMultiquadricProfile>(double r2, double sigma) {
  return 1.0 / std::sqrt(1.0 + r2 / (sigma * sigma));
}
template <>
double profile_value<tessera::Matern32Profile>(double r2, double sigma) {
  const double v = std::sqrt(3.0 * r2) / sigma;
  return (1 + v) * std::exp(-v);
}

/// Runs sum_j k(|x_i - y_j|^2) b_j with Distance::matrix on Space and returns the largest
/// |a - a_ref| / max |a_ref| over the outputs (0 for empty outputs).
template <class Space, class Profile, int D, int W>
double matrix_sum_error(int m, int n, MatrixPrecision precision, tessera::Scheme scheme,
                        unsigned seed) {
  const double sigma = std::sqrt(static_cast<double>(D)) / 4;
  constexpr int FD   = W == 0 ? 1 : W;
  const auto x       = uniform(m, D, -0.5, seed);
  const auto y       = uniform(n, D, -0.5, seed + 1);
  const auto b       = uniform(n, FD, 0.0, seed + 2);
  const auto xd      = device_rows<Space>(x, m, D, "x");
  const auto yd      = device_rows<Space>(y, n, D, "y");
  const auto bd      = device_rows<Space>(b, n, FD, "b");
  Kokkos::View<float**, Kokkos::LayoutRight, typename Space::memory_space> out("out", m, FD);
  tessera::GenredOptions options;
  options.matrix_precision = precision;
  options.scheme           = scheme;
  if (scheme == tessera::Scheme::tiled_2d) options.chunks_2d = 3;
  const tessera::RadialKernel<Profile, D, W, Distance::matrix> kernel(sigma);
  if constexpr (W == 0) {
    tessera::genred(Space{}, tessera::Sum{}, kernel, tessera::i_vars(xd), tessera::j_vars(yd), out,
                    options);
  } else {
    tessera::genred(Space{}, tessera::Sum{}, kernel, tessera::i_vars(xd), tessera::j_vars(yd, bd),
                    out, options);
  }
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
  double err = 0, scale = 0;
  std::vector<double> ref(FD);
  for (int i = 0; i < m; ++i) {
    std::fill(ref.begin(), ref.end(), 0.0);
    for (int j = 0; j < n; ++j) {
      double r2 = 0;
      for (int k = 0; k < D; ++k) {
        const double d =
            x[static_cast<std::size_t>(i) * D + k] - y[static_cast<std::size_t>(j) * D + k];
        r2 += d * d;
      }
      const double kv = profile_value<Profile>(r2, sigma);
      for (int c = 0; c < FD; ++c)
        ref[c] += kv * (W == 0 ? 1.0 : b[static_cast<std::size_t>(j) * FD + c]);
    }
    for (int c = 0; c < FD; ++c) {
      err   = std::max(err, std::abs(h(i, c) - ref[c]));
      scale = std::max(scale, std::abs(ref[c]));
    }
  }
  return scale > 0 ? err / scale : err;
}

/// Checks one (profile, D, W) over sizes, schemes and both precisions. The split products keep
/// float sums within 1e-4 of the double reference; the fast mode's single FP16 product (11
/// significant bits) within 2e-2 (measured: see docs/genred.md).
template <class Space, class Profile, int D, int W>
void check_matrix_sums(unsigned seed) {
  const int sizes[][2] = {{0, 5}, {1, 1}, {5, 0}, {131, 257}, {257, 131}};
  for (const auto& s : sizes) {
    for (const MatrixPrecision p : {MatrixPrecision::split, MatrixPrecision::fast}) {
      const double tol = p == MatrixPrecision::split ? 1e-4 : 2e-2;
      const double e =
          matrix_sum_error<Space, Profile, D, W>(s[0], s[1], p, tessera::Scheme::automatic, seed);
      EXPECT_LE(e, tol) << "D = " << D << ", W = " << W << ", M = " << s[0] << ", N = " << s[1]
                        << ", precision " << (p == MatrixPrecision::split ? "split" : "fast");
    }
  }
  const double e2 = matrix_sum_error<Space, Profile, D, W>(37, 1031, MatrixPrecision::split,
                                                           tessera::Scheme::tiled_2d, seed + 9);
  EXPECT_LE(e2, 1e-4) << "2D scheme, D = " << D << ", W = " << W;
}

TYPED_TEST(GenredMatrixUnits, GaussianSumsAtAnyDimension) {
  using Space = TypeParam;
  using P     = tessera::GaussianProfile;
  check_matrix_sums<Space, P, 33, 1>(1);
  check_matrix_sums<Space, P, 64, 0>(2);
  check_matrix_sums<Space, P, 100, 3>(3);
  check_matrix_sums<Space, P, 129, 1>(4);
  check_matrix_sums<Space, P, 520, 1>(5);
  check_matrix_sums<Space, P, 1030, 0>(6);
}

TYPED_TEST(GenredMatrixUnits, EveryProfileAtDimension100) {
  using Space = TypeParam;
  check_matrix_sums<Space, tessera::LaplaceProfile, 100, 1>(11);
  check_matrix_sums<Space, tessera::CauchyProfile, 100, 3>(12);
  check_matrix_sums<Space, tessera::InverseMultiquadricProfile, 100, 1>(13);
  check_matrix_sums<Space, tessera::Matern32Profile, 100, 0>(14);
}

/// More rows than one wave of blocks and a tile count that is not a multiple of anything: the
/// 1D scheme's tiles and the automatic 2D chunks.
TYPED_TEST(GenredMatrixUnits, GaussianSumOverManyTiles) {
  using Space    = TypeParam;
  const double e = matrix_sum_error<Space, tessera::GaussianProfile, 64, 1>(
      3001, 2003, MatrixPrecision::split, tessera::Scheme::automatic, 21);
  EXPECT_LE(e, 1e-4);
}

}  // namespace
