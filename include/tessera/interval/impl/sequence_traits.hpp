// Compile-time traits of the sequence arguments of the interval moves (sequence.hpp): their
// value type and whether the execution space can read them.
#pragma once

#include <tessera/interval/sequence.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

template <class S>
struct is_counting_sequence : std::false_type {};
template <class T>
struct is_counting_sequence<CountingSequence<T>> : std::true_type {};

/// The value type of a sequence (a View's non-const value type).
template <class S, class = void>
struct sequence_value {
  using type = typename S::value_type;
};
template <class S>
struct sequence_value<S, std::enable_if_t<Kokkos::is_view<S>::value>> {
  using type = typename S::non_const_value_type;
};
template <class S>
using sequence_value_t = typename sequence_value<S>::type;

/// Compile-time checks of a sequence argument: a rank-1 View the execution space can read, or
/// a CountingSequence.
template <class ExecSpace, class S>
constexpr bool is_readable_sequence() {
  if constexpr (Kokkos::is_view<S>::value) {
    return S::rank == 1 &&
           Kokkos::SpaceAccessibility<ExecSpace, typename S::memory_space>::accessible;
  } else {
    return is_counting_sequence<S>::value;
  }
}

}  // namespace Impl
}  // namespace tessera
