// Sequences: the index and value inputs of the interval moves. A rank-1 Kokkos View is one;
// CountingSequence is another, for inputs that are consecutive integers (moderngpu's
// counting_iterator), which a View would only spend memory and bandwidth on.
#pragma once

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

}  // namespace tessera
