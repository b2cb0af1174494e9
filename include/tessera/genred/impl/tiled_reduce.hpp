// The kernel body behind the Genred schemes (KeOps GpuConv1D, generalised), shared by the
// portable TeamPolicy path and the CUDA path (cuda_tiled_reduce.hpp).
//
// A team owns a tile of outer rows, RowsPerThread per thread, and a set of reduced-index
// ranges. Each thread keeps its outer rows and their accumulators in registers (in per-thread
// scratch when sizes are only known at run time); the team stages tiles of `tile_j` inner rows
// in scratch level 0 (CUDA shared memory), then every thread folds F(p, x_i, y_j) over each
// staged row for each of its outer rows, so one scratch read feeds RowsPerThread evaluations.
//  - Dense (1D/2D schemes): the tile is rows [t * tile_rows, ...) of [0, n_outer) and the range
//    is one chunk of the reduced index. With one chunk (1D) the thread writes its final output
//    rows; with several (2D) it writes its accumulators to a partial buffer that
//    combine_partials.hpp reduces.
//  - Block-sparse: the tile lies inside one outer segment and the ranges are the segment's
//    inner ranges. Staged tiles are packed across ranges (a tile may hold the end of one range
//    and the start of the next), so short or unaligned ranges still fill whole tiles and no
//    pair is tested against a mask.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/impl/genred_call.hpp>
#include <tessera/genred/impl/output_access.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/var_group.hpp>
#include <tessera/genred/variables.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace tessera {
namespace Impl {

/// The Kokkos Tools name of a tiled-reduce launch: block-sparse, chunked (the 2D scheme) or
/// dense 1D, through the portable kernel or the hand-written CUDA one.
inline const char* tiled_reduce_label(bool sparse, bool chunked, bool cuda) {
  if (sparse)
    return cuda ? "tessera::genred::block_sparse_1d_cuda" : "tessera::genred::block_sparse_1d";
  if (chunked) return cuda ? "tessera::genred::tiled_2d_cuda" : "tessera::genred::tiled_2d";
  return cuda ? "tessera::genred::tiled_1d_cuda" : "tessera::genred::tiled_1d";
}

/// Round a packed row width up so that staged rows start on 16-byte boundaries.
template <class T>
KOKKOS_INLINE_FUNCTION constexpr int padded_width(int w) {
  constexpr int v = 16 / static_cast<int>(sizeof(T));
  return w <= 2 ? w : (w + v - 1) / v * v;
}

/// Copies a staged row of static width W (a multiple of 16 bytes, 16-byte aligned) into
/// registers with 16-byte loads: one shared-memory instruction per 16 bytes on GPUs.
template <class T, int W>
KOKKOS_INLINE_FUNCTION void copy_row_16(const T* src, T* dst) {
  constexpr int per = 16 / static_cast<int>(sizeof(T));
  struct alignas(16) Chunk {
    T v[per];
  };
  const Chunk* chunks = reinterpret_cast<const Chunk*>(src);
  for (int c = 0; c < W / per; ++c) {
    const Chunk ch = chunks[c];
    for (int e = 0; e < per; ++e)
      dst[c * per + e] = ch.v[e];
  }
}

/// Bytes of a per-thread or per-team buffer of n scalars, with alignment slack.
template <class S>
KOKKOS_INLINE_FUNCTION constexpr std::size_t buffer_bytes(int n) {
  return n > 0 ? static_cast<std::size_t>(n) * sizeof(S) + 16 : 0;
}

/// A bump allocator over one thread's scratch buffer (8-byte aligned pieces).
struct ThreadBuffer {
  unsigned char* next;
  template <class S>
  KOKKOS_INLINE_FUNCTION S* take(int n) {
    const auto p = reinterpret_cast<std::uintptr_t>(next);
    S* out       = reinterpret_cast<S*>((p + 7) / 8 * 8);
    next         = reinterpret_cast<unsigned char*>(out + n);
    return out;
  }
};

/// The tiled map-reduce kernel. A team of `team_size` threads owns a tile of
/// `team_size * RowsPerThread` outer rows: thread t holds rows t, t + team_size, ... of the tile.
/// run() is the whole kernel body for any team type offering team_rank(), team_size() and
/// team_barrier(): a Kokkos team member (operator(), the portable path) or a CUDA thread block.
/// Storage: the CallStorage of the call's Views (genred_call.hpp); rows are converted to the
/// compute type T as they load, values rounded to the output's type as they are written.
template <class ExecSpace, class T, class Formula, class Red, bool OuterIsI, class Index,
          bool Sparse = false, int RowsPerThread = 1, class Storage = ComputeStorage<T, Formula>>
struct TiledReduce {
  template <bool ISide>
  KOKKOS_INLINE_FUNCTION static constexpr int staged_width() {
    if constexpr (has_staging<Formula>) {
      return ISide ? Formula::staged_i_width : Formula::staged_j_width;
    } else {
      return StaticWidth<
          std::conditional_t<ISide, typename Formula::i_dims, typename Formula::j_dims>>::value;
    }
  }

  using member_type  = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using PG           = typename Storage::params_group;
  using IG           = typename Storage::i_group;
  using JG           = typename Storage::j_group;
  using OuterG       = std::conditional_t<OuterIsI, IG, JG>;
  using InnerG       = std::conditional_t<OuterIsI, JG, IG>;
  using scalar_type  = T;  // not value_type: Kokkos would read that as a reduction type
  using reducer_type = Red;
  using index_type   = Index;

  static constexpr bool outer_is_i = OuterIsI;
  static constexpr bool is_sparse  = Sparse;
  static constexpr bool staged     = has_staging<Formula>;  // rows go through stage_i/stage_j
  static constexpr int R           = RowsPerThread;
  static constexpr int FD          = Formula::out_dim;
  // Widths of a thread's outer row and of a staged inner row: the formula's staged widths for
  // staged formulas, the packed variable widths otherwise.
  static constexpr int OW = staged_width<OuterIsI>();
  static constexpr int IW = staged_width<!OuterIsI>();
  static_assert(!staged || (OuterG::static_width > 0 && InnerG::static_width > 0),
                "tessera::genred: a staged formula needs compile-time dimensions");
  static constexpr int SV = Red::static_acc_values;
  static constexpr int SI = Red::static_acc_indices;
  // Static stride of a staged inner row; rows of whole 16-byte chunks are read vectorised.
  static constexpr int IS           = IW >= 0 ? padded_width<T>(IW) : dynamic_extent;
  static constexpr bool vector_rows = IS > 0 && (IS * static_cast<int>(sizeof(T))) % 16 == 0;

  Formula formula;
  Red red;
  PG params;
  IG ivars;
  JG jvars;
  int formula_dim;  // run-time output dimension of the formula
  int n_outer;      // rows of the outer (output) index
  int n_inner;      // rows of the reduced index
  int tiles_outer;  // ceil(n_outer / tile_rows())
  int team_size;
  int tile_j;
  int chunks;      // reduced-range chunks (1: 1D scheme)
  int chunk_rows;  // reduced rows per chunk (the last chunk may be shorter)
  int thread_scratch_level;
  int team_scratch_level = 0;  // 1 when one staged row does not fit level 0 (portable path)
  OutputAccess<T, Index, typename Storage::values_type> out;
  PartialBuffer<T> partial;
  SparseSchedule sparse;  // block-sparse only

  KOKKOS_INLINE_FUNCTION const OuterG& outer() const {
    if constexpr (OuterIsI) {
      return ivars;
    } else {
      return jvars;
    }
  }
  KOKKOS_INLINE_FUNCTION const InnerG& inner() const {
    if constexpr (OuterIsI) {
      return jvars;
    } else {
      return ivars;
    }
  }
  /// Scalars of a staged inner row, and of one outer row in a thread's state.
  KOKKOS_INLINE_FUNCTION int inner_width() const { return IW >= 0 ? IW : inner().width(); }
  KOKKOS_INLINE_FUNCTION int outer_width() const { return OW >= 0 ? OW : outer().width(); }
  KOKKOS_INLINE_FUNCTION int inner_stride() const { return padded_width<T>(inner_width()); }
  /// Outer rows per team tile.
  KOKKOS_INLINE_FUNCTION int tile_rows() const { return team_size * R; }

  // ---- scratch sizes
  KOKKOS_INLINE_FUNCTION std::size_t tile_bytes() const {
    return buffer_bytes<T>(tile_j * inner_stride());
  }
  KOKKOS_INLINE_FUNCTION std::size_t team_scratch_bytes() const {
    return tile_bytes() + buffer_bytes<T>(params.width() + 1);
  }
  /// Per-thread buffers for the sizes known only at run time (0 when all are static).
  KOKKOS_INLINE_FUNCTION std::size_t thread_scratch_bytes() const {
    std::size_t bytes = 0;
    if (OW < 0) bytes += buffer_bytes<T>(R * outer_width());
    if (FD < 0) bytes += buffer_bytes<T>(formula_dim);
    if (SV < 0) bytes += buffer_bytes<T>(R * red.acc_values());
    if (SI < 0) bytes += buffer_bytes<int>(R * red.acc_indices());
    return bytes;
  }

  // ---- formula evaluation: arguments in the order params, i-variables, j-variables, output
  template <std::size_t... P, std::size_t... I, std::size_t... J>
  KOKKOS_INLINE_FUNCTION void eval_impl(const T* prow, const T* irow, const T* jrow, T* f,
                                        std::index_sequence<P...>, std::index_sequence<I...>,
                                        std::index_sequence<J...>) const {
    formula(params.template span<static_cast<int>(P)>(prow)...,
            ivars.template span<static_cast<int>(I)>(irow)...,
            jvars.template span<static_cast<int>(J)>(jrow)..., Out<T, FD>(f, formula_dim));
  }
  template <std::size_t... P>
  KOKKOS_INLINE_FUNCTION void eval_staged_impl(const T* prow, const T* irow, const T* jrow, T* f,
                                               std::index_sequence<P...>) const {
    formula.eval_staged(params.template span<static_cast<int>(P)>(prow)...,
                        In<T, staged_width<true>()>(irow, staged_width<true>()),
                        In<T, staged_width<false>()>(jrow, staged_width<false>()),
                        Out<T, FD>(f, formula_dim));
  }
  KOKKOS_INLINE_FUNCTION void eval(const T* prow, const T* outer_row, const T* inner_row,
                                   T* f) const {
    const T* irow = OuterIsI ? outer_row : inner_row;
    const T* jrow = OuterIsI ? inner_row : outer_row;
    if constexpr (staged) {
      eval_staged_impl(prow, irow, jrow, f, std::make_index_sequence<PG::count>());
    } else {
      eval_impl(prow, irow, jrow, f, std::make_index_sequence<PG::count>(),
                std::make_index_sequence<IG::count>(), std::make_index_sequence<JG::count>());
    }
  }

  // ---- loading rows: packed as they are, or staged by the formula
  /// One thread loads (and stages) outer row o of batch b into dst.
  KOKKOS_INLINE_FUNCTION void load_outer_row(int b, int o, T* dst) const {
    if constexpr (staged) {
      T raw[OuterG::static_width];
      outer().load_row(b, o, raw);
      if constexpr (OuterIsI) {
        formula.stage_i(raw, dst);
      } else {
        formula.stage_j(raw, dst);
      }
    } else {
      outer().load_row(b, o, dst);
    }
  }
  /// One thread loads (and stages) inner row r of batch b into dst (static widths only).
  KOKKOS_INLINE_FUNCTION void load_inner_row(int b, int r, T* dst) const {
    if constexpr (staged) {
      T raw[InnerG::static_width];
      inner().load_row(b, r, raw);
      if constexpr (OuterIsI) {
        formula.stage_j(raw, dst);
      } else {
        formula.stage_i(raw, dst);
      }
    } else {
      inner().load_row(b, r, dst);
    }
  }
  /// The team loads (and stages) inner rows [r0, r0 + rows) of batch b into dst, one row per
  /// inner_stride() scalars.
  template <class Team>
  KOKKOS_INLINE_FUNCTION void load_inner_tile(const Team& team, int b, int r0, int rows,
                                              T* dst) const {
    if constexpr (staged) {
      for (int r = team.team_rank(); r < rows; r += team.team_size())
        load_inner_row(b, r0 + r, dst + r * IS);
    } else {
      inner().load_tile(team, b, r0, rows, inner_stride(), dst);
    }
  }

  /// A thread's outer rows, accumulators and formula output: registers when sizes are static
  /// (the local arrays, indexed by unrolled constants), the thread's scratch buffer otherwise.
  struct ThreadState {
    T outer_local[R][OW > 0 ? OW : 1];
    T f_local[FD > 0 ? FD : 1];
    T acc_v_local[R][SV > 0 ? SV : 1];
    int acc_i_local[R][SI > 0 ? SI : 1];
    typename Red::Filter filter[R];  // admission filters (KMin family)
    T* outer_dyn   = nullptr;
    T* f_dyn       = nullptr;
    T* acc_v_dyn   = nullptr;
    int* acc_i_dyn = nullptr;
  };

  KOKKOS_INLINE_FUNCTION void bind(ThreadState& s, unsigned char* thread_buf) const {
    ThreadBuffer buf{thread_buf};
    if constexpr (OW < 0) s.outer_dyn = buf.take<T>(R * outer_width());
    if constexpr (SV < 0) s.acc_v_dyn = buf.take<T>(R * red.acc_values());
    if constexpr (SI < 0) s.acc_i_dyn = buf.take<int>(R * red.acc_indices());
    if constexpr (FD < 0) s.f_dyn = buf.take<T>(formula_dim);
  }
  KOKKOS_FORCEINLINE_FUNCTION T* outer_row(ThreadState& s, int r) const {
    if constexpr (OW >= 0) {
      return s.outer_local[r];
    } else {
      return s.outer_dyn + r * outer_width();
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION T* f_buf(ThreadState& s) const {
    if constexpr (FD >= 0) {
      return s.f_local;
    } else {
      return s.f_dyn;
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION AccRef<T> acc(ThreadState& s, int r) const {
    AccRef<T> a;
    if constexpr (SV >= 0) {
      a.val = s.acc_v_local[r];
    } else {
      a.val = s.acc_v_dyn + r * red.acc_values();
    }
    if constexpr (SI >= 0) {
      a.idx = s.acc_i_local[r];
    } else {
      a.idx = s.acc_i_dyn + r * red.acc_indices();
    }
    return a;
  }

  /// Folds F over `rows` staged inner rows whose reduced indices are j_first, j_first + 1, ...
  KOKKOS_FORCEINLINE_FUNCTION void fold_staged(const T* staged, int rows, int j_first,
                                               const T* prow, ThreadState& s) const {
    // one pointer walks the rows: a single address increment per unrolled group of rows
    const int step = vector_rows ? IS : inner_stride();
    const T* row   = staged;
    TESSERA_UNROLL(4)
    for (int jj = 0; jj < rows; ++jj, row += step) {
      T inner_local[vector_rows ? IS : 1];
      const T* inner_row = row;
      if constexpr (vector_rows) {
        copy_row_16<T, IS>(row, inner_local);
        inner_row = inner_local;
      }
      TESSERA_UNROLL_FULL
      for (int r = 0; r < R; ++r) {
        T* f = f_buf(s);
        eval(prow, outer_row(s, r), inner_row, f);
        if constexpr (Red::has_filter) {
          red.add_filtered(acc(s, r), s.filter[r], f, j_first + jj);
        } else {
          red.add(acc(s, r), f, j_first + jj);
        }
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void end_tile(ThreadState& s) const {
    TESSERA_UNROLL_FULL
    for (int r = 0; r < R; ++r)
      red.end_tile(acc(s, r));
  }

  /// Dense: tiles of the contiguous range [j_begin, j_end).
  template <class Team>
  KOKKOS_FORCEINLINE_FUNCTION void fold_range(const Team& team, int b, int j_begin, int j_end,
                                              bool active, T* tile_buf, const T* prow,
                                              ThreadState& s) const {
    for (int j0 = j_begin; j0 < j_end; j0 += tile_j) {
      const int rows = j_end - j0 < tile_j ? j_end - j0 : tile_j;
      team.team_barrier();  // the previous tile has been consumed
      load_inner_tile(team, b, j0, rows, tile_buf);
      team.team_barrier();  // the tile is complete
      if (active) {
        fold_staged(tile_buf, rows, j0, prow, s);
        end_tile(s);
      }
    }
  }

  /// Block-sparse: the ranges [l_begin, l_end) of sparse.ranges, packed into staged tiles. Every
  /// thread walks the same cursor (range l, row j), so the team agrees on each tile's pieces.
  template <class Team>
  KOKKOS_FORCEINLINE_FUNCTION void fold_ranges(const Team& team, int b, int l_begin, int l_end,
                                               bool active, T* tile_buf, const T* prow,
                                               ThreadState& s) const {
    const int stride  = inner_stride();
    const int* ranges = sparse.ranges;
    int l = l_begin, j = l < l_end ? ranges[2 * l] : 0;
    while (l < l_end && j >= ranges[2 * l + 1]) {  // skip empty ranges
      if (++l < l_end) j = ranges[2 * l];
    }
    while (l < l_end) {
      team.team_barrier();  // the previous tile has been consumed
      int filled = 0, lw = l, jw = j;
      while (filled < tile_j && lw < l_end) {
        const int take =
            ranges[2 * lw + 1] - jw < tile_j - filled ? ranges[2 * lw + 1] - jw : tile_j - filled;
        load_inner_tile(team, b, jw, take, tile_buf + filled * stride);
        filled += take;
        jw += take;
        while (lw < l_end && jw >= ranges[2 * lw + 1]) {
          if (++lw < l_end) jw = ranges[2 * lw];
        }
      }
      team.team_barrier();  // the tile is complete
      if (active) {
        for (int pos = 0; pos < filled;) {
          const int take =
              ranges[2 * l + 1] - j < filled - pos ? ranges[2 * l + 1] - j : filled - pos;
          fold_staged(tile_buf + pos * stride, take, j, prow, s);
          pos += take;
          j += take;
          while (l < l_end && j >= ranges[2 * l + 1]) {
            if (++l < l_end) j = ranges[2 * l];
          }
        }
        end_tile(s);
      }
      l = lw;
      j = jw;
    }
  }

  /// The kernel body for team `league` of any team type; `tile_buf` and `prow` point to team
  /// scratch of team_scratch_bytes(), `thread_buf` to this thread's thread_scratch_bytes().
  template <class Team>
  KOKKOS_INLINE_FUNCTION void run(const Team& team, int league, T* tile_buf, T* prow,
                                  unsigned char* thread_buf) const {
    int b, o_begin, o_end, chunk = 0, l_begin = 0, l_end = 0;
    if constexpr (Sparse) {
      b                  = league / tiles_outer;
      const SparseTile t = sparse.tile(league - b * tiles_outer, tile_rows());
      o_begin            = t.o_begin;
      o_end              = t.o_end;
      l_begin            = t.l_begin;
      l_end              = t.l_end;
    } else {
      const DenseTile t = dense_tile(league, chunks, tiles_outer);
      b                 = t.batch;
      chunk             = t.chunk;
      o_begin           = t.tile * tile_rows();
      o_end             = o_begin + tile_rows() < n_outer ? o_begin + tile_rows() : n_outer;
    }
    // Row r of this thread is o0 + r * team_size; rows past o_end compute on a copy of the
    // last row and are not written.
    const int o0      = o_begin + team.team_rank();
    const bool active = o0 < o_end;

    ThreadState s;
    bind(s, thread_buf);
    if (PG::count > 0 && team.team_rank() == 0) params.load_row(b, 0, prow);
    if (active) {
      TESSERA_UNROLL_FULL
      for (int r = 0; r < R; ++r) {
        const int o = o0 + r * team_size;
        load_outer_row(b, o < o_end ? o : o_end - 1, outer_row(s, r));
      }
    }
    TESSERA_UNROLL_FULL
    for (int r = 0; r < R; ++r) {
      red.init(acc(s, r));
      if constexpr (Red::has_filter) {
        red.load_filter(acc(s, r), s.filter[r]);
        const int o = o0 + r * team_size;
        red.lower_filter(s.filter[r], b, o < o_end ? o : o_end - 1);
      }
    }

    if constexpr (Sparse) {
      fold_ranges(team, b, l_begin, l_end, active, tile_buf, prow, s);
    } else {
      const int j_begin = chunk * chunk_rows;
      const int j_end   = j_begin + chunk_rows < n_inner ? j_begin + chunk_rows : n_inner;
      fold_range(team, b, j_begin, j_end, active, tile_buf, prow, s);
    }

    TESSERA_UNROLL_FULL
    for (int r = 0; r < R; ++r) {
      const int o = o0 + r * team_size;
      if (o >= o_end) break;
      const AccRef<T> a = acc(s, r);
      if (chunks == 1) {
        red.finalize(a, out.row(b, o));
      } else {
        partial.store(b, o, n_outer, chunks, chunk, red, a);
      }
    }
  }

  /// The portable path: one Kokkos team per league entry.
  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    auto& team_scratch = team.team_scratch(team_scratch_level);
    T* tile_buf        = static_cast<T*>(team_scratch.get_shmem_aligned(
               static_cast<std::size_t>(tile_j) * inner_stride() * sizeof(T), 16));
    T* prow = static_cast<T*>(team_scratch.get_shmem_aligned((params.width() + 1) * sizeof(T), 16));
    const std::size_t thread_bytes = thread_scratch_bytes();
    unsigned char* thread_buf =
        thread_bytes == 0
            ? nullptr
            : static_cast<unsigned char*>(
                  team.thread_scratch(thread_scratch_level).get_shmem_aligned(thread_bytes, 16));
    run(team, team.league_rank(), tile_buf, prow, thread_buf);
  }
};

/// 32-bit registers that one outer row and its accumulators hold (sizes known only at run time
/// count 0: they live in scratch memory).
template <class T, class Kernel1>
constexpr int row_registers() {
  constexpr int words = static_cast<int>(sizeof(T) / 4);
  return (std::max(Kernel1::OW, 0) + std::max(Kernel1::SV, 0)) * words + std::max(Kernel1::SI, 0);
}

/// Outer rows per thread: 4, 2 or 1, as many as keep the rows and accumulators within the tuning
/// policy's register budget (at most 2 for block-sparse calls); one when any of them has a
/// run-time size (scratch buffers).
template <class ExecSpace, class T, class Kernel1>
constexpr int rows_per_thread() {
  if constexpr (Kernel1::OW < 0 || Kernel1::SV < 0 || Kernel1::SI < 0 || Kernel1::FD < 0) {
    return 1;
  } else {
    using P            = Tuning<ExecSpace>;
    constexpr int regs = row_registers<T, Kernel1>();
    constexpr int most =
        Kernel1::is_sparse ? P::genred_sparse_rows_per_thread : P::genred_dense_rows_per_thread;
    constexpr int budget = P::genred_row_registers;
    return 4 * regs <= budget && most >= 4 ? 4 : 2 * regs <= budget && most >= 2 ? 2 : 1;
  }
}

/// The TiledReduce of a call, with rows_per_thread() rows per thread.
template <class ExecSpace, class T, class Formula, class Red, bool OuterIsI, class Index,
          bool Sparse, class Storage = ComputeStorage<T, Formula>>
using TiledReduceFor = TiledReduce<
    ExecSpace, T, Formula, Red, OuterIsI, Index, Sparse,
    rows_per_thread<ExecSpace, T,
                    TiledReduce<ExecSpace, T, Formula, Red, OuterIsI, Index, Sparse, 1, Storage>>(),
    Storage>;

}  // namespace Impl
}  // namespace tessera
