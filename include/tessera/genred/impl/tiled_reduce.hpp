// The team-policy kernel behind the Genred schemes (KeOps GpuConv1D, generalised).
//
// A team owns a tile of `team_size` outer rows (one per thread) and a set of reduced-index
// ranges. Each thread keeps its outer row and its accumulator in registers (in per-thread
// scratch when sizes are only known at run time); the team stages tiles of `tile_j` inner rows
// in scratch level 0, then every thread folds F(p, x_i, y_j) over the staged rows.
//  - Dense (1D/2D schemes): the tile is rows [t * team_size, ...) of [0, n_outer) and the range
//    is one chunk of the reduced index. With one chunk (1D) the thread writes its final output
//    row; with several (2D) it writes its accumulator to a partial buffer that
//    combine_partials.hpp reduces.
//  - Block-sparse: the tile lies inside one outer segment and the ranges are the segment's
//    inner ranges. Staged tiles are packed across ranges (a tile may hold the end of one range
//    and the start of the next), so short or unaligned ranges still fill whole tiles and no
//    pair is tested against a mask.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/sorted_search.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/var_group.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <utility>

namespace tessera {
namespace Impl {

/// Output Views reduced to pointers and strides; writes one row of values and/or indices.
template <class T, class Index>
struct OutputAccess {
  T* values        = nullptr;
  std::int64_t vsb = 0, vsr = 0, vsc = 0;
  Index* indices   = nullptr;
  std::int64_t isb = 0, isr = 0, isc = 0;

  struct Row {
    T* v;
    std::int64_t vsc;
    Index* ix;
    std::int64_t isc;
    KOKKOS_INLINE_FUNCTION void value(int c, T x) const { v[c * vsc] = x; }
    KOKKOS_INLINE_FUNCTION void index(int c, int j) const { ix[c * isc] = static_cast<Index>(j); }
  };
  KOKKOS_INLINE_FUNCTION Row row(int b, int r) const {
    return {values + b * vsb + r * vsr, vsc, indices + b * isb + r * isr, isc};
  }
};

/// Per-row accumulators of the 2D scheme: row p holds `nv` values and `ni` indices.
template <class T>
struct PartialBuffer {
  T* values    = nullptr;
  int* indices = nullptr;
  int nv = 0, ni = 0;
  KOKKOS_INLINE_FUNCTION AccRef<T> row(std::int64_t p) const {
    return {values + p * nv, indices + p * ni};
  }
};

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
constexpr std::size_t buffer_bytes(int n) {
  return n > 0 ? static_cast<std::size_t>(n) * sizeof(S) + 16 : 0;
}

/// The block-sparse schedule of one direction, as raw pointers (see block_sparse_build.hpp).
struct SparseSchedule {
  const int* segments    = nullptr;  // (Q, 2) outer segments
  const int* slices      = nullptr;  // (Q) end offsets into ranges
  const int* ranges      = nullptr;  // (P, 2) inner ranges
  const int* tile_starts = nullptr;  // (Q + 1) first team of each segment, for this team size
  int segment_count      = 0;
};

template <class ExecSpace, class T, class Formula, class Red, bool OuterIsI, class Index,
          bool Sparse = false>
struct TiledReduce {
  using member_type = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using PG          = VarGroup<T, typename Formula::param_dims>;
  using IG          = VarGroup<T, typename Formula::i_dims>;
  using JG          = VarGroup<T, typename Formula::j_dims>;
  using OuterG      = std::conditional_t<OuterIsI, IG, JG>;
  using InnerG      = std::conditional_t<OuterIsI, JG, IG>;

  static constexpr int FD = Formula::out_dim;
  static constexpr int OW = OuterG::static_width;
  static constexpr int IW = InnerG::static_width;
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
  int tiles_outer;  // ceil(n_outer / team_size)
  int team_size;
  int tile_j;
  int chunks;      // reduced-range chunks (1: 1D scheme)
  int chunk_rows;  // reduced rows per chunk, a multiple of tile_j
  int thread_scratch_level;
  OutputAccess<T, Index> out;
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
  KOKKOS_INLINE_FUNCTION int inner_stride() const { return padded_width<T>(inner().width()); }

  // ---- scratch sizes (host)
  std::size_t team_scratch_bytes() const {
    return buffer_bytes<T>(tile_j * padded_width<T>(inner().width())) +
           buffer_bytes<T>(params.width() + 1);
  }
  std::size_t thread_scratch_bytes() const {
    std::size_t bytes = 0;
    if (OW < 0) bytes += buffer_bytes<T>(outer().width());
    if (FD < 0) bytes += buffer_bytes<T>(formula_dim);
    if (SV < 0) bytes += buffer_bytes<T>(red.acc_values());
    if (SI < 0) bytes += buffer_bytes<int>(red.acc_indices());
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
  KOKKOS_INLINE_FUNCTION void eval(const T* prow, const T* outer_row, const T* inner_row,
                                   T* f) const {
    const T* irow = OuterIsI ? outer_row : inner_row;
    const T* jrow = OuterIsI ? inner_row : outer_row;
    eval_impl(prow, irow, jrow, f, std::make_index_sequence<PG::count>(),
              std::make_index_sequence<IG::count>(), std::make_index_sequence<JG::count>());
  }

  /// Folds F over `rows` staged inner rows whose reduced indices are j_first, j_first + 1, ...
  KOKKOS_FORCEINLINE_FUNCTION void fold_staged(const T* staged, int rows, int j_first,
                                               const T* prow, const T* outer_row, T* f,
                                               const AccRef<T>& acc) const {
    // one pointer walks the rows: a single address increment per unrolled group of rows
    const int step = vector_rows ? IS : inner_stride();
    const T* row   = staged;
    TESSERA_UNROLL(4)
    for (int jj = 0; jj < rows; ++jj, row += step) {
      if constexpr (vector_rows) {
        T inner_row[vector_rows ? IS : 1];
        copy_row_16<T, IS>(row, inner_row);
        eval(prow, outer_row, inner_row, f);
      } else {
        eval(prow, outer_row, row, f);
      }
      red.add(acc, f, j_first + jj);
    }
  }

  /// Dense: tiles of the contiguous range [j_begin, j_end).
  KOKKOS_FORCEINLINE_FUNCTION void fold_range(const member_type& team, int b, int j_begin,
                                              int j_end, bool active, T* tile_buf, const T* prow,
                                              const T* outer_row, T* f,
                                              const AccRef<T>& acc) const {
    const int stride = inner_stride();
    for (int j0 = j_begin; j0 < j_end; j0 += tile_j) {
      const int rows = j_end - j0 < tile_j ? j_end - j0 : tile_j;
      team.team_barrier();  // the previous tile has been consumed
      inner().load_tile(team, b, j0, rows, stride, tile_buf);
      team.team_barrier();  // the tile is complete
      if (active) {
        fold_staged(tile_buf, rows, j0, prow, outer_row, f, acc);
        red.end_tile(acc);
      }
    }
  }

  /// Block-sparse: the ranges [l_begin, l_end) of sparse.ranges, packed into staged tiles. Every
  /// thread walks the same cursor (range l, row j), so the team agrees on each tile's pieces.
  KOKKOS_FORCEINLINE_FUNCTION void fold_ranges(const member_type& team, int b, int l_begin,
                                               int l_end, bool active, T* tile_buf, const T* prow,
                                               const T* outer_row, T* f,
                                               const AccRef<T>& acc) const {
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
        inner().load_tile(team, b, jw, take, stride, tile_buf + filled * stride);
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
          fold_staged(tile_buf + pos * stride, take, j, prow, outer_row, f, acc);
          pos += take;
          j += take;
          while (l < l_end && j >= ranges[2 * l + 1]) {
            if (++l < l_end) j = ranges[2 * l];
          }
        }
        red.end_tile(acc);
      }
      l = lw;
      j = jw;
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int league = team.league_rank();
    int b, o_begin, o_end, chunk = 0, l_begin = 0, l_end = 0;
    if constexpr (Sparse) {
      b             = league / tiles_outer;
      const int t   = league - b * tiles_outer;
      const int q   = upper_bound(sparse.tile_starts, sparse.segment_count + 1, t) - 1;
      const int end = sparse.segments[2 * q + 1];
      o_begin       = sparse.segments[2 * q] + (t - sparse.tile_starts[q]) * team_size;
      o_end         = o_begin + team_size < end ? o_begin + team_size : end;
      l_begin       = q == 0 ? 0 : sparse.slices[q - 1];
      l_end         = sparse.slices[q];
    } else {
      chunk          = league % chunks;
      const int tile = (league / chunks) % tiles_outer;
      b              = league / chunks / tiles_outer;
      o_begin        = tile * team_size;
      o_end          = o_begin + team_size < n_outer ? o_begin + team_size : n_outer;
    }
    const int o       = o_begin + team.team_rank();
    const bool active = o < o_end;

    const int stride = inner_stride();
    T* tile_buf      = static_cast<T*>(team.team_scratch(0).get_shmem_aligned(
             static_cast<std::size_t>(tile_j) * stride * sizeof(T), 16));
    T* prow          = static_cast<T*>(
        team.team_scratch(0).get_shmem_aligned((params.width() + 1) * sizeof(T), 16));

    // Registers when sizes are static, per-thread scratch otherwise.
    T outer_local[OW > 0 ? OW : 1];
    T f_local[FD > 0 ? FD : 1];
    T acc_v_local[SV > 0 ? SV : 1];
    int acc_i_local[SI > 0 ? SI : 1];
    auto& ts     = team.thread_scratch(thread_scratch_level);
    T* outer_row = outer_local;
    T* f         = f_local;
    AccRef<T> acc{acc_v_local, acc_i_local};
    if constexpr (OW < 0) {
      outer_row = static_cast<T*>(ts.get_shmem_aligned(outer().width() * sizeof(T), 16));
    }
    if constexpr (FD < 0) {
      f = static_cast<T*>(ts.get_shmem_aligned(formula_dim * sizeof(T), 16));
    }
    if constexpr (SV < 0) {
      acc.val = static_cast<T*>(ts.get_shmem_aligned(red.acc_values() * sizeof(T), 16));
    }
    if constexpr (SI < 0) {
      acc.idx = static_cast<int*>(ts.get_shmem_aligned(red.acc_indices() * sizeof(int), 16));
    }

    if (PG::count > 0) {
      Kokkos::single(Kokkos::PerTeam(team), [&]() { params.load_row(b, 0, prow); });
    }
    if (active) outer().load_row(b, o, outer_row);
    red.init(acc);

    if constexpr (Sparse) {
      fold_ranges(team, b, l_begin, l_end, active, tile_buf, prow, outer_row, f, acc);
    } else {
      const int j_begin = chunk * chunk_rows;
      const int j_end   = j_begin + chunk_rows < n_inner ? j_begin + chunk_rows : n_inner;
      fold_range(team, b, j_begin, j_end, active, tile_buf, prow, outer_row, f, acc);
    }

    if (!active) return;
    if (chunks == 1) {
      red.finalize(acc, out.row(b, o));
    } else {
      const AccRef<T> dst =
          partial.row((static_cast<std::int64_t>(b) * n_outer + o) * chunks + chunk);
      for (int s = 0; s < red.acc_values(); ++s)
        dst.val[s] = acc.val[s];
      for (int s = 0; s < red.acc_indices(); ++s)
        dst.idx[s] = acc.idx[s];
    }
  }
};

}  // namespace Impl
}  // namespace tessera
