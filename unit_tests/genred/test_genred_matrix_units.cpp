// The tensor-core paths of tessera::genred (on CUDA; the expanded evaluation elsewhere) against
// direct double-precision references: radial-kernel sums with Distance::matrix at dimensions
// from 33 to 1030 (D not a multiple of the 32-wide k-step), weights of width 0 (also over i),
// 1 and 3, every profile, wide weights (16 and 64 columns: the weights' product on the matrix
// units) at D = 16 to 129, sizes 0, 1, primes and more than one 128-row tile, the 1D and 2D
// schemes, both MatrixPrecision modes, batches; selections over j and over i. Points are centred,
// uniform in [-1/2, 1/2)^D, with sigma = sqrt(D) / 4 (the bandwidth of the benchmarks: s r^2 of
// order 1).
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>

#include "execution_spaces.hpp"
#include "genred/matrix_test_support.hpp"
#include "kernel_names.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

namespace {

using tessera::Distance;
using tessera::MatrixPrecision;
using tessera_test::device_rows;
using tessera_test::exact_value;
using tessera_test::make_adversarial;
using tessera_test::profile_value;
using tessera_test::uniform;

template <class Space>
class GenredMatrixUnits : public ::testing::Test {};
TYPED_TEST_SUITE(GenredMatrixUnits, tessera_test::ExecutionSpaces);

/// The (exact value in double, j) of Op between host row i of x and every row of y (n rows of
/// dimension d), ascending: the reference of the selections (ties to the smaller j).
template <class Op>
std::vector<std::pair<double, int>> sorted_exact_values(const std::vector<double>& x,
                                                        const std::vector<double>& y, int i, int n,
                                                        int d) {
  std::vector<std::pair<double, int>> ref;
  for (int j = 0; j < n; ++j)
    ref.emplace_back(exact_value<Op>(&x[static_cast<std::size_t>(i) * d],
                                     &y[static_cast<std::size_t>(j) * d], d),
                     j);
  std::sort(ref.begin(), ref.end());
  return ref;
}

/// max |a - a_ref| / max |a_ref| (0 for empty outputs) of the sums in the host View h (m x fd)
/// against the direct double reference a_ref[i][c] = sum_j k(|x_i - y_j|^2) b[j][c] (b null:
/// weights 1).
template <class Profile, class H>
double relative_sum_error(const H& h, const std::vector<double>& x, const std::vector<double>& y,
                          const double* b, int m, int n, int d, int fd, double sigma) {
  double err = 0, scale = 0;
  std::vector<double> ref(fd);
  for (int i = 0; i < m; ++i) {
    std::fill(ref.begin(), ref.end(), 0.0);
    for (int j = 0; j < n; ++j) {
      double r2 = 0;
      for (int k = 0; k < d; ++k) {
        const double e =
            x[static_cast<std::size_t>(i) * d + k] - y[static_cast<std::size_t>(j) * d + k];
        r2 += e * e;
      }
      const double kv = profile_value<Profile>(r2, sigma);
      for (int c = 0; c < fd; ++c)
        ref[c] += kv * (b == nullptr ? 1.0 : b[static_cast<std::size_t>(j) * fd + c]);
    }
    for (int c = 0; c < fd; ++c) {
      err   = std::max(err, std::abs(static_cast<double>(h(i, c)) - ref[c]));
      scale = std::max(scale, std::abs(ref[c]));
    }
  }
  return scale > 0 ? err / scale : err;
}

/// Runs sum_j k(|x_i - y_j|^2) b_j with Distance::matrix on Space and returns the largest
/// |a - a_ref| / max |a_ref| over the outputs (0 for empty outputs). over_i (W = 0): the same
/// sums as a reduction over i, x as the j-variables and y as the i-variables.
template <class Space, class Profile, int D, int W>
double matrix_sum_error(int m, int n, MatrixPrecision precision, tessera::Scheme scheme,
                        unsigned seed, bool over_i = false) {
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
    if (over_i) {
      options.axis = tessera::Axis::i;
      tessera::genred(Space{}, tessera::Sum{}, kernel, tessera::i_vars(yd), tessera::j_vars(xd),
                      out, options);
    } else {
      tessera::genred(Space{}, tessera::Sum{}, kernel, tessera::i_vars(xd), tessera::j_vars(yd),
                      out, options);
    }
  } else {
    tessera::genred(Space{}, tessera::Sum{}, kernel, tessera::i_vars(xd), tessera::j_vars(yd, bd),
                    out, options);
  }
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
  return relative_sum_error<Profile>(h, x, y, W == 0 ? nullptr : b.data(), m, n, D, FD, sigma);
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
  if constexpr (W == 0) {  // over i (on CUDA: the exchanged call, on the tensor cores)
    for (const tessera::Scheme scheme : {tessera::Scheme::tiled_1d, tessera::Scheme::tiled_2d}) {
      const double ei = matrix_sum_error<Space, Profile, D, W>(131, 257, MatrixPrecision::split,
                                                               scheme, seed + 10, true);
      EXPECT_LE(ei, 1e-4) << "over i, D = " << D;
    }
  }
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

/// Wide weights of width 16 and 64 (the CUDA path multiplies the kernel values by the weights
/// on the matrix units, their columns split between warps at 64) at D below, at and above the
/// engine's 64-wide k-step.
template <class Space, class Profile>
void check_wide_weights(unsigned seed) {
  check_matrix_sums<Space, Profile, 16, 16>(seed);
  check_matrix_sums<Space, Profile, 64, 16>(seed + 1);
  check_matrix_sums<Space, Profile, 129, 16>(seed + 2);
  check_matrix_sums<Space, Profile, 16, 64>(seed + 3);
  check_matrix_sums<Space, Profile, 64, 64>(seed + 4);
  check_matrix_sums<Space, Profile, 129, 64>(seed + 5);
}

TYPED_TEST(GenredMatrixUnits, GaussianSumsWithWideWeights) {
  using Space = TypeParam;
  check_wide_weights<Space, tessera::GaussianProfile>(51);
  check_wide_weights<Space, tessera::LaplaceProfile>(61);
}

// ------------------------------------------------------------------------ selections
// Min, ArgMin, MinArgMin, KMin, ArgKMin and KMinArgKMin of SquaredDistance, CosineDistance and
// DotProduct: the CUDA path selects candidates on the tensor cores and re-ranks them exactly,
// so indices must equal the exact (double) reference's, ties to the smaller index, and values
// must be the exact values to float rounding. Adversarial inputs: duplicated inner rows (exact
// ties), outer rows equal to inner rows (zero distances), a zero vector (the cosine's 1).

template <class Space, class Op, int D>
void check_selections(int m, int n, int k, bool adversarial, unsigned seed) {
  auto x = uniform(m, D, -0.5, seed);
  auto y = uniform(n, D, -0.5, seed + 1);
  if (adversarial) make_adversarial(x, y, m, n, D);
  const auto xd = device_rows<Space>(x, m, D, "x");
  const auto yd = device_rows<Space>(y, n, D, "y");
  using Mem     = typename Space::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> vals("vals", m, k), val1("val1", m, 1);
  Kokkos::View<int**, Kokkos::LayoutRight, Mem> idx("idx", m, k), idx1("idx1", m, 1);
  const tessera::PointPairFormula<D, Op> f{};
  const Space space{};
  const auto iv = tessera::i_vars(xd);
  const auto jv = tessera::j_vars(yd);
  // reference: the k smallest (exact value, index) of each row
  std::vector<std::vector<std::pair<double, int>>> ref(m);
  for (int i = 0; i < m; ++i)
    ref[i] = sorted_exact_values<Op>(x, y, i, n, D);
  const auto check = [&](const char* what, int kk, bool values, bool indices, const auto& v,
                         const auto& ix) {
    const auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, v);
    const auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, ix);
    for (int i = 0; i < m; ++i) {
      for (int s = 0; s < kk; ++s) {
        const bool has    = s < n;
        const int want_j  = has ? ref[i][s].second : -1;
        const double want = has ? ref[i][s].first : std::numeric_limits<double>::infinity();
        if (indices) {
          ASSERT_EQ(hi(i, s), want_j) << what << ", D = " << D << ", M = " << m << ", N = " << n
                                      << ", k = " << kk << ", row " << i << ", slot " << s;
        }
        if (values) {
          if (!has) {
            ASSERT_TRUE(std::isinf(hv(i, s)) && hv(i, s) > 0) << what << ", empty slot";
          } else {
            ASSERT_NEAR(hv(i, s), want, 1e-5 * (1 + std::abs(want)))
                << what << ", D = " << D << ", row " << i << ", slot " << s;
          }
        }
      }
    }
  };
  tessera::genred(space, tessera::Min{}, f, iv, jv, val1);
  check("Min", 1, true, false, val1, idx1);
  tessera::genred(space, tessera::ArgMin{}, f, iv, jv, idx1);
  check("ArgMin", 1, false, true, val1, idx1);
  tessera::genred(space, tessera::MinArgMin{}, f, iv, jv, tessera::outputs(val1, idx1));
  check("MinArgMin", 1, true, true, val1, idx1);
  tessera::genred(space, tessera::KMin{k}, f, iv, jv, vals);
  check("KMin", k, true, false, vals, idx);
  tessera::genred(space, tessera::ArgKMin{k}, f, iv, jv, idx);
  check("ArgKMin", k, false, true, vals, idx);
  tessera::genred(space, tessera::KMinArgKMin{k}, f, iv, jv, tessera::outputs(vals, idx));
  check("KMinArgKMin", k, true, true, vals, idx);
  // over i, y as the i-variables and x as the j-variables: the same rows (on CUDA the
  // exchanged call, on the tensor cores)
  tessera::GenredOptions over_i;
  over_i.axis = tessera::Axis::i;
  tessera::genred(space, tessera::ArgKMin{k}, f, tessera::i_vars(yd), tessera::j_vars(xd), idx,
                  over_i);
  check("ArgKMin over i", k, false, true, vals, idx);
  tessera::genred(space, tessera::KMinArgKMin{k}, f, tessera::i_vars(yd), tessera::j_vars(xd),
                  tessera::outputs(vals, idx), over_i);
  check("KMinArgKMin over i", k, true, true, vals, idx);
}

TYPED_TEST(GenredMatrixUnits, SquaredDistanceSelectionsAreExact) {
  using Space = TypeParam;
  using Op    = tessera::SquaredDistanceOp;
  check_selections<Space, Op, 16>(0, 5, 3, false, 31);
  check_selections<Space, Op, 16>(1, 1, 1, false, 32);
  check_selections<Space, Op, 9>(7, 11, 10, false, 33);
  check_selections<Space, Op, 16>(131, 257, 10, false, 34);
  check_selections<Space, Op, 64>(257, 131, 5, true, 35);
  check_selections<Space, Op, 129>(131, 1031, 20, true, 36);
  check_selections<Space, Op, 40>(131, 600, 16, true, 37);  // the largest k on the tensor cores
}

TYPED_TEST(GenredMatrixUnits, CosineAndDotSelectionsAreExact) {
  using Space = TypeParam;
  check_selections<Space, tessera::CosineDistanceOp, 33>(131, 257, 10, true, 41);
  check_selections<Space, tessera::CosineDistanceOp, 100>(37, 1031, 4, false, 42);
  check_selections<Space, tessera::DotOp, 33>(131, 257, 10, true, 43);
  check_selections<Space, tessera::DotOp, 64>(37, 131, 1, false, 44);
}

/// KMinArgKMin (k) of SquaredDistance<D> from the host rows x (m of them) over y (n), as host
/// copies (values, indices); on CUDA, checks that the tensor-core selection ran.
template <class Space, int D>
auto nearest_on_tensor_cores(const std::vector<double>& x, const std::vector<double>& y, int m,
                             int n, int k) {
  const auto xd = device_rows<Space>(x, m, D, "x");
  const auto yd = device_rows<Space>(y, n, D, "y");
  using Mem     = typename Space::memory_space;
  Kokkos::View<int**, Kokkos::LayoutRight, Mem> idx("idx", m, k);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> vals("vals", m, k);
  const tessera_test::KernelNames names;
  tessera::genred(Space{}, tessera::KMinArgKMin{k}, tessera::SquaredDistance<D>{},
                  tessera::i_vars(xd), tessera::j_vars(yd), tessera::outputs(vals, idx));
  Kokkos::fence();
  if (tessera_test::tensor_core_kernels<Space>()) {
    EXPECT_TRUE(names.launched("tessera::genred::matrix_select_cuda"));
  }
  return std::make_pair(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, vals),
                        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, idx));
}

/// All inner rows equal: every pair ties, the certificate fails on every row and the fallback
/// must still give indices 0..k-1 and the exact values: with more rows than fallback blocks (a
/// block per row) and with five rows (each split into slices over many blocks: the ties cross
/// the slices); with every row ranked exactly, whatever the candidates.
TYPED_TEST(GenredMatrixUnits, AllEqualPointsGiveTheSmallestIndices) {
  using Space     = TypeParam;
  constexpr int D = 40;  // above CudaTuning::matrix_select_min_dim: the tensor cores' call
  const int k     = 10;
  for (const auto& [m, n] : {std::pair{2053, 300}, std::pair{5, 30011}}) {
    std::vector<double> x(static_cast<std::size_t>(m) * D, 0.25),
        y(static_cast<std::size_t>(n) * D, 0.5);
    const auto [hv, h] = nearest_on_tensor_cores<Space, D>(x, y, m, n, k);
    for (int i = 0; i < m; ++i) {
      for (int s = 0; s < k; ++s) {
        ASSERT_EQ(h(i, s), s) << "m " << m << ", row " << i;
        ASSERT_EQ(hv(i, s), 0.0625f * D) << "m " << m << ", row " << i;  // (1/4)^2 a component
      }
    }
  }
}

/// Inner points on a line, each closer to every outer row than all before it (outer rows beyond
/// the line's near end): every score of every tile enters the lists, so on the tensor cores
/// every tile after the first overflows the threads' queues and is redone merging. The k
/// nearest are the last k inner rows, nearest first.
TYPED_TEST(GenredMatrixUnits, ApproachingPointsOverflowTheQueues) {
  using Space     = TypeParam;
  constexpr int D = 16;
  const int m = 131, n = 601, k = 10;  // five tiles of 128, the last partial
  std::vector<double> x(static_cast<std::size_t>(m) * D, 0.0),
      y(static_cast<std::size_t>(n) * D, 0.0);
  const auto off = uniform(m, 1, 0.0, 61);  // the outer rows at -0.1 off_i on the line
  for (int i = 0; i < m; ++i)
    x[static_cast<std::size_t>(i) * D] = -0.1 * off[i];
  for (int j = 0; j < n; ++j)
    y[static_cast<std::size_t>(j) * D] = static_cast<double>(n - j) / n;
  const auto [hv, h] = nearest_on_tensor_cores<Space, D>(x, y, m, n, k);
  for (int i = 0; i < m; ++i) {
    for (int s = 0; s < k; ++s) {
      const int j = n - 1 - s;
      const double want =
          static_cast<double>(static_cast<float>(x[static_cast<std::size_t>(i) * D])) -
          static_cast<double>(static_cast<float>(y[static_cast<std::size_t>(j) * D]));
      ASSERT_EQ(h(i, s), j) << "row " << i << ", slot " << s;
      ASSERT_NEAR(hv(i, s), want * want, 1e-6 * want * want) << "row " << i << ", slot " << s;
    }
  }
}

/// Checks KMinArgKMin (k) of SquaredDistance<D> from the host rows x (m of them) over y (n), on
/// the tensor cores on CUDA (nearest_on_tensor_cores), against the exact k nearest in double:
/// the indices exactly, the values within 1e-6.
template <class Space, int D>
void check_nearest_are_exact(const std::vector<double>& x, const std::vector<double>& y, int m,
                             int n, int k) {
  const auto [hv, h] = nearest_on_tensor_cores<Space, D>(x, y, m, n, k);
  for (int i = 0; i < m; ++i) {
    const auto ref = sorted_exact_values<tessera::SquaredDistanceOp>(x, y, i, n, D);
    for (int s = 0; s < k; ++s) {
      ASSERT_EQ(h(i, s), ref[s].second) << "row " << i << ", slot " << s;
      ASSERT_NEAR(hv(i, s), ref[s].first, 1e-6 * ref[s].first) << "row " << i << ", slot " << s;
    }
  }
}

/// Beyond CudaTuning::matrix_sm90_narrow_max_dim the Hopper engine takes wide tiles (one block
/// per multiprocessor): D = 300 (not a whole number of k-steps), inner rows over five tiles of
/// 256, the last partial.
TYPED_TEST(GenredMatrixUnits, WideDimensionSelectionsAreExact) {
  using Space     = TypeParam;
  constexpr int D = 300;
  const int m = 67, n = 1031, k = 10;
  const auto x = uniform(m, D, -0.5, 81), y = uniform(n, D, -0.5, 82);
  check_nearest_are_exact<Space, D>(x, y, m, n, k);
}

/// Rows of every magnitude, each scaled by 2^-s with s uniform in [0, 24]: in FP16, the inner
/// rows all take the scale of the largest (one factor per panel), so the smallest rows' elements
/// are subnormal or zero there and their scores coarse; the small outer rows' certificates fail
/// and the fallback ranks them. Indices must be the exact k nearest, values within 1e-6.
TYPED_TEST(GenredMatrixUnits, RowsOfEveryMagnitudeAreExact) {
  using Space     = TypeParam;
  constexpr int D = 24;
  const int m = 97, n = 389, k = 5;
  auto x = uniform(m, D, -0.5, 71), y = uniform(n, D, -0.5, 72);
  const auto sx = uniform(m, 1, 0.0, 73), sy = uniform(n, 1, 0.0, 74);
  const auto scale = [](std::vector<double>& v, const std::vector<double>& s) {
    for (std::size_t r = 0; r < s.size(); ++r)
      for (int c = 0; c < D; ++c)
        v[r * D + c] = std::ldexp(v[r * D + c], -static_cast<int>(25 * s[r]));  // exact in float
  };
  scale(x, sx);
  scale(y, sy);
  check_nearest_are_exact<Space, D>(x, y, m, n, k);
}

// ------------------------------------------------------------------------ batches
// Batched calls: rank-3 Views of 3 entries whose points are offset by 0.1 e (entry e), so that
// every entry has its own row scales, weight scales and selection centre; each entry is checked
// against its own double reference.

/// rows x cols values of each entry e, uniform in [-1/2 + 0.1 e, 1/2 + 0.1 e) (lo_step 0.1) or
/// [0, 1) (lo_step 0), as a (batch, rows, cols) View, with the host values.
template <class Space>
Kokkos::View<float***, Kokkos::LayoutRight, typename Space::memory_space> batched_rows(
    std::vector<std::vector<double>>& host, int batch, int rows, int cols, double lo0,
    double lo_step, unsigned seed) {
  Kokkos::View<float***, Kokkos::LayoutRight, typename Space::memory_space> d("rows", batch, rows,
                                                                              cols);
  auto h = Kokkos::create_mirror_view(d);
  host.resize(batch);
  for (int e = 0; e < batch; ++e) {
    host[e] = uniform(rows, cols, lo0 + lo_step * e, seed + 7 * e);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c)
        h(e, r, c) = static_cast<float>(host[e][static_cast<std::size_t>(r) * cols + c]);
  }
  Kokkos::deep_copy(d, h);
  return d;
}

/// Gaussian sums of W weights at dimension D over a batch of 3, Distance::matrix, both
/// precisions (the tolerances of check_matrix_sums).
template <class Space, int D, int W>
void check_batched_sums(unsigned seed) {
  constexpr int batch = 3, m = 131, n = 257;
  const double sigma = std::sqrt(static_cast<double>(D)) / 4;
  std::vector<std::vector<double>> x, y, b;
  const auto xd = batched_rows<Space>(x, batch, m, D, -0.5, 0.1, seed);
  const auto yd = batched_rows<Space>(y, batch, n, D, -0.5, 0.1, seed + 1);
  const auto bd = batched_rows<Space>(b, batch, n, W, 0.0, 0.0, seed + 2);
  Kokkos::View<float***, Kokkos::LayoutRight, typename Space::memory_space> out("out", batch, m, W);
  for (const MatrixPrecision p : {MatrixPrecision::split, MatrixPrecision::fast}) {
    tessera::GenredOptions options;
    options.matrix_precision = p;
    tessera::genred(Space{}, tessera::Sum{}, tessera::GaussianKernel<D, W, Distance::matrix>(sigma),
                    tessera::i_vars(xd), tessera::j_vars(yd, bd), out, options);
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
    for (int e = 0; e < batch; ++e) {
      const auto he = Kokkos::subview(h, e, Kokkos::ALL, Kokkos::ALL);
      EXPECT_LE(relative_sum_error<tessera::GaussianProfile>(he, x[e], y[e], b[e].data(), m, n, D,
                                                             W, sigma),
                p == MatrixPrecision::split ? 1e-4 : 2e-2)
          << "batch entry " << e << ", D = " << D << ", W = " << W << ", precision "
          << (p == MatrixPrecision::split ? "split" : "fast");
    }
  }
}

TYPED_TEST(GenredMatrixUnits, BatchedSumsAndSelections) {
  using Space = TypeParam;
  check_batched_sums<Space, 64, 1>(81);
  check_batched_sums<Space, 40, 16>(82);
  // ArgKMin, k = 5, D = 40
  constexpr int batch = 3, m = 131, n = 257, D = 40, k = 5;
  std::vector<std::vector<double>> x, y;
  const auto xd = batched_rows<Space>(x, batch, m, D, -0.5, 0.1, 83);
  const auto yd = batched_rows<Space>(y, batch, n, D, -0.5, 0.1, 84);
  Kokkos::View<int***, Kokkos::LayoutRight, typename Space::memory_space> idx("idx", batch, m, k);
  tessera::genred(Space{}, tessera::ArgKMin{k}, tessera::SquaredDistance<D>{}, tessera::i_vars(xd),
                  tessera::j_vars(yd), idx);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, idx);
  for (int e = 0; e < batch; ++e) {
    for (int i = 0; i < m; ++i) {
      std::vector<std::pair<double, int>> ref;
      for (int j = 0; j < n; ++j)
        ref.emplace_back(
            exact_value<tessera::SquaredDistanceOp>(&x[e][static_cast<std::size_t>(i) * D],
                                                    &y[e][static_cast<std::size_t>(j) * D], D),
            j);
      std::sort(ref.begin(), ref.end());
      for (int s = 0; s < k; ++s)
        ASSERT_EQ(h(e, i, s), ref[s].second)
            << "batch entry " << e << ", row " << i << ", slot " << s;
    }
  }
}

// ------------------------------------------------------------------------ 16-bit points
// Points stored as half_t (or bhalf_t where Kokkos has it): on CUDA the tensor cores take one
// product in that type, exact for the stored values, so sums meet the float tolerance and
// selections are exact; the references use the same rounded values in double.

/// Points of m rows and `cols` columns stored as S on the device (from v), and their rounded
/// values.
template <class Space, class S>
void stored_points(int rows, int cols, const std::vector<double>& v,
                   Kokkos::View<S**, Kokkos::LayoutRight, typename Space::memory_space>& d,
                   std::vector<double>& rounded) {
  d = Kokkos::View<S**, Kokkos::LayoutRight, typename Space::memory_space>("points", rows, cols);
  auto h  = Kokkos::create_mirror_view(d);
  rounded = v;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      h(r, c) = static_cast<S>(static_cast<float>(v[static_cast<std::size_t>(r) * cols + c]));
      rounded[static_cast<std::size_t>(r) * cols + c] = static_cast<float>(h(r, c));
    }
  }
  Kokkos::deep_copy(d, h);
}

/// A Gaussian sum (W = 1) of m x n points stored as S at dimension D, in the given scheme.
template <class Space, class S, int D>
void check_16bit_sum(int m, int n, tessera::Scheme scheme, unsigned seed) {
  using Mem          = typename Space::memory_space;
  const double sigma = std::sqrt(static_cast<double>(D)) / 4;
  std::vector<double> x, y;
  Kokkos::View<S**, Kokkos::LayoutRight, Mem> xd, yd;
  stored_points<Space>(m, D, uniform(m, D, -0.5, seed), xd, x);
  stored_points<Space>(n, D, uniform(n, D, -0.5, seed + 1), yd, y);
  const auto b  = uniform(n, 1, 0.0, seed + 2);
  const auto bd = device_rows<Space>(b, n, 1, "b");
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> out("out", m, 1);
  tessera::GenredOptions options;
  options.scheme = scheme;
  tessera::genred(Space{}, tessera::Sum{}, tessera::GaussianKernel<D, 1, Distance::matrix>(sigma),
                  tessera::i_vars(xd), tessera::j_vars(yd, bd), out, options);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
  EXPECT_LE(relative_sum_error<tessera::GaussianProfile>(h, x, y, b.data(), m, n, D, 1, sigma),
            1e-4)
      << "Gaussian sum from 16-bit points, D = " << D << ", " << m << " x " << n;
}

/// Runs Gaussian sums (W = 1; D = 64 and 128, the latter over many tiles of inner rows in both
/// schemes: on Hopper, the outer rows stay resident in shared memory) and ArgKMin (D = 33,
/// k = 10) from points stored as S.
template <class Space, class S>
void check_16bit_points(unsigned seed) {
  using Mem  = typename Space::memory_space;
  using Rows = Kokkos::View<S**, Kokkos::LayoutRight, Mem>;
  check_16bit_sum<Space, S, 64>(131, 257, tessera::Scheme::automatic, seed);
  check_16bit_sum<Space, S, 128>(263, 1301, tessera::Scheme::tiled_1d, seed + 10);
  check_16bit_sum<Space, S, 128>(67, 2053, tessera::Scheme::tiled_2d, seed + 20);
  {
    constexpr int D = 33;
    const int m = 131, n = 257, k = 10;
    std::vector<double> x, y;
    Rows xd, yd;
    stored_points<Space>(m, D, uniform(m, D, -0.5, seed + 3), xd, x);
    stored_points<Space>(n, D, uniform(n, D, -0.5, seed + 4), yd, y);
    Kokkos::View<int**, Kokkos::LayoutRight, Mem> idx("idx", m, k);
    tessera::genred(Space{}, tessera::ArgKMin{k}, tessera::SquaredDistance<D>{},
                    tessera::i_vars(xd), tessera::j_vars(yd), idx);
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, idx);
    for (int i = 0; i < m; ++i) {
      const auto ref = sorted_exact_values<tessera::SquaredDistanceOp>(x, y, i, n, D);
      for (int s = 0; s < k; ++s)
        ASSERT_EQ(h(i, s), ref[s].second)
            << "ArgKMin from 16-bit points, row " << i << ", slot " << s;
    }
  }
}

TYPED_TEST(GenredMatrixUnits, HalfPointsSumsAndSelections) {
  check_16bit_points<TypeParam, Kokkos::Experimental::half_t>(61);
}

#if defined(TESSERA_HAS_BHALF_T)
TYPED_TEST(GenredMatrixUnits, BhalfPointsSumsAndSelections) {
  check_16bit_points<TypeParam, Kokkos::Experimental::bhalf_t>(71);
}
#endif

}  // namespace
