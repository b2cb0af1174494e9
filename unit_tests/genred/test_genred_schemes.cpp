// How genred cuts and accumulates the work (genred/options.hpp), schemes_test_support.hpp's (a),
// (b), (e) and (f): summation modes on adversarial data; exact ties broken by the smallest index
// whatever the scheme, chunks, tile and team; a large k whose per-thread buffers go to scratch
// level 1; tile_j values that do not divide the reduced extent.
#include "genred/schemes_test_support.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using namespace tessera_test::schemes;

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
