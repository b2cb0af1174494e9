// The symbols and expressions a fused sequence is written with.
//
// A sequence names its data by compile-time symbols, so that the library knows at compile time
// which step reads what another step wrote (the data dependencies), and can keep such values in
// registers inside a fused kernel:
//   Vec<K>      the K-th bound View, a vector of the sequence's length n (rank 1);
//   Scalar<K>   the K-th bound View, a scalar (rank 0): a reduction's result, read by later
//               steps as a number;
//   Mat<K>      the K-th bound View, a matrix (rank 2, LayoutRight or LayoutLeft);
//   numbers     (alpha, beta) given when the sequence is built, in double, used in the
//               sequence's value type.
// Expressions combine them with + - * and unary -, element by element; sum(e) and dot(a, b)
// reduce over the elements. Matrix expressions are evaluated at an element (i, j): a vector
// enters them as by_row(v) (v_i) or by_col(v) (v_j), and row_sum(e) (sum over j of e_ij, a
// vector indexed by i) and col_sum(e) (sum over i, indexed by j) are the nested map-reduces
// that make matrix-vector products: A x is row_sum(A * by_col(x)), A^T y is
// col_sum(A * by_row(y)). Example (AXPYDOT, z = w - alpha v, r = z . u):
//   constexpr fusion::Vec<0> w;  constexpr fusion::Vec<1> v;  constexpr fusion::Vec<2> u;
//   constexpr fusion::Vec<3> z;  constexpr fusion::Scalar<4> r;
//   auto seq = fusion::sequence(fusion::assign(z, w - alpha * v), fusion::assign(r, dot(z, u)));
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {
namespace fusion {

/// The K-th bound View, a vector (0 <= K < 64).
template <int K>
struct Vec {
  static_assert(K >= 0 && K < 64, "tessera::fusion: symbols are numbered 0 to 63");
  static constexpr int id = K;  ///< Index of the bound View, K.
};

/// The K-th bound View, a rank-0 scalar (0 <= K < 64).
template <int K>
struct Scalar {
  static_assert(K >= 0 && K < 64, "tessera::fusion: symbols are numbered 0 to 63");
  static constexpr int id = K;  ///< Index of the bound View, K.
};

/// The K-th bound View, a matrix (0 <= K < 64).
template <int K>
struct Mat {
  static_assert(K >= 0 && K < 64, "tessera::fusion: symbols are numbered 0 to 63");
  static constexpr int id = K;  ///< Index of the bound View, K.
};

/// A number fixed when the sequence is built.
struct Number {
  double value;  ///< The number, converted to the sequence's value type when used.
};

namespace Impl {
struct Add {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(T a, T b) {
    return a + b;
  }
};
struct Subtract {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(T a, T b) {
    return a - b;
  }
};
struct Multiply {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(T a, T b) {
    return a * b;
  }
};
}  // namespace Impl

/// Element-wise a op b.
template <class Op, class A, class B>
struct Binary {
  A a;  ///< Left operand.
  B b;  ///< Right operand.
};

/// Element-wise -a.
template <class A>
struct Negate {
  A a;  ///< The negated expression.
};

/// The sum over all elements of an element-wise expression (a reduction).
template <class E>
struct Sum {
  E e;  ///< The element-wise expression summed.
};

/// A vector expression indexed by the row (ByRow, v_i) or the column (ByCol, v_j) of a matrix
/// expression's element (i, j).
template <class E>
struct ByRow {
  E e;  ///< The vector expression, read at the element's row i.
};
/// A vector expression indexed by the column of a matrix expression's element (i, j): v_j.
template <class E>
struct ByCol {
  E e;  ///< The vector expression, read at the element's column j.
};

/// The sum over j of a matrix expression (a vector indexed by i): a nested map-reduce.
template <class E>
struct RowSum {
  E e;  ///< The matrix expression summed over j.
};
/// The sum over i of a matrix expression (a vector indexed by j).
template <class E>
struct ColSum {
  E e;  ///< The matrix expression summed over i.
};

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

/// a + b, element by element (`a`, `b`: expressions or numbers, at least one an expression).
template <class A, class B, std::enable_if_t<Impl::binary_operands<A, B>, int> = 0>
constexpr auto operator+(const A& a, const B& b) {
  return Binary<Impl::Add, decltype(Impl::operand(a)), decltype(Impl::operand(b))>{
      Impl::operand(a), Impl::operand(b)};
}
/// a - b, element by element (`a`, `b`: expressions or numbers, at least one an expression).
template <class A, class B, std::enable_if_t<Impl::binary_operands<A, B>, int> = 0>
constexpr auto operator-(const A& a, const B& b) {
  return Binary<Impl::Subtract, decltype(Impl::operand(a)), decltype(Impl::operand(b))>{
      Impl::operand(a), Impl::operand(b)};
}
/// a * b, element by element (`a`, `b`: expressions or numbers, at least one an expression).
template <class A, class B, std::enable_if_t<Impl::binary_operands<A, B>, int> = 0>
constexpr auto operator*(const A& a, const B& b) {
  return Binary<Impl::Multiply, decltype(Impl::operand(a)), decltype(Impl::operand(b))>{
      Impl::operand(a), Impl::operand(b)};
}
/// -a, element by element.
template <class A, std::enable_if_t<Impl::IsExpression<A>::value, int> = 0>
constexpr auto operator-(const A& a) {
  return Negate<A>{a};
}

/// sum(e) = sum over i of e_i.
template <class E, std::enable_if_t<Impl::IsExpression<E>::value, int> = 0>
constexpr Sum<E> sum(const E& e) {
  return {e};
}

/// dot(a, b) = sum over i of a_i b_i.
template <class A, class B, std::enable_if_t<Impl::binary_operands<A, B>, int> = 0>
constexpr auto dot(const A& a, const B& b) {
  return sum(a * b);
}

/// by_row(v): in a matrix expression, the vector expression v at the element's row i.
template <class E, std::enable_if_t<Impl::IsExpression<E>::value, int> = 0>
constexpr ByRow<E> by_row(const E& v) {
  static_assert(Impl::plain_vector<E>,
                "tessera::fusion::by_row takes a vector expression (vectors, scalars, numbers)");
  return {v};
}

/// by_col(v): in a matrix expression, the vector expression v at the element's column j.
template <class E, std::enable_if_t<Impl::IsExpression<E>::value, int> = 0>
constexpr ByCol<E> by_col(const E& v) {
  static_assert(Impl::plain_vector<E>,
                "tessera::fusion::by_col takes a vector expression (vectors, scalars, numbers)");
  return {v};
}

/// row_sum(e)_i = sum over j of e_ij (e: a matrix expression).
template <class E, std::enable_if_t<Impl::IsExpression<E>::value, int> = 0>
constexpr RowSum<E> row_sum(const E& e) {
  static_assert(Impl::Reads<E>::matrix && Impl::Reads<E>::vectors == 0 &&
                    Impl::Reads<E>::row_sums + Impl::Reads<E>::col_sums == 0,
                "tessera::fusion::row_sum takes a matrix expression (vectors enter it as "
                "by_row(v) or by_col(v); no nested sums)");
  return {e};
}

/// col_sum(e)_j = sum over i of e_ij (e: a matrix expression).
template <class E, std::enable_if_t<Impl::IsExpression<E>::value, int> = 0>
constexpr ColSum<E> col_sum(const E& e) {
  static_assert(Impl::Reads<E>::matrix && Impl::Reads<E>::vectors == 0 &&
                    Impl::Reads<E>::row_sums + Impl::Reads<E>::col_sums == 0,
                "tessera::fusion::col_sum takes a matrix expression (vectors enter it as "
                "by_row(v) or by_col(v); no nested sums)");
  return {e};
}

}  // namespace fusion
}  // namespace tessera
