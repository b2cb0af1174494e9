// Point vectors as the point kernel reads them: rows of D values, D apart (a packed LayoutRight
// View). pdist, cdist and PointBlockOp take n x D Views of any layout; an input whose elements
// are not already laid out so is copied once into a packed View in its own memory space.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <utility>

namespace tessera {
namespace Impl {

/// The packed row-major View of n x D points of View's value type, in View's memory space.
template <class View>
using PackedPoints = Kokkos::View<const typename View::value_type**, Kokkos::LayoutRight,
                                  typename View::memory_space>;

/// The points x as a packed row-major View: x itself (no copy) when its elements are already
/// rows of D values, D apart (a LayoutRight View without padding, or a LayoutLeft or
/// LayoutStride View with those strides); else a copy (Kokkos::deep_copy, which waits for all
/// work queued on any execution space first): n D values in x's memory space and one pass over
/// x.
template <class View>
PackedPoints<View> packed_points(const View& x) {
  static_assert(Kokkos::is_view<View>::value && View::rank == 2,
                "tessera::pairwise: point vectors are rank-2 Views (n, D)");
  const bool packed = x.stride(1) == 1 && x.stride(0) == x.extent(1);
  if constexpr (std::is_same_v<typename View::array_layout, Kokkos::LayoutRight>) {
    if (packed) return x;
  } else {
    // Kokkos assigns a LayoutStride View to a LayoutRight one when its strides are packed.
    using Strided = Kokkos::View<const typename View::value_type**, Kokkos::LayoutStride,
                                 typename View::memory_space>;
    if (packed) return Strided(x);
  }
  Kokkos::View<typename View::non_const_value_type**, Kokkos::LayoutRight,
               typename View::memory_space>
      copy(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pairwise::packed_points"),
           x.extent(0), x.extent(1));
  Kokkos::deep_copy(copy, x);
  return copy;
}

/// The rows x and columns y of a point call, packed; one packed View for both when y is x (as
/// in pdist), so that they are copied and uploaded once.
template <class XView, class YView>
std::pair<PackedPoints<XView>, PackedPoints<YView>> packed_point_pair(const XView& x,
                                                                      const YView& y) {
  const PackedPoints<XView> px = packed_points(x);
  if constexpr (std::is_same_v<XView, YView>) {
    if (x == y) return {px, px};
  }
  return {px, packed_points(y)};
}

}  // namespace Impl
}  // namespace tessera
