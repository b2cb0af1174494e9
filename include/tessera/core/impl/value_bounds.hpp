// Smallest and largest value of a rank-1 View, for the host-side checks of the primitives.
#pragma once

#include <Kokkos_Core.hpp>

#include <string>

namespace tessera {
namespace Impl {

/// Reduction body: min and max of v(k).
template <class View, class Value>
struct ValueBounds {
  View v;
  KOKKOS_FUNCTION void operator()(int k, Kokkos::MinMaxScalar<Value>& b) const {
    const Value x = v(k);
    if (x < b.min_val) b.min_val = x;
    if (x > b.max_val) b.max_val = x;
  }
};

/// Min and max of the first n values of a rank-1 View (one pass; fences to return them).
template <class ExecSpace, class View>
Kokkos::MinMaxScalar<typename View::non_const_value_type> value_bounds(const ExecSpace& space,
                                                                       const std::string& label,
                                                                       const View& v, int n) {
  using Value = typename View::non_const_value_type;
  Kokkos::MinMaxScalar<Value> bounds;
  Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                          ValueBounds<View, Value>{v},
                          Kokkos::MinMax<Value, Kokkos::HostSpace>(bounds));
  return bounds;
}

}  // namespace Impl
}  // namespace tessera
