// Checks of a point cloud argument of the clustering helpers (clustering.hpp): its View type at
// compile time, and a kernel that finds the first point with a non-finite coordinate.
#pragma once

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// Compile-time checks of a points View: rank 2, float or double, accessible from ExecSpace.
template <class ExecSpace, class Points>
void check_points(const char* fn) {
  static_assert(Kokkos::is_view<Points>::value && Points::rank == 2,
                "tessera: points are a rank-2 Kokkos View (rows, dimension)");
  static_assert(std::is_same<typename Points::non_const_value_type, float>::value ||
                    std::is_same<typename Points::non_const_value_type, double>::value,
                "tessera: points hold float or double");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Points::memory_space>::accessible,
                "tessera: the points must be accessible from the execution space");
  (void)fn;
}

/// Index of the first point with a NaN or infinite coordinate (INT_MAX if none).
template <class Points>
struct FirstNonFinitePoint {
  Points points;
  int dim;
  KOKKOS_FUNCTION void operator()(int i, int& first) const {
    for (int c = 0; c < dim; ++c) {
      const double x = static_cast<double>(points(i, c));
      if (!(x - x == 0.0)) {  // NaN - NaN and inf - inf are NaN
        if (i < first) first = i;
        return;
      }
    }
  }
};

}  // namespace Impl
}  // namespace tessera
