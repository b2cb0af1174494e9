// The steps of a fused sequence and the sequence itself.
//
// Steps: assign(Vec<K>, e) writes e_i to every element of vector K (a map); assign(Scalar<K>,
// sum(e)) writes the sum of e_i to scalar K (a reduction). A sequence runs its steps in order,
// element by element: a step sees what earlier steps wrote (in-place updates such as
// x = alpha x are fine). run.hpp runs a sequence; plan.hpp says how it is cut into kernels.
#pragma once

#include <tessera/fusion/expression.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {
namespace fusion {

/// One step: Target = Vec<K> (a map writing vector K) or Scalar<K> (a reduction, E = Sum<...>).
template <class Target, class E>
struct Step {
  E e;
};

/// The map step vector = e (element-wise).
template <int K, class E>
constexpr auto assign(Vec<K>, const E& e) {
  static_assert(Impl::IsExpression<E>::value || std::is_arithmetic_v<E>,
                "tessera::fusion::assign: a vector is assigned an element-wise expression (use "
                "a Scalar target for sum() and dot())");
  return Step<Vec<K>, decltype(Impl::operand(e))>{Impl::operand(e)};
}

/// The reduction step scalar = sum(e).
template <int K, class E>
constexpr Step<Scalar<K>, Sum<E>> assign(Scalar<K>, const Sum<E>& s) {
  static_assert(((Impl::Reads<E>::scalars >> K) & 1u) == 0,
                "tessera::fusion::assign: a reduction cannot read the scalar it reduces (its "
                "target holds partial sums while the kernel runs); reduce into another scalar");
  return {s};
}

namespace Impl {

/// What a step reads and writes (bit K: symbol K).
template <class S>
struct StepTraits;
template <int K, class E>
struct StepTraits<Step<Vec<K>, E>> {
  static constexpr bool reduction               = false;
  static constexpr int target                   = K;
  static constexpr std::uint64_t reads_vectors  = Reads<E>::vectors;
  static constexpr std::uint64_t reads_scalars  = Reads<E>::scalars;
  static constexpr std::uint64_t writes_vectors = std::uint64_t(1) << K;
  static constexpr std::uint64_t writes_scalars = 0;
};
template <int K, class E>
struct StepTraits<Step<Scalar<K>, Sum<E>>> {
  static constexpr bool reduction               = true;
  static constexpr int target                   = K;
  static constexpr std::uint64_t reads_vectors  = Reads<E>::vectors;
  static constexpr std::uint64_t reads_scalars  = Reads<E>::scalars;
  static constexpr std::uint64_t writes_vectors = 0;
  static constexpr std::uint64_t writes_scalars = std::uint64_t(1) << K;
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

/// A sequence of steps (1 to 8: every group of consecutive steps is compiled as a kernel).
template <class... S>
struct Sequence {
  static_assert(sizeof...(S) >= 1 && sizeof...(S) <= 8,
                "tessera::fusion: a sequence has 1 to 8 steps");
  Impl::StepList<S...> steps;
  static constexpr int size = int(sizeof...(S));
};

/// The sequence of the given steps.
template <class... S>
constexpr Sequence<S...> sequence(const S&... steps) {
  return {Impl::make_step_list(steps...)};
}

}  // namespace fusion
}  // namespace tessera
