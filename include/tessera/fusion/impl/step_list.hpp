// A sequence's steps as a list that device code can hold, and its accessors.
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {
namespace fusion {
namespace Impl {

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
}  // namespace fusion
}  // namespace tessera
