// Second kernel of the 2D scheme: folds each output row's per-chunk accumulators (written by
// tiled_reduce.hpp into a buffer of B * rows * chunks accumulators, linear in the output size)
// and writes the final row.
#pragma once

#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/tiled_reduce.hpp>

#include <cstdint>

namespace tessera {
namespace Impl {

template <class T, class Red, class Index>
struct CombinePartials {
  Red red;
  PartialBuffer<T> partial;
  OutputAccess<T, Index> out;
  int n_outer;
  int chunks;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r) const {
    const int b         = static_cast<int>(r / n_outer);
    const int o         = static_cast<int>(r - static_cast<std::int64_t>(b) * n_outer);
    const AccRef<T> acc = partial.row(r * chunks);
    for (int c = 1; c < chunks; ++c)
      red.combine(acc, partial.row(r * chunks + c));
    red.finalize(acc, out.row(b, o));
  }
};

}  // namespace Impl
}  // namespace tessera
