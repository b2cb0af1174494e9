// Genred at the dimensions of embeddings (D up to 4096) on host execution spaces, through every
// kernel that runs there (Implementation::automatic, host and portable), over j and over i:
//  - radial kernel sums with the expanded and the matrix distance (the host kernel's blocked
//    dot products, impl/host/host_blocked_pairs.hpp), against a double reference with the
//    error bound of the expanded distance (builtin_formulas.hpp): test_genred_large_dim.cpp
//    (the Gaussian) and test_genred_large_dim_profiles.cpp (the other profiles);
//  - selections (Min, ArgMin, KMin, ArgKMin) by squared distance on data whose float distances
//    are exact: test_genred_large_dim_selections.cpp;
//  - a dimension whose staged row does not fit a team's level-0 scratch (the portable kernel's
//    tile then lives in level-1 scratch): test_genred_large_dim.cpp.
// The suite GenredLargeDim is split over these translation units so that they compile in
// parallel; this header holds the pieces they share.
#pragma once

#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tessera_test::large_dim {

using Space    = Kokkos::DefaultHostExecutionSpace;
using Mat      = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using IndexMat = Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using tessera::Axis;
using tessera::Distance;
using tessera::Implementation;

inline constexpr double float_eps = 0x1p-24;  // unit roundoff of float

inline constexpr Implementation implementations[] = {
    Implementation::automatic, Implementation::host, Implementation::portable};

inline std::string name_of(Implementation impl, Axis axis) {
  const char* i = impl == Implementation::automatic ? "automatic"
                  : impl == Implementation::host    ? "host"
                                                    : "portable";
  return std::string(i) + (axis == Axis::j ? ", Axis::j" : ", Axis::i");
}

/// rows x dim values drawn by `draw` into a host View.
template <class Draw>
Mat random_rows(int rows, int dim, Draw&& draw) {
  Mat v("v", rows, dim);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < dim; ++k)
      v(r, k) = draw();
  return v;
}

inline double squared_distance(const Mat& x, int i, const Mat& y, int j) {
  double r2 = 0;
  for (int k = 0; k < static_cast<int>(x.extent(1)); ++k) {
    const double d = double(x(i, k)) - double(y(j, k));
    r2 += d * d;
  }
  return r2;
}
inline double norm(const Mat& x, int i) {
  double n2 = 0;
  for (int k = 0; k < static_cast<int>(x.extent(1)); ++k)
    n2 += double(x(i, k)) * double(x(i, k));
  return std::sqrt(n2);
}

// The profiles in double, as functions of r^2 (negative arguments as the library takes them: the
// square roots clamp at 0).
inline double profile(tessera::GaussianProfile, double r2, double sigma) {
  return std::exp(-r2 / (2 * sigma * sigma));
}
inline double profile(tessera::LaplaceProfile, double r2, double sigma) {
  return std::exp(-std::sqrt(std::max(r2, 0.0)) / sigma);
}
inline double profile(tessera::CauchyProfile, double r2, double sigma) {
  return 1 / (1 + r2 / (sigma * sigma));
}
inline double profile(tessera::InverseMultiquadricProfile, double r2, double sigma) {
  return 1 / std::sqrt(1 + r2 / (sigma * sigma));
}
inline double profile(tessera::Matern32Profile, double r2, double sigma) {
  const double v = std::sqrt(3 * std::max(r2, 0.0)) / sigma;
  return (1 + v) * std::exp(-v);
}

/// Sum_j k(|x_i - y_j|^2) b_j (Axis::j, or the transposed sum over i) with RadialKernel<Profile,
/// D, W, Dist> through every host implementation, for points uniform in [-0.5, 0.5)^D and
/// weights uniform in [-1, 1), sigma^2 = D / 12 (the kernel is about exp(-1) for typical pairs).
///
/// Tolerance: builtin_formulas.hpp bounds the absolute error of s r^2 by (D + 3) eps s (|x| +
/// |y|)^2 (eps = 2^-24), i.e. r^2 is off by at most delta = (D + 3) eps (|x| + |y|)^2; so each
/// term may be off by e_ij = max |k(r^2 +- delta) - k(r^2)| |b_j| (the double profile evaluated
/// at both ends), plus the float rounding of the terms and of their sum: (N + 8) eps relative
/// to sum |k b| (8 covers the exp2 approximation's 2^-22 and the product with b). The output
/// must lie within sum_j e_ij + (N + 8) eps sum_j |k_ij b_j| of the double value.
template <class Profile, int D, int W, Distance Dist>
void check_radial_sum(int m, int n, unsigned seed) {
  SCOPED_TRACE("D = " + std::to_string(D) + ", W = " + std::to_string(W) +
               ", M = " + std::to_string(m) + ", N = " + std::to_string(n) +
               (Dist == Distance::expanded ? ", expanded" : ", matrix"));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> centred(-0.5f, 0.5f), signed_unit(-1.0f, 1.0f);
  const Mat x        = random_rows(m, D, [&] { return centred(gen); });
  const Mat y        = random_rows(n, D, [&] { return centred(gen); });
  const Mat b        = random_rows(n, std::max(W, 1), [&] { return signed_unit(gen); });
  const double sigma = std::sqrt(D / 12.0);
  constexpr int FD   = W == 0 ? 1 : W;
  const Profile shape{sigma};
  const tessera::RadialKernel<Profile, D, W, Dist> kernel(sigma);

  for (const Axis axis : {Axis::j, Axis::i}) {
    const int rows = axis == Axis::j ? m : n, inner = axis == Axis::j ? n : m;
    // the double reference and its bound
    std::vector<double> ref(static_cast<std::size_t>(rows) * FD, 0.0), bound(ref.size(), 0.0);
    for (int o = 0; o < rows; ++o) {
      for (int q = 0; q < inner; ++q) {
        const int i = axis == Axis::j ? o : q, j = axis == Axis::j ? q : o;
        const double r2    = squared_distance(x, i, y, j);
        const double delta = (D + 3) * float_eps * std::pow(norm(x, i) + norm(y, j), 2);
        const double k     = profile(shape, r2, sigma);
        const double e     = std::max(std::fabs(profile(shape, r2 + delta, sigma) - k),
                                      std::fabs(profile(shape, r2 - delta, sigma) - k));
        for (int c = 0; c < FD; ++c) {
          const double bc = W == 0 ? 1.0 : double(b(j, c));
          ref[o * FD + c] += k * bc;
          bound[o * FD + c] += e * std::fabs(bc) + (inner + 8) * float_eps * std::fabs(k * bc);
        }
      }
    }
    for (const Implementation impl : implementations) {
      SCOPED_TRACE(name_of(impl, axis));
      Mat out("out", rows, FD);
      Kokkos::deep_copy(out, 7.0f);  // every row must be written
      tessera::GenredOptions options;
      options.axis           = axis;
      options.implementation = impl;
      if constexpr (W == 0) {
        tessera::genred(Space(), tessera::Sum{}, kernel, tessera::i_vars(x), tessera::j_vars(y),
                        out, options);
      } else {
        tessera::genred(Space(), tessera::Sum{}, kernel, tessera::i_vars(x), tessera::j_vars(y, b),
                        out, options);
      }
      Space().fence();
      int reported = 0;
      for (int o = 0; o < rows; ++o)
        for (int c = 0; c < FD; ++c) {
          const double got = out(o, c), want = ref[o * FD + c], tol = bound[o * FD + c];
          if (!(std::fabs(got - want) <= tol) && reported++ < 5)
            ADD_FAILURE() << "row " << o << " component " << c << ": got " << got << ", expected "
                          << want << " within " << tol;
        }
    }
  }
}

/// The sizes of a sum check: (M, N) from {0, 1, 7, 131}, primes and not multiples of a tile.
template <class Profile, int D, int W, Distance Dist>
void check_radial_sums(unsigned seed) {
  const std::pair<int, int> sizes[] = {{131, 7}, {7, 131}, {1, 131}, {131, 1}, {0, 7}, {7, 0}};
  for (const auto& [m, n] : sizes)
    check_radial_sum<Profile, D, W, Dist>(m, n, seed++);
}

}  // namespace tessera_test::large_dim
