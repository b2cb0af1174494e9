// Sequences: the index and value inputs of the interval moves. A rank-1 Kokkos View is one;
// CountingSequence is another, for inputs that are consecutive integers (moderngpu's
// counting_iterator), which a View would only spend memory and bandwidth on.
#pragma once

#include <tessera/core/memory_overlap.hpp>

#include <tessera/core/errors.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tessera {

/// The integers start, start + 1, start + 2, ... as a read-only sequence: s(i) = start + i.
/// Its extent is the number of values representable in T from start on, so that a range of it
/// is checked like a range of a View.
template <class T>
struct CountingSequence {
  static_assert(std::is_integral<T>::value, "tessera::CountingSequence: T must be an integer");
  using value_type = T;  ///< Type of the values, T.
  T start;               ///< The first value, s(0).
  /// The value start + i (0 <= i < extent(0), not checked).
  KOKKOS_INLINE_FUNCTION T operator()(std::int64_t i) const {
    return static_cast<T>(start + static_cast<T>(i));
  }
  /// Values representable from start on (capped at 2^63 - 1).
  std::size_t extent(int) const {
    // max - start is exact in uint64 for every integer T (at most 2^64 - 1)
    const std::uint64_t span = static_cast<std::uint64_t>(std::numeric_limits<T>::max()) -
                               static_cast<std::uint64_t>(start);
    const auto cap = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return static_cast<std::size_t>(span < cap ? span + 1 : cap);
  }
};

/// start, start + 1, ...: a CountingSequence<T>.
template <class T>
CountingSequence<T> counting_sequence(T start) {
  return CountingSequence<T>{start};
}

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

/// A sequence of n entries: a View of extent exactly n, a CountingSequence of at least n.
template <class S>
void require_sequence_length(const char* fn, const char* name, const S& s, std::size_t n) {
  if constexpr (Kokkos::is_view<S>::value) {
    require_equal(fn, name, "extent", s.extent(0), n);
  } else {
    require(s.extent(0) >= n, fn, name, " has fewer values than intervals (got ", s.extent(0),
            ", expected ", n, ")");
  }
}

/// Whether two sequences share memory (only Views can).
template <class A, class B>
bool sequences_share_memory(const A& a, const B& b) {
  if constexpr (Kokkos::is_view<A>::value && Kokkos::is_view<B>::value) {
    return views_share_memory(a, b);
  } else {
    return false;
  }
}

}  // namespace Impl
}  // namespace tessera
