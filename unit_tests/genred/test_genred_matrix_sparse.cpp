// Block-sparse calls on the tensor-core paths of tessera::genred against direct double-precision
// references restricted to the pattern's pairs: radial-kernel sums with Distance::matrix
// (without weights over both axes, W = 1, wide weights W = 16 and 64) at D = 16 to 129 (below,
// at and above the engines' k-steps), both MatrixPrecision modes, and the exact selections (Min,
// ArgKMin, KMinArgKMin of squared and cosine distance and dot product, over both axes, with
// exact ties). On CUDA the tensor-core kernels walk each team tile's ranges and the tests check,
// through the kernels' Kokkos Tools names, that those kernels took the calls; elsewhere the
// expanded evaluation runs them. Patterns: random (segments starting anywhere, empty segments,
// segments without ranges, empty and touching ranges), one-row segments with short ranges, a
// full pattern cut into touching ranges; sizes 0, 1, primes and more than one tile.
#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/core/config.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>

#include "cluster/block_sparse_test_support.hpp"
#include "execution_spaces.hpp"
#include "genred/matrix_test_support.hpp"
#include "kernel_names.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using tessera::Axis;
using tessera::Distance;
using tessera::MatrixPrecision;
using tessera_test::HostPattern;

template <class Space>
class GenredMatrixSparse : public ::testing::Test {};
TYPED_TEST_SUITE(GenredMatrixSparse, tessera_test::ExecutionSpaces);

struct PatternCase {
  HostPattern pattern;
  std::string what;
};

/// The patterns of the file comment.
std::vector<PatternCase> pattern_cases() {
  std::vector<PatternCase> cases;
  cases.push_back({tessera_test::random_pattern(1000, 1500, 9, 5), "random 1000 x 1500"});
  cases.push_back({tessera_test::random_pattern(131, 257, 4, 6), "random 131 x 257"});
  cases.push_back({tessera_test::random_pattern(1, 1, 1, 7), "random 1 x 1"});
  cases.push_back({tessera_test::random_pattern(5, 0, 2, 8), "random 5 x 0"});
  cases.push_back({tessera_test::random_pattern(0, 5, 1, 9), "random 0 x 5"});
  HostPattern tiny(300, 701);  // one-row segments, each with ranges of 1, 2 and 3 rows
  for (int i = 0; i < tiny.m; ++i) {
    const int j0 = (i * 37) % (tiny.n - 20);
    tiny.add_segment(i + 1, {{j0, j0 + 1}, {j0 + 4, j0 + 6}, {j0 + 6, j0 + 9}});
  }
  cases.push_back({tiny, "one-row segments"});
  HostPattern full(300, 601);  // every pair, in segments of 100, 1 and 199 rows
  for (int end : {0, 100, 101, 300})
    full.add_segment(end, {{0, 257}, {257, full.n}});
  cases.push_back({full, "full pattern"});
  return cases;
}

/// Rows of a case seen from a reduction along `axis`: outer (output) rows, reduced rows.
int outer_rows(const HostPattern& p, Axis axis) {
  return axis == Axis::j ? p.m : p.n;
}
int reduced_rows(const HostPattern& p, Axis axis) {
  return axis == Axis::j ? p.n : p.m;
}

/// Runs the block-sparse sum of k(|x_i - y_j|^2) b_j with Distance::matrix along `axis` (W = 0
/// only over i) and returns max |a - a_ref| / max |a_ref| (0 for empty outputs), a_ref in double
/// over the pairs the pattern keeps. On the tensor-core kernels, expects `kernel` to have run.
template <class Space, class Profile, int D, int W>
double sparse_sum_error(const HostPattern& p, Axis axis, MatrixPrecision precision, unsigned seed,
                        const std::string& kernel) {
  const double sigma = std::sqrt(static_cast<double>(D)) / 4;
  constexpr int FD   = W == 0 ? 1 : W;
  const auto x       = tessera_test::uniform(p.m, D, -0.5, seed);
  const auto y       = tessera_test::uniform(p.n, D, -0.5, seed + 1);
  const auto b       = tessera_test::uniform(p.n, FD, 0.0, seed + 2);
  const auto xd      = tessera_test::device_rows<Space>(x, p.m, D, "x");
  const auto yd      = tessera_test::device_rows<Space>(y, p.n, D, "y");
  const auto bd      = tessera_test::device_rows<Space>(b, p.n, FD, "b");
  const int n_out = outer_rows(p, axis), n_in = reduced_rows(p, axis);
  Kokkos::View<float**, Kokkos::LayoutRight, typename Space::memory_space> out("out", n_out, FD);
  const auto ranges = p.to_device<Space>();
  tessera::GenredOptions options;
  options.matrix_precision = precision;
  options.axis             = axis;
  const tessera::RadialKernel<Profile, D, W, Distance::matrix> formula(sigma);
  {
    const tessera_test::KernelNames names;
    if constexpr (W == 0) {
      tessera::genred(Space{}, tessera::Sum{}, formula, tessera::i_vars(xd), tessera::j_vars(yd),
                      out, ranges, options);
    } else {
      tessera::genred(Space{}, tessera::Sum{}, formula, tessera::i_vars(xd),
                      tessera::j_vars(yd, bd), out, ranges, options);
    }
    Kokkos::fence();
    if (tessera_test::tensor_core_kernels<Space>() && n_out > 0 && n_in > 0) {
      EXPECT_TRUE(names.launched(kernel)) << kernel << " did not run the call";
    }
  }
  std::vector<double> ref(static_cast<std::size_t>(n_out) * FD, 0.0);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      if (!p.keeps(i, j)) continue;
      double r2 = 0;
      for (int k = 0; k < D; ++k) {
        const double e =
            x[static_cast<std::size_t>(i) * D + k] - y[static_cast<std::size_t>(j) * D + k];
        r2 += e * e;
      }
      const double kv = tessera_test::profile_value<Profile>(r2, sigma);
      const int o     = axis == Axis::j ? i : j;
      for (int c = 0; c < FD; ++c)
        ref[static_cast<std::size_t>(o) * FD + c] +=
            kv * (W == 0 ? 1.0 : b[static_cast<std::size_t>(j) * FD + c]);
    }
  }
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
  double err = 0, scale = 0;
  for (int o = 0; o < n_out; ++o) {
    for (int c = 0; c < FD; ++c) {
      const double want = ref[static_cast<std::size_t>(o) * FD + c];
      err               = std::max(err, std::abs(static_cast<double>(h(o, c)) - want));
      scale             = std::max(scale, std::abs(want));
    }
  }
  return scale > 0 ? err / scale : err;
}

/// Every pattern case, both precisions (split within 1e-4 of the reference, fast within 2e-2,
/// as the dense sums), over j and, without weights, over i.
template <class Space, class Profile, int D, int W>
void check_sparse_sums(unsigned seed) {
  const std::string kernel = W >= 16 ? "tessera::genred::matrix_wide_sum_block_sparse_cuda"
                                     : "tessera::genred::matrix_sum_block_sparse_cuda";
  for (const PatternCase& c : pattern_cases()) {
    for (const Axis axis : {Axis::j, Axis::i}) {
      if (W > 0 && axis == Axis::i) continue;
      for (const MatrixPrecision precision : {MatrixPrecision::split, MatrixPrecision::fast}) {
        const double tol = precision == MatrixPrecision::split ? 1e-4 : 2e-2;
        const double e =
            sparse_sum_error<Space, Profile, D, W>(c.pattern, axis, precision, seed++, kernel);
        EXPECT_LE(e, tol) << c.what << ", D = " << D << ", W = " << W
                          << (axis == Axis::j ? ", over j" : ", over i") << ", precision "
                          << (precision == MatrixPrecision::split ? "split" : "fast");
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TYPED_TEST(GenredMatrixSparse, GaussianSums) {
  using P = tessera::GaussianProfile;
  check_sparse_sums<TypeParam, P, 16, 0>(101);  // below the register kernel's range: streamed
  check_sparse_sums<TypeParam, P, 64, 1>(201);
  check_sparse_sums<TypeParam, P, 129, 0>(301);
}

TYPED_TEST(GenredMatrixSparse, WideWeights) {
  check_sparse_sums<TypeParam, tessera::GaussianProfile, 64, 16>(401);  // ranges from a slab
  check_sparse_sums<TypeParam, tessera::LaplaceProfile, 33, 64>(501);
}

/// Min, ArgKMin and KMinArgKMin of Op along `axis` against the exact k smallest (value, index)
/// of each outer row over the pairs the pattern keeps (ties to the smaller index; +inf and -1
/// past the row's pairs), on inputs with exact ties (make_adversarial); k at most the reduced
/// extent, as genred requires (the k-selections skipped where that is 0).
template <class Space, class Op, int D>
void check_sparse_selections(const PatternCase& c, Axis axis, int k, unsigned seed) {
  const HostPattern& p = c.pattern;
  auto x               = tessera_test::uniform(p.m, D, -0.5, seed);
  auto y               = tessera_test::uniform(p.n, D, -0.5, seed + 1);
  tessera_test::make_adversarial(x, y, p.m, p.n, D);
  const auto xd   = tessera_test::device_rows<Space>(x, p.m, D, "x");
  const auto yd   = tessera_test::device_rows<Space>(y, p.n, D, "y");
  const int n_out = outer_rows(p, axis), n_in = reduced_rows(p, axis);
  k         = std::min(k, n_in);
  using Mem = typename Space::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> vals("vals", n_out, k), val1("val1", n_out, 1);
  Kokkos::View<int**, Kokkos::LayoutRight, Mem> idx("idx", n_out, k);
  const auto ranges = p.to_device<Space>();
  tessera::GenredOptions options;
  options.axis = axis;
  const tessera::PointPairFormula<D, Op> f{};
  const auto iv = tessera::i_vars(xd);
  const auto jv = tessera::j_vars(yd);

  std::vector<std::vector<std::pair<double, int>>> ref(n_out);
  for (int i = 0; i < p.m; ++i) {
    for (int j = 0; j < p.n; ++j) {
      if (!p.keeps(i, j)) continue;
      const double v = tessera_test::exact_value<Op>(&x[static_cast<std::size_t>(i) * D],
                                                     &y[static_cast<std::size_t>(j) * D], D);
      if (axis == Axis::j) {
        ref[i].emplace_back(v, j);
      } else {
        ref[j].emplace_back(v, i);
      }
    }
  }
  for (auto& r : ref)
    std::sort(r.begin(), r.end());
  const auto check = [&](const char* what, int kk, bool values, bool indices, const auto& v) {
    const auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, v);
    const auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, idx);
    for (int o = 0; o < n_out; ++o) {
      for (int s = 0; s < kk; ++s) {
        const bool has          = s < static_cast<int>(ref[o].size());
        const int want_j        = has ? ref[o][s].second : -1;
        const double want       = has ? ref[o][s].first : std::numeric_limits<double>::infinity();
        const std::string where = c.what + ", " + what + ", D = " + std::to_string(D) +
                                  (axis == Axis::j ? ", over j" : ", over i") + ", row " +
                                  std::to_string(o) + ", slot " + std::to_string(s);
        if (indices) ASSERT_EQ(hi(o, s), want_j) << where;
        if (values) {
          if (!has) {
            ASSERT_TRUE(std::isinf(hv(o, s)) && hv(o, s) > 0) << where << ": empty slot";
          } else {
            ASSERT_NEAR(hv(o, s), want, 1e-5 * (1 + std::abs(want))) << where;
          }
        }
      }
    }
  };
  const tessera_test::KernelNames names;
  tessera::genred(Space{}, tessera::Min{}, f, iv, jv, val1, ranges, options);
  check("Min", 1, true, false, val1);
  if (k >= 1) {
    Kokkos::deep_copy(idx, -2);
    tessera::genred(Space{}, tessera::ArgKMin{k}, f, iv, jv, idx, ranges, options);
    check("ArgKMin", k, false, true, vals);
    Kokkos::deep_copy(idx, -2);
    tessera::genred(Space{}, tessera::KMinArgKMin{k}, f, iv, jv, tessera::outputs(vals, idx),
                    ranges, options);
    check("KMinArgKMin", k, true, true, vals);
  }
  Kokkos::fence();
  if (tessera_test::tensor_core_kernels<Space>() && n_out > 0 && n_in > 0) {
    EXPECT_TRUE(names.launched("tessera::genred::matrix_select_block_sparse_cuda"))
        << c.what << ": the tensor-core selection did not run the calls";
  }
}

template <class Space, class Op, int D>
void check_sparse_selections(int k, unsigned seed) {
  for (const PatternCase& c : pattern_cases()) {
    for (const Axis axis : {Axis::j, Axis::i}) {
      check_sparse_selections<Space, Op, D>(c, axis, k, seed++);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TYPED_TEST(GenredMatrixSparse, SquaredDistanceSelections) {
  check_sparse_selections<TypeParam, tessera::SquaredDistanceOp, 64>(5, 601);
  check_sparse_selections<TypeParam, tessera::SquaredDistanceOp, 33>(12, 701);
}

TYPED_TEST(GenredMatrixSparse, CosineAndDotSelections) {
  check_sparse_selections<TypeParam, tessera::CosineDistanceOp, 40>(5, 801);
  check_sparse_selections<TypeParam, tessera::DotOp, 129>(3, 901);
}

}  // namespace
