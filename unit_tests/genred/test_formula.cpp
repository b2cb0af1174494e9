// Formulas written by users (genred/formula.hpp): make_formula with device lambdas, with and
// without parameter variables, with a compile-time or a run-time output dimension, and a
// user functor with several i- and j-variables of run-time dimensions, against host
// references in double.
//
// The lambdas are KOKKOS_LAMBDA with explicit parameter types (nvcc's extended lambdas may not
// be generic) and live in free function templates of a named namespace: nvcc rejects extended
// lambdas inside GoogleTest's private TestBody() and in functions with deduced return types.
#include "genred/genred_test_support.hpp"

#include <string>
#include <vector>

namespace tessera_formula_test {

using tessera::dynamic_extent;
using tessera::In;
using tessera::Out;

/// (x.y + c)^2 b: a polynomial kernel times a weight, with c captured by the lambda; no
/// parameter variables.
template <class Space, class T>
void lambda_without_params(int m, int n, unsigned seed) {
  const auto xh = tessera_test::random_values<T>(static_cast<std::size_t>(m) * 3, -1, 1, seed);
  const auto yh = tessera_test::random_values<T>(static_cast<std::size_t>(n) * 3, -1, 1, seed + 1);
  const auto bh = tessera_test::random_values<T>(n, 0.5, 1.5, seed + 2);
  auto x        = tessera_test::to_view2<T, Space>("x", xh, m, 3);
  auto y        = tessera_test::to_view2<T, Space>("y", yh, n, 3);
  auto b        = tessera_test::to_view2<T, Space>("b", bh, n, 1);
  const T c     = T(0.25);

  auto formula = tessera::make_formula<1>(
      tessera::Dims<3>{}, tessera::Dims<3, 1>{},
      KOKKOS_LAMBDA(In<T, 3> xi, In<T, 3> yj, In<T, 1> bj, Out<T, 1> out) {
        const T s = xi[0] * yj[0] + xi[1] * yj[1] + xi[2] * yj[2] + c;
        out[0]    = s * s * bj[0];
      });
  static_assert(decltype(formula)::out_dim == 1, "make_formula<1> has output dimension 1");

  const tessera_test::PairFormula f = [&](int i, int j, double* out) {
    double s = 0.25;
    for (int k = 0; k < 3; ++k)
      s += xh[i * 3 + k] * yh[j * 3 + k];
    out[0] = s * s * bh[j];
  };
  const std::string where =
      std::string("no params ") + (std::is_same_v<T, float> ? "float" : "double");
  tessera_test::check_formula<Space, T>(tessera::Sum{}, formula, tessera::Params<>{},
                                        tessera::i_vars(x), tessera::j_vars(y, b), m, n, 1, f,
                                        where + " Sum");
  tessera_test::check_formula<Space, T>(tessera::ArgKMin{3}, formula, tessera::Params<>{},
                                        tessera::i_vars(x), tessera::j_vars(y, b), m, n, 1, f,
                                        where + " ArgKMin");
}

/// F = [p0 |x - y|^2, p1 + x0 y2]: two parameter variables (a scale and a shift), one i- and
/// one j-variable.
template <class Space, class T>
void lambda_with_params(int m, int n, unsigned seed) {
  const auto xh = tessera_test::random_values<T>(static_cast<std::size_t>(m) * 3, 0, 1, seed);
  const auto yh = tessera_test::random_values<T>(static_cast<std::size_t>(n) * 3, 0, 1, seed + 1);
  const std::vector<double> scale_h = {-3.0}, shift_h = {0.5, 2.0};
  auto scale = tessera_test::to_view2<T, Space>("scale", scale_h, 1, 1);
  auto shift = tessera_test::to_view2<T, Space>("shift", shift_h, 1, 2);
  auto x     = tessera_test::to_view2<T, Space>("x", xh, m, 3);
  auto y     = tessera_test::to_view2<T, Space>("y", yh, n, 3);

  auto formula = tessera::make_formula<2>(
      tessera::Dims<1, 2>{}, tessera::Dims<3>{}, tessera::Dims<3>{},
      KOKKOS_LAMBDA(In<T, 1> s, In<T, 2> t, In<T, 3> xi, In<T, 3> yj, Out<T, 2> out) {
        out[0] = s[0] * tessera::squared_distance(xi, yj);
        out[1] = t[0] * t[1] + xi[0] * yj[2];
      });

  const tessera_test::PairFormula f = [&](int i, int j, double* out) {
    double r2 = 0;
    for (int k = 0; k < 3; ++k)
      r2 += (xh[i * 3 + k] - yh[j * 3 + k]) * (xh[i * 3 + k] - yh[j * 3 + k]);
    out[0] = scale_h[0] * r2;
    out[1] = shift_h[0] * shift_h[1] + xh[i * 3] * yh[j * 3 + 2];
  };
  const std::string where =
      std::string("params ") + (std::is_same_v<T, float> ? "float" : "double");
  const auto p = tessera::params(scale, shift);
  tessera_test::check_formula<Space, T>(tessera::Sum{}, formula, p, tessera::i_vars(x),
                                        tessera::j_vars(y), m, n, 2, f, where + " Sum");
  tessera_test::check_formula<Space, T>(tessera::MaxArgMax{}, formula, p, tessera::i_vars(x),
                                        tessera::j_vars(y), m, n, 2, f, where + " MaxArgMax");
  // F = [f, g] with g > 0: a softmax-weighted mean of g with scores f.
  tessera_test::check_formula<Space, T>(tessera::SumSoftMaxWeight{}, formula, p, tessera::i_vars(x),
                                        tessera::j_vars(y), m, n, 2, f,
                                        where + " SumSoftMaxWeight");
}

/// make_formula(out_dim, ...): the output dimension (here 4) is a run-time value, the point
/// dimension (here 5) too; out[c] = x[c mod D] y[(c + 1) mod D] + p0 c.
template <class Space, class T>
void lambda_runtime_output_dim(int m, int n, unsigned seed) {
  const int d = 5, out_dim = 4;
  const auto xh = tessera_test::random_values<T>(static_cast<std::size_t>(m) * d, -1, 1, seed);
  const auto yh = tessera_test::random_values<T>(static_cast<std::size_t>(n) * d, -1, 1, seed + 1);
  const std::vector<double> ph = {0.125};
  auto p                       = tessera_test::to_view2<T, Space>("p", ph, 1, 1);
  auto x                       = tessera_test::to_view2<T, Space>("x", xh, m, d);
  auto y                       = tessera_test::to_view2<T, Space>("y", yh, n, d);

  auto formula = tessera::make_formula(
      out_dim, tessera::Dims<1>{}, tessera::Dims<dynamic_extent>{}, tessera::Dims<dynamic_extent>{},
      KOKKOS_LAMBDA(In<T, 1> pp, In<T, dynamic_extent> xi, In<T, dynamic_extent> yj,
                    Out<T, dynamic_extent> out) {
        for (int c = 0; c < out.size(); ++c) {
          out[c] = xi[c % xi.size()] * yj[(c + 1) % yj.size()] + pp[0] * T(c);
        }
      });
  static_assert(decltype(formula)::out_dim == dynamic_extent,
                "make_formula(out_dim, ...) has a run-time output dimension");
  EXPECT_EQ(formula.output_dim(tessera::VariableDims{}), out_dim);

  const tessera_test::PairFormula f = [&](int i, int j, double* out) {
    for (int c = 0; c < out_dim; ++c) {
      out[c] = xh[i * d + c % d] * yh[j * d + (c + 1) % d] + ph[0] * c;
    }
  };
  const std::string where =
      std::string("run-time out_dim ") + (std::is_same_v<T, float> ? "float" : "double");
  const auto pv = tessera::params(p);
  tessera_test::check_formula<Space, T>(tessera::Sum{}, formula, pv, tessera::i_vars(x),
                                        tessera::j_vars(y), m, n, out_dim, f, where + " Sum");
  tessera_test::check_formula<Space, T>(tessera::KMinArgKMin{2}, formula, pv, tessera::i_vars(x),
                                        tessera::j_vars(y), m, n, out_dim, f,
                                        where + " KMinArgKMin");
  tessera_test::check_formula<Space, T>(tessera::LogSumExp{}, formula, pv, tessera::i_vars(x),
                                        tessera::j_vars(y), m, n, out_dim, f, where + " LogSumExp");
}

/// A user functor with one parameter, three i-variables and two j-variables, most of them of
/// run-time dimension, and a run-time output dimension W + 1 taken from the weights:
///   out[0]     = p0 (a . y) + p1 u0
///   out[1 + k] = w_k (u1 + c_{k mod C})   for k < W
struct ManyVariables {
  using param_dims             = tessera::Dims<dynamic_extent>;
  using i_dims                 = tessera::Dims<dynamic_extent, 2, dynamic_extent>;
  using j_dims                 = tessera::Dims<dynamic_extent, dynamic_extent>;
  static constexpr int out_dim = dynamic_extent;

  int output_dim(const tessera::VariableDims& dims) const { return dims.j.at(1) + 1; }

  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, dynamic_extent> p, In<T, dynamic_extent> a,
                                         In<T, 2> u, In<T, dynamic_extent> c,
                                         In<T, dynamic_extent> y, In<T, dynamic_extent> w,
                                         Out<T, dynamic_extent> out) const {
    out[0] = p[0] * tessera::dot(a, y) + p[1] * u[0];
    for (int k = 0; k < w.size(); ++k)
      out[1 + k] = w[k] * (u[1] + c[k % c.size()]);
  }
};

template <class Space, class T>
void functor_many_variables(int m, int n, unsigned seed) {
  const int P = 2, A = 4, C = 3, W = 3;  // run-time dimensions
  const auto ph = std::vector<double>{-1.5, 0.75};
  const auto ah = tessera_test::random_values<T>(static_cast<std::size_t>(m) * A, -1, 1, seed);
  const auto uh = tessera_test::random_values<T>(static_cast<std::size_t>(m) * 2, 0, 1, seed + 1);
  const auto ch = tessera_test::random_values<T>(static_cast<std::size_t>(m) * C, 0, 1, seed + 2);
  const auto yh = tessera_test::random_values<T>(static_cast<std::size_t>(n) * A, -1, 1, seed + 3);
  const auto wh =
      tessera_test::random_values<T>(static_cast<std::size_t>(n) * W, 0.5, 1.5, seed + 4);
  auto p = tessera_test::to_view2<T, Space>("p", ph, 1, P);
  auto a = tessera_test::to_view2<T, Space>("a", ah, m, A);
  auto u = tessera_test::to_view2<T, Space>("u", uh, m, 2);
  auto c = tessera_test::to_view2<T, Space>("c", ch, m, C);
  auto y = tessera_test::to_view2<T, Space>("y", yh, n, A);
  auto w = tessera_test::to_view2<T, Space>("w", wh, n, W);

  const tessera_test::PairFormula f = [&](int i, int j, double* out) {
    double ay = 0;
    for (int k = 0; k < A; ++k)
      ay += ah[i * A + k] * yh[j * A + k];
    out[0] = ph[0] * ay + ph[1] * uh[i * 2];
    for (int k = 0; k < W; ++k)
      out[1 + k] = wh[j * W + k] * (uh[i * 2 + 1] + ch[i * C + k % C]);
  };
  const std::string where =
      std::string("ManyVariables ") + (std::is_same_v<T, float> ? "float" : "double");
  const auto pv = tessera::params(p);
  const auto iv = tessera::i_vars(a, u, c);
  const auto jv = tessera::j_vars(y, w);
  tessera_test::check_formula<Space, T>(tessera::Sum{}, ManyVariables{}, pv, iv, jv, m, n, W + 1, f,
                                        where + " Sum");
  tessera_test::check_formula<Space, T>(tessera::MinArgMin{}, ManyVariables{}, pv, iv, jv, m, n,
                                        W + 1, f, where + " MinArgMin");
  tessera_test::check_formula<Space, T>(tessera::LogSumExpWeighted{}, ManyVariables{}, pv, iv, jv,
                                        m, n, W + 1, f, where + " LogSumExpWeighted");
}

}  // namespace tessera_formula_test

namespace {

namespace ft = tessera_formula_test;

template <class Space>
class GenredFormula : public ::testing::Test {};
TYPED_TEST_SUITE(GenredFormula, tessera_test::ExecutionSpaces);

// Sizes: M = 37 x N = 300 straddles a 256-row tile; 300 x 5 makes the i-axis the long one.
TYPED_TEST(GenredFormula, LambdaWithoutParams) {
  ft::lambda_without_params<TypeParam, float>(37, 300, 101);
  ft::lambda_without_params<TypeParam, double>(300, 5, 102);
}

TYPED_TEST(GenredFormula, LambdaWithParams) {
  ft::lambda_with_params<TypeParam, float>(37, 300, 201);
  ft::lambda_with_params<TypeParam, double>(300, 5, 202);
}

TYPED_TEST(GenredFormula, LambdaRuntimeOutputDim) {
  ft::lambda_runtime_output_dim<TypeParam, float>(37, 300, 301);
  ft::lambda_runtime_output_dim<TypeParam, double>(300, 5, 302);
}

TYPED_TEST(GenredFormula, FunctorManyRuntimeDimVariables) {
  ft::functor_many_variables<TypeParam, float>(37, 300, 401);
  ft::functor_many_variables<TypeParam, double>(300, 5, 402);
}

}  // namespace
