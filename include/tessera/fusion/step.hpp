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

#include <Kokkos_Core.hpp>

#include <cstdint>
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

namespace Impl {

/// What a step is.
enum class StepKind {
  vector_map,  ///< vector = vector expression
  reduction,   ///< scalar = sum(vector expression)
  matrix_map,  ///< matrix = matrix expression
  row_sum,     ///< vector (indexed by rows) = expression holding row_sum(...)
  col_sum      ///< vector (indexed by columns) = expression holding col_sum(...)
};

/// What a step reads and writes (bit K: symbol K). In a matrix sequence, vectors are read at the
/// element's row (row_vectors) or column (col_vectors); outer_vectors are those a nested
/// map-reduce reads outside its sum (at its own index, once the sum is complete).
template <class S>
struct StepTraits;
template <class Target, class E>
struct StepTraits<Step<Target, E>> {
  using R                         = Reads<E>;
  static constexpr bool to_matrix = std::is_same_v<Target, Mat<Target::id>>;
  static constexpr bool to_scalar = std::is_same_v<Target, Scalar<Target::id>>;
  static constexpr StepKind kind  = to_matrix     ? StepKind::matrix_map
                                    : to_scalar   ? StepKind::reduction
                                    : R::row_sums ? StepKind::row_sum
                                    : R::col_sums ? StepKind::col_sum
                                                  : StepKind::vector_map;
  static constexpr bool reduction = to_scalar;
  static constexpr bool matrix_step =
      kind == StepKind::matrix_map || kind == StepKind::row_sum || kind == StepKind::col_sum;
  static constexpr int target                  = Target::id;
  static constexpr std::uint64_t bit           = std::uint64_t(1) << Target::id;
  static constexpr std::uint64_t outer_vectors = matrix_step ? R::vectors : 0;
  static constexpr std::uint64_t reads_row_vectors =
      R::row_vectors | (kind == StepKind::row_sum ? R::vectors : 0);
  static constexpr std::uint64_t reads_col_vectors =
      R::col_vectors | (kind == StepKind::col_sum ? R::vectors : 0);
  static constexpr std::uint64_t reads_vectors      = R::vectors | R::row_vectors | R::col_vectors;
  static constexpr std::uint64_t reads_scalars      = R::scalars;
  static constexpr std::uint64_t reads_matrices     = R::matrices;
  static constexpr std::uint64_t writes_vectors     = (to_matrix || to_scalar) ? 0 : bit;
  static constexpr std::uint64_t writes_scalars     = to_scalar ? bit : 0;
  static constexpr std::uint64_t writes_matrices    = to_matrix ? bit : 0;
  static constexpr std::uint64_t writes_row_vectors = kind == StepKind::row_sum ? bit : 0;
  static constexpr std::uint64_t writes_col_vectors = kind == StepKind::col_sum ? bit : 0;
};

/// The steps as a list that device code can hold (std::tuple's accessors are host functions
/// under some compilers).
template <class... S>
struct StepList {};
template <class H, class... R>
struct StepList<H, R...> {
  H head;
  StepList<R...> tail;
};

/// Step I of a list.
template <int I, class H, class... R>
KOKKOS_INLINE_FUNCTION const auto& step_at(const StepList<H, R...>& list) {
  if constexpr (I == 0) {
    return list.head;
  } else {
    return step_at<I - 1>(list.tail);
  }
}

/// The list of the given steps.
inline StepList<> make_step_list() {
  return {};
}
template <class H, class... R>
StepList<H, R...> make_step_list(const H& head, const R&... rest) {
  return {head, make_step_list(rest...)};
}

template <int I, class... S>
struct StepAt;
template <class H, class... R>
struct StepAt<0, H, R...> {
  using type = H;
};
template <int I, class H, class... R>
struct StepAt<I, H, R...> : StepAt<I - 1, R...> {};

}  // namespace Impl

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
