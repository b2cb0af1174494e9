// What a step is and what it reads and writes, at compile time (step.hpp's steps; plan.hpp and
// the kernels use them).
#pragma once

#include <tessera/fusion/expression_nodes.hpp>
#include <tessera/fusion/impl/expression_traits.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {
namespace fusion {

template <class Target, class E>
struct Step;  // step.hpp

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

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
