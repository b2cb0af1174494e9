// The columns of a cluster mask that keep a pair (the clusters of the reduced cloud some of a
// rank's clusters need), and those columns side by side: the kernels with which a distributed
// block-sparsity pattern (mpi/block_sparse.hpp) drops the clusters no pair keeps.
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {
namespace mpi {
namespace Impl {

/// Whether each column of a (rows, cols) mask holds a kept pair.
template <class ExecSpace, class Mask>
Kokkos::View<int*, typename ExecSpace::memory_space> kept_columns(const ExecSpace& space,
                                                                  const Mask& mask) {
  const int rows = static_cast<int>(mask.extent(0));
  Kokkos::View<int*, typename ExecSpace::memory_space> kept("tessera::mpi::kept_columns",
                                                            mask.extent(1));
  Kokkos::parallel_for(
      "tessera::mpi::kept_columns",
      Kokkos::RangePolicy<ExecSpace>(space, 0, static_cast<int>(mask.extent(1))),
      KOKKOS_LAMBDA(int b) {
        int any = 0;
        for (int a = 0; a < rows && !any; ++a)
          any = mask(a, b) ? 1 : 0;
        kept(b) = any;
      });
  return kept;
}

/// The kept columns of a (rows, cols) mask, side by side: out(a, c) = mask(a, columns(c)), or
/// out(c, a) when `transposed`.
template <class ExecSpace, class Mask, class Columns>
Kokkos::View<bool**, typename ExecSpace::memory_space> mask_columns(const ExecSpace& space,
                                                                    const Mask& mask,
                                                                    const Columns& columns,
                                                                    bool transposed) {
  const long rows = static_cast<long>(mask.extent(0)), cols = static_cast<long>(columns.extent(0));
  Kokkos::View<bool**, typename ExecSpace::memory_space> out(
      "tessera::mpi::kept_mask", transposed ? cols : rows, transposed ? rows : cols);
  Kokkos::parallel_for(
      "tessera::mpi::kept_mask",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0}, {rows, cols}),
      KOKKOS_LAMBDA(long a, long c) {
        if (transposed) {
          out(c, a) = mask(a, columns(c));
        } else {
          out(a, c) = mask(a, columns(c));
        }
      });
  return out;
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
