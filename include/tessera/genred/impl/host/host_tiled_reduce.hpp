// The host Genred kernel: the tiled map-reduce laid out for a CPU core rather than a GPU team.
//
// The portable kernel gives each one-thread team one outer row and evaluates F pair by pair,
// with the reduction's branches and the formula's scalar exp in between: nothing vectorises.
// Here each team (one thread) owns a block of R outer rows, held in registers, and walks its
// list of reduced-index ranges: [0, n_inner) for a dense call, the j-ranges of its segment for a
// block-sparse one (the block then lies inside one segment: the pattern's team tables for
// tiles of R rows). The reduced index is cut into tiles of TJ rows:
//  1. the inner rows were staged once per call (a separate kernel) into a transposed buffer,
//     tile by tile, component by component: staged[((b * tiles + t) * IW + c) * TJ + jj],
//     the last tile padded with copies of the last row;
//  2. for each piece of a range inside one tile, F is evaluated for the R outer rows against
//     the piece's staged rows, widened to whole groups of L rows, in one loop that the compiler
//     vectorises across rows (the formula inlined, its exp the vectorisable one of
//     core/impl/host_exp.hpp), into f[(r * FD + c) * TJ + jj]; a dense call's pieces are whole
//     tiles. Radial kernels, squared distances and dot products of enough components
//     (Tuning::genred_host_blocked_min_dim*) first sum their pairs' D components as a
//     small matrix product, R x L sums in registers (host_blocked_pairs.hpp), then finish the
//     values in the vectorised loop;
//  3. each outer row's values of the piece are folded into its accumulator in vector lanes
//     (host_fold.hpp).
// The staged tile and the values stay in L1 (Tuning::genred_host_tile_bytes). Blocks are spread
// over the execution space's threads as a TeamPolicy of one-thread teams, whose scratch memory
// holds the values and the accumulators. The kernel is host code only (it calls host_fold.hpp's
// functions and core/impl/host_exp.hpp through them).
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/impl/host/host_blocked_pairs.hpp>
#include <tessera/genred/impl/host/host_fold.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/tiled_reduce.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>

namespace tessera {
namespace Impl {

/// The host kernel of a call (see the file comment), block-sparse if Sparse. Body provides the
/// formula, the reducer, the variables, the outputs and their row loading (converting between
/// the Views' types, Storage, and the compute type T).
template <class ExecSpace, class T, class Formula, class Red, bool OuterIsI, class Index,
          bool Sparse, class Storage>
struct HostTiledReduce {
  using Body        = TiledReduce<ExecSpace, T, Formula, Red, OuterIsI, Index, false, 1, Storage>;
  using P           = Tuning<ExecSpace>;
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  struct StageTag {};

  static constexpr int L  = P::genred_host_lane_bytes / static_cast<int>(sizeof(T));
  static constexpr int R  = P::genred_host_rows;
  static constexpr int OW = Body::OW;
  static constexpr int IW = Body::IW;
  static constexpr int FD = Body::FD;
  static constexpr int PW = Body::PG::static_width;
  /// Whether the kernel takes calls of this type: every width known at compile time.
  static constexpr bool takes = OW > 0 && IW > 0 && FD > 0 && PW >= 0;
  // Array extents (at least 1: the members are declared for the types that are not taken too).
  static constexpr int OWA = OW > 0 ? OW : 1;
  static constexpr int IWA = IW > 0 ? IW : 1;
  static constexpr int FDA = FD > 0 ? FD : 1;
  static constexpr int PWA = PW > 0 ? PW : 1;
  /// The pairs' first components summed as a matrix product (host_blocked_pairs.hpp), or 0.
  using Pairs = BlockedPairs<Formula>;
  static constexpr int BD =
      PW == 0 && Pairs::dim >= (Pairs::radial ? P::genred_host_blocked_min_dim
                                              : P::genred_host_blocked_min_dim_point_pairs)
          ? Pairs::dim
          : 0;
  static_assert((R & (R - 1)) == 0,
                "tessera::genred: genred_host_rows must be a power of two "
                "(the block-sparse team tables' tile heights)");

  /// Rows per tile, a multiple of L: the staged rows and the R rows of values of a tile take
  /// Tuning::genred_host_tile_bytes. A compile-time constant, so that the compiler sees the
  /// columns of a tile at fixed distances (gcc does not vectorise accesses at run-time multiples
  /// of one stride from one base).
  static constexpr int TJ =
      std::max(P::genred_host_tile_bytes /
                   ((std::max(IW, 1) + R * std::max(FD, 1)) * static_cast<int>(sizeof(T))) / L * L,
               L);

  Body body;
  int tiles;   // ceil(n_inner / TJ)
  int blocks;  // per batch entry: ceil(n_outer / R), or the pattern's tiles of R rows
  int scratch_level;
  Kokkos::View<T*, typename ExecSpace::memory_space> staged;
  SparseSchedule sparse;  // block-sparse only

  /// Scratch bytes of one team: the values of a tile and R accumulators.
  std::size_t scratch_bytes() const {
    return buffer_bytes<T>(R * FD * TJ) + buffer_bytes<T>(R * body.red.acc_values()) +
           buffer_bytes<int>(R * body.red.acc_indices());
  }

  /// Stages tile bt = b * tiles + t of the inner rows (step 1 of the file comment).
  void operator()(StageTag, int bt) const {
    const int b = bt / tiles;
    const int t = bt - b * tiles;
    T* dst      = staged.data() + static_cast<std::size_t>(bt) * IW * TJ;
    for (int jj = 0; jj < TJ; ++jj) {
      T row[IWA];
      body.load_inner_row(b, std::min(t * TJ + jj, body.n_inner - 1), row);
      for (int c = 0; c < IW; ++c)
        dst[c * TJ + jj] = row[c];
    }
  }

  /// F of the R outer rows against rows [begin, end) of a staged tile (step 2).
  TESSERA_HOST_INLINE void evaluate(const T* prow, const T (&outer)[R][OWA], const T* tile,
                                    int begin, int end, T* f) const {
    if constexpr (BD > 0) {
      blocked_sums(outer, tile, begin, end, f);
      finish_blocked(outer, tile, begin, end, f);
      return;
    }
    TESSERA_INDEPENDENT
    for (int jj = begin; jj < end; ++jj) {
      T inner[IWA];
      for (int c = 0; c < IW; ++c)
        inner[c] = tile[c * TJ + jj];
      for (int r = 0; r < R; ++r) {
        T value[FDA];
        body.eval(prow, outer[r], inner, value);
        for (int c = 0; c < FD; ++c)
          f[(r * FD + c) * TJ + jj] = value[c];
      }
    }
  }

  /// sum_{k < BD} term(outer[r][k], tile[k * TJ + jj]) for the R outer rows and the tile rows
  /// [begin, end) (whole groups of L) into f[r * FD * TJ + jj]: a matrix product with k
  /// outermost, its R x L sums held in registers.
  TESSERA_HOST_INLINE void blocked_sums(const T (&outer)[R][OWA], const T* tile, int begin, int end,
                                        T* f) const {
    for (int j0 = begin; j0 < end; j0 += L) {
      T sum[R][L] = {};
      for (int k = 0; k < BD; ++k) {
        const T* n = tile + k * TJ + j0;
        for (int r = 0; r < R; ++r) {
          const T o = outer[r][k];
          for (int l = 0; l < L; ++l) {
            if constexpr (Pairs::difference) {
              sum[r][l] += (o - n[l]) * (o - n[l]);
            } else {
              sum[r][l] += o * n[l];
            }
          }
        }
      }
      for (int r = 0; r < R; ++r)
        for (int l = 0; l < L; ++l)
          f[r * FD * TJ + j0 + l] = sum[r][l];
    }
  }

  /// The values F of the sums in f (blocked_sums) and the rows' other components, in place.
  TESSERA_HOST_INLINE void finish_blocked(const T (&outer)[R][OWA], const T* tile, int begin,
                                          int end, T* f) const {
    constexpr int tail = IW - BD > 0 ? IW - BD : 1;
    for (int r = 0; r < R; ++r) {
      const T* outer_tail = outer[r] + BD;
      TESSERA_INDEPENDENT
      for (int jj = begin; jj < end; ++jj) {
        T inner_tail[tail];
        for (int c = BD; c < IW; ++c)
          inner_tail[c - BD] = tile[c * TJ + jj];
        T value[FDA];
        Pairs::finish(body.formula, f[r * FD * TJ + jj], OuterIsI ? outer_tail : inner_tail,
                      OuterIsI ? inner_tail : outer_tail, value);
        for (int c = 0; c < FD; ++c)
          f[(r * FD + c) * TJ + jj] = value[c];
      }
    }
  }

  /// Reduced-index range l of the block's list: [0, n_inner) for a dense call (l = 0).
  TESSERA_HOST_INLINE int range_begin(int l) const { return Sparse ? sparse.ranges[2 * l] : 0; }
  TESSERA_HOST_INLINE int range_end(int l) const {
    return Sparse ? sparse.ranges[2 * l + 1] : body.n_inner;
  }

  /// The block of R outer rows of one team: rows [o0, o0 + rows_o), ranges [l_begin, l_end).
  TESSERA_HOST_CLONES void operator()(const member_type& team) const {
    const Red& red = body.red;
    const int b    = team.league_rank() / blocks;
    const int t    = team.league_rank() - b * blocks;
    int o0 = t * R, o_end = std::min(o0 + R, body.n_outer), l_begin = 0, l_end = 1;
    if constexpr (Sparse) {
      const SparseTile tile = sparse.tile(t, R);
      o0                    = tile.o_begin;
      o_end                 = tile.o_end;
      l_begin               = tile.l_begin;
      l_end                 = tile.l_end;
    }
    const int rows_o = o_end - o0;  // rows past o_end compute on a copy of the last row
    auto& scratch    = team.team_scratch(scratch_level);
    T* f             = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * R * FD * TJ, 64));
    T* acc_values    = static_cast<T*>(
        scratch.get_shmem_aligned(sizeof(T) * std::max(R * red.acc_values(), 1), 16));
    int* acc_indices = static_cast<int*>(
        scratch.get_shmem_aligned(sizeof(int) * std::max(R * red.acc_indices(), 1), 16));

    T prow[PWA];
    if constexpr (PW > 0) body.params.load_row(b, 0, prow);
    T outer[R][OWA];
    AccRef<T> acc[R];
    typename Red::Filter filter[R];
    for (int r = 0; r < R; ++r) {
      body.load_outer_row(b, std::min(o0 + r, o_end - 1), outer[r]);
      acc[r] = {acc_values + r * red.acc_values(), acc_indices + r * red.acc_indices()};
      red.init(acc[r]);
      if constexpr (Red::has_filter) {
        red.load_filter(acc[r], filter[r]);
        red.lower_filter(filter[r], b, std::min(o0 + r, o_end - 1));
      }
    }
    for (int l = l_begin; l < l_end; ++l) {
      const int j_end = range_end(l);
      // pieces [j0 + lo, j0 + hi) of the range, one per tile t; F on whole groups of L rows
      // (TJ is a multiple of L: the groups stay inside the tile)
      for (int j = range_begin(l); j < j_end;) {
        const int t   = j / TJ;
        const int j0  = t * TJ;
        const int lo  = Sparse ? j - j0 : 0;  // a dense call's pieces are whole tiles
        const int hi  = std::min(j_end - j0, TJ);
        const T* tile = staged.data() + (static_cast<std::size_t>(b) * tiles + t) * IW * TJ;
        evaluate(prow, outer, tile, lo / L * L, (hi + L - 1) / L * L, f);
        for (int r = 0; r < rows_o; ++r)
          fold_tile<L>(red, acc[r], filter[r], f + r * FD * TJ + lo, TJ, hi - lo, j0 + lo);
        j = j0 + hi;
      }
    }
    for (int r = 0; r < rows_o; ++r)
      red.finalize(acc[r], body.out.row(b, o0 + r));
  }
};

/// Runs a dense or block-sparse call through the host kernel; returns false, having run
/// nothing, when the kernel does not take it (run-time widths, an explicit 2D scheme). Scheme::
/// automatic is the 1D scheme on host spaces (schedule.hpp), which this kernel is, and the only
/// scheme of block-sparse calls. No fence.
template <bool OuterIsI, class ExecSpace, class Call, class Red>
bool launch_host(const ExecSpace& space, const Call& call, const Red& red) {
  using T = typename Call::scalar_type;
  using Kernel =
      HostTiledReduce<ExecSpace, T, typename Call::formula_type, Red, OuterIsI,
                      typename Call::index_type, Call::sparse, typename Call::storage_type>;
  if constexpr (!Kernel::takes) {
    return false;
  } else {
    const std::size_t batch = call.shape.batch;
    if (call.options.scheme == Scheme::tiled_2d) return false;
    Kernel k{{call.formula, red, call.params, call.ivars, call.jvars, call.formula_dim}};
    k.body.n_outer = call.template n_outer<OuterIsI>();
    k.body.n_inner = call.template n_inner<OuterIsI>();
    k.body.out     = output_access<T, typename Call::index_type>(call.outputs);
    k.tiles        = (k.body.n_inner + k.TJ - 1) / k.TJ;
    if constexpr (Call::sparse) {
      k.sparse = sparse_schedule<OuterIsI>(call.sparsity, Kernel::R);
      k.blocks = k.sparse.tiles;
    } else {
      k.blocks = (k.body.n_outer + Kernel::R - 1) / Kernel::R;
    }
    require_league(batch * static_cast<std::size_t>(k.blocks), "batch * row blocks");
    k.staged = Kokkos::View<T*, typename ExecSpace::memory_space>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::genred::host_staged_rows"),
        batch * k.tiles * Kernel::IW * k.TJ);
    Kokkos::parallel_for("tessera::genred::host_stage",
                         Kokkos::RangePolicy<ExecSpace, typename Kernel::StageTag>(
                             space, 0, static_cast<int>(batch) * k.tiles),
                         k);
    using Policy            = Kokkos::TeamPolicy<ExecSpace>;
    const std::size_t bytes = k.scratch_bytes();
    k.scratch_level = bytes <= static_cast<std::size_t>(Policy::scratch_size_max(0)) ? 0 : 1;
    Policy policy(space, static_cast<int>(k.blocks * batch), 1);
    policy.set_scratch_size(k.scratch_level, Kokkos::PerTeam(bytes));
    Kokkos::parallel_for(
        Call::sparse ? "tessera::genred::block_sparse_1d_host" : "tessera::genred::tiled_1d_host",
        policy, k);
    return true;
  }
}

}  // namespace Impl
}  // namespace tessera
