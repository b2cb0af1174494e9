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

#include <tessera/fusion/expression_nodes.hpp>
#include <tessera/fusion/impl/binary_ops.hpp>
#include <tessera/fusion/impl/expression_traits.hpp>

#include <type_traits>

namespace tessera {
namespace fusion {

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
