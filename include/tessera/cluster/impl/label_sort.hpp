// The stable sort by cluster label of sort_clusters (clustering.hpp): the check of its Views and
// labels, and the 64-bit keys labels(i) * n + i whose sort orders the points by label, ties in
// index order, split back into the permutation and the sorted labels.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/memory_overlap.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace Impl {

/// Smallest label.
template <class Labels>
struct MinLabel {
  Labels labels;
  KOKKOS_FUNCTION void operator()(int i, int& m) const {
    if (labels(i) < m) m = labels(i);
  }
};

/// keys(i) = labels(i) * n + i: sorting them sorts by label, ties in index order.
template <class Labels, class MemorySpace>
struct StableSortKeys {
  Labels labels;
  Kokkos::View<std::int64_t*, MemorySpace> keys;
  std::int64_t n;
  KOKKOS_FUNCTION void operator()(int i) const {
    keys(i) = static_cast<std::int64_t>(labels(i)) * n + i;
  }
};

/// Splits the sorted keys back into the permutation and the sorted labels.
template <class Labels, class MemorySpace>
struct SplitSortKeys {
  Kokkos::View<const std::int64_t*, MemorySpace> keys;
  Kokkos::View<int*, MemorySpace> perm;
  Labels labels;
  std::int64_t n;
  KOKKOS_FUNCTION void operator()(int k) const {
    perm(k)   = static_cast<int>(keys(k) % n);
    labels(k) = static_cast<int>(keys(k) / n);
  }
};

/// sort_clusters' Views share memory neither with labels nor with one another (views[v] in the
/// message is the v-th View after labels).
template <class Labels, class... Views>
void require_views_apart(const char* fn, const Labels& labels, const Views&... views) {
  const MemoryRange label_memory = memory_range(labels);
  const MemoryRange memory[]     = {memory_range(views)..., MemoryRange{}};
  for (std::size_t v = 0; v < sizeof...(Views); ++v) {
    require(!memory[v].overlaps(label_memory), fn, "views[", v, "] shares memory with labels");
    for (std::size_t w = v + 1; w < sizeof...(Views); ++w) {
      require(!memory[v].overlaps(memory[w]), fn, "views[", v, "] shares memory with views[", w,
              "]");
    }
  }
}

}  // namespace Impl
}  // namespace tessera
