// Binary searches over sorted device arrays, callable from kernels on every backend.
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {
namespace Impl {

/// First position p in [0, n) with a[p] >= v (n if none); a is sorted ascending.
template <class T, class V>
KOKKOS_INLINE_FUNCTION int lower_bound(const T* a, int n, const V& v) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (a[mid] < v) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// First position p in [0, n) with a[p] > v (n if none); a is sorted ascending.
template <class T, class V>
KOKKOS_INLINE_FUNCTION int upper_bound(const T* a, int n, const V& v) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (v < a[mid]) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

}  // namespace Impl
}  // namespace tessera
