// Second kernel of the 2D scheme: folds each output row's per-chunk accumulators (written by
// tiled_reduce.hpp into a buffer of B * rows * chunks accumulators, linear in the output size)
// and writes the final row.
#pragma once

#include <tessera/genred/impl/output_access.hpp>
#include <tessera/genred/impl/reducers.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {
namespace Impl {

/// Out: the kernel's OutputAccess (its index and values storage types).
template <class T, class Red, class Out>
struct CombinePartials {
  Red red;
  PartialBuffer<T> partial;
  Out out;
  int n_outer;
  int chunks;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r) const {
    const int b         = static_cast<int>(r / n_outer);
    const int o         = static_cast<int>(r - static_cast<std::int64_t>(b) * n_outer);
    const AccRef<T> acc = partial.row(b, o, n_outer, chunks, 0);
    for (int c = 1; c < chunks; ++c)
      red.combine(acc, partial.row(b, o, n_outer, chunks, c));
    red.finalize(acc, out.row(b, o));
  }
};

/// The second kernel of the 2D scheme: folds each output row's chunk accumulators.
template <class ExecSpace, class Kernel>
void combine_chunks(const ExecSpace& space, const Kernel& k, std::size_t batch) {
  if (k.chunks <= 1) return;
  CombinePartials<typename Kernel::scalar_type, typename Kernel::reducer_type, decltype(k.out)>
      combine{k.red, k.partial, k.out, k.n_outer, k.chunks};
  Kokkos::parallel_for("tessera::genred::combine_2d",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                           space, 0, static_cast<std::int64_t>(batch * k.n_outer)),
                       combine);
}

}  // namespace Impl
}  // namespace tessera
