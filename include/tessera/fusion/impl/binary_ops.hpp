// The element-wise operations of Binary expression nodes (expression_nodes.hpp): Op::apply(a, b).
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {
namespace fusion {
namespace Impl {
struct Add {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(T a, T b) {
    return a + b;
  }
};
struct Subtract {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(T a, T b) {
    return a - b;
  }
};
struct Multiply {
  template <class T>
  KOKKOS_INLINE_FUNCTION static T apply(T a, T b) {
    return a * b;
  }
};
}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
