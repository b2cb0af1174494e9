// TEMPORARY (replaced by the interval branch's version on merge)
#pragma once
#include <Kokkos_Core.hpp>
#include <cstdint>
namespace tessera {
namespace Impl {
template <class A, class B>
bool views_share_memory(const A& a, const B& b) {
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data());
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data());
  const auto a1 = a0 + a.span() * sizeof(typename A::value_type);
  const auto b1 = b0 + b.span() * sizeof(typename B::value_type);
  return a.span() > 0 && b.span() > 0 && a0 < b1 && b0 < a1;
}
}  // namespace Impl
}  // namespace tessera
