// Whether Views share memory: the check behind every "output shares memory with an input"
// rejection (genred, the interval primitives, the cluster helpers).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace Impl {

/// The bytes [begin, end) from a View's first element to its last one (1 + the sum over its
/// dimensions of (extent - 1) x stride elements); empty for a View with no elements.
/// Conservative for strided Views, whose range covers their gaps. (View::span() is not: for a
/// strided subview it is the largest extent x stride, which runs past the last element of, say,
/// some rows of every batch entry, into memory the View does not reach.)
struct MemoryRange {
  std::uintptr_t begin = 0, end = 0;
  bool overlaps(const MemoryRange& other) const {
    return begin < end && other.begin < other.end && begin < other.end && other.begin < end;
  }
};

template <class View>
MemoryRange memory_range(const View& v) {
  static_assert(Kokkos::is_view<View>::value, "tessera: memory_range takes a Kokkos View");
  if (v.size() == 0) return {};
  std::size_t strides[View::rank + 1];
  v.stride(strides);
  std::size_t last = 0;
  for (std::size_t r = 0; r < View::rank; ++r)
    last += (v.extent(r) - 1) * strides[r];
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
  return {begin, begin + (last + 1) * sizeof(typename View::value_type)};
}

/// True when two Views' byte ranges intersect (two interleaved strided Views of one allocation
/// count as sharing memory).
template <class A, class B>
bool views_share_memory(const A& a, const B& b) {
  return memory_range(a).overlaps(memory_range(b));
}

}  // namespace Impl
}  // namespace tessera
