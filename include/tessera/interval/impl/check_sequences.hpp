// The host checks of the sequence arguments of the interval moves (sequence.hpp): their length
// and whether two of them share memory.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/memory_overlap.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace tessera {
namespace Impl {

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
