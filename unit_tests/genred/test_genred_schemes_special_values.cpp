// Special values through every scheme (schemes_test_support.hpp's (d)): empty reduced ranges
// give the documented values of reductions.hpp, NaN is never selected, and infinite terms give
// infinity, not NaN, in the log-sum-exp reductions.
#include "genred/schemes_test_support.hpp"

#include <exception>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace tessera_test::schemes;

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

}  // namespace
