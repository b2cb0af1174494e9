// Sorting a View on an execution space instance, the one place where Kokkos 3.4 and 4 sort
// differently: Kokkos 3.4 sorts only on the View's default instance, Kokkos 4 takes the instance
// (and uses Thrust on CUDA). Apart from core/kokkos_compat.hpp because Kokkos_Sort.hpp costs a
// CUDA translation unit about 9 s of nvcc time (Thrust; measured in perf/README.md, "Compile
// time"), which only the modules that sort should pay.
#pragma once

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

namespace tessera {
namespace Impl {

/// Sorts a rank-1 View of integers in ascending order, ordered with the other work of `space`.
template <class ExecSpace, class View>
void sort_view(const ExecSpace& space, const View& view) {
#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 40000
  Kokkos::sort(space, view);
#else
  space.fence();  // Kokkos 3.4 sorts on the View's default instance
  Kokkos::sort(view);
  Kokkos::fence();
#endif
}

}  // namespace Impl
}  // namespace tessera
