// Nearest-neighbour selections on the tensor cores, exact: Min, ArgMin, MinArgMin, KMin, ArgKMin
// and KMinArgKMin over j of SquaredDistance<D>, CosineDistance<D> and DotProduct<D>, computed in
// float (points stored as float, half_t or bhalf_t), dense or block-sparse
// (matrix_team_tile.hpp), D > CudaTuning::matrix_select_min_dim (below, the SIMT kernel's direct
// distances are faster), k <= CudaTuning::matrix_select_max_k.
//
// 1. Candidates. The rows are prepared once (matrix_operands.hpp: one 16-bit part; the squared
//    distance's rows centred on the mean of a sample of inner rows, the cosine's normalised),
//    and the tile engine (matrix_engine.hpp) computes each tile of dot products; the epilogue
//    turns each accumulator into an approximate score
//      squared distance |x|^2 + |y|^2 - 2 x.y,  cosine distance 1 - x.y,  dot product x.y,
//    and each outer row keeps the k + CudaTuning::matrix_select_margin smallest (score, j) in
//    one sorted list in shared memory, shared by the four lanes that hold the row's columns,
//    behind a register threshold (the list's last score), so that a score that cannot enter
//    costs a multiply-add and a comparison. Each reduced-range chunk (2D scheme) writes its
//    lists and their last scores T to a workspace.
// 2. Re-ranking and certificate (one warp per row): the exact value of every candidate, in
//    double from the stored inputs, then the k smallest (value, index), ties to the smaller
//    index. The approximate score of any pair differs from its exact value by at most
//      delta_i = (2^-9 + dp 2^-22) |x_i| Y + (2 D + 16) 2^-23 (|x_i| + Y)^2,  Y = max_j |y_j|
//    (norms of the prepared rows: centred for the squared distance, 1 for the cosine): 2^-11 per
//    16-bit rounding of each factor of the dot product (an FP16 element far below its row's
//    largest, or, the inner rows sharing one scale, below Y 2^-27, is subnormal: at most
//    2^-38 Y more, far inside the margin),
//    at most 2^-23 per addition of the matrix units' accumulation (they may truncate), float
//    rounding of the norms, the shift and the sums, all doubled for margin. So every j left
//    out of a chunk's list has an exact value >= T - delta_i. When every chunk's T - delta_i
//    exceeds the k-th exact value, no pair outside the lists can enter: the row is certified.
//    Otherwise (near-ties wider than the bound, duplicated points) the row is left to the
// 3. Fallback: such rows are recomputed directly over all their j (a block-sparse row: over its
//    segment's ranges), in double, each split into interleaved slices of j so that a few failed
//    rows still occupy every multiprocessor, the slices' k smallest then merged. Either way the
//    result is the exact k smallest of the row.
// Values are the exact values rounded to float (a direct float kernel may differ in the last
// bits); the workspace is linear in the sizes: k + margin candidates per output row and chunk.
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/core/impl/tools_labels.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/impl/cuda/launch_cache.hpp>
#include <tessera/genred/impl/cuda/matrix_operands.hpp>
#include <tessera/genred/impl/cuda/matrix_engine.hpp>
#include <tessera/genred/impl/cuda/matrix_team_tile.hpp>
#include <tessera/genred/impl/output_access.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/var_group.hpp>

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>

namespace tessera {
namespace Impl {

/// The score of a selection formula over prepared rows, s = n_i + n_j + dot_scale x.y, and
/// its exact value in double from the stored rows' x.y, |x|^2 and |y|^2 (r2: |x - y|^2): the
/// squared distance (centred rows) reads r2 only, the cosine (unit rows) x.y and the norms, the
/// dot product x.y only.
template <class Op>
struct SelectScore;
template <>
struct SelectScore<SquaredDistanceOp> {
  static constexpr bool centred    = true;
  static constexpr bool unit       = false;
  static constexpr bool reads_dot  = false;
  static constexpr float dot_scale = -2.0f;
  static OperandTransform outer(const float* c) { return {1.0f, 0.0f, false, c}; }
  static OperandTransform inner(const float* c) { return {1.0f, 0.0f, false, c}; }
  __device__ static double exact(double, double, double, double r2) { return r2; }
};
template <>
struct SelectScore<CosineDistanceOp> {
  static constexpr bool centred    = false;
  static constexpr bool unit       = true;
  static constexpr bool reads_dot  = true;
  static constexpr float dot_scale = -1.0f;
  static OperandTransform outer(const float*) { return {0.0f, 1.0f, true, nullptr}; }  // n_i = 1
  static OperandTransform inner(const float*) { return {0.0f, 0.0f, true, nullptr}; }
  __device__ static double exact(double xy, double xx, double yy, double) {
    const double n2 = xx * yy;
    return n2 > 0 ? 1.0 - xy / sqrt(n2) : 1.0;
  }
};
template <>
struct SelectScore<DotOp> {
  static constexpr bool centred    = false;
  static constexpr bool unit       = false;
  static constexpr bool reads_dot  = true;
  static constexpr float dot_scale = 1.0f;
  static OperandTransform outer(const float*) { return {0.0f, 0.0f, false, nullptr}; }
  static OperandTransform inner(const float*) { return {0.0f, 0.0f, false, nullptr}; }
  __device__ static double exact(double xy, double, double, double) { return xy; }
};

/// k of a selection reducer (1 for Min, ArgMin, MinArgMin).
template <class Red>
__host__ __device__ int select_k(const Red& red) {
  if constexpr (Red::static_acc_values == dynamic_extent) {
    return red.k;
  } else {
    return 1;
  }
}

/// The reductions the tensor-core selections take: the smallest value(s) and/or index(es).
template <class Reduction>
inline constexpr bool is_min_selection =
    std::is_same_v<Reduction, Min> || std::is_same_v<Reduction, ArgMin> ||
    std::is_same_v<Reduction, MinArgMin> || std::is_same_v<Reduction, KMin> ||
    std::is_same_v<Reduction, ArgKMin> || std::is_same_v<Reduction, KMinArgKMin>;
/// The point-pair operations whose selections the tensor cores take.
template <class Op>
inline constexpr bool is_select_op =
    std::is_same_v<Op, SquaredDistanceOp> || std::is_same_v<Op, CosineDistanceOp> ||
    std::is_same_v<Op, DotOp>;

/// True for the calls the tensor-core selections run (see the file comment).
template <class T, class Formula, class Red, bool OuterIsI, bool Sparse>
inline constexpr bool matrix_select_call = false;
template <int D, class Op, class Reduction, Summation S, bool Sparse>
inline constexpr bool matrix_select_call<float, PointPairFormula<D, Op>,
                                         Reducer<Reduction, float, 1, S>, true, Sparse> =
    D > CudaTuning::matrix_select_min_dim&& is_select_op<Op>&& is_min_selection<Reduction>;

/// Inserts (s, j), which precedes the last entry, into the ascending list (v, ix) of n entries
/// (smaller value first, then smaller index), dropping the last entry.
template <class V>
__device__ __forceinline__ void insert_sorted(V* v, int* ix, int n, V s, int j) {
  int p = n - 1;
  while (p > 0 && precedes_min(s, j, v[p - 1], ix[p - 1])) {
    v[p]  = v[p - 1];
    ix[p] = ix[p - 1];
    --p;
  }
  v[p]  = s;
  ix[p] = j;
}

/// Scores a thread of a selection block of `block` threads can queue, at `entry` bytes each: the
/// most (CudaTuning::matrix_select_queue), or, on a multiprocessor of known shared memory
/// (`multiprocessor_shared`, 0 if unknown) that must hold `blocks` blocks, each `reserved` bytes
/// besides its own, what is left beside `fixed` bytes, a multiple of 4.
constexpr int matrix_select_queue_length(std::size_t fixed, std::size_t entry,
                                         std::size_t multiprocessor_shared, std::size_t reserved,
                                         int blocks, int block) {
  constexpr int most = CudaTuning::matrix_select_queue;
  if (multiprocessor_shared == 0) return most;
  const std::size_t per_block = multiprocessor_shared / blocks - reserved;
  const std::size_t fit =
      per_block > fixed ? (per_block - fixed) / (static_cast<std::size_t>(block) * entry) / 4 * 4
                        : 0;
  return fit < static_cast<std::size_t>(most) ? static_cast<int>(fit) : most;
}

/// Phase 1: each block's outer rows against its chunk of inner rows; candidate lists out.
/// Every accumulator element of a thread is one (row, column) score. A row's columns are held
/// by the four lanes of one quad, which share the row's sorted list of the `cands` smallest
/// scores in shared memory, behind a register copy of the list's last score: a score that
/// cannot enter costs a multiply-add and a comparison on the accumulator registers. Scores that
/// may enter wait in the thread's queue of Q. The queues are merged into the lists after a tile
/// by all warps of the block together, when any thread holds more than `sync_queue` (a warp
/// merging alone would hold the block at the engine's next barrier: that waiting took half the
/// time at D = 16). The unrolled column steps of a tile hold no merge (inlined sixteen times,
/// merges overflowed the instruction cache): a score that finds its thread's queue full marks an
/// overflow, and the block then drops the tile's queued scores and redoes the tile with merges
/// between the column steps, as it does the first tile, whose threshold comes from the tile itself
/// so that the empty lists do not take all its scores. A merge inserts one score at a time per
/// quad, its four lanes together (eight quads, so eight scores, at once).
template <int D, class Op, class E, bool Sparse>
struct MatrixSelectCandidates {
  using Tiles                      = MatrixSelectEngine<E, D>;
  using Score                      = SelectScore<Op>;
  static constexpr bool outer_is_i = true;
  static constexpr bool is_sparse  = Sparse;
  static constexpr int BM = Tiles::BM, BN = Tiles::BN, MT = Tiles::MT, NT = Tiles::NT;
  static constexpr int block      = Tiles::block;
  static constexpr int min_blocks = Tiles::min_blocks;
  static constexpr int own        = 2 * MT;  ///< rows per thread
  /// The lists' stride: entry s of row r at s LS + r, so that the entries t, t + 4, ... that
  /// lane t of a quad reads of its row fall in other banks than its quad's and the other quads'.
  static constexpr int LS = BM + 8;
  /// List entries a lane of a quad moves in a merge, and the entries a list holds: the `cands`
  /// candidates last, after entries of -inf that stay first (no bound checks in the merges).
  static constexpr int list_slots =
      (CudaTuning::matrix_select_max_k + CudaTuning::matrix_select_margin + 3) / 4;
  static constexpr int list_entries = 4 * list_slots;
  /// A column record: |y_j|^2 (+inf past the range's end: such scores never enter); the inner
  /// rows share one factor (OperandTransform::common_norm2), folded into the outer rows'.
  using Columns = TileColumns<Tiles, 1>;
  /// Shared memory beside the queues: the pipeline, two tiles' column records, the lists.
  static constexpr std::size_t fixed_bytes =
      Tiles::shared_bytes + Columns::bytes +
      static_cast<std::size_t>(LS) * list_entries * (sizeof(float) + sizeof(int));
  /// A queued score's shared memory: the score, its index and its row.
  static constexpr std::size_t queue_entry_bytes = sizeof(float) + sizeof(int) + 1;
  /// The threads' queues: Q scores each, what shared memory leaves to min_blocks blocks (on
  /// Hopper's narrow tiles of 32-element k-steps: 8, beside four stages), merged after a tile
  /// when any holds more than sync_queue.
  static constexpr int Q =
      matrix_select_queue_length(fixed_bytes, queue_entry_bytes, Tiles::multiprocessor_shared,
                                 Tiles::reserved_per_block, min_blocks, block);
  static constexpr int sync_queue = Q / CudaTuning::matrix_select_sync_share;
  static_assert(BM <= 256, "a queued score names its row in one byte");
  static_assert(Tiles::WN == 1, "a row's columns belong to one warp");
  static_assert(Q >= 2 * own, "a column step queues at most 2 own scores per row");
  static_assert(sync_queue <= Q - 2 * own,
                "a tile redone merging starts with at most Q - 2 own queued scores");

  Tiles tiles;
  int n_outer, n_inner, tiles_outer, tile_j, chunks, chunk_rows;
  SparseSchedule sparse;  ///< block-sparse calls only
  int cands;              ///< C: list length
  float* cand_val;        ///< (batch, n_outer, chunks, C)
  int* cand_idx;          ///< same
  float* threshold;       ///< (batch, n_outer, chunks): each list's last score (+inf if not full)

  KOKKOS_INLINE_FUNCTION int tile_rows() const { return BM; }

  std::size_t shared_bytes() const {
    return fixed_bytes + static_cast<std::size_t>(block) * Q * queue_entry_bytes;
  }

  /// Calls f(mt, h) for each of the thread's own rows.
  template <class F>
  __device__ __forceinline__ static void for_each_own_row(F&& f) {
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h)
        f(mt, h);
    }
  }
  /// Calls f(e, mt, h) for each of the thread's scores of a column step: column c0 + e (c0 =
  /// 8 nt + 2 t) of its own row (mt, h).
  template <class F>
  __device__ __forceinline__ static void for_each_score(F&& f) {
    TESSERA_UNROLL_FULL
    for (int e = 0; e < 2; ++e)
      for_each_own_row([&](int mt, int h) { f(e, mt, h); });
  }

  __device__ void run(int league, char* shared) const {
    const MatrixTeamTile tile = matrix_team_tile(*this, league);
    const int b = tile.batch, o0 = tile.o_begin, lane = static_cast<int>(threadIdx.x) & 31;
    const int warp = static_cast<int>(threadIdx.x) >> 5, g = lane >> 2, t = lane & 3;
    const int me = static_cast<int>(threadIdx.x);
    // entry s of the list of the tile's row r at [s * LS + r]; queue entry q at [q * block + me]
    float* lv     = reinterpret_cast<float*>(shared + Tiles::shared_bytes + Columns::bytes);
    int* li       = reinterpret_cast<int*>(lv + LS * list_entries);
    float* qv     = reinterpret_cast<float*>(li + LS * list_entries);
    int* qj       = reinterpret_cast<int*>(qv + block * Q);
    auto* qr      = reinterpret_cast<unsigned char*>(qj + block * Q);
    const int pad = list_entries - cands;  // the candidates are entries pad, ..., list_entries - 1
    for (int e = me; e < LS * list_entries; e += block) {  // read after the engine's first barrier
      lv[e] = e < LS * pad ? -math::infinity<float>() : math::infinity<float>();
      li[e] = -1;
    }
    // the score is fi d + nj + ni (fi: the dot product's scale and both rows' factors); a pair
    // may enter the list of row (mt, h) when fi d + nj < thr = (the list's last score) - ni
    float ni[MT][2], fi[MT][2], thr[MT][2];
    int rows[MT][2];  ///< the tile's row of (mt, h)
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h) {
        rows[mt][h]         = warp * (BM / Tiles::WM) + 16 * mt + g + 8 * h;
        const std::size_t r = tiles.a.row(b, o0 + rows[mt][h]);
        ni[mt][h]           = tiles.a.norm[r];
        fi[mt][h]  = Score::dot_scale * tiles.a.factor[r] * tiles.b.factor[tiles.b.row(b, 0)];
        thr[mt][h] = math::infinity<float>();
      }
    }
    int nq = 0;
    // merges the warp's queues into the lists: each quad takes its lanes' queues in turn, one
    // score at a time, its four lanes together (lane t moves the list entries t, t + 4, ...), so
    // a score costs one round of shared-memory loads and stores whatever its place
    const auto merge = [&] {
      for (int turn = 0; turn < 4; ++turn) {
        const int src  = (lane & ~3) | turn;  // the quad's lane whose queue is merged
        const int n    = __shfl_sync(0xffffffffu, nq, src);
        const int all  = static_cast<int>(__reduce_max_sync(0xffffffffu, static_cast<unsigned>(n)));
        const int from = me - lane + src;
        for (int q = 0; q < all; ++q) {
          const bool has = q < n;
          const int r    = has ? qr[q * block + from] : 0;
          const float sc = has ? qv[q * block + from] : math::infinity<float>();  // enters nowhere
          const int sj   = has ? qj[q * block + from] : -1;
          // this lane's entries e = t + 4 u and the entries before them, loaded at once
          int place = 0;  // list entries not after the score (equal scores keep their order)
          float mv[list_slots];
          int mi[list_slots];
          TESSERA_UNROLL_FULL
          for (int u = 0; u < list_slots; ++u) {
            const int e = t + 4 * u, before = e > 0 ? e - 1 : 0;  // entry 0 never moves
            place += lv[e * LS + r] <= sc ? 1 : 0;
            mv[u] = lv[before * LS + r];
            mi[u] = li[before * LS + r];
          }
          place += __shfl_xor_sync(0xffffffffu, place, 1);
          place += __shfl_xor_sync(0xffffffffu, place, 2);
          __syncwarp();
          TESSERA_UNROLL_FULL
          for (int u = 0; u < list_slots; ++u) {  // no branches: predicated stores
            const int e = t + 4 * u;
            if (e >= place) {
              lv[e * LS + r] = e == place ? sc : mv[u];
              li[e * LS + r] = e == place ? sj : mi[u];
            }
          }
          __syncwarp();
        }
      }
      nq = 0;
      // any score left out is >= its row's last score when it was left out, which only falls:
      // the certificate's bound
      for_each_own_row([&](int mt, int h) {
        thr[mt][h] = lv[(list_entries - 1) * LS + rows[mt][h]] - ni[mt][h];
      });
    };
    // The first tile's threshold: each lane's list_slots-th smallest score of each of its rows;
    // the largest of the quad's has at least 4 list_slots >= cands of the row's scores at or
    // below it, so the list fills at or below it (a lane with fewer finite scores gives +inf,
    // the threshold of an empty list). Without it, every score of the first tile would enter.
    // A score left out above it stays above the list's last score, which can only fall below it:
    // the certificate's bound holds as for any score left out.
    bool empty                 = true;  // the lists are empty
    const auto first_threshold = [&](auto&& score, auto&& columns_of) {
      empty = false;
      float low[MT][2][list_slots];  // ascending
      for_each_own_row([&](int mt, int h) {
        TESSERA_UNROLL_FULL
        for (int u = 0; u < list_slots; ++u)
          low[mt][h][u] = math::infinity<float>();
      });
      TESSERA_UNROLL_FULL
      for (int nt = 0; nt < NT; ++nt) {
        const float2 col = columns_of(nt);
        for_each_score([&](int e, int mt, int h) {
          // inserted into the sorted list, its last dropped (fminf, fmaxf: NaN is left out)
          const float v = score(col, nt, e, mt, h);
          float* l      = low[mt][h];
          TESSERA_UNROLL_FULL
          for (int u = list_slots - 1; u > 0; --u)
            l[u] = fmaxf(l[u - 1], fminf(l[u], v));
          l[0] = fminf(l[0], v);
        });
      }
      for_each_own_row([&](int mt, int h) {
        float m    = low[mt][h][list_slots - 1];
        m          = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
        m          = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
        thr[mt][h] = nextafterf(m, math::infinity<float>());  // the scores at m enter
      });
    };
    for_each_inner_range(*this, tile, [&](int j_begin, int j_end) {
      Columns columns{reinterpret_cast<float*>(shared + Tiles::shared_bytes), j_begin};
      const auto record = [&](int j, float* rec) {
        rec[0] = j < j_end ? tiles.b.norm[tiles.b.row(b, j)] : math::infinity<float>();
      };
      columns.load(j_begin, record);
      columns.store(j_begin);  // visible after the engine's first barrier
      tiles.run(shared, b, o0, j_begin, j_end, [&](typename Tiles::Acc& d, int j0, int, int, int) {
        columns.epilogue(j0, j_end, record, [&] {
          // the scores of the column step of columns c0 + e: fi d + nj
          const auto score = [&](const float2& col, int nt, int e, int mt, int h) {
            return fmaf(d[mt][nt][2 * h + e], fi[mt][h], e == 0 ? col.x : col.y);
          };
          const auto columns_of = [&](int nt) {  // the records of columns c0 and c0 + 1
            return columns.pair(j0, 8 * nt + 2 * t, 0);
          };
          // One pass over the tile's column steps. Merging (the first tile, and a tile redone
          // after an overflow): a warp whose queues are nearly full merges them between column
          // steps. Otherwise no merge is inlined in the unrolled steps (the instruction cache
          // holds them), and a score finding its thread's queue full sets the returned overflow.
          const auto pass = [&](auto merging) {
            constexpr bool merges = decltype(merging)::value;
            bool overflow         = false;
            float2 col_next       = columns_of(0);
            TESSERA_UNROLL_FULL
            for (int nt = 0; nt < NT; ++nt) {
              // the column step's 2 scores per row, compared first; one branch when any may
              // enter
              const int c0     = 8 * nt + 2 * t;
              const float2 col = col_next;
              if (nt + 1 < NT) col_next = columns_of(nt + 1);  // loaded ahead
              float q[2][MT][2];
              for_each_score([&](int e, int mt, int h) { q[e][mt][h] = score(col, nt, e, mt, h); });
              // each row's smaller score compared (fminf skips a NaN, which never enters)
              bool any = false;
              for_each_own_row(
                  [&](int mt, int h) { any |= fminf(q[0][mt][h], q[1][mt][h]) < thr[mt][h]; });
              if (any) {
                for_each_score([&](int e, int mt, int h) {
                  if (!(q[e][mt][h] < thr[mt][h])) return;
                  if (merges || nq < Q) {
                    qv[nq * block + me] = q[e][mt][h] + ni[mt][h];
                    qj[nq * block + me] = j0 + c0 + e;
                    qr[nq * block + me] = static_cast<unsigned char>(rows[mt][h]);
                    ++nq;
                  } else {
                    overflow = true;
                  }
                });
              }
              if constexpr (merges) {
                if (__any_sync(0xffffffffu, nq > Q - 2 * own)) merge();  // converged here
              }
            }
            return overflow;
          };
          // After the tile the block's warps merge together (a warp merging alone would hold the
          // others at the engine's next barrier); after an overflow the block drops the tile's
          // queued scores and redoes it merging.
          const int queued = nq;
          bool overflow    = false;
          if (empty) {
            first_threshold(score, columns_of);
            pass(std::true_type{});
          } else {
            overflow = pass(std::false_type{});
          }
          if (__syncthreads_or(overflow || nq > sync_queue)) {
            if (__syncthreads_or(overflow)) {
              nq = queued;
              pass(std::true_type{});
            }
            merge();
          }
        });
      });
    });
    merge();
    // the quad writes its rows' lists (entries t, t + 4, ...)
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h) {
        const int o = o0 + rows[mt][h];
        if (o >= tile.o_end) continue;
        const std::size_t row = (static_cast<std::size_t>(b) * n_outer + o) * chunks + tile.chunk;
        for (int s = t; s < cands; s += 4) {
          cand_val[row * cands + s] = lv[(pad + s) * LS + rows[mt][h]];
          cand_idx[row * cands + s] = li[(pad + s) * LS + rows[mt][h]];
        }
        if (t == 0) threshold[row] = lv[(list_entries - 1) * LS + rows[mt][h]];
      }
    }
  }
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::block, Kernel::min_blocks)
    matrix_select_candidates_cuda(const Kernel k) {
  extern __shared__ float4 tessera_matrix_select_shared[];
  k.run(static_cast<int>(blockIdx.x), reinterpret_cast<char*>(tessera_matrix_select_shared));
}

/// Phases 2 and 3: one warp per (batch entry, outer row): exact values of the candidates, the k
/// smallest, the certificate, the outputs of the certified rows; then the other rows, split over
/// the fallback blocks. SX, SY: the points' storage; Sparse: block-sparse rows, whose fallback
/// walks their segment's ranges.
template <int D, class Op, class Red, class SX, class SY, class Out, bool Sparse>
struct MatrixSelectRerank {
  using Score                = SelectScore<Op>;
  static constexpr int warps = 4;

  Red red;
  VarAccessor<SX> x;
  VarAccessor<SY> y;
  int n_outer, n_inner, chunks, cands, k, dp;
  long long rows_total;  ///< batch * n_outer
  const float* cand_val;
  const int* cand_idx;
  const float* threshold;
  const unsigned* y_norm2_max;  ///< max_j |y_j - centre|^2 of each batch entry (float bits)
  const float* centre;          ///< (batch, D) the shift of the squared distances, or null
  Out out;
  SparseSchedule sparse;   ///< block-sparse calls only
  long long* failed_rows;  ///< the rows (batch entry * n_outer + row) left to the fallback
  int* failed_count;       ///< their number
  int fallback_blocks;     ///< blocks of the fallback kernels
  double* split_val;       ///< (fallback_blocks, k): the lists of the slices of split rows
  int* split_idx;          ///< same

  /// Threads of a fallback block.
  static constexpr int fallback_threads = 1024;

  /// Calls f(j) for every stride-th inner row j, from the first-th, that outer row i reduces
  /// over, in increasing order: all of them, or the ranges of i's segment (the last segment
  /// that starts at or before i: the segments partition the outer rows in order, empty ones
  /// included).
  template <class F>
  __device__ void for_each_inner_row(int i, int first, int stride, F&& f) const {
    if constexpr (Sparse) {
      int lo = 0, hi = sparse.segment_count;  // the first segment that starts after i
      while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (sparse.segments[2 * mid] <= i) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      const int q = lo - 1;
      int skip    = first;  // the rows still to skip before this thread's next one
      for (int l = q == 0 ? 0 : sparse.slices[q - 1]; l < sparse.slices[q]; ++l) {
        const int begin = sparse.ranges[2 * l], end = sparse.ranges[2 * l + 1];
        int j = begin + skip;
        for (; j < end; j += stride)
          f(j);
        skip = j - end;
      }
    } else {
      for (int j = first; j < n_inner; j += stride)
        f(j);
    }
  }

  /// The exact value of (x_i, y_j), in double, summed across the warp.
  __device__ double exact(int b, int i, int j, int lane) const {
    const long long xo = b * x.sb + static_cast<long long>(i) * x.sr;
    const long long yo = b * y.sb + static_cast<long long>(j) * y.sr;
    double xy = 0, xx = 0, yy = 0, r2 = 0;
    for (int c = lane; c < D; c += 32) {
      const double a = x.template load<float>(xo + c * x.sc);
      const double e = y.template load<float>(yo + c * y.sc);
      xy += a * e;
      xx += a * a;
      yy += e * e;
      r2 += (a - e) * (a - e);  // the squared distance directly: no cancellation
    }
    for (int s = 16; s >= 1; s /= 2) {  // only the sums the score reads
      if constexpr (Score::reads_dot) xy += __shfl_xor_sync(0xffffffffu, xy, s);
      if constexpr (Score::unit) {
        xx += __shfl_xor_sync(0xffffffffu, xx, s);
        yy += __shfl_xor_sync(0xffffffffu, yy, s);
      }
      if constexpr (Score::centred) r2 += __shfl_xor_sync(0xffffffffu, r2, s);
    }
    return Score::exact(xy, xx, yy, r2);
  }

  /// Inserts (s, j) into the sorted list (v, ix) of kk entries if it precedes the last one.
  __device__ static void insert(double* v, int* ix, int kk, double s, int j) {
    if (precedes_min(s, j, v[kk - 1], ix[kk - 1])) insert_sorted(v, ix, kk, s, j);
  }
  /// Empties the warp's list.
  __device__ void clear(double* v, int* ix, int lane) const {
    for (int s = lane; s < k; s += 32) {
      v[s]  = INFINITY;
      ix[s] = -1;
    }
    __syncwarp();
  }

  __device__ void run(double* sv, int* si) const {
    const int lane = static_cast<int>(threadIdx.x) & 31, w = static_cast<int>(threadIdx.x) >> 5;
    const long long row = static_cast<long long>(blockIdx.x) * warps + w;
    if (row >= rows_total) return;  // whole warps
    const int b = static_cast<int>(row / n_outer), i = static_cast<int>(row % n_outer);
    double* v = sv + w * k;
    int* ix   = si + w * k;
    clear(v, ix, lane);
    float t_min            = INFINITY;
    const std::size_t base = (static_cast<std::size_t>(b) * n_outer + i) * chunks;
    for (int q = 0; q < chunks; ++q) {
      t_min = fminf(t_min, threshold[base + q]);
      for (int s = 0; s < cands; ++s) {
        const int j = cand_idx[(base + q) * cands + s];
        if (j < 0) break;
        const double e = exact(b, i, j, lane);
        if (lane == 0) insert(v, ix, k, e, j);
        __syncwarp();
      }
    }
    // the certificate (see the file comment), from the norms of the prepared rows
    const long long xo = b * x.sb + static_cast<long long>(i) * x.sr;
    const float* mu    = centre == nullptr ? nullptr : centre + static_cast<long long>(b) * D;
    double nx2         = 0;
    for (int c = lane; c < D; c += 32) {
      const double e = static_cast<double>(x.template load<float>(xo + c * x.sc)) -
                       (mu == nullptr ? 0.0 : mu[c]);
      nx2 += e * e;
    }
    for (int s = 16; s >= 1; s /= 2)
      nx2 += __shfl_xor_sync(0xffffffffu, nx2, s);
    const double grow = 1 + 1e-6;  // the float roundings of the norms, generously
    const double nx   = Score::unit ? 1.0 : sqrt(nx2) * grow;
    const double ny =
        Score::unit ? 1.0 : sqrt(static_cast<double>(__uint_as_float(y_norm2_max[b]))) * grow;
    const double c1    = 1.0 / 512 + dp / 4194304.0;  // 2^-9 + dp 2^-22: the matrix product
    const double c2    = (2.0 * D + 16) / 8388608.0;  // (2 D + 16) 2^-23: norms, shift, sums
    const double delta = c1 * nx * ny + c2 * (nx + ny) * (nx + ny);
    if (!(t_min == INFINITY || static_cast<double>(t_min) - delta > v[k - 1])) {
      if (lane == 0) failed_rows[atomicAdd(failed_count, 1)] = row;  // for the fallback
      return;
    }
    if (lane == 0) {
      for (int s = 0; s < k; ++s)
        write_result(b, i, s, v[s], ix[s]);
    }
  }

  /// The shared memory of a fallback block of `warps` warps, in doubles from its start: the
  /// warps' lists (k values each, then k indices each), 3 doubles per warp (block_min_owner),
  /// the round's pick (value, index), and the total.
  struct FallbackLayout {
    int indices, reduce, pick, total;
  };
  __host__ __device__ static FallbackLayout fallback_layout(int warps, int k) {
    const int lists = warps * k, reduce = lists + (lists + 1) / 2;
    return {lists, reduce, reduce + 3 * warps, reduce + 3 * warps + 2};
  }

  /// Slices of inner rows each failed row is split into, so that few failed rows still spread
  /// over all fallback blocks: fallback_blocks / failed, at least 1 (a block per row, which
  /// writes the output), at most a merge block's threads (one slice's list each).
  __device__ int fallback_slices(int failed) const {
    const int s = failed > 0 ? fallback_blocks / failed : 1;
    return s < 1 ? 1 : s > fallback_threads ? fallback_threads : s;
  }

  /// Writes entry s (exact value v, index j) of the result of (batch entry b, outer row i).
  __device__ void write_result(int b, int i, int s, double v, int j) const {
    const auto o = out.row(b, i);
    if constexpr (Red::writes_values) o.value(s, static_cast<float>(v));
    if constexpr (Red::writes_indices) o.index(s, j);
  }

  /// The k smallest entries of the sorted lists of k that the block's threads own (a thread
  /// owns at most one; head(h, v, j) reads entry h of its own), in k rounds: the block's
  /// smallest head is the s-th smallest, emit(s, v, j) on thread 0, and its owner moves on to
  /// its next entry. work: 3 doubles per warp, then 2.
  template <class Head, class Emit>
  __device__ void smallest_of_lists(bool owner, Head&& head, double* work, Emit&& emit) const {
    const int tid = static_cast<int>(threadIdx.x);
    double* pick  = work + 3 * (static_cast<int>(blockDim.x) >> 5);  // value, index
    int h         = 0;
    for (int s = 0; s < k; ++s) {
      double hv = INFINITY;
      int hj    = -1;
      if (owner && h < k) head(h, hv, hj);
      if (block_min_owner(hv, hj, work) == tid) {
        pick[0] = hv;
        pick[1] = hj;
        ++h;
      }
      __syncthreads();
      if (tid == 0) emit(s, pick[0], static_cast<int>(pick[1]));
    }
  }

  /// The fallback of the rows whose certificate failed: each row is split into
  /// fallback_slices() interleaved slices of its inner rows, and each (row, slice) item goes to
  /// one block. A block's warps compute the exact values, in double, of every warps-th inner row
  /// of the slice (the lanes over the components: coalesced loads) and keep the k smallest; the
  /// block takes the k smallest of the warps' lists, which are the row's result (one slice) or
  /// the slice's list in split_val / split_idx, merged by run_fallback_merge. work:
  /// fallback_layout(warps, k).
  __device__ void run_fallback(double* work) const {
    const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, w = tid >> 5;
    const int warps         = static_cast<int>(blockDim.x) >> 5;
    const FallbackLayout at = fallback_layout(warps, k);
    double* v               = work + w * k;  // this warp's list: values
    int* ix                 = reinterpret_cast<int*>(work + at.indices) + w * k;  // indices
    const int failed = *failed_count, slices = fallback_slices(failed);
    for (long long item = blockIdx.x; item < static_cast<long long>(failed) * slices;
         item += gridDim.x) {  // several slices: item < fallback_blocks, one per block
      const long long row = failed_rows[item / slices];
      const int slice     = static_cast<int>(item % slices);
      const int b = static_cast<int>(row / n_outer), i = static_cast<int>(row % n_outer);
      __syncthreads();  // the previous item's lists are read
      clear(v, ix, lane);
      for_each_inner_row(i, slice * warps + w, slices * warps, [&](int j) {
        const double e = exact(b, i, j, lane);
        if (lane == 0) insert(v, ix, k, e, j);
        __syncwarp();
      });
      __syncthreads();
      smallest_of_lists(
          lane == 0,
          [&](int h, double& hv, int& hj) {
            hv = v[h];
            hj = ix[h];
          },
          work + at.reduce,
          [&](int s, double pv, int pj) {
            if (slices == 1) {
              write_result(b, i, s, pv, pj);
            } else {
              split_val[item * k + s] = pv;
              split_idx[item * k + s] = pj;
            }
          });
    }
  }

  /// The results of rows split into several slices by run_fallback: a block per row, thread t
  /// owning slice t's list. work: 3 doubles per warp, then 2.
  __device__ void run_fallback_merge(double* work) const {
    const int failed = *failed_count, slices = fallback_slices(failed);
    if (slices == 1) return;  // run_fallback wrote the results
    const int tid = static_cast<int>(threadIdx.x);
    for (int f = static_cast<int>(blockIdx.x); f < failed; f += static_cast<int>(gridDim.x)) {
      const long long row = failed_rows[f], list = static_cast<long long>(f) * slices + tid;
      const int b = static_cast<int>(row / n_outer), i = static_cast<int>(row % n_outer);
      smallest_of_lists(
          tid < slices,
          [&](int h, double& hv, int& hj) {
            hv = split_val[list * k + h];
            hj = split_idx[list * k + h];
          },
          work, [&](int s, double pv, int pj) { write_result(b, i, s, pv, pj); });
      __syncthreads();  // the next row's rounds reuse work
    }
  }

  /// The thread of the block whose (v, j) precedes every other thread's (precedes_min; equal
  /// pairs to the lower thread). work: 3 doubles of shared memory per warp.
  __device__ static int block_min_owner(double v, int j, double* work) {
    const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int warps = static_cast<int>(blockDim.x) >> 5;
    int owner       = tid;
    const auto take = [&](double ov, int oj, int oo) {
      const bool before = precedes_min(ov, oj, v, j) && (!precedes_min(v, j, ov, oj) || oo < owner);
      if (before) {
        v     = ov;
        j     = oj;
        owner = oo;
      }
    };
    for (int step = 1; step < 32; step *= 2)
      take(__shfl_xor_sync(0xffffffffu, v, step), __shfl_xor_sync(0xffffffffu, j, step),
           __shfl_xor_sync(0xffffffffu, owner, step));
    __syncthreads();  // work is free
    if (lane == 0) {
      work[3 * warp]     = v;
      work[3 * warp + 1] = j;
      work[3 * warp + 2] = owner;
    }
    __syncthreads();
    for (int w = 0; w < warps; ++w)
      take(work[3 * w], static_cast<int>(work[3 * w + 1]), static_cast<int>(work[3 * w + 2]));
    __syncthreads();  // every thread has read work
    return owner;
  }
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::warps * 32) matrix_select_rerank_cuda(const Kernel k) {
  extern __shared__ double tessera_matrix_rerank_shared[];
  k.run(tessera_matrix_rerank_shared,
        reinterpret_cast<int*>(tessera_matrix_rerank_shared + Kernel::warps * k.k));
}

template <class Kernel>
__global__ void __launch_bounds__(Kernel::fallback_threads)
    matrix_select_fallback_cuda(const Kernel k) {
  extern __shared__ double tessera_matrix_fallback_shared[];
  k.run_fallback(tessera_matrix_fallback_shared);
}

template <class Kernel>
__global__ void __launch_bounds__(Kernel::fallback_threads)
    matrix_select_fallback_merge_cuda(const Kernel k) {
  extern __shared__ double tessera_matrix_fallback_merge_shared[];
  k.run_fallback_merge(tessera_matrix_fallback_merge_shared);
}

/// centre[b] = the mean of up to 256 inner rows spread over batch entry b (one block per batch
/// entry, threads over the components): the shift of both sides of the squared distances.
template <class S>
__global__ void sample_centre_cuda(const VarAccessor<S> y, int dim, int rows, float* centre) {
  const int b       = static_cast<int>(blockIdx.x);
  const int samples = rows < 256 ? rows : 256;
  for (int c = static_cast<int>(threadIdx.x); c < dim; c += static_cast<int>(blockDim.x)) {
    float sum = 0;
    for (int s = 0; s < samples; ++s) {
      const long long r = static_cast<long long>(s) * rows / samples;
      sum += y.template load<float>(b * y.sb + r * y.sr + c * y.sc);
    }
    centre[static_cast<long long>(b) * dim + c] = samples > 0 ? sum / samples : 0.0f;
  }
}

/// norm2_max[b] = max_j |y_j - centre_b|^2 over the rows of batch entry b (blockIdx.y), as the
/// bits of a non-negative float (atomicMax on them orders like the floats); starts from 0.
template <class S>
__global__ void row_norm_max_cuda(const VarAccessor<S> y, int dim, int rows, const float* centre,
                                  unsigned* norm2_max) {
  const int b     = static_cast<int>(blockIdx.y);
  const float* mu = centre == nullptr ? nullptr : centre + static_cast<long long>(b) * dim;
  float m         = 0;
  for (long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += static_cast<long long>(gridDim.x) * blockDim.x) {
    float n2 = 0;
    for (int c = 0; c < dim; ++c) {
      const float v =
          y.template load<float>(b * y.sb + r * y.sr + c * y.sc) - (mu == nullptr ? 0.0f : mu[c]);
      n2 += v * v;
    }
    m = fmaxf(m, n2);
  }
  for (int s = 16; s >= 1; s /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, s));
  if ((threadIdx.x & 31) == 0) atomicMax(norm2_max + b, __float_as_uint(m));
}

/// The dimension and the operation of a PointPairFormula.
template <class Formula>
struct PointPairParts;
template <int D, class Op>
struct PointPairParts<PointPairFormula<D, Op>> {
  static constexpr int dim = D;
  using op                 = Op;
};

/// Runs a matrix_select_call (see the file comment). Returns false, having run nothing, on GPUs
/// below compute capability 8.0, for k > CudaTuning::matrix_select_max_k and when the block's
/// lists do not fit in shared memory (the SIMT kernel then runs the call).
template <class Call, class Red>
bool launch_matrix_select(const Kokkos::Cuda& space, const Call& call, const Red& red) {
  using Index                  = typename Call::index_type;
  constexpr int D              = PointPairParts<typename Call::formula_type>::dim;
  using Op                     = typename PointPairParts<typename Call::formula_type>::op;
  const auto& xa               = call.ivars.template accessor<0>();
  const auto& ya               = call.jvars.template accessor<0>();
  using SX                     = typename Call::storage_type::i_group::template storage_type<0>;
  using SY                     = typename Call::storage_type::j_group::template storage_type<0>;
  using E                      = typename MatrixElement<SX, SY>::type;
  using Kernel                 = MatrixSelectCandidates<D, Op, E, Call::sparse>;
  using Out                    = decltype(output_access<float, Index>(call.outputs));
  using Rerank                 = MatrixSelectRerank<D, Op, Red, SX, SY, Out, Call::sparse>;
  const int k                  = select_k(red);
  const CudaDeviceFacts device = cuda_device_facts(space);
  if (device.compute_major < 8 || k > CudaTuning::matrix_select_max_k) return false;

  Kernel kn;
  kn.n_outer = call.template n_outer<true>();
  kn.n_inner = call.template n_inner<true>();
  kn.tile_j  = Kernel::BN;
  kn.cands   = k + CudaTuning::matrix_select_margin;
  if (kn.shared_bytes() > device.shared_max) return false;
  const auto kernel = &matrix_select_candidates_cuda<Kernel>;
  const std::size_t resident =
      cuda_resident_blocks(space, kernel, Kernel::block, kn.shared_bytes());
  const std::size_t league =
      schedule<Kokkos::Cuda>(call.options, call.shape, call.sparsity, resident, kn);
  if (league == 0) return true;

  const cudaStream_t stream = space.cuda_stream();
  const int batch = static_cast<int>(call.shape.batch), dp = matrix_panel_columns(D);
  const std::size_t lists      = static_cast<std::size_t>(batch) * kn.n_outer * kn.chunks;
  const std::size_t rows_total = static_cast<std::size_t>(batch) * kn.n_outer;
  // the rows whose certificate failed, shared by as many fallback blocks as fit at once
  const int fallback_blocks = 8 * device.multiprocessors;
  const std::size_t split   = static_cast<std::size_t>(fallback_blocks) * k;
  const std::size_t bytes   = split * (sizeof(double) + sizeof(int)) +
                            rows_total * sizeof(long long) +
                            lists * (kn.cands * (sizeof(float) + sizeof(int)) + sizeof(float)) +
                            static_cast<std::size_t>(batch) * (D + 1) * sizeof(float) + sizeof(int);
  void* work = nullptr;
  check_cuda(cudaMallocAsync(&work, bytes, stream), "selection workspace allocation");
  auto* split_val   = static_cast<double*>(work);
  auto* failed_rows = reinterpret_cast<long long*>(split_val + split);
  kn.cand_val       = reinterpret_cast<float*>(failed_rows + rows_total);
  kn.cand_idx       = reinterpret_cast<int*>(kn.cand_val + lists * kn.cands);
  kn.threshold      = reinterpret_cast<float*>(kn.cand_idx + lists * kn.cands);
  float* centre     = Kernel::Score::centred ? kn.threshold + lists : nullptr;
  unsigned* y_max =
      reinterpret_cast<unsigned*>(kn.threshold + lists + static_cast<std::size_t>(batch) * D);
  int* failed_count = reinterpret_cast<int*>(y_max + batch);
  int* split_idx    = failed_count + 1;
  check_cuda(
      cudaMemsetAsync(y_max, 0, (static_cast<std::size_t>(batch) + 1) * sizeof(unsigned), stream),
      "selection workspace initialisation");  // y_max and failed_count
  {
    const ToolsKernelScope scope(space, Call::sparse
                                            ? "tessera::genred::matrix_select_block_sparse_cuda"
                                            : "tessera::genred::matrix_select_cuda");
    if (centre != nullptr) sample_centre_cuda<<<batch, 128, 0, stream>>>(ya, D, kn.n_inner, centre);
    const dim3 norm_grid(static_cast<unsigned>(std::min(1024, kn.n_inner / 256 + 1)),
                         static_cast<unsigned>(batch));
    row_norm_max_cuda<<<norm_grid, 256, 0, stream>>>(ya, D, kn.n_inner, centre, y_max);
    OperandTransform inner = Kernel::Score::inner(centre);
    inner.common_norm2     = y_max;  // one factor for all inner rows: the kernel's fi d + nj
    const OperandPair<E> rows(stream, batch, kn.n_outer, kn.n_inner, Kernel::BM, Kernel::BN, D,
                              false, xa, Kernel::Score::outer(centre), ya, inner);
    kn.tiles.a = rows.x.operands();
    kn.tiles.b = rows.y.operands();
    kernel<<<static_cast<unsigned>(league), Kernel::block, kn.shared_bytes(), stream>>>(kn);
    const Rerank rr{red,          xa,
                    ya,           kn.n_outer,
                    kn.n_inner,   kn.chunks,
                    kn.cands,     k,
                    dp,           static_cast<long long>(batch) * kn.n_outer,
                    kn.cand_val,  kn.cand_idx,
                    kn.threshold, y_max,
                    centre,       output_access<float, Index>(call.outputs),
                    kn.sparse,    failed_rows,
                    failed_count, fallback_blocks,
                    split_val,    split_idx};
    const unsigned blocks =
        static_cast<unsigned>((rr.rows_total + Rerank::warps - 1) / Rerank::warps);
    const std::size_t shared = Rerank::warps * k * (sizeof(double) + sizeof(int));
    matrix_select_rerank_cuda<Rerank><<<blocks, Rerank::warps * 32, shared, stream>>>(rr);
    constexpr int fallback_warps = Rerank::fallback_threads / 32;
    const auto layout            = Rerank::fallback_layout(fallback_warps, k);
    matrix_select_fallback_cuda<Rerank>
        <<<fallback_blocks, Rerank::fallback_threads, layout.total * sizeof(double), stream>>>(rr);
    matrix_select_fallback_merge_cuda<Rerank>
        <<<fallback_blocks, Rerank::fallback_threads,
           (layout.total - layout.reduce) * sizeof(double), stream>>>(rr);
  }
  check_cuda(cudaGetLastError(), "tensor-core selection launch");
  check_cuda(cudaFreeAsync(work, stream), "selection workspace release");
  return true;
}

}  // namespace Impl
}  // namespace tessera
