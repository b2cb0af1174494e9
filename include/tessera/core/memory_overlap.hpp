// Whether Views share memory: the check behind every "output shares memory with an input"
// rejection (genred, the interval primitives, the cluster helpers).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {
namespace Impl {

/// The bytes [begin, end) a View's elements span; empty for a View with no elements.
/// Conservative for strided Views, whose span covers their gaps.
struct MemoryRange {
  std::uintptr_t begin = 0, end = 0;
  bool overlaps(const MemoryRange& other) const {
    return begin < end && other.begin < other.end && begin < other.end && other.begin < end;
  }
};

template <class View>
MemoryRange memory_range(const View& v) {
  static_assert(Kokkos::is_view<View>::value, "tessera: memory_range takes a Kokkos View");
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
  return {begin, begin + v.span() * sizeof(typename View::value_type)};
}

/// True when two Views' byte ranges intersect (two interleaved strided Views of one allocation
/// count as sharing memory).
template <class A, class B>
bool views_share_memory(const A& a, const B& b) {
  return memory_range(a).overlaps(memory_range(b));
}

}  // namespace Impl
}  // namespace tessera
