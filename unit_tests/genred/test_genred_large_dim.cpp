// Genred at the dimensions of embeddings (D up to 4096) on host execution spaces, through every
// kernel that runs there (Implementation::automatic, host and portable), over j and over i:
//  - radial kernel sums with the expanded and the matrix distance (the host kernel's blocked
//    dot products, impl/host/host_blocked_pairs.hpp), against a double reference with the
//    error bound of the expanded distance (builtin_formulas.hpp);
//  - selections (Min, ArgMin, KMin, ArgKMin) by squared distance on data whose float distances
//    are exact, so that values and indices must equal the reference's, ties (duplicated points)
//    resolving to the smaller index;
//  - a dimension whose staged row does not fit a team's level-0 scratch (the portable kernel's
//    tile then lives in level-1 scratch).
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

namespace {

using Space    = Kokkos::DefaultHostExecutionSpace;
using Mat      = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using IndexMat = Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using tessera::Axis;
using tessera::Distance;
using tessera::Implementation;

constexpr double float_eps = 0x1p-24;  // unit roundoff of float

constexpr Implementation implementations[] = {Implementation::automatic, Implementation::host,
                                              Implementation::portable};

std::string name_of(Implementation impl, Axis axis) {
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

double squared_distance(const Mat& x, int i, const Mat& y, int j) {
  double r2 = 0;
  for (int k = 0; k < static_cast<int>(x.extent(1)); ++k) {
    const double d = double(x(i, k)) - double(y(j, k));
    r2 += d * d;
  }
  return r2;
}
double norm(const Mat& x, int i) {
  double n2 = 0;
  for (int k = 0; k < static_cast<int>(x.extent(1)); ++k)
    n2 += double(x(i, k)) * double(x(i, k));
  return std::sqrt(n2);
}

// The profiles in double, as functions of r^2 (negative arguments as the library takes them: the
// square roots clamp at 0).
double profile(tessera::GaussianProfile, double r2, double sigma) {
  return std::exp(-r2 / (2 * sigma * sigma));
}
double profile(tessera::LaplaceProfile, double r2, double sigma) {
  return std::exp(-std::sqrt(std::max(r2, 0.0)) / sigma);
}
double profile(tessera::CauchyProfile, double r2, double sigma) {
  return 1 / (1 + r2 / (sigma * sigma));
}
double profile(tessera::InverseMultiquadricProfile, double r2, double sigma) {
  return 1 / std::sqrt(1 + r2 / (sigma * sigma));
}
double profile(tessera::Matern32Profile, double r2, double sigma) {
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

TEST(GenredLargeDim, GaussianSums) {
  using P = tessera::GaussianProfile;
  check_radial_sums<P, 1, 0, Distance::expanded>(1);
  check_radial_sums<P, 17, 3, Distance::expanded>(2);
  check_radial_sums<P, 64, 1, Distance::matrix>(3);
  check_radial_sums<P, 100, 64, Distance::expanded>(4);
  check_radial_sums<P, 129, 1, Distance::expanded>(5);
  check_radial_sums<P, 520, 0, Distance::matrix>(6);
  check_radial_sums<P, 1030, 1, Distance::expanded>(7);
  check_radial_sums<P, 4096, 3, Distance::matrix>(8);
}
TEST(GenredLargeDim, OtherProfileSums) {
  check_radial_sums<tessera::LaplaceProfile, 100, 1, Distance::expanded>(11);
  check_radial_sums<tessera::LaplaceProfile, 17, 0, Distance::matrix>(12);
  check_radial_sums<tessera::CauchyProfile, 129, 3, Distance::matrix>(13);
  check_radial_sums<tessera::CauchyProfile, 4096, 0, Distance::expanded>(14);
  check_radial_sums<tessera::InverseMultiquadricProfile, 520, 1, Distance::expanded>(15);
  check_radial_sums<tessera::InverseMultiquadricProfile, 1, 64, Distance::matrix>(16);
  check_radial_sums<tessera::Matern32Profile, 64, 0, Distance::expanded>(17);
  check_radial_sums<tessera::Matern32Profile, 1030, 3, Distance::matrix>(18);
}

/// Min, ArgMin, KMin{k} and ArgKMin{k} of |x_i - y_j|^2 over j (or over i) through every host
/// implementation. Coordinates are multiples of 1/4 in [-0.5, 0.5): every float distance is
/// exact (multiples of 1/16 below 2^20), so values and indices must equal the reference's. Many
/// distances tie, and some points are copies of others (y_j of an earlier y, x_i of a y_j):
/// ties resolve to the smaller index.
template <int D>
void check_selections(int m, int n, unsigned seed) {
  SCOPED_TRACE("D = " + std::to_string(D) + ", M = " + std::to_string(m) +
               ", N = " + std::to_string(n));
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> quarter(-2, 1);
  Mat x = random_rows(m, D, [&] { return 0.25f * quarter(gen); });
  Mat y = random_rows(n, D, [&] { return 0.25f * quarter(gen); });
  for (int j = 3; j < n; j += 5)  // duplicated points
    for (int k = 0; k < D; ++k)
      y(j, k) = y(j / 2, k);
  for (int i = 0; i < m; i += 4)
    for (int k = 0; k < D; ++k)
      x(i, k) = y((i * 7) % n, k);
  const tessera::SquaredDistance<D> formula;

  for (const Axis axis : {Axis::j, Axis::i}) {
    const int rows = axis == Axis::j ? m : n, inner = axis == Axis::j ? n : m;
    // each outer row's (distance, index) pairs, sorted: ties by the smaller index
    std::vector<std::vector<std::pair<double, int>>> sorted(rows);
    for (int o = 0; o < rows; ++o) {
      for (int q = 0; q < inner; ++q)
        sorted[o].emplace_back(
            axis == Axis::j ? squared_distance(x, o, y, q) : squared_distance(x, q, y, o), q);
      std::sort(sorted[o].begin(), sorted[o].end());
    }
    for (const Implementation impl : implementations) {
      SCOPED_TRACE(name_of(impl, axis));
      tessera::GenredOptions options;
      options.axis           = axis;
      options.implementation = impl;
      const auto call        = [&](const auto& reduction, const auto& out) {
        tessera::genred(Space(), reduction, formula, tessera::i_vars(x), tessera::j_vars(y), out,
                               options);
        Space().fence();
      };
      for (const int k : {1, 5}) {
        Mat values("values", rows, k);
        IndexMat indices("indices", rows, k);
        if (k == 1) {
          call(tessera::Min{}, values);
          call(tessera::ArgMin{}, indices);
        } else {
          call(tessera::KMin{k}, values);
          call(tessera::ArgKMin{k}, indices);
        }
        for (int o = 0; o < rows; ++o)
          for (int t = 0; t < k; ++t) {
            ASSERT_EQ(double(values(o, t)), sorted[o][t].first) << "row " << o << ", k = " << k;
            ASSERT_EQ(indices(o, t), sorted[o][t].second) << "row " << o << ", k = " << k;
          }
      }
    }
  }
}

TEST(GenredLargeDim, SquaredDistanceSelections) {
  check_selections<64>(131, 131, 21);
  check_selections<64>(7, 131, 22);
  check_selections<520>(131, 7, 23);
  check_selections<520>(131, 131, 24);
}

/// A staged row of 8200 + 2 floats (32.8 KB) does not fit the 32 KB of level-0 scratch that
/// host backends give a team: the portable kernel must still run the call (its tile in level-1
/// scratch), as must the host kernel (whose tiles are not in scratch).
TEST(GenredLargeDim, RowLargerThanLevel0Scratch) {
  check_radial_sum<tessera::GaussianProfile, 8200, 1, Distance::expanded>(5, 3, 31);
}

}  // namespace
