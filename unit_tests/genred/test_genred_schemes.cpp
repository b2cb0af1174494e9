// How genred cuts and accumulates the work (genred/options.hpp) must not change what it
// computes beyond what each option documents:
//  (a) summation modes: on adversarial data direct float sums drift, block sums much less, Kahan
//      sums not at all;
//  (b) exact ties are broken by the smallest index whatever the scheme, chunks, tile and team;
//  (c) LayoutLeft, LayoutRight and LayoutStride inputs and outputs give identical results;
//  (d) empty reduced ranges give the documented values of reductions.hpp (and NaN is never
//      selected);
//  (e) a large k whose per-thread buffers go to scratch level 1;
//  (f) tile_j values that do not divide the reduced extent.
#include "genred/genred_test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using tessera::Dims;
using tessera::In;
using tessera::Out;
using tessera::Scheme;
using tessera::Summation;
using tessera_test::MixedFormula;

template <class Space>
class GenredSchemes : public ::testing::Test {};
TYPED_TEST_SUITE(GenredSchemes, tessera_test::ExecutionSpaces);

/// F = x0 y0.
struct Product {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<1>;
  using j_dims                 = Dims<1>;
  static constexpr int out_dim = 1;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, 1> x, In<T, 1> y, Out<T, 1> out) const {
    out[0] = x[0] * y[0];
  }
};

/// F = [|x - y|^2, |x - y|_1, x . y]: integer-valued (hence exact) on integer coordinates.
struct IntegerTriple {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<3>;
  using j_dims                 = Dims<3>;
  static constexpr int out_dim = 3;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, 3> x, In<T, 3> y, Out<T, 3> out) const {
    T l1 = 0;
    for (int k = 0; k < 3; ++k)
      l1 += x[k] > y[k] ? x[k] - y[k] : y[k] - x[k];
    out[0] = tessera::squared_distance(x, y);
    out[1] = l1;
    out[2] = tessera::dot(x, y);
  }
};

void integer_triple_reference(const double* x, const double* y, double* out) {
  out[0] = out[1] = out[2] = 0;
  for (int k = 0; k < 3; ++k) {
    out[0] += (x[k] - y[k]) * (x[k] - y[k]);
    out[1] += std::fabs(x[k] - y[k]);
    out[2] += x[k] * y[k];
  }
}

/// count integers uniform in [0, hi], as doubles.
std::vector<double> random_integers(std::size_t count, int hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(0, hi);
  std::vector<double> v(count);
  for (auto& e : v)
    e = dist(gen);
  return v;
}

/// The output argument of a reduction from a values and an indices View.
template <class Reduction, class Values, class Indices>
auto output_of(const Values& values, const Indices& indices) {
  using Facts = tessera::Impl::ReductionFacts<Reduction>;
  if constexpr (Facts::writes_values && Facts::writes_indices) {
    return tessera::outputs(values, indices);
  } else if constexpr (Facts::writes_values) {
    return values;
  } else {
    return indices;
  }
}

/// Counts entries that differ (exactly) and reports the first.
template <class A, class B>
void expect_identical(const std::vector<A>& got, const std::vector<B>& want,
                      const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  std::size_t wrong = 0;
  for (std::size_t e = 0; e < got.size(); ++e) {
    if (!(static_cast<double>(got[e]) == static_cast<double>(want[e]))) {
      if (wrong++ == 0) {
        ADD_FAILURE() << where << ": entry " << e << " is " << got[e] << ", expected " << want[e];
      }
    }
  }
  EXPECT_EQ(wrong, 0u) << where << ": entries that differ";
}

// ---------------------------------------------------------------- (a) summation modes

/// a_i = sum_j x_i y_j for x = (1, 2) and the given y, with one summation mode and scheme
/// (through the portable kernel if `portable`, else the kernel under test).
template <class Space>
std::vector<double> sum_of_products(
    const Kokkos::View<float**, Kokkos::LayoutRight, typename Space::memory_space>& y,
    Summation summation, Scheme scheme, bool portable = false) {
  auto x = tessera_test::to_view2<float, Space>("x", {1.0, 2.0}, 2, 1);
  Kokkos::View<float**, typename Space::memory_space> out("out", 2, 1);
  tessera::GenredOptions opt = tessera_test::test_options();
  if (portable) opt.implementation = tessera::Implementation::portable;
  opt.summation = summation;
  opt.scheme    = scheme;
  opt.tile_j    = 256;  // the block size of block_sum, fixed so that the bounds below hold
  opt.chunks_2d = 4;
  tessera::genred(Space(), tessera::Sum{}, Product{}, tessera::i_vars(x), tessera::j_vars(y), out,
                  opt);
  return tessera_test::host_rows(out);
}

TYPED_TEST(GenredSchemes, SummationModesOnAdversarialData) {
  using Space = TypeParam;
  const int n = 1 << 20;
  struct Case {
    const char* name;
    std::vector<double> y;
  };
  std::vector<Case> cases(2);
  // 2^20 copies of 0.1f: a single float running sum loses up to half an ulp of a large total at
  // every step, always in the same direction (measured on the host: 1.0e-2 relative).
  cases[0].name = "constant 0.1f";
  cases[0].y.assign(n, static_cast<double>(0.1f));
  // 1 followed by 2^20 - 1 terms of 1e-8, each below half an ulp of 1: a direct float sum drops
  // them all (1.0e-2 relative), a block sum keeps them per 256-row tile (2.3e-4).
  cases[1].name = "1 then 1e-8";
  cases[1].y.assign(n, static_cast<double>(1e-8f));
  cases[1].y[0] = 1.0;
  for (const Case& c : cases) {
    auto y       = tessera_test::to_view2<float, Space>("y", c.y, n, 1);
    double exact = 0;  // exact in double: the partial sums need at most 51 significant bits
    for (double v : c.y)
      exact += v;
    auto rel_error = [&](const std::vector<double>& a, int i) {
      const double want = (i + 1) * exact;
      return std::fabs(a[i] - want) / want;
    };
    // The portable kernel's direct mode is one running sum per row: the drift the other modes
    // are measured against. (The host kernel sums each tile in 16 lanes before adding it, so
    // its direct mode does not drift as much; it is held to the block sums' bound.)
    const auto direct = sum_of_products<Space>(y, Summation::direct, Scheme::tiled_1d, true);
    const auto lanes  = sum_of_products<Space>(y, Summation::direct, Scheme::tiled_1d);
    const auto block  = sum_of_products<Space>(y, Summation::block_sum, Scheme::tiled_1d);
    const auto kahan  = sum_of_products<Space>(y, Summation::kahan, Scheme::tiled_1d);
    const auto block2 = sum_of_products<Space>(y, Summation::block_sum, Scheme::tiled_2d);
    const auto kahan2 = sum_of_products<Space>(y, Summation::kahan, Scheme::tiled_2d);
    for (int i = 0; i < 2; ++i) {
      const std::string at = std::string(c.name) + " row " + std::to_string(i);
      // Direct drifts measurably (1e-2 measured; 1e-3 leaves a 10x margin).
      EXPECT_GT(rel_error(direct, i), 1e-3) << at;
      // Block sums cut the drift by more than 10x (measured 250x and 45x).
      EXPECT_LT(rel_error(block, i), rel_error(direct, i) / 10) << at;
      EXPECT_LE(rel_error(lanes, i), rel_error(direct, i)) << at << " direct, kernel under test";
      // Kahan: error independent of N, a few float ulps at most (measured <= 2e-8).
      EXPECT_LT(rel_error(kahan, i), 1e-6) << at;
      EXPECT_LT(rel_error(kahan, i), rel_error(block, i)) << at;
      // The 2D scheme merges per-chunk partial sums without losing the mode's accuracy.
      EXPECT_LT(rel_error(kahan2, i), 1e-6) << at << " tiled_2d";
      EXPECT_LT(rel_error(block2, i), rel_error(direct, i) / 10) << at << " tiled_2d";
    }
  }
}

// ---------------------------------------------------------------- (b) exact ties

struct TieConfig {
  Scheme scheme;
  int chunks_2d, tile_j, team_size;
};

std::vector<TieConfig> tie_configs() {
  return {{Scheme::tiled_1d, 0, 0, 0},    {Scheme::tiled_1d, 0, 7, 0},
          {Scheme::tiled_1d, 0, 1, 2},    {Scheme::tiled_1d, 0, 64, 32},
          {Scheme::tiled_2d, 2, 0, 0},    {Scheme::tiled_2d, 3, 17, 0},
          {Scheme::tiled_2d, 7, 64, 4},   {Scheme::tiled_2d, 1000, 5, 0},
          {Scheme::automatic, 0, 32, 16}, {Scheme::tiled_2d, 0, 0, 0}};
}

/// SquaredDistance on integer points of {0..3}^3 (1000 j-points: about 16 copies of each),
/// so that F has many exact ties; every configuration must return exactly the reference, which
/// takes the smallest index among ties (strict < scan, stable sort).
template <class Space, class T, class Index, class Reduction>
void check_ties(const Reduction& reduction) {
  using Mem   = typename Space::memory_space;
  using Facts = tessera::Impl::ReductionFacts<Reduction>;
  const int m = 37, n = 1000;
  const auto xh = random_integers(static_cast<std::size_t>(m) * 3, 3, 5);
  const auto yh = random_integers(static_cast<std::size_t>(n) * 3, 3, 6);
  auto x        = tessera_test::to_view2<T, Space>("x", xh, m, 3);
  auto y        = tessera_test::to_view2<T, Space>("y", yh, n, 3);
  for (tessera::Axis axis : {tessera::Axis::j, tessera::Axis::i}) {
    const int n_outer = axis == tessera::Axis::j ? m : n;
    const int n_inner = axis == tessera::Axis::j ? n : m;
    const auto ref    = tessera_ref::reduce(
           reduction, 1, n_outer, n_inner, 1, [&](int, int outer, int inner, double* out) {
          const int i = axis == tessera::Axis::j ? outer : inner;
          const int j = axis == tessera::Axis::j ? inner : outer;
          out[0]      = 0;
          for (int k = 0; k < 3; ++k) {
            out[0] += (xh[i * 3 + k] - yh[j * 3 + k]) * (xh[i * 3 + k] - yh[j * 3 + k]);
          }
        });
    for (const TieConfig& c : tie_configs()) {
      tessera::GenredOptions opt = tessera_test::test_options();
      opt.axis                   = axis;
      opt.scheme                 = c.scheme;
      opt.chunks_2d              = c.chunks_2d;
      opt.tile_j                 = c.tile_j;
      opt.team_size              = std::min(c.team_size, tessera_test::largest_team<Space>());
      Kokkos::View<T**, Mem> values("values", n_outer, ref.cols);
      Kokkos::View<Index**, Mem> indices("indices", n_outer, ref.cols);
      Kokkos::deep_copy(values, std::numeric_limits<T>::quiet_NaN());
      Kokkos::deep_copy(indices, -7);
      tessera::genred(Space(), reduction, tessera::SquaredDistance<3>{}, tessera::i_vars(x),
                      tessera::j_vars(y), output_of<Reduction>(values, indices), opt);
      const std::string where =
          std::string(axis == tessera::Axis::j ? "axis j" : "axis i") + " scheme " +
          std::to_string(static_cast<int>(c.scheme)) + " chunks_2d " + std::to_string(c.chunks_2d) +
          " tile_j " + std::to_string(c.tile_j) + " team_size " + std::to_string(c.team_size);
      if constexpr (Facts::writes_indices) {
        expect_identical(tessera_test::host_rows(indices), ref.indices, where + " indices");
      }
      if constexpr (Facts::writes_values) {
        expect_identical(tessera_test::host_rows(values), ref.values, where + " values");
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TYPED_TEST(GenredSchemes, TiesPickSmallestIndexInEveryScheme) {
  using Space = TypeParam;
  check_ties<Space, float, int>(tessera::ArgMin{});
  check_ties<Space, float, int>(tessera::ArgMax{});
  check_ties<Space, float, std::int64_t>(tessera::MinArgMin{});
  check_ties<Space, float, std::int64_t>(tessera::MaxArgMax{});
  check_ties<Space, float, int>(tessera::ArgKMin{5});
  check_ties<Space, double, std::int64_t>(tessera::KMinArgKMin{20});
}

// ---------------------------------------------------------------- (c) layouts

struct Right {};
struct Left {};
struct Strided {};  // columns 2 apart: a subview of a (rows, cols, 2) View

/// A rank-2 device View of the given layout holding row-major host data; fill is written to
/// the elements a strided View skips.
template <class Kind, class T, class Space>
auto layout_view(const std::string& label, const std::vector<double>& data, int rows, int cols,
                 T fill) {
  using Mem = typename Space::memory_space;
  auto src  = tessera_test::to_view2<T, Space>(label, data, rows, cols);
  if constexpr (std::is_same_v<Kind, Strided>) {
    Kokkos::View<T***, Kokkos::LayoutRight, Mem> backing(label + " backing", rows, cols, 2);
    Kokkos::deep_copy(backing, fill);
    Kokkos::View<T**, Kokkos::LayoutStride, Mem> v =
        Kokkos::subview(backing, Kokkos::ALL, Kokkos::ALL, 1);
    Kokkos::deep_copy(v, src);
    return v;
  } else {
    using Layout =
        std::conditional_t<std::is_same_v<Kind, Left>, Kokkos::LayoutLeft, Kokkos::LayoutRight>;
    Kokkos::View<T**, Layout, Mem> v(label, rows, cols);
    Kokkos::deep_copy(v, src);
    return v;
  }
}

template <class Space, class T, class Reduction, class KP, class KX, class KY, class KB, class KV,
          class KI>
std::pair<std::vector<double>, std::vector<double>> run_layouts(const Reduction& reduction,
                                                                const tessera_test::ProblemData& d,
                                                                int cols) {
  auto p  = layout_view<KP, T, Space>("p", d.p, 1, 1, T(-1));
  auto x  = layout_view<KX, T, Space>("x", d.x, d.m, 3, T(-1));
  auto y  = layout_view<KY, T, Space>("y", d.y, d.n, 3, T(-1));
  auto b  = layout_view<KB, T, Space>("b", d.b, d.n, 2, T(-1));
  auto vv = layout_view<KV, T, Space>(
      "values", std::vector<double>(static_cast<std::size_t>(d.m) * cols, std::nan("")), d.m, cols,
      std::numeric_limits<T>::quiet_NaN());
  auto iv = layout_view<KI, int, Space>(
      "indices", std::vector<double>(static_cast<std::size_t>(d.m) * cols, -7.0), d.m, cols, -7);
  tessera::GenredOptions opt = tessera_test::test_options();
  opt.tile_j                 = 64;  // several tiles over N = 300
  tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                  tessera::j_vars(y, b), output_of<Reduction>(vv, iv), opt);
  return {tessera_test::host_rows(vv), tessera_test::host_rows(iv)};
}

template <class Space, class T, class Reduction>
void check_layouts(const Reduction& reduction) {
  const tessera_test::ProblemData d = tessera_test::make_problem<T>(0, 37, 300, 17);
  const auto ref   = tessera_ref::reduce(reduction, 1, d.m, d.n, MixedFormula::out_dim,
                                         tessera_test::reference_formula(d, tessera::Axis::j));
  const int k      = tessera::Impl::reduction_k(reduction);
  const auto right = run_layouts<Space, T, Reduction, Right, Right, Right, Right, Right, Right>(
      reduction, d, ref.cols);
  tessera_test::expect_matches(reduction, ref, right.first, right.second, MixedFormula::out_dim, k,
                               tessera_test::tolerance<T>(), "LayoutRight");
  const auto left =
      run_layouts<Space, T, Reduction, Left, Left, Left, Left, Left, Left>(reduction, d, ref.cols);
  const auto strided =
      run_layouts<Space, T, Reduction, Strided, Strided, Strided, Strided, Strided, Strided>(
          reduction, d, ref.cols);
  const auto mixed = run_layouts<Space, T, Reduction, Right, Left, Strided, Left, Strided, Left>(
      reduction, d, ref.cols);
  // The arithmetic does not depend on the layout: results are bitwise identical (NaN == NaN
  // for the output a reduction does not write is checked as "still poisoned").
  auto same = [](const std::vector<double>& a, const std::vector<double>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t e = 0; e < a.size(); ++e) {
      if (std::isnan(b[e])) {
        ASSERT_TRUE(std::isnan(a[e])) << what << " entry " << e;
      } else {
        ASSERT_EQ(a[e], b[e]) << what << " entry " << e;
      }
    }
  };
  same(left.first, right.first, "LayoutLeft values");
  same(left.second, right.second, "LayoutLeft indices");
  same(strided.first, right.first, "LayoutStride values");
  same(strided.second, right.second, "LayoutStride indices");
  same(mixed.first, right.first, "mixed layouts values");
  same(mixed.second, right.second, "mixed layouts indices");
}

/// Batched (rank-3) LayoutLeft Views against the LayoutRight ones of tessera_test::to_view.
template <class Space, class T, class Reduction>
void check_batched_layout_left(const Reduction& reduction) {
  using Mem                         = typename Space::memory_space;
  const tessera_test::ProblemData d = tessera_test::make_problem<T>(2, 23, 100, 19);
  const auto ref = tessera_ref::reduce(reduction, 2, d.m, d.n, MixedFormula::out_dim,
                                       tessera_test::reference_formula(d, tessera::Axis::j));
  auto p         = tessera_test::to_view<T, Space>("p", d.p, 2, 1, 1);
  auto x         = tessera_test::to_view<T, Space>("x", d.x, 2, d.m, 3);
  auto y         = tessera_test::to_view<T, Space>("y", d.y, 2, d.n, 3);
  auto b         = tessera_test::to_view<T, Space>("b", d.b, 2, d.n, 2);
  auto left      = [](const auto& v) {
    Kokkos::View<T***, Kokkos::LayoutLeft, Mem> l("left", v.extent(0), v.extent(1), v.extent(2));
    Kokkos::deep_copy(l, v);
    return l;
  };
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> out_r("out", 2, d.m, ref.cols);
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> out_l("out", 2, d.m, ref.cols);
  tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                  tessera::j_vars(y, b), out_r, tessera_test::test_options());
  tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(left(p)),
                  tessera::i_vars(left(x)), tessera::j_vars(left(y), left(b)), out_l,
                  tessera_test::test_options());
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> out_l_as_r("out", 2, d.m, ref.cols);
  Kokkos::deep_copy(out_l_as_r, out_l);
  const auto hr = tessera_test::host_values(out_r), hl = tessera_test::host_values(out_l_as_r);
  tessera_test::expect_matches(reduction, ref, hr, std::vector<double>(hr.size(), 0.0),
                               MixedFormula::out_dim, 1, tessera_test::tolerance<T>(),
                               "batched LayoutRight");
  expect_identical(hl, hr, "batched LayoutLeft vs LayoutRight");
}

TYPED_TEST(GenredSchemes, LayoutsGiveIdenticalResults) {
  using Space = TypeParam;
  check_layouts<Space, float>(tessera::Sum{});
  check_layouts<Space, float>(tessera::KMinArgKMin{3});
  check_layouts<Space, double>(tessera::SumSoftMaxWeight{});
  check_batched_layout_left<Space, float>(tessera::LogSumExp{});
}

// ---------------------------------------------------------------- (d) empty ranges, NaN

/// N = 0 (Axis::j) and M = 0 (Axis::i) with 3 output rows: every entry is `value` / `index`.
template <class Space, class T, class Reduction>
void check_empty(const Reduction& reduction, double value, long index) {
  using Mem          = typename Space::memory_space;
  using Facts        = tessera::Impl::ReductionFacts<Reduction>;
  constexpr int cols = tessera::Impl::is_weighted_reduction<Reduction> ? 2 : 3;
  for (tessera::Axis axis : {tessera::Axis::j, tessera::Axis::i}) {
    const bool axis_j = axis == tessera::Axis::j;
    const tessera_test::ProblemData d =
        tessera_test::make_problem<T>(0, axis_j ? 3 : 0, axis_j ? 0 : 3, 23);
    auto p = tessera_test::to_view2<T, Space>("p", d.p, 1, 1);
    auto x = tessera_test::to_view2<T, Space>("x", d.x, d.m, 3);
    auto y = tessera_test::to_view2<T, Space>("y", d.y, d.n, 3);
    auto b = tessera_test::to_view2<T, Space>("b", d.b, d.n, 2);
    for (Scheme scheme : {Scheme::tiled_1d, Scheme::tiled_2d, Scheme::automatic}) {
      tessera::GenredOptions opt = tessera_test::test_options();
      opt.axis                   = axis;
      opt.scheme                 = scheme;
      opt.chunks_2d              = 4;
      Kokkos::View<T**, Mem> values("values", 3, cols);
      Kokkos::View<int**, Mem> indices("indices", 3, cols);
      Kokkos::deep_copy(values, std::numeric_limits<T>::quiet_NaN());
      Kokkos::deep_copy(indices, -7);
      const std::string where = std::string(axis_j ? "N = 0" : "M = 0, axis i") + " scheme " +
                                std::to_string(static_cast<int>(scheme));
      try {
        tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                        tessera::j_vars(y, b), output_of<Reduction>(values, indices), opt);
      } catch (const std::exception& e) {
        ADD_FAILURE() << where << ": genred threw \"" << e.what()
                      << "\" where reductions.hpp documents an empty-range value";
        break;  // the same rejection would repeat for every scheme
      }
      if constexpr (Facts::writes_values) {
        for (double v : tessera_test::host_rows(values))
          EXPECT_EQ(v, value) << where;
      }
      if constexpr (Facts::writes_indices) {
        for (double i : tessera_test::host_rows(indices))
          EXPECT_EQ(i, index) << where;
      }
    }
  }
}

TYPED_TEST(GenredSchemes, EmptyRangesGiveDocumentedValues) {
  using Space      = TypeParam;
  const double inf = std::numeric_limits<double>::infinity();
  check_empty<Space, float>(tessera::Sum{}, 0.0, 0);
  check_empty<Space, double>(tessera::Sum{}, 0.0, 0);
  check_empty<Space, float>(tessera::Min{}, inf, 0);
  check_empty<Space, float>(tessera::Max{}, -inf, 0);
  check_empty<Space, float>(tessera::ArgMin{}, 0, -1);
  check_empty<Space, float>(tessera::ArgMax{}, 0, -1);
  check_empty<Space, float>(tessera::MinArgMin{}, inf, -1);
  check_empty<Space, double>(tessera::MaxArgMax{}, -inf, -1);
  check_empty<Space, float>(tessera::LogSumExp{}, -inf, 0);
  check_empty<Space, double>(tessera::LogSumExp{}, -inf, 0);
  check_empty<Space, float>(tessera::SumSoftMaxWeight{}, 0.0, 0);
  check_empty<Space, float>(tessera::LogSumExpWeighted{}, -inf, 0);
}

/// F = x0 y0 over y = (NaN, 3, NaN, 1, NaN) and over all-NaN y, x = 1: NaN is never selected,
/// and list slots no value fills keep the empty-range values.
template <class Space, class Reduction>
void check_nan(const Reduction& reduction, const std::vector<double>& y_values,
               const std::vector<double>& want_values, const std::vector<long>& want_indices) {
  using Mem      = typename Space::memory_space;
  const int n    = static_cast<int>(y_values.size());
  const int cols = static_cast<int>(want_values.size());
  auto x         = tessera_test::to_view2<float, Space>("x", {1.0}, 1, 1);
  auto y         = tessera_test::to_view2<float, Space>("y", y_values, n, 1);
  for (Scheme scheme : {Scheme::tiled_1d, Scheme::tiled_2d}) {
    tessera::GenredOptions opt = tessera_test::test_options();
    opt.scheme                 = scheme;
    opt.tile_j                 = 2;  // tiles and chunks boundaries between the NaNs
    opt.chunks_2d              = 3;
    Kokkos::View<float**, Mem> values("values", 1, cols);
    Kokkos::View<int**, Mem> indices("indices", 1, cols);
    tessera::genred(Space(), reduction, Product{}, tessera::i_vars(x), tessera::j_vars(y),
                    tessera::outputs(values, indices), opt);
    const std::string where = "scheme " + std::to_string(static_cast<int>(scheme));
    expect_identical(tessera_test::host_rows(values), want_values, where + " values");
    expect_identical(tessera_test::host_rows(indices), want_indices, where + " indices");
  }
}

TYPED_TEST(GenredSchemes, NaNIsNeverSelected) {
  using Space      = TypeParam;
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const std::vector<double> some = {nan, 3, nan, 1, nan}, all = {nan, nan, nan, nan, nan};
  check_nan<Space>(tessera::MinArgMin{}, some, {1}, {3});
  check_nan<Space>(tessera::MaxArgMax{}, some, {3}, {1});
  check_nan<Space>(tessera::KMinArgKMin{3}, some, {1, 3, inf}, {3, 1, -1});
  check_nan<Space>(tessera::MinArgMin{}, all, {inf}, {-1});
  check_nan<Space>(tessera::MaxArgMax{}, all, {-inf}, {-1});
  check_nan<Space>(tessera::KMinArgKMin{2}, all, {inf, inf}, {-1, -1});
}

/// F = [x0 y0, y1]: with x = 1 the first component is y0 itself, the second a weight.
struct ProductAndWeight {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<1>;
  using j_dims                 = Dims<2>;
  static constexpr int out_dim = 2;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, 1> x, In<T, 2> y, Out<T, 2> out) const {
    out[0] = x[0] * y[0];
    out[1] = y[1];
  }
};

/// The log-sum-exp reductions over terms some or all of which are +inf: LogSumExp and
/// LogSumExpWeighted give +inf, SumSoftMaxWeight the mean weight of the +inf terms (the softmax
/// of equal infinite terms); never NaN. Both schemes, with tile and chunk boundaries among the
/// infinite terms, so that the combining of partial sums is exercised too.
template <class Space, class T>
void check_infinite_terms(const std::vector<double>& f, const std::vector<double>& g,
                          double softmax_mean, const std::string& what) {
  using Mem        = typename Space::memory_space;
  const int n      = static_cast<int>(f.size());
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> yg;
  for (int j = 0; j < n; ++j) {
    yg.push_back(f[j]);
    yg.push_back(g[j]);
  }
  auto x = tessera_test::to_view2<T, Space>("x", {1.0}, 1, 1);
  auto y = tessera_test::to_view2<T, Space>("y", yg, n, 2);
  for (Scheme scheme : {Scheme::tiled_1d, Scheme::tiled_2d}) {
    for (tessera::Summation summation :
         {tessera::Summation::direct, tessera::Summation::block_sum, tessera::Summation::kahan}) {
      tessera::GenredOptions opt = tessera_test::test_options();
      opt.scheme                 = scheme;
      opt.summation              = summation;
      opt.tile_j                 = 2;
      opt.chunks_2d              = 3;
      const std::string where    = what + " scheme " + std::to_string(static_cast<int>(scheme)) +
                                " summation " + std::to_string(static_cast<int>(summation));
      Kokkos::View<T**, Mem> lse("lse", 1, 2), weighted("weighted", 1, 1), soft("soft", 1, 1);
      tessera::genred(Space(), tessera::LogSumExp{}, ProductAndWeight{}, tessera::i_vars(x),
                      tessera::j_vars(y), lse, opt);
      tessera::genred(Space(), tessera::LogSumExpWeighted{}, ProductAndWeight{}, tessera::i_vars(x),
                      tessera::j_vars(y), weighted, opt);
      tessera::genred(Space(), tessera::SumSoftMaxWeight{}, ProductAndWeight{}, tessera::i_vars(x),
                      tessera::j_vars(y), soft, opt);
      EXPECT_EQ(tessera_test::host_rows(lse)[0], inf) << where << " LogSumExp";
      EXPECT_EQ(tessera_test::host_rows(weighted)[0], inf) << where << " LogSumExpWeighted";
      EXPECT_NEAR(tessera_test::host_rows(soft)[0], softmax_mean, 1e-6)
          << where << " SumSoftMaxWeight";
    }
  }
}

TYPED_TEST(GenredSchemes, InfiniteTermsGiveInfinityNotNaN) {
  using Space      = TypeParam;
  const double inf = std::numeric_limits<double>::infinity();
  // every term +inf: the weights' mean is the softmax-weighted sum
  check_infinite_terms<Space, float>({inf, inf, inf, inf, inf}, {1, 2, 3, 4, 5}, 3.0, "all +inf");
  check_infinite_terms<Space, double>({inf, inf, inf, inf, inf}, {1, 2, 3, 4, 5}, 3.0, "all +inf");
  // +inf among finite terms (and -inf, which adds nothing): only the +inf terms carry weight
  check_infinite_terms<Space, float>({0.5, inf, -inf, 2.0, inf, 1.0, inf}, {9, 1, 9, 9, 2, 9, 6},
                                     3.0, "some +inf");
}

// ---------------------------------------------------------------- (e) large k

TYPED_TEST(GenredSchemes, LargeKUsesLevelOneScratch) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  const int m = 5, n = 2100, k = 2000, dim = IntegerTriple::out_dim;
  // The per-thread lists (k * D values and indices) exceed the level-0 budget even for a
  // one-thread team, so genred must place them in scratch level 1.
  const std::size_t per_thread = 2 * (static_cast<std::size_t>(k) * dim * 4 + 16);
  ASSERT_GT(per_thread, tessera::Impl::Tuning<Space>::genred_thread_scratch0_budget);

  const auto xh  = random_integers(static_cast<std::size_t>(m) * 3, 7, 29);
  const auto yh  = random_integers(static_cast<std::size_t>(n) * 3, 7, 31);
  auto x         = tessera_test::to_view2<float, Space>("x", xh, m, 3);
  auto y         = tessera_test::to_view2<float, Space>("y", yh, n, 3);
  const auto ref = tessera_ref::reduce(tessera::KMinArgKMin{k}, 1, m, n, dim,
                                       [&](int, int i, int j, double* out) {
                                         integer_triple_reference(&xh[i * 3], &yh[j * 3], out);
                                       });
  for (Scheme scheme : {Scheme::tiled_1d, Scheme::tiled_2d}) {
    tessera::GenredOptions opt = tessera_test::test_options();
    opt.scheme                 = scheme;
    opt.chunks_2d              = 3;
    Kokkos::View<float**, Mem> values("values", m, k * dim);
    Kokkos::View<int**, Mem> indices("indices", m, k * dim);
    Kokkos::deep_copy(values, std::numeric_limits<float>::quiet_NaN());
    Kokkos::deep_copy(indices, -7);
    tessera::genred(Space(), tessera::KMinArgKMin{k}, IntegerTriple{}, tessera::i_vars(x),
                    tessera::j_vars(y), tessera::outputs(values, indices), opt);
    // Integer values are exact in float, and ties go to the smaller index: exact comparison.
    const std::string where = scheme == Scheme::tiled_1d ? "tiled_1d" : "tiled_2d";
    expect_identical(tessera_test::host_rows(values), ref.values, where + " values");
    expect_identical(tessera_test::host_rows(indices), ref.indices, where + " indices");
  }
}

// ---------------------------------------------------------------- (f) tile_j not dividing N

template <class Space, class T, class Reduction>
void check_tile(const Reduction& reduction, int tile_j) {
  const int m = 29, n = 1001;  // 1001 = 7 * 11 * 13: no tile below divides it, nor 29
  const tessera_test::ProblemData d = tessera_test::make_problem<T>(0, m, n, 37);
  auto p                            = tessera_test::to_view2<T, Space>("p", d.p, 1, 1);
  auto x                            = tessera_test::to_view2<T, Space>("x", d.x, m, 3);
  auto y                            = tessera_test::to_view2<T, Space>("y", d.y, n, 3);
  auto b                            = tessera_test::to_view2<T, Space>("b", d.b, n, 2);
  const auto ref_f                  = tessera_test::reference_formula(d, tessera::Axis::j);
  tessera::GenredOptions base       = tessera_test::test_options();
  base.tile_j                       = tile_j;
  // Block sums of `tile_j` rows: error <= (N / tile_j + tile_j) eps per unit of sum |F| (the
  // default tolerance assumes tile_j = 256), plus a few eps for F itself.
  const double eps = std::numeric_limits<T>::epsilon();
  const double tol = eps * (4.0 + static_cast<double>(n) / tile_j + tile_j);
  tessera_test::check_formula<Space, T>(
      reduction, MixedFormula{}, tessera::params(p), tessera::i_vars(x), tessera::j_vars(y, b), m,
      n, MixedFormula::out_dim, [&](int i, int j, double* out) { ref_f(0, i, j, out); },
      std::string("MixedFormula ") + (std::is_same_v<T, float> ? "float" : "double"), base, tol);
}

TYPED_TEST(GenredSchemes, TileSizesThatDoNotDivideN) {
  using Space = TypeParam;
  for (int tile_j : {1, 3, 17, 1000}) {
    check_tile<Space, float>(tessera::Sum{}, tile_j);
    check_tile<Space, double>(tessera::Sum{}, tile_j);
    check_tile<Space, float>(tessera::MinArgMin{}, tile_j);
    check_tile<Space, float>(tessera::KMinArgKMin{3}, tile_j);
    check_tile<Space, float>(tessera::LogSumExp{}, tile_j);
    check_tile<Space, float>(tessera::SumSoftMaxWeight{}, tile_j);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
