// What a formula is, and make_formula() for lambdas.
//
// A formula F(p, x_i, y_j) is a functor that declares the dimension of each of its variables
// and of its output, and computes one output row from one row of each variable:
//
//   struct GaussianTimesWeight {
//     using param_dims = tessera::Dims<>;      // no parameter variables
//     using i_dims     = tessera::Dims<3>;     // x_i: 3-D points
//     using j_dims     = tessera::Dims<3, 1>;  // y_j: 3-D points, b_j: scalar weights
//     static constexpr int out_dim = 1;
//     float gamma;
//     template <class T>
//     KOKKOS_FUNCTION void operator()(tessera::In<T, 3> x, tessera::In<T, 3> y,
//                                     tessera::In<T, 1> b, tessera::Out<T, 1> out) const {
//       T r2 = 0;
//       for (int k = 0; k < 3; ++k) r2 += (x[k] - y[k]) * (x[k] - y[k]);
//       out[0] = tessera::math::exp(-gamma * r2) * b[0];
//     }
//   };
//
// Arguments come in the order: parameter variables, i-variables, j-variables, output. A
// dimension may be tessera::dynamic_extent: it is then read from the View's extent at run time
// and the formula receives a Span with a run-time size() (the runtime-dimension fallback). A
// formula whose out_dim is dynamic_extent also provides
//   int output_dim(const tessera::VariableDims&) const;   // host-side
// and a formula whose run-time dimensions must agree with each other (x_i and y_j of one width,
// say) may provide
//   void check_dims(const tessera::VariableDims&) const;  // host-side, throws
// which genred calls before any kernel runs; it should throw std::invalid_argument naming the
// variables (the built-in formulas do, for x_i and y_j). Without it, run-time dimensions are only
// checked to be at least 1, and the formula must not read past the size() of its spans.
// Compile-time dimensions let loops unroll and rows stay in registers: prefer them.
//
// Staged formulas (optional). A formula whose variables all have static dimensions may also
// say how each row is prepared once before it takes part in pairs, so that work depending on
// one row only (a norm, a scale) leaves the per-pair loop. It declares
//   static constexpr int staged_i_width;   // > 0: scalars of a staged i-row
//   static constexpr int staged_j_width;   // > 0: scalars of a staged j-row
//   template <class T> KOKKOS_FUNCTION void stage_i(const T* i_row, T* staged) const;
//   template <class T> KOKKOS_FUNCTION void stage_j(const T* j_row, T* staged) const;
//   template <class T> KOKKOS_FUNCTION void eval_staged(<parameter spans>...,
//       In<T, staged_i_width> si, In<T, staged_j_width> sj, Out<T, out_dim> out) const;
// where i_row (j_row) packs one row of each i-variable (j-variable) side by side. The kernels
// then stage every row with stage_i / stage_j and evaluate pairs with eval_staged; operator()
// stays the reference the tests compare against. RadialKernel<..., Distance::expanded>
// (builtin_formulas.hpp) is one: it stages (-2 s x, s |x|^2) and (y, s |y|^2) so that a pair
// costs a dot product.
#pragma once

#include <tessera/core/span.hpp>

#include <type_traits>
#include <utility>
#include <vector>

namespace tessera {

/// Run-time dimensions of every variable of a genred call, as handed to output_dim().
struct VariableDims {
  std::vector<int> params;  ///< Dimension of each parameter variable, in argument order.
  std::vector<int> i;       ///< Dimension of each i-variable, in argument order.
  std::vector<int> j;       ///< Dimension of each j-variable, in argument order.
};

namespace Impl {

template <class DimsT, int V>
struct DimAt;
template <int First, int... Rest, int V>
struct DimAt<Dims<First, Rest...>, V> : DimAt<Dims<Rest...>, V - 1> {};
template <int First, int... Rest>
struct DimAt<Dims<First, Rest...>, 0> {
  static constexpr int value = First;
};

/// Sum of the dimensions if all are static, dynamic_extent otherwise.
template <class DimsT>
struct StaticWidth;
template <int... D>
struct StaticWidth<Dims<D...>> {
  static constexpr bool all_static = ((D >= 0) && ...);
  static constexpr int value       = all_static ? (0 + ... + D) : dynamic_extent;
};

/// Offset of variable V in a packed row, if the dimensions before it are static.
template <class DimsT, int V>
struct StaticOffset;
template <int... D, int V>
struct StaticOffset<Dims<D...>, V> {
  static constexpr int compute() {
    const int dims[] = {D..., 0};
    int offset       = 0;
    for (int v = 0; v < V; ++v) {
      if (dims[v] < 0) return dynamic_extent;
      offset += dims[v];
    }
    return offset;
  }
  static constexpr int value = compute();
};

/// True for formulas that stage their rows (see the file comment).
template <class F, class = void>
inline constexpr bool has_staging = false;
template <class F>
inline constexpr bool has_staging<F, std::void_t<decltype(F::staged_i_width + F::staged_j_width)>> =
    (F::staged_i_width > 0 && F::staged_j_width > 0);

}  // namespace Impl

/// A formula made of a lambda (or any callable) and the dimensions it works with; see
/// make_formula(). OutDim may be dynamic_extent, then the output dimension is stored.
template <int OutDim, class ParamDims, class IDims, class JDims, class Fn>
struct LambdaFormula {
  using param_dims             = ParamDims;  ///< Dimensions of the parameter variables.
  using i_dims                 = IDims;      ///< Dimensions of the i-variables.
  using j_dims                 = JDims;      ///< Dimensions of the j-variables.
  static constexpr int out_dim = OutDim;     ///< Output dimension, or dynamic_extent.
  Fn fn;                                     ///< The callable that computes an output row.
  /// The output dimension: OutDim, or the one given to make_formula() if that is dynamic_extent.
  int runtime_out_dim = OutDim;

  /// runtime_out_dim, whatever the variables' dimensions.
  int output_dim(const VariableDims&) const { return runtime_out_dim; }

  /// Calls fn(args...): parameter spans, i-spans, j-spans, then the output span.
  template <class... Args>
  KOKKOS_INLINE_FUNCTION void operator()(Args... args) const {
    fn(args...);
  }
};

/// Formula from a callable with compile-time output dimension OutDim:
///   auto f = tessera::make_formula<1>(tessera::Dims<3>{}, tessera::Dims<3>{},
///       KOKKOS_LAMBDA(tessera::In<float, 3> x, tessera::In<float, 3> y,
///                     tessera::Out<float, 1> out) { out[0] = x[0] * y[0]; });
/// The callable must be device-callable (KOKKOS_LAMBDA or a KOKKOS_FUNCTION operator()).
template <int OutDim, int... I, int... J, class Fn>
LambdaFormula<OutDim, Dims<>, Dims<I...>, Dims<J...>, Fn> make_formula(Dims<I...>, Dims<J...>,
                                                                       Fn fn) {
  return {fn, OutDim};
}
/// As above, with parameter variables first.
template <int OutDim, int... P, int... I, int... J, class Fn>
LambdaFormula<OutDim, Dims<P...>, Dims<I...>, Dims<J...>, Fn> make_formula(Dims<P...>, Dims<I...>,
                                                                           Dims<J...>, Fn fn) {
  return {fn, OutDim};
}
/// Formula with an output dimension known only at run time (the callable gets an Out<T, -1>).
template <int... P, int... I, int... J, class Fn>
LambdaFormula<dynamic_extent, Dims<P...>, Dims<I...>, Dims<J...>, Fn> make_formula(
    int out_dim, Dims<P...>, Dims<I...>, Dims<J...>, Fn fn) {
  return {fn, out_dim};
}

}  // namespace tessera
