// Shared pieces of the genred tests: random variables, a formula that exercises parameters,
// several i/j variables and a 3-D output, and a checker that runs genred over schemes (or kernels,
// over a block-sparse pattern), axes and summation modes and compares with the double-precision
// host reference.
#pragma once

#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>

#include "execution_spaces.hpp"
#include "expect_rejected.hpp"
#include "reference/genred_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

/// X(Name, Reduction, ctor) for each of the 13 reductions, constructed as tessera::Reduction ctor
/// (k = 3, 4 and 2 for the KMin family): the typed tests that run every reduction through one
/// check are one line, TESSERA_FOR_EACH_REDUCTION(X). The four families (sums, min-max and arg,
/// k-selections, log-sum-exp and softmax) have a macro each, for the tests that compile a family
/// per translation unit.
// clang-format off
#define TESSERA_FOR_EACH_SUM_REDUCTION(X)       \
  X(Sum, Sum, {})
#define TESSERA_FOR_EACH_MIN_MAX_REDUCTION(X)   \
  X(Min, Min, {})                               \
  X(Max, Max, {})                               \
  X(ArgMin, ArgMin, {})                         \
  X(ArgMax, ArgMax, {})                         \
  X(MinArgMin, MinArgMin, {})                   \
  X(MaxArgMax, MaxArgMax, {})
#define TESSERA_FOR_EACH_K_REDUCTION(X)         \
  X(KMin, KMin, {3})                            \
  X(ArgKMin, ArgKMin, {4})                      \
  X(KMinArgKMin, KMinArgKMin, {2})
#define TESSERA_FOR_EACH_LOG_SUM_EXP_REDUCTION(X) \
  X(LogSumExp, LogSumExp, {})                   \
  X(LogSumExpWeighted, LogSumExpWeighted, {})   \
  X(SumSoftMaxWeight, SumSoftMaxWeight, {})
#define TESSERA_FOR_EACH_REDUCTION(X)           \
  TESSERA_FOR_EACH_SUM_REDUCTION(X)             \
  TESSERA_FOR_EACH_MIN_MAX_REDUCTION(X)         \
  TESSERA_FOR_EACH_K_REDUCTION(X)               \
  TESSERA_FOR_EACH_LOG_SUM_EXP_REDUCTION(X)
// clang-format on

/// Declares the typed suite `Suite` over ExecutionSpaces, outside any namespace, for a suite whose
/// tests lie in several translation units: GoogleTest requires the tests of one suite to share one
/// fixture type, so the fixture is declared once, in the suite's support header.
#define TESSERA_TYPED_SUITE(Suite)         \
  template <class Space>                   \
  class Suite : public ::testing::Test {}; \
  TYPED_TEST_SUITE(Suite, tessera_test::ExecutionSpaces)

namespace tessera_test {

/// The kernel the genred tests ask for: TESSERA_TEST_IMPLEMENTATION=portable runs the portable
/// kernel on every execution space; otherwise (automatic) a CUDA build runs its CUDA kernel on
/// Kokkos::Cuda. Running the suite both ways tests both paths against the same references.
inline tessera::Implementation test_implementation() {
  const char* env = std::getenv("TESSERA_TEST_IMPLEMENTATION");
  return env != nullptr && std::string(env) == "portable" ? tessera::Implementation::portable
                                                          : tessera::Implementation::automatic;
}
/// A team kernel that does nothing, to ask a backend for its largest team.
template <class Space>
struct NoTeamWork {
  KOKKOS_FUNCTION void operator()(const typename Kokkos::TeamPolicy<Space>::member_type&) const {}
};
/// The largest team the backend runs a light kernel with (1 on Serial). Tests cap the team sizes
/// they ask of the portable kernel at it: genred rejects a larger options.team_size.
template <class Space>
int largest_team() {
  return Kokkos::TeamPolicy<Space>(Space(), 1, 1)
      .team_size_max(NoTeamWork<Space>{}, Kokkos::ParallelForTag());
}

/// Default genred options with test_implementation().
inline tessera::GenredOptions test_options() {
  tessera::GenredOptions options;
  options.implementation = test_implementation();
  return options;
}

/// The name of a kernel in failure messages.
inline std::string implementation_name(tessera::Implementation implementation) {
  switch (implementation) {
    case tessera::Implementation::portable:
      return "portable";
    case tessera::Implementation::host:
      return "host";
    case tessera::Implementation::cuda:
      return "cuda";
    default:
      return "automatic";
  }
}

/// F = [-p |x - y|^2,  b0 + x.y,  b1 exp(-|x - y|^2)]: a parameter, one i-variable, two
/// j-variables, three output components with different minimisers. With b > 0 the last two
/// components are positive, so they serve as the weights g of the weighted reductions.
struct MixedFormula {
  using param_dims             = tessera::Dims<1>;
  using i_dims                 = tessera::Dims<3>;
  using j_dims                 = tessera::Dims<3, 2>;
  static constexpr int out_dim = 3;

  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(tessera::In<T, 1> p, tessera::In<T, 3> x,
                                         tessera::In<T, 3> y, tessera::In<T, 2> b,
                                         tessera::Out<T, 3> out) const {
    const T r2 = tessera::squared_distance(x, y);
    out[0]     = -p[0] * r2;
    out[1]     = b[0] + tessera::dot(x, y);
    out[2]     = b[1] * tessera::math::exp(-r2);
  }
};

/// MixedFormula as a staged formula (formula.hpp): the same values, computed from staged rows of
/// other widths and orders, si = (2 x, 7) and sj = (b1, y, 42, b0), whose every slot matters. The
/// staging is exact (scaling by 2 and moving values), so the tolerances do not change.
struct StagedMixedFormula : MixedFormula {
  static constexpr int staged_i_width = 4;
  static constexpr int staged_j_width = 6;

  template <class T>
  KOKKOS_INLINE_FUNCTION void stage_i(const T* x, T* si) const {
    for (int k = 0; k < 3; ++k)
      si[k] = T(2) * x[k];
    si[3] = T(7);
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION void stage_j(const T* yb, T* sj) const {
    sj[0] = yb[4];
    for (int k = 0; k < 3; ++k)
      sj[1 + k] = yb[k];
    sj[4] = T(42);
    sj[5] = yb[3];
  }
  template <class T>
  KOKKOS_INLINE_FUNCTION void eval_staged(tessera::In<T, 1> p, tessera::In<T, 4> si,
                                          tessera::In<T, 6> sj, tessera::Out<T, 3> out) const {
    T r2 = T(0), xy = T(0);
    for (int k = 0; k < 3; ++k) {
      const T x = si[k] * T(0.5);
      r2 += (x - sj[1 + k]) * (x - sj[1 + k]);
      xy += x * sj[1 + k];
    }
    out[0] = -p[0] * r2 * (si[3] / T(7));
    out[1] = sj[5] + xy * (sj[4] / T(42));
    out[2] = sj[0] * tessera::math::exp(-r2);
  }
};

/// Host data of one test problem, already rounded to the tested scalar type.
struct ProblemData {
  int batch = 0;  // 0: unbatched (rank-2 Views)
  int m = 0, n = 0;
  std::vector<double> p, x, y, b;  // [batch][rows][dim]
  int batches() const { return batch > 0 ? batch : 1; }
};

template <class T>
ProblemData make_problem(int batch, int m, int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0), weight(0.5, 1.5);
  ProblemData d;
  d.batch      = batch;
  d.m          = m;
  d.n          = n;
  const int nb = d.batches();
  auto fill    = [&](std::vector<double>& v, std::size_t count, auto& dist) {
    v.resize(count);
    for (auto& e : v)
      e = static_cast<double>(static_cast<T>(dist(gen)));
  };
  fill(d.x, static_cast<std::size_t>(nb) * m * 3, unit);
  fill(d.y, static_cast<std::size_t>(nb) * n * 3, unit);
  fill(d.b, static_cast<std::size_t>(nb) * n * 2, weight);
  d.p.assign(nb, 4.0);
  return d;
}

/// A device View (rank 2 if unbatched, 3 if batched) holding host data (batch, rows, dim).
template <class T, class Space>
auto to_view(const std::string& label, const std::vector<double>& data, int batch, int rows,
             int dim) {
  using View3 = Kokkos::View<T***, Kokkos::LayoutRight, typename Space::memory_space>;
  View3 v(label, batch > 0 ? batch : 1, rows, dim);
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t e = 0; e < data.size(); ++e)
    h.data()[e] = static_cast<T>(data[e]);
  Kokkos::deep_copy(v, h);
  return v;
}

/// Reference F values of MixedFormula on the problem, in double, for either axis.
inline tessera_ref::RowFormula reference_formula(const ProblemData& d, tessera::Axis axis) {
  return [&d, axis](int b, int outer, int inner, double* out) {
    const int i      = axis == tessera::Axis::j ? outer : inner;
    const int j      = axis == tessera::Axis::j ? inner : outer;
    const double* p  = &d.p[b];
    const double* x  = &d.x[(static_cast<std::size_t>(b) * d.m + i) * 3];
    const double* y  = &d.y[(static_cast<std::size_t>(b) * d.n + j) * 3];
    const double* bb = &d.b[(static_cast<std::size_t>(b) * d.n + j) * 2];
    MixedFormula{}(tessera::In<double, 1>(p, 1), tessera::In<double, 3>(x, 3),
                   tessera::In<double, 3>(y, 3), tessera::In<double, 2>(bb, 2),
                   tessera::Out<double, 3>(out, 3));
  };
}

/// Per-type tolerances. Float: F itself carries a few ulp (6e-8) of error and block sums of
/// 256-row tiles add at most (N / 256 + 256) ulp per unit of sum |F|; 3e-5 covers both for
/// N <= 5000. Double: the same argument with 1e-16 ulps.
template <class T>
constexpr double tolerance() {
  return std::is_same_v<T, float> ? 3e-5 : 1e-12;
}

/// Host copy of the values/indices a genred call wrote to a (batch, rows, cols) View, in
/// row-major order whatever the View's layout.
template <class View>
std::vector<double> host_values(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<double> out;
  out.reserve(h.size());
  for (std::size_t b = 0; b < h.extent(0); ++b) {
    for (std::size_t r = 0; r < h.extent(1); ++r) {
      for (std::size_t c = 0; c < h.extent(2); ++c)
        out.push_back(static_cast<double>(h(b, r, c)));
    }
  }
  return out;
}

/// Compares one reduction's output with the reference, family by family; see reductions.hpp.
template <class Reduction>
void expect_matches(const Reduction&, const tessera_ref::Expected& ref,
                    const std::vector<double>& values, const std::vector<double>& indices, int dim,
                    int k, double tol, const std::string& where) {
  using namespace tessera;
  constexpr bool has_values  = Impl::ReductionFacts<Reduction>::writes_values;
  constexpr bool has_indices = Impl::ReductionFacts<Reduction>::writes_indices;
  const std::size_t rows     = ref.cols ? ref.values.size() / ref.cols : 0;
  for (std::size_t r = 0; r < rows; ++r) {
    for (int col = 0; col < ref.cols; ++col) {
      const std::size_t e           = r * ref.cols + col;
      const int c                   = col % dim;  // component (K-reductions: col = t * dim + c)
      const std::vector<double>& Fc = ref.row_values[r * dim + c];
      double abs_sum = 0, abs_max = 0;
      for (double f : Fc) {  // NaN marks pairs a block-sparse reference does not keep
        if (std::isnan(f)) continue;
        abs_sum += std::fabs(f);
        abs_max = std::max(abs_max, std::fabs(f));
      }
      const std::string at = where + " row " + std::to_string(r) + " col " + std::to_string(col);
      if constexpr (std::is_same_v<Reduction, Sum>) {
        EXPECT_NEAR(values[e], ref.values[e], tol * abs_sum + 1e-300) << at;
      } else if constexpr (std::is_same_v<Reduction, LogSumExp>) {
        if (std::isinf(ref.values[e])) {
          EXPECT_EQ(values[e], ref.values[e]) << at;
        } else {
          EXPECT_NEAR(values[e], ref.values[e], tol * (1 + abs_max)) << at;
        }
      } else if constexpr (Impl::is_weighted_reduction<Reduction>) {
        const std::vector<double>& F0 = ref.row_values[r * dim];
        double f_max = 0, g_max = 0;
        for (double f : F0)
          f_max = std::isnan(f) ? f_max : std::max(f_max, std::fabs(f));
        for (double g : ref.row_values[r * dim + col + 1])
          g_max = std::isnan(g) ? g_max : std::max(g_max, std::fabs(g));
        if (std::isinf(ref.values[e])) {
          EXPECT_EQ(values[e], ref.values[e]) << at;
        } else if constexpr (std::is_same_v<Reduction, LogSumExpWeighted>) {
          EXPECT_NEAR(values[e], ref.values[e], tol * (1 + f_max + std::log1p(g_max))) << at;
        } else {
          EXPECT_NEAR(values[e], ref.values[e], tol * (1 + f_max) * g_max) << at;
        }
      } else {  // min / max / k-min families
        const double value_tol = tol * (1 + abs_max);
        if constexpr (has_values) {
          if (std::isinf(ref.values[e])) {
            EXPECT_EQ(values[e], ref.values[e]) << at;
          } else {
            EXPECT_NEAR(values[e], ref.values[e], value_tol) << at;
          }
        }
        if constexpr (has_indices) {
          const long j = static_cast<long>(indices[e]);
          if (ref.indices[e] < 0) {
            EXPECT_EQ(j, -1) << at;
          } else {
            // Near-ties may legitimately pick another index in float: accept any index whose
            // exact F value is within the tolerance of the reference value.
            ASSERT_GE(j, 0) << at;
            ASSERT_LT(j, static_cast<long>(Fc.size())) << at;
            EXPECT_NEAR(Fc[j], ref.values[e], value_tol) << at;
            if (k > 1) {  // K-reductions: no index twice in a row's list
              for (int t = 0; t < col / dim; ++t) {
                EXPECT_NE(static_cast<long>(indices[r * ref.cols + t * dim + c]), j) << at;
              }
            }
          }
        }
      }
    }
  }
}

/// The extents of a check_reduction case: batch (0: rank-2 Views), M and N; and the seed of its
/// random data (0: 8, 9, ... in the order of the list).
struct SizeCase {
  int batch, m, n;
  unsigned seed = 0;
};

/// The sizes every reduction is tested on: 0, 1, primes, tile-straddling sizes, M << N,
/// M >> N, and batches.
inline std::vector<SizeCase> standard_sizes() {
  return {{0, 1, 1},    {0, 7, 255}, {0, 255, 1000}, {0, 1000, 7}, {0, 4099, 257},
          {0, 3, 4099}, {0, 0, 5},   {3, 37, 61},    {2, 0, 4},    {1, 5, 3}};
}

/// Runs call(p, x, y, b, out), a genred call of `reduction` on MixedFormula's Views (rank 3, or
/// their rank-2 subviews when batch is 0) with `out` the reduction's outputs, into poisoned
/// outputs of `rows` rows, and compares them with `ref`; the values or indices that the
/// reduction does not write must stay poisoned.
template <class Space, class T, class Reduction, class V, class Call>
void check_call(const Reduction& reduction, int batch, int rows, const tessera_ref::Expected& ref,
                const V& p, const V& x, const V& y, const V& b, const Call& call,
                const std::string& where) {
  using namespace tessera;
  constexpr bool has_values  = Impl::ReductionFacts<Reduction>::writes_values;
  constexpr bool has_indices = Impl::ReductionFacts<Reduction>::writes_indices;
  const int batches          = batch > 0 ? batch : 1;
  Kokkos::View<T***, typename Space::memory_space> values("values", batches, rows, ref.cols);
  Kokkos::View<std::int64_t***, typename Space::memory_space> indices("indices", batches, rows,
                                                                      ref.cols);
  Kokkos::deep_copy(values, std::numeric_limits<T>::quiet_NaN());  // poison
  Kokkos::deep_copy(indices, -7);
  auto run = [&](auto pv, auto xv, auto yv, auto bv, auto vv, auto iv) {
    if constexpr (has_values && has_indices) {
      call(pv, xv, yv, bv, tessera::outputs(vv, iv));
    } else if constexpr (has_values) {
      call(pv, xv, yv, bv, vv);
    } else {
      call(pv, xv, yv, bv, iv);
    }
  };
  if (batch > 0) {
    run(p, x, y, b, values, indices);
  } else {
    auto sub2 = [](auto v) { return Kokkos::subview(v, 0, Kokkos::ALL, Kokkos::ALL); };
    run(sub2(p), sub2(x), sub2(y), sub2(b), sub2(values), sub2(indices));
  }
  const auto hv = host_values(values);
  const auto hi = host_values(indices);
  if (!has_values) {
    for (double v : hv)
      ASSERT_TRUE(std::isnan(v)) << where << ": values written";
  }
  if (!has_indices) {
    for (double v : hi)
      ASSERT_EQ(v, -7) << where << ": indices written";
  }
  expect_matches(reduction, ref, hv, hi, MixedFormula::out_dim, Impl::reduction_k(reduction),
                 tolerance<T>(), where);
}

/// The pairs check_reduction reduces over: every (i, j), each case run with every scheme
/// (tiled_1d, tiled_2d in 3 chunks, automatic).
struct Dense {};

/// The pairs (i, j) of a block-sparsity pattern: `ranges` (a BlockSparseRanges) is given to
/// genred, `keeps` says the same pattern on the host (for the reference); each case runs with
/// every kernel of `implementations`; `what` names the pattern in failure messages.
template <class Ranges>
struct BlockSparse {
  Ranges ranges;
  std::function<bool(int i, int j)> keeps;
  std::vector<tessera::Implementation> implementations;
  std::string what;
};

/// Runs `reduction` on MixedFormula (or StagedMixedFormula) over every size, both axes, every
/// summation mode when it matters, and the variants of `sparsity` (every scheme when Dense, every
/// kernel over a BlockSparse pattern), comparing with the reference restricted to the same pairs.
template <class Space, class T, class Reduction, class Formula = MixedFormula,
          class Sparsity = Dense>
void check_reduction(const Reduction& reduction, std::vector<SizeCase> sizes = standard_sizes(),
                     const Sparsity& sparsity = {}) {
  using namespace tessera;
  constexpr bool dense = std::is_same_v<Sparsity, Dense>;
  constexpr int dim    = MixedFormula::out_dim;
  const int k          = Impl::reduction_k(reduction);
  const std::vector<Summation> summations =
      Impl::uses_summation<Reduction>
          ? std::vector<Summation>{Summation::direct, Summation::block_sum, Summation::kahan}
          : std::vector<Summation>{Summation::block_sum};
  std::vector<std::pair<GenredOptions, std::string>> variants;  // options, name
  std::string prefix;  // of failure messages: the pattern's name
  if constexpr (dense) {
    for (Scheme scheme : {Scheme::tiled_1d, Scheme::tiled_2d, Scheme::automatic}) {
      GenredOptions opt = test_options();
      opt.scheme        = scheme;
      opt.chunks_2d     = scheme == Scheme::tiled_2d ? 3 : 0;
      variants.push_back({opt, " scheme " + std::to_string(static_cast<int>(scheme))});
    }
  } else {
    for (Implementation implementation : sparsity.implementations) {
      GenredOptions opt  = test_options();
      opt.implementation = implementation;
      variants.push_back({opt, " kernel " + implementation_name(implementation)});
    }
    prefix = sparsity.what + " ";
  }
  unsigned seed = 7;
  for (const SizeCase& s : sizes) {
    ++seed;
    const ProblemData d = make_problem<T>(s.batch, s.m, s.n, s.seed != 0 ? s.seed : seed);
    auto p              = to_view<T, Space>("p", d.p, s.batch, 1, 1);
    auto x              = to_view<T, Space>("x", d.x, s.batch, s.m, 3);
    auto y              = to_view<T, Space>("y", d.y, s.batch, s.n, 3);
    auto b              = to_view<T, Space>("b", d.b, s.batch, s.n, 2);
    for (Axis axis : {Axis::j, Axis::i}) {
      const int n_outer = axis == Axis::j ? s.m : s.n;
      const int n_inner = axis == Axis::j ? s.n : s.m;
      if (Impl::is_k_reduction<Reduction> && k > n_inner) continue;  // invalid: validation tests
      // The pairs the reference keeps: every pair while `keep` is empty (Dense).
      tessera_ref::KeepPair keep;
      if constexpr (!dense) {
        keep = [&](int outer, int inner) {
          return axis == Axis::j ? sparsity.keeps(outer, inner) : sparsity.keeps(inner, outer);
        };
      }
      const tessera_ref::Expected ref = tessera_ref::reduce(
          reduction, d.batches(), n_outer, n_inner, dim, reference_formula(d, axis), keep);
      for (const auto& [variant, variant_name] : variants) {
        for (Summation summation : summations) {
          GenredOptions opt       = variant;
          opt.axis                = axis;
          opt.summation           = summation;
          const std::string where = prefix + (std::is_same_v<T, float> ? "float" : "double") +
                                    " B=" + std::to_string(s.batch) + " M=" + std::to_string(s.m) +
                                    " N=" + std::to_string(s.n) +
                                    (axis == Axis::j ? " axis j" : " axis i") + variant_name +
                                    " summation " + std::to_string(static_cast<int>(summation));
          check_call<Space, T>(
              reduction, s.batch, n_outer, ref, p, x, y, b,
              [&](auto pv, auto xv, auto yv, auto bv, auto out) {
                if constexpr (std::is_same_v<Sparsity, Dense>) {
                  tessera::genred(Space(), reduction, Formula{}, tessera::params(pv),
                                  tessera::i_vars(xv), tessera::j_vars(yv, bv), out, opt);
                } else {
                  tessera::genred(Space(), reduction, Formula{}, tessera::params(pv),
                                  tessera::i_vars(xv), tessera::j_vars(yv, bv), out,
                                  sparsity.ranges, opt);
                }
              },
              where);
          if (::testing::Test::HasFailure()) return;  // one failing case is enough to read
        }
      }
    }
  }
}

// ---------------------------------------------------------------- helpers for single problems

/// count uniform random values in [lo, hi), rounded to T so that the host reference sees
/// exactly the inputs the device sees.
template <class T>
std::vector<double> random_values(std::size_t count, double lo, double hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(count);
  for (auto& e : v)
    e = static_cast<double>(static_cast<T>(dist(gen)));
  return v;
}

/// A rank-2 LayoutRight device View (rows, dim) holding row-major host data.
template <class T, class Space>
Kokkos::View<T**, Kokkos::LayoutRight, typename Space::memory_space> to_view2(
    const std::string& label, const std::vector<double>& data, int rows, int dim) {
  Kokkos::View<T**, Kokkos::LayoutRight, typename Space::memory_space> v(label, rows, dim);
  auto h = Kokkos::create_mirror_view(v);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < dim; ++c)
      h(r, c) = static_cast<T>(data[static_cast<std::size_t>(r) * dim + c]);
  }
  Kokkos::deep_copy(v, h);
  return v;
}

/// Host copy of a rank-2 View of any layout (strided ones included), as row-major doubles.
template <class View>
std::vector<double> host_rows(const View& v) {
  using T = typename View::non_const_value_type;
  Kokkos::View<T**, Kokkos::LayoutRight, typename View::memory_space> tmp("host_rows", v.extent(0),
                                                                          v.extent(1));
  Kokkos::deep_copy(tmp, v);  // same memory space: a copy kernel handles any layout
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tmp);
  std::vector<double> out(h.size());
  for (std::size_t e = 0; e < h.size(); ++e)
    out[e] = static_cast<double>(h.data()[e]);
  return out;
}

/// Host copy of an integer View's elements, in memory order.
template <class View>
std::vector<int> host_ints(const View& v) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<int>(h.data(), h.data() + h.size());
}

/// A rank-1 device View of ints holding `data`.
template <class Space>
Kokkos::View<int*, typename Space::memory_space> int_view(const std::vector<int>& data) {
  Kokkos::View<int*, typename Space::memory_space> v("ints", data.size());
  auto h = Kokkos::create_mirror_view(v);
  std::copy(data.begin(), data.end(), h.data());
  Kokkos::deep_copy(v, h);
  return v;
}

/// F(i, j) of an unbatched problem: writes the formula's D components to out, in double.
using PairFormula = std::function<void(int i, int j, double* out)>;

/// Runs genred(reduction, formula, params, i_vars, j_vars) on an unbatched problem with M = m,
/// N = n on both axes, with Scheme::tiled_1d and Scheme::tiled_2d (other options from `base`;
/// chunks_2d = 3 unless set), and compares with the double reference built from f.
template <class Space, class T, class Reduction, class Formula, class PP, class II, class JJ>
void check_formula(const Reduction& reduction, const Formula& formula, const PP& params,
                   const II& i_vars, const JJ& j_vars, int m, int n, int dim, const PairFormula& f,
                   const std::string& where, const tessera::GenredOptions& base = test_options(),
                   double tol = tolerance<T>()) {
  using namespace tessera;
  using Mem                  = typename Space::memory_space;
  constexpr bool has_values  = Impl::ReductionFacts<Reduction>::writes_values;
  constexpr bool has_indices = Impl::ReductionFacts<Reduction>::writes_indices;
  const int k                = Impl::reduction_k(reduction);
  for (Axis axis : {Axis::j, Axis::i}) {
    const int n_outer = axis == Axis::j ? m : n;
    const int n_inner = axis == Axis::j ? n : m;
    if (k > n_inner) continue;  // invalid by definition; see the validation tests
    const tessera_ref::Expected ref = tessera_ref::reduce(
        reduction, 1, n_outer, n_inner, dim, [&](int, int outer, int inner, double* out) {
          if (axis == Axis::j) {
            f(outer, inner, out);
          } else {
            f(inner, outer, out);
          }
        });
    for (Scheme scheme : {Scheme::tiled_1d, Scheme::tiled_2d}) {
      GenredOptions opt = base;
      opt.axis          = axis;
      opt.scheme        = scheme;
      if (scheme == Scheme::tiled_2d && opt.chunks_2d == 0) opt.chunks_2d = 3;
      Kokkos::View<T**, Mem> values("values", n_outer, ref.cols);
      Kokkos::View<std::int64_t**, Mem> indices("indices", n_outer, ref.cols);
      Kokkos::deep_copy(values, std::numeric_limits<T>::quiet_NaN());  // poison
      Kokkos::deep_copy(indices, -7);
      if constexpr (has_values && has_indices) {
        tessera::genred(Space(), reduction, formula, params, i_vars, j_vars,
                        tessera::outputs(values, indices), opt);
      } else if constexpr (has_values) {
        tessera::genred(Space(), reduction, formula, params, i_vars, j_vars, values, opt);
      } else {
        tessera::genred(Space(), reduction, formula, params, i_vars, j_vars, indices, opt);
      }
      const std::string at = where + " M=" + std::to_string(m) + " N=" + std::to_string(n) +
                             (axis == Axis::j ? " axis j" : " axis i") +
                             (scheme == Scheme::tiled_1d ? " tiled_1d" : " tiled_2d") +
                             " tile_j=" + std::to_string(opt.tile_j);
      const auto hv = host_rows(values);
      const auto hi = host_rows(indices);
      if (!has_values) {
        for (double v : hv)
          ASSERT_TRUE(std::isnan(v)) << at << ": values written";
      }
      if (!has_indices) {
        for (double v : hi)
          ASSERT_EQ(v, -7) << at << ": indices written";
      }
      expect_matches(reduction, ref, hv, hi, dim, k, tol, at);
      if (::testing::Test::HasFailure()) return;  // one failing case is enough to read
    }
  }
}

}  // namespace tessera_test
