// The team tiles of the streamed tensor-core kernels (matrix_sum_cuda.hpp,
// matrix_wide_sum_cuda.hpp, matrix_select_cuda.hpp): a block's batch entry, its outer rows and
// the inner ranges its engine walks, laid out by schedule() (schedule.hpp).
//  - Dense calls (the 1D and 2D schemes): outer rows [t BM, t BM + BM) clipped to the outer
//    extent, and one range, the block's chunk of the inner rows.
//  - Block-sparse calls: a team tile of at most BM outer rows inside one segment
//    (SparseSchedule::tile), which may start on any row (the operand panels keep a tile of
//    padding past their whole tiles), and the segment's inner ranges, touching ranges merged,
//    each walked by the engine from its own first row (its last tile masked past its end, as a
//    2D chunk's).
// Every block computes BM outer rows from o_begin and writes those below o_end.
#pragma once

#include <tessera/genred/impl/schedule.hpp>

namespace tessera {
namespace Impl {

/// The outer rows and inner ranges of one block of a streamed tensor-core kernel.
struct MatrixTeamTile {
  int batch   = 0;  ///< batch entry
  int chunk   = 0;  ///< the 2D scheme's chunk of the inner rows (0 for block-sparse calls)
  int o_begin = 0;  ///< first outer row
  int o_end   = 0;  ///< outer rows [o_begin, o_end) are written
  int l_begin = 0;  ///< block-sparse: the ranges [l_begin, l_end) of SparseSchedule::ranges
  int l_end   = 0;
  int j_begin = 0;  ///< dense: the chunk's inner rows [j_begin, j_end)
  int j_end   = 0;
};

/// The tile of block `league` (without the wide-weights kernel's column blocks) of a kernel
/// scheduled by schedule(): Kernel::is_sparse, Kernel::BM, and the members schedule() sets.
template <class Kernel>
__device__ __forceinline__ MatrixTeamTile matrix_team_tile(const Kernel& k, int league) {
  MatrixTeamTile t;
  if constexpr (Kernel::is_sparse) {
    t.batch            = league / k.tiles_outer;
    const SparseTile s = k.sparse.tile(league - t.batch * k.tiles_outer, Kernel::BM);
    t.o_begin          = s.o_begin;
    t.o_end            = s.o_end;
    t.l_begin          = s.l_begin;
    t.l_end            = s.l_end;
  } else {
    const DenseTile d = dense_tile(league, k.chunks, k.tiles_outer);
    t.batch           = d.batch;
    t.chunk           = d.chunk;
    t.o_begin         = d.tile * Kernel::BM;
    t.o_end           = t.o_begin + Kernel::BM < k.n_outer ? t.o_begin + Kernel::BM : k.n_outer;
    t.j_begin         = d.chunk * k.chunk_rows;
    t.j_end           = t.j_begin + k.chunk_rows < k.n_inner ? t.j_begin + k.chunk_rows : k.n_inner;
  }
  return t;
}

/// Calls walk(j_begin, j_end) for each non-empty inner range of tile t, in order: the dense
/// chunk, or the segment's ranges with touching ones merged. The whole block calls it alike.
template <class Kernel, class Walk>
__device__ __forceinline__ void for_each_inner_range(const Kernel& k, const MatrixTeamTile& t,
                                                     Walk&& walk) {
  if constexpr (Kernel::is_sparse) {
    const int* ranges = k.sparse.ranges;
    for (int l = t.l_begin; l < t.l_end;) {
      const int lo = ranges[2 * l];
      int hi       = ranges[2 * l + 1];
      for (++l; l < t.l_end && ranges[2 * l] == hi; ++l)
        hi = ranges[2 * l + 1];
      if (lo < hi) walk(lo, hi);
    }
  } else {
    if (t.j_begin < t.j_end) walk(t.j_begin, t.j_end);
  }
}

}  // namespace Impl
}  // namespace tessera
