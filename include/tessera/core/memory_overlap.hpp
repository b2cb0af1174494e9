// Whether two Views share memory: the check behind every "output shares memory with an input"
// rejection (genred, the interval primitives, the cluster helpers).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {
namespace Impl {

/// True when the byte ranges [data, data + span * sizeof(value)) of two Views intersect. Views
/// with no elements share nothing. Conservative for strided Views, whose span covers their
/// gaps: two interleaved strided Views of one allocation count as sharing memory.
template <class A, class B>
bool views_share_memory(const A& a, const B& b) {
  static_assert(Kokkos::is_view<A>::value && Kokkos::is_view<B>::value,
                "tessera: views_share_memory compares Kokkos Views");
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data());
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data());
  const auto a1 = a0 + a.span() * sizeof(typename A::value_type);
  const auto b1 = b0 + b.span() * sizeof(typename B::value_type);
  return a.span() > 0 && b.span() > 0 && a0 < b1 && b0 < a1;
}

}  // namespace Impl
}  // namespace tessera
