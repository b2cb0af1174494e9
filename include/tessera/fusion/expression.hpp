// The symbols and expressions a fused sequence is written with.
//
// A sequence names its data by compile-time symbols, so that the library knows at compile time
// which step reads what another step wrote (the data dependencies), and can keep such values in
// registers inside a fused kernel:
//   Vec<K>      the K-th bound View, a vector of the sequence's length n (rank 1);
//   Scalar<K>   the K-th bound View, a scalar (rank 0): a reduction's result, read by later
//               steps as a number;
//   numbers     (alpha, beta) given when the sequence is built, in double, used in the
//               sequence's value type.
// Expressions combine them with + - * and unary -, element by element; sum(e) and dot(a, b)
// reduce over the elements. Example (AXPYDOT, z = w - alpha v, r = z . u):
//   constexpr fusion::Vec<0> z;  constexpr fusion::Vec<1> w;  constexpr fusion::Vec<2> v;
//   constexpr fusion::Vec<3> u;  constexpr fusion::Scalar<4> r;
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
  static constexpr int id = K;
};

/// The K-th bound View, a rank-0 scalar (0 <= K < 64).
template <int K>
struct Scalar {
  static_assert(K >= 0 && K < 64, "tessera::fusion: symbols are numbered 0 to 63");
  static constexpr int id = K;
};

/// A number fixed when the sequence is built.
struct Number {
  double value;
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
  A a;
  B b;
};

/// Element-wise -a.
template <class A>
struct Negate {
  A a;
};

/// The sum over all elements of an element-wise expression (a reduction).
template <class E>
struct Sum {
  E e;
};

namespace Impl {

template <class E>
struct IsExpression : std::false_type {};
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

/// Bit masks of the symbols an expression reads: vectors and scalars.
template <class E>
struct Reads {
  static constexpr std::uint64_t vectors = 0, scalars = 0;
};
template <int K>
struct Reads<Vec<K>> {
  static constexpr std::uint64_t vectors = std::uint64_t(1) << K, scalars = 0;
};
template <int K>
struct Reads<Scalar<K>> {
  static constexpr std::uint64_t vectors = 0, scalars = std::uint64_t(1) << K;
};
template <class Op, class A, class B>
struct Reads<Binary<Op, A, B>> {
  static constexpr std::uint64_t vectors = Reads<A>::vectors | Reads<B>::vectors;
  static constexpr std::uint64_t scalars = Reads<A>::scalars | Reads<B>::scalars;
};
template <class A>
struct Reads<Negate<A>> : Reads<A> {};
template <class E>
struct Reads<Sum<E>> : Reads<E> {};

}  // namespace Impl

template <class A, class B, std::enable_if_t<Impl::binary_operands<A, B>, int> = 0>
constexpr auto operator+(const A& a, const B& b) {
  return Binary<Impl::Add, decltype(Impl::operand(a)), decltype(Impl::operand(b))>{
      Impl::operand(a), Impl::operand(b)};
}
template <class A, class B, std::enable_if_t<Impl::binary_operands<A, B>, int> = 0>
constexpr auto operator-(const A& a, const B& b) {
  return Binary<Impl::Subtract, decltype(Impl::operand(a)), decltype(Impl::operand(b))>{
      Impl::operand(a), Impl::operand(b)};
}
template <class A, class B, std::enable_if_t<Impl::binary_operands<A, B>, int> = 0>
constexpr auto operator*(const A& a, const B& b) {
  return Binary<Impl::Multiply, decltype(Impl::operand(a)), decltype(Impl::operand(b))>{
      Impl::operand(a), Impl::operand(b)};
}
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

}  // namespace fusion
}  // namespace tessera
