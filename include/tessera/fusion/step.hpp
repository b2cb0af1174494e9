// The steps of a fused sequence and the sequence itself.
//
// Steps over vectors: assign(Vec<K>, e) writes e_i to every element of vector K (a map);
// assign(Scalar<K>, sum(e)) writes the sum of e_i to scalar K (a reduction). Steps over a matrix
// (a matrix sequence: every step one of these): assign(Mat<K>, e) writes e_ij to every element
// of matrix K (a matrix map); assign(Vec<K>, e) with one row_sum(...) in e writes e_i for every
// row i, with one col_sum(...) e_j for every column j (a nested map-reduce, whose other terms
// are vector expressions at i or j: z = alpha * row_sum(A * by_col(x)) + beta * y). A sequence
// runs its steps in order, element by element: a step sees what earlier steps wrote (in-place
// updates such as x = alpha x are fine). run.hpp runs a sequence; plan.hpp says how it is cut
// into kernels.
#pragma once

#include <tessera/fusion/expression.hpp>
#include <tessera/fusion/impl/step_list.hpp>
#include <tessera/fusion/impl/step_traits.hpp>

#include <type_traits>

namespace tessera {
namespace fusion {

/// One step: Target = Vec<K> (a map writing vector K, or a nested map-reduce when E holds a
/// row_sum or col_sum), Scalar<K> (a reduction, E = Sum<...>) or Mat<K> (a matrix map).
template <class Target, class E>
struct Step {
  E e;  ///< The expression whose value the step writes to Target.
};

/// The map step vector = e (element-wise), or the nested map-reduce vector = e when e holds one
/// row_sum or col_sum.
template <int K, class E>
constexpr auto assign(Vec<K>, const E& e) {
  static_assert(Impl::IsExpression<E>::value || std::is_arithmetic_v<E>,
                "tessera::fusion::assign: a vector is assigned an element-wise expression (use "
                "a Scalar target for sum() and dot())");
  using R = Impl::Reads<decltype(Impl::operand(e))>;
  static_assert(!R::matrix && R::row_sums + R::col_sums <= 1,
                "tessera::fusion::assign: a vector is assigned a vector expression with at most "
                "one row_sum or col_sum (matrices enter it inside them)");
  return Step<Vec<K>, decltype(Impl::operand(e))>{Impl::operand(e)};
}

/// The matrix map step matrix = e (element-wise over (i, j)).
template <int K, class E>
constexpr auto assign(Mat<K>, const E& e) {
  using R = Impl::Reads<decltype(Impl::operand(e))>;
  static_assert(R::vectors == 0 && R::row_sums + R::col_sums == 0,
                "tessera::fusion::assign: a matrix is assigned a matrix expression (matrices, "
                "by_row(v), by_col(v), scalars, numbers; no nested sums)");
  return Step<Mat<K>, decltype(Impl::operand(e))>{Impl::operand(e)};
}

/// The reduction step scalar = sum(e).
template <int K, class E>
constexpr Step<Scalar<K>, Sum<E>> assign(Scalar<K>, const Sum<E>& s) {
  static_assert(Impl::plain_vector<E>,
                "tessera::fusion::assign: a scalar is assigned the sum of a vector expression");
  static_assert(((Impl::Reads<E>::scalars >> K) & 1u) == 0,
                "tessera::fusion::assign: a reduction cannot read the scalar it reduces (its "
                "target holds partial sums while the kernel runs); reduce into another scalar");
  return {s};
}

/// A sequence of steps (1 to 8: every group of consecutive steps is compiled as a kernel):
/// vector steps only, or matrix steps only (a matrix sequence).
template <class... S>
struct Sequence {
  static_assert(sizeof...(S) >= 1 && sizeof...(S) <= 8,
                "tessera::fusion: a sequence has 1 to 8 steps");
  /// Whether this is a matrix sequence (its steps are matrix steps).
  static constexpr bool matrix = (Impl::StepTraits<S>::matrix_step || ...);
  static_assert(!matrix || (Impl::StepTraits<S>::matrix_step && ...),
                "tessera::fusion: a sequence has vector steps (maps, sum reductions) or matrix "
                "steps (matrix maps, row_sum or col_sum steps), not both");
  Impl::StepList<S...> steps;                     ///< The steps, in the order they run.
  static constexpr int size = int(sizeof...(S));  ///< Number of steps.
};

/// The sequence of the given steps.
template <class... S>
constexpr Sequence<S...> sequence(const S&... steps) {
  return {Impl::make_step_list(steps...)};
}

}  // namespace fusion
}  // namespace tessera
