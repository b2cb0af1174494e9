// The types a fused sequence's expressions are made of: the symbols (Vec, Scalar, Mat) that
// name its bound Views, the numbers fixed when it is built, and the nodes that combine them.
// expression.hpp says what they mean and builds them (+ - * and unary -, sum, dot, by_row, by_col,
// row_sum, col_sum).
#pragma once

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

}  // namespace fusion
}  // namespace tessera
