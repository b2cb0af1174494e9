// What an expression is at compile time: whether a type is an expression, the operands of the
// expression operators, and what an expression reads (expression.hpp, step.hpp and the kernels
// use them).
#pragma once

#include <tessera/fusion/expression_nodes.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {
namespace fusion {
namespace Impl {

template <class E>
struct IsExpression : std::false_type {};
template <int K>
struct IsExpression<Mat<K>> : std::true_type {};
template <class E>
struct IsExpression<ByRow<E>> : std::true_type {};
template <class E>
struct IsExpression<ByCol<E>> : std::true_type {};
template <class E>
struct IsExpression<RowSum<E>> : std::true_type {};
template <class E>
struct IsExpression<ColSum<E>> : std::true_type {};
template <int K>
struct IsExpression<Vec<K>> : std::true_type {};
template <int K>
struct IsExpression<Scalar<K>> : std::true_type {};
template <>
struct IsExpression<Number> : std::true_type {};
template <class Op, class A, class B>
struct IsExpression<Binary<Op, A, B>> : std::true_type {};
template <class A>
struct IsExpression<Negate<A>> : std::true_type {};

/// An operand: expressions stay as they are, arithmetic values become Numbers.
template <class E>
constexpr auto operand(const E& e) {
  if constexpr (std::is_arithmetic_v<E>) {
    return Number{static_cast<double>(e)};
  } else {
    return e;
  }
}

template <class A, class B>
constexpr bool binary_operands = (IsExpression<A>::value &&
                                  (IsExpression<B>::value || std::is_arithmetic_v<B>)) ||
                                 (std::is_arithmetic_v<A> && IsExpression<B>::value);

/// Whether an expression is a plain vector symbol.
template <class E>
struct IsVec : std::false_type {};
template <int K>
struct IsVec<Vec<K>> : std::true_type {};

/// What an expression reads (bit K: symbol K): vectors read as plain vectors (at the element of
/// a vector expression), vectors read by_row and by_col in matrix expressions, matrices and
/// scalars; the nested sums it holds; and whether it is a matrix expression (a matrix or a
/// by_row/by_col outside any nested sum).
template <class E>
struct Reads {
  static constexpr std::uint64_t vectors = 0, row_vectors = 0, col_vectors = 0, matrices = 0,
                                 scalars = 0;
  /// The row_vectors (col_vectors) read inside a composed expression, by_row(v + w), rather
  /// than as by_row(v).
  static constexpr std::uint64_t row_composed = 0, col_composed = 0;
  static constexpr int row_sums = 0, col_sums = 0;
  static constexpr bool matrix = false;
};
template <int K>
struct Reads<Vec<K>> : Reads<void> {
  static constexpr std::uint64_t vectors = std::uint64_t(1) << K;
};
template <int K>
struct Reads<Scalar<K>> : Reads<void> {
  static constexpr std::uint64_t scalars = std::uint64_t(1) << K;
};
template <int K>
struct Reads<Mat<K>> : Reads<void> {
  static constexpr std::uint64_t matrices = std::uint64_t(1) << K;
  static constexpr bool matrix            = true;
};
template <class Op, class A, class B>
struct Reads<Binary<Op, A, B>> {
  static constexpr std::uint64_t vectors      = Reads<A>::vectors | Reads<B>::vectors;
  static constexpr std::uint64_t row_vectors  = Reads<A>::row_vectors | Reads<B>::row_vectors;
  static constexpr std::uint64_t col_vectors  = Reads<A>::col_vectors | Reads<B>::col_vectors;
  static constexpr std::uint64_t matrices     = Reads<A>::matrices | Reads<B>::matrices;
  static constexpr std::uint64_t scalars      = Reads<A>::scalars | Reads<B>::scalars;
  static constexpr std::uint64_t row_composed = Reads<A>::row_composed | Reads<B>::row_composed;
  static constexpr std::uint64_t col_composed = Reads<A>::col_composed | Reads<B>::col_composed;
  static constexpr int row_sums               = Reads<A>::row_sums + Reads<B>::row_sums;
  static constexpr int col_sums               = Reads<A>::col_sums + Reads<B>::col_sums;
  static constexpr bool matrix                = Reads<A>::matrix || Reads<B>::matrix;
};
template <class A>
struct Reads<Negate<A>> : Reads<A> {};
template <class E>
struct Reads<Sum<E>> : Reads<E> {};
template <class E>
struct Reads<ByRow<E>> : Reads<E> {
  static constexpr std::uint64_t vectors = 0, row_vectors = Reads<E>::vectors;
  static constexpr std::uint64_t row_composed = IsVec<E>::value ? 0 : Reads<E>::vectors;
  static constexpr bool matrix                = true;
};
template <class E>
struct Reads<ByCol<E>> : Reads<E> {
  static constexpr std::uint64_t vectors = 0, col_vectors = Reads<E>::vectors;
  static constexpr std::uint64_t col_composed = IsVec<E>::value ? 0 : Reads<E>::vectors;
  static constexpr bool matrix                = true;
};
template <class E>
struct Reads<RowSum<E>> : Reads<E> {
  static constexpr int row_sums = 1;
  static constexpr bool matrix  = false;
};
template <class E>
struct Reads<ColSum<E>> : Reads<E> {
  static constexpr int col_sums = 1;
  static constexpr bool matrix  = false;
};

/// Whether an expression is a vector expression (no matrix, no nested sum).
template <class E>
constexpr bool plain_vector = !Reads<E>::matrix && Reads<E>::row_sums == 0 &&
                              Reads<E>::col_sums == 0 && Reads<E>::matrices == 0;

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
