// The point-vector block kernel: out(i, j) = F(x_i, y_j) for a Genred formula F of one i- and
// one j-variable of dimension D and output dimension 1, over one block (laid out in out as a
// BlockStorage says).
//
// A team takes a TILE x TILE tile (TuningBase::pairwise_point_tile), stages its x and y rows in
// scratch (y rows padded to an odd stride, so that the threads of a warp, each on its own y
// row, read different banks) and computes the pairs with consecutive threads on consecutive
// columns: x rows are broadcast and the output rows are written coalesced.
#pragma once

#include <tessera/core/span.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/pcf_kernel.hpp>
#include <tessera/pairwise/matrix_layout.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace tessera {
namespace Impl {

template <class ExecSpace, class T, int D, class F>
struct PointBlockKernel {
  using Member                  = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int TILE     = TuningBase::pairwise_point_tile;
  static constexpr int Y_STRIDE = D % 2 == 0 ? D + 1 : D;

  const T* x;  // the block's rows, D apart
  const T* y;  // the block's columns, D apart
  T* out;      // pair (r, c) of the block at storage.index(r, c)
  BlockStorage storage;
  std::size_t rows, cols, r0, c0;
  int tiles_j;
  int level;  // scratch level: 0 (shared memory) unless the tile does not fit there
  TriangleSkipMode skip;
  F f;

  static std::size_t scratch_bytes() { return sizeof(T) * TILE * (D + Y_STRIDE) + 16; }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const int ti = m.league_rank() / tiles_j, tj = m.league_rank() % tiles_j;
    const std::size_t i0 = std::size_t(ti) * TILE, j0 = std::size_t(tj) * TILE;
    const int nr = rows - i0 < std::size_t(TILE) ? int(rows - i0) : TILE;
    const int nc = cols - j0 < std::size_t(TILE) ? int(cols - j0) : TILE;
    // A tile whose first row and last column (the pair nearest the upper triangle) is skipped
    // computes nothing.
    if (!pair_computed(skip, r0 + i0, c0 + j0 + nc - 1)) return;

    const auto& scratch = m.team_scratch(level);
    T* xs               = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * TILE * D, 16));
    T* ys = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * TILE * Y_STRIDE, 16));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(m, (nr + nc) * D), [&](int e) {
      if (e < nr * D) {
        xs[e] = x[i0 * D + e];
      } else {
        const int k                    = e - nr * D;
        ys[(k / D) * Y_STRIDE + k % D] = y[j0 * D + k];
      }
    });
    m.team_barrier();
    for (int p = m.team_rank(); p < TILE * TILE; p += m.team_size()) {
      const int i = p / TILE, j = p % TILE;
      if (i >= nr || j >= nc || !pair_computed(skip, r0 + i0 + i, c0 + j0 + j)) continue;
      T r = 0;
      f(In<T, D>(xs + i * D, D), In<T, D>(ys + j * Y_STRIDE, D), Out<T, 1>(&r, 1));
      out[storage.index(i0 + i, j0 + j)] = r;
    }
  }
};

/// Launches the point kernel on `space` (asynchronous); see PcfBlockKernel for the arguments.
template <int D, class ExecSpace, class T, class F>
void launch_point_block(const ExecSpace& space, const T* x, const T* y, T* out,
                        const BlockStorage& storage, std::size_t rows, std::size_t cols,
                        std::size_t r0, std::size_t c0, TriangleSkipMode skip, const F& f) {
  if (rows == 0 || cols == 0) return;
  using Kernel            = PointBlockKernel<ExecSpace, T, D, F>;
  using Policy            = Kokkos::TeamPolicy<ExecSpace>;
  const int tiles_j       = int((cols + Kernel::TILE - 1) / Kernel::TILE);
  const std::size_t tiles = ((rows + Kernel::TILE - 1) / Kernel::TILE) * std::size_t(tiles_j);
  const int team          = Tuning<ExecSpace>::pairwise_team_size;
  const int level = Kernel::scratch_bytes() <= std::size_t(Policy::scratch_size_max(0)) ? 0 : 1;
  Kokkos::parallel_for("tessera::pairwise::point_block",
                       Policy(space, int(tiles), team)
                           .set_scratch_size(level, Kokkos::PerTeam(Kernel::scratch_bytes())),
                       Kernel{x, y, out, storage, rows, cols, r0, c0, tiles_j, level, skip, f});
}

}  // namespace Impl
}  // namespace tessera
