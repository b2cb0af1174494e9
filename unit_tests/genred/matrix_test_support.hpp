// Inputs and double-precision references shared by the tests of genred's tensor-core paths
// (test_genred_matrix_units.cpp, test_genred_matrix_sparse.cpp): rows uniform in a unit box,
// exactly representable in float, copied to device Views; the radial profiles and the
// selections' point-pair values in double; inputs with exact ties; whether the tensor-core
// kernels run.
#pragma once

#include <tessera/core/config.hpp>
#include <tessera/genred/builtin_formulas.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera_test {

/// Whether calls on Space run Tessera's tensor-core kernels: its CUDA kernels on a GPU of
/// compute capability 8.0 or later.
template <class Space>
bool tensor_core_kernels() {
#if defined(TESSERA_ENABLE_CUDA_KERNELS)
  if constexpr (std::is_same_v<Space, Kokkos::Cuda>) {
    int major = 0;
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, Space().cuda_device());
    return major >= 8;
  }
#endif
  return false;
}

/// rows x cols uniform in [lo, lo + 1), row-major, from seed.
inline std::vector<double> uniform(int rows, int cols, double lo, unsigned seed) {
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
inline double profile_value<tessera::GaussianProfile>(double r2, double sigma) {
  return std::exp(-r2 / (2 * sigma * sigma));
}
template <>
inline double profile_value<tessera::LaplaceProfile>(double r2, double sigma) {
  return std::exp(-std::sqrt(r2) / sigma);
}
template <>
inline double profile_value<tessera::CauchyProfile>(double r2, double sigma) {
  return 1.0 / (1.0 + r2 / (sigma * sigma));
}
template <>
inline double profile_value<tessera::InverseMultiquadricProfile>(double r2, double sigma) {
  return 1.0 / std::sqrt(1.0 + r2 / (sigma * sigma));
}
template <>
inline double profile_value<tessera::Matern32Profile>(double r2, double sigma) {
  const double v = std::sqrt(3.0 * r2) / sigma;
  return (1 + v) * std::exp(-v);
}

/// The exact value of Op for two rows, in double.
template <class Op>
double exact_value(const double* x, const double* y, int d) {
  double xy = 0, xx = 0, yy = 0, r2 = 0;
  for (int c = 0; c < d; ++c) {
    xy += x[c] * y[c];
    xx += x[c] * x[c];
    yy += y[c] * y[c];
    r2 += (x[c] - y[c]) * (x[c] - y[c]);
  }
  if constexpr (std::is_same_v<Op, tessera::SquaredDistanceOp>) return r2;
  if constexpr (std::is_same_v<Op, tessera::DotOp>) return xy;
  return xx * yy > 0 ? 1.0 - xy / std::sqrt(xx * yy) : 1.0;
}

/// Inputs with ties: every 7th inner row repeats an earlier one, every 5th outer row is an
/// inner row, inner row 3 (if any) is zero.
inline void make_adversarial(std::vector<double>& x, std::vector<double>& y, int m, int n, int d) {
  for (int j = 7; j < n; j += 7)
    std::copy_n(y.begin() + static_cast<std::ptrdiff_t>(j / 2) * d, d,
                y.begin() + static_cast<std::ptrdiff_t>(j) * d);
  if (n > 3) std::fill_n(y.begin() + 3 * d, d, 0.0);
  for (int i = 0; i < m && n > 0; i += 5)
    std::copy_n(y.begin() + static_cast<std::ptrdiff_t>((i * 13) % n) * d, d,
                x.begin() + static_cast<std::ptrdiff_t>(i) * d);
}

}  // namespace tessera_test
