// The streamed tensor-core path of radial-kernel sums with wide weights: Sum reductions of a
// RadialKernel with Distance::matrix and a bounded profile (unit_bounded_profile), a_i =
// sum_j k(|x_i - y_j|^2) b_j, computed in float from float, half_t or bhalf_t Views, over j,
// dense or block-sparse (matrix_team_tile.hpp), any D, weights of static width W >=
// CudaTuning::matrix_wide_sum_min_weights. With W that
// wide, the weights' product is a second matrix product, as in fused attention kernels
// (FlashAttention-2: T. Dao, "Faster Attention with Better Parallelism and Work Partitioning",
// 2023, arXiv:2307.08691):
//   A = P B  with  P[i][j] = k(s |x_i - y_j|^2)  (a tile of the engine, never stored)
// and B the tile's weights.
//
// 1. The rows are prepared once per call as for the narrow sums (matrix_operands.hpp: one
//    product in the points' own type for half_t or bhalf_t points, else FP16 parts of the float
//    values, split unless MatrixPrecision::fast), and so are the weights
//    (prepare_weight_fragments_cuda): each column c scaled by 2^q_c, which brings its largest
//    magnitude to [2^13, 2^14) (as the rows: mma.hpp fp16_row_shift), split into FP16 parts
//    hi + lo (hi only with MatrixPrecision::fast, and for half_t or bhalf_t weights, which FP16
//    holds exactly once scaled, to 2^-38 of the column's largest), and stored in the order of
//    the m16n8k16 B fragments (below), so that each lane fetches its fragment of a 16 x 8 block
//    with one 16-byte (8-byte) load; rows past N are zero.
// 2. The tile engine (WideSumTiles: Hopper's 128 x 256 tiles for one product per element pair
//    in builds for sm_90a, else the mma.sync engine's 128 x 128) computes each tile of dot
//    products; the epilogue turns each into s r^2 as the narrow sum does (the tile's s |y_j|^2
//    and 2^-p_j staged in shared memory, TileColumns, on the Hopper engine; through L1 on the
//    mma.sync engine: see `staged`), evaluates P' = 2^14 k (in place in the
//    accumulators; 0 for inner rows outside the range being walked: the weights' padding, the
//    end of a 2D chunk or of a block-sparse range, and the rows before a block-sparse range's
//    first row, since ranges are walked from the 16-row slab of the weights panel that holds
//    it), splits P' into FP16 hi + lo (hi alone when fast) and packs it as
//    A fragments.
//    Register reuse (FlashAttention-2): the m16n8 accumulator layout of two adjacent n8 tiles
//    is the m16k16 A fragment layout. With g = lane / 4, t = lane % 4, the engine's tile
//    (mt, nt) holds at q = 0..3 the pair (row g + 8 (q / 2), column 2t + q % 2); the A fragment
//    of k-slab ks (columns 16 ks .. 16 ks + 15 of the warp's) is
//      a[0] = (P[mt][2ks][0],   P[mt][2ks][1])    rows g,     k 2t, 2t + 1
//      a[1] = (P[mt][2ks][2],   P[mt][2ks][3])    rows g + 8, k 2t, 2t + 1
//      a[2] = (P[mt][2ks+1][0], P[mt][2ks+1][1])  rows g,     k 2t + 8, 2t + 9
//      a[3] = (P[mt][2ks+1][2], P[mt][2ks+1][3])  rows g + 8, k 2t + 8, 2t + 9
//    (low half of each half2 = lower k), and the B fragment of 16 inner rows x 8 columns is
//      b[0] = (B[2t][g], B[2t + 1][g]),  b[1] = (B[2t + 8][g], B[2t + 9][g]).
//    The products P_lo B_hi + P_hi B_lo + P_hi B_hi (the terms of parts that exist) of each
//    8-column tile of weights start from zero in each tile of inner rows (the matrix units may
//    truncate their additions: this bounds that bias by the tile's own sum) and are added to the
//    running sums in float (direct summation across tiles; the reducer's Summation mode applies to
//    the combination of the 2D scheme's chunks).
// 3. Warps. Hopper engine: each of the 8 warps holds P for 16 outer rows and all 256 inner rows
//    of the tile, so it multiplies by all WB columns of the tile's weights, which the block
//    stages in shared memory (one cp.async group per tile, started as the tile's epilogue
//    begins; 32 KiB at WB = 64 in one part), k-slab by k-slab, each slab's A fragments packed
//    just before use: the running sums take 16 x WB floats per warp (32 registers per lane at
//    WB = 64) beside the engine's 128 accumulators. mma.sync engine: the 4 warps form 2 x 2
//    (wm, wn); warp (wm, wn) holds P for outer rows 64 wm .. 64 wm + 63 and inner rows
//    64 wn .. 64 wn + 63 of the tile. A block computes WB weight columns (W rounded up to 16,
//    at most CudaTuning::matrix_wide_sum_block_columns; wider weights take several blocks per
//    row tile, each recomputing the tile's P). On the mma.sync engine, when WB
//    fits a warp's accumulators (CudaTuning::matrix_wide_sum_warp_columns), both warps of a
//    row pair sum their inner rows into all WB columns, added at the end; otherwise warp wn
//    owns columns (WB / 2) wn .. (WB / 2) (wn + 1) - 1 and, for each of its 8-column tiles r,
//    computes its partner's tile r over its own inner rows, passes it through shared memory
//    (double-buffered, one named barrier per warp pair and tile r) and adds the partner's
//    contribution to its own: the running sums take 64 x WB / 2 floats per warp (64 registers
//    per lane at WB = 64), beside the engine's 128 accumulators.
// 4. Outputs: the running sums go to shared memory and each block writes its rows and columns,
//    unscaled by 2^-(14 + q_c), to the output (1D) or to the 2D partial buffer, whose chunks the
//    reducer combines.
// Memory: the operand panels of matrix_operands.hpp plus the weights panel, (batch N_pad
// WP) 4 bytes (2 when fast), WP = W rounded up to the block columns, and (batch WP) ints of
// column maxima; released on the stream after the call. Shared memory per block: the engine's
// pipeline (or the final sums, 128 x (WB + 1) floats, if larger; Hopper engine:
// CudaTuning::matrix_wide_sum_sm90_stages stages), the exchange buffers (16 KiB when the columns
// are split) or, on the Hopper engine, the staged weights and two tiles' column records, and
// 1 KiB of row constants.
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/impl/cuda/launch_cache.hpp>
#include <tessera/genred/impl/cuda/matrix_engine.hpp>
#include <tessera/genred/impl/cuda/matrix_operands.hpp>
#include <tessera/genred/impl/cuda/matrix_team_tile.hpp>
#include <tessera/genred/impl/cuda/mma.hpp>
#include <tessera/genred/impl/cuda/tiled_reduce_cuda.hpp>
#include <tessera/genred/impl/output_access.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/var_group.hpp>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace tessera {
namespace Impl {

/// True for the radial profiles whose values lie in [0, 1] (k(0) = 1, decreasing; slightly
/// above 1 only by the rounding of s r^2 near 0): their values scaled by 2^14 fit FP16.
template <class Profile>
inline constexpr bool unit_bounded_profile =
    std::is_same_v<Profile, GaussianProfile> || std::is_same_v<Profile, LaplaceProfile> ||
    std::is_same_v<Profile, CauchyProfile> || std::is_same_v<Profile, InverseMultiquadricProfile> ||
    std::is_same_v<Profile, Matern32Profile>;

/// True for the calls the wide-weights kernel runs (see the file comment), whatever their Views
/// hold (float, half_t, bhalf_t: the kernel converts as it prepares its operands).
template <class T, class Formula, class Red, bool OuterIsI, bool Sparse>
inline constexpr bool matrix_wide_sum_call = false;
template <class Profile, int D, int W, int FD, Summation S, bool Sparse>
inline constexpr bool matrix_wide_sum_call<float, RadialKernel<Profile, D, W, Distance::matrix>,
                                           Reducer<Sum, float, FD, S>, true, Sparse> =
    FD == W&& W >= CudaTuning::matrix_wide_sum_min_weights&& unit_bounded_profile<Profile>;

/// The weight columns of a block (WB) and of the weights panel (WP) for W weights, and whether
/// the two column warps of a block split WB (see the file comment).
template <int W>
struct WideSumColumns {
  static constexpr int widest = CudaTuning::matrix_wide_sum_block_columns;
  static_assert(widest % 16 == 0 && CudaTuning::matrix_wide_sum_warp_columns % 8 == 0,
                "block columns in 16-column k-slabs of split pairs, warp columns in n8 tiles");
  static constexpr int rounded = (W + 15) / 16 * 16;
  static constexpr int block   = rounded < widest ? rounded : widest;  ///< WB
  static constexpr int blocks  = (W + block - 1) / block;              ///< blocks per row tile
  static constexpr int panel   = blocks * block;                       ///< WP
  static constexpr bool split  = block > CudaTuning::matrix_wide_sum_warp_columns;
};

/// FP16 values of P are P' = 2^wide_sum_p_shift k: the profiles' [0, 1] then lies in FP16's
/// normal range down to k = 2^-28, with room above (P' <= 2^14 < 65504).
inline constexpr int wide_sum_p_shift = 14;

/// Largest |w| of each column of the weights, as the bits of a non-negative float (ordered as
/// ints), into colmax[b * cols_pad + c] (zeroed by the caller). Each block takes `rows_per_block`
/// rows of one batch entry and walks them in memory order, so that its loads are coalesced
/// whichever the layout.
template <int W, class S>
__global__ void weight_column_max_cuda(const VarAccessor<S> w, const int rows,
                                       const int rows_per_block, const int cols_pad, int* colmax) {
  __shared__ int block_max[W];
  const int chunks = (rows + rows_per_block - 1) / rows_per_block;
  const int b      = static_cast<int>(blockIdx.x) / chunks;
  const int r0     = (static_cast<int>(blockIdx.x) % chunks) * rows_per_block;
  const int n      = rows - r0 < rows_per_block ? rows - r0 : rows_per_block;
  for (int c = static_cast<int>(threadIdx.x); c < W; c += static_cast<int>(blockDim.x))
    block_max[c] = 0;
  __syncthreads();
  const bool row_major = w.sc <= w.sr;
  for (int e = static_cast<int>(threadIdx.x); e < n * W; e += static_cast<int>(blockDim.x)) {
    const int r = row_major ? e / W : e % n, c = row_major ? e % W : e / n;
    const float v = fabsf(w.template load<float>(b * w.sb + (r0 + r) * w.sr + c * w.sc));
    atomicMax(&block_max[c], __float_as_int(v));
  }
  __syncthreads();
  for (int c = static_cast<int>(threadIdx.x); c < W; c += static_cast<int>(blockDim.x))
    atomicMax(&colmax[b * cols_pad + c], block_max[c]);
}

/// The weights panel in fragment order: fragment (b, s, ct, lane) holds, for rows 16 s .. 16 s
/// + 15 and columns 8 ct .. 8 ct + 7, lane (g, t)'s B fragment b[0] = rows 2t, 2t + 1, b[1] =
/// rows 2t + 8, 2t + 9 of column g, as packed FP16 pairs of w 2^q_c: {hi b[0], hi b[1], lo b[0],
/// lo b[1]} (uint4) when split, {hi b[0], hi b[1]} (uint2) otherwise. One thread per fragment.
template <class Frag, class S>
__global__ void prepare_weight_fragments_cuda(const VarAccessor<S> w, const int rows,
                                              const int cols, const int cols_pad, const int slabs,
                                              const long long fragments, const int* colmax,
                                              Frag* out) {
  const long long f = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (f >= fragments) return;
  const int lane = static_cast<int>(f % 32), g = lane >> 2, t = lane & 3;
  const long long unit = f / 32;  // (b, s, ct)
  const int tiles      = cols_pad / 8;
  const int ct         = static_cast<int>(unit % tiles);
  const int s          = static_cast<int>(unit / tiles % slabs);
  const int b          = static_cast<int>(unit / tiles / slabs);
  const int c          = 8 * ct + g;
  const int p          = fp16_row_shift(__int_as_float(colmax[b * cols_pad + c]));
  const auto value     = [&](int j) {
    return j < rows && c < cols
                   ? w.template load<float>(b * w.sb + static_cast<long long>(j) * w.sr + c * w.sc)
                   : 0.0f;
  };
  const int j = 16 * s + 2 * t;
  std::uint32_t hi0, lo0, hi1, lo1;
  fp16_split2(value(j), value(j + 1), p, hi0, lo0);
  fp16_split2(value(j + 8), value(j + 9), p, hi1, lo1);
  if constexpr (std::is_same_v<Frag, uint4>) {
    out[f] = make_uint4(hi0, hi1, lo0, lo1);
  } else {
    out[f] = make_uint2(hi0, hi1);
  }
}

/// The prepared weights of a call (panel in fragment order and column maxima), allocated on a
/// stream (cudaMallocAsync) and released on it when destroyed.
template <class Frag>
class WeightFragments {
 public:
  /// Room for `batch` entries of rows_pad (a multiple of 16) rows and cols_pad columns.
  WeightFragments(cudaStream_t stream, int batch, int rows_pad, int cols_pad)
      : stream_(stream),
        batch_(batch),
        slabs_(rows_pad / 16),
        cols_pad_(cols_pad),
        fragments_(static_cast<long long>(batch) * slabs_ * (cols_pad / 8) * 32) {
    const std::size_t panel =
        (static_cast<std::size_t>(fragments_) * sizeof(Frag) + 255) / 256 * 256;
    const std::size_t maxima = static_cast<std::size_t>(batch) * cols_pad * sizeof(int);
    check_cuda(cudaMallocAsync(&memory_, panel + maxima, stream), "wide weights allocation");
    frags_  = static_cast<Frag*>(memory_);
    colmax_ = reinterpret_cast<int*>(static_cast<char*>(memory_) + panel);
  }
  WeightFragments(const WeightFragments&)            = delete;
  WeightFragments& operator=(const WeightFragments&) = delete;
  ~WeightFragments() { cudaFreeAsync(memory_, stream_); }

  /// The panel, fragment (b, s, ct, lane) at ((b slabs + s) cols_pad / 8 + ct) 32 + lane.
  const Frag* fragments() const { return frags_; }
  /// Column maxima (bits of |w| as int), entry b * cols_pad + c.
  const int* column_max() const { return colmax_; }
  /// 16-row slabs per batch entry.
  int slabs() const { return slabs_; }

  /// Fills the panel from the W-column weights of `rows` rows read through `w`.
  template <int W, class S>
  void prepare(const VarAccessor<S>& w, int rows) const {
    check_cuda(cudaMemsetAsync(colmax_, 0,
                               static_cast<std::size_t>(batch_) * cols_pad_ * sizeof(int), stream_),
               "wide weights maxima");
    constexpr int threads = 256, rows_per_block = 64;
    const long long max_blocks =
        static_cast<long long>(batch_) * ((rows + rows_per_block - 1) / rows_per_block);
    if (max_blocks > 0) {
      weight_column_max_cuda<W, S><<<static_cast<unsigned>(max_blocks), threads, 0, stream_>>>(
          w, rows, rows_per_block, cols_pad_, colmax_);
    }
    const unsigned blocks = static_cast<unsigned>((fragments_ + threads - 1) / threads);
    if (blocks > 0) {
      prepare_weight_fragments_cuda<Frag, S><<<blocks, threads, 0, stream_>>>(
          w, rows, W, cols_pad_, slabs_, fragments_, colmax_, frags_);
    }
    check_cuda(cudaGetLastError(), "wide weights preparation");
  }

 private:
  cudaStream_t stream_;
  int batch_, slabs_, cols_pad_;
  long long fragments_;
  void* memory_ = nullptr;
  Frag* frags_  = nullptr;
  int* colmax_  = nullptr;
};

/// Waits for the two warps (64 threads) of row pair `pair`, 0 or 1, at named barrier 1 + pair
/// (__syncthreads uses 0; immediate ids, so that the kernel reserves only the barriers it uses).
__device__ __forceinline__ void pair_barrier(int pair) {
  if (pair == 0) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
  } else {
    asm volatile("bar.sync 2, 64;" ::: "memory");
  }
}

/// The engine of the wide-weights kernel: Hopper's (its warps hold whole rows of a tile, so no
/// exchange between warps) for one product per element pair in builds for sm_90a, else the
/// mma.sync engine's 2 x 2 warps.
template <class E, int Parts, int BK>
using WideSumTiles =
    std::conditional_t<cuda_sm90a_build && Parts == 1,
                       MatrixTilesSm90<E, 1, BK, CudaTuning::matrix_wide_sum_sm90_stages>,
                       MatrixTiles<E, Parts, BK>>;

/// The wide-weights kernel: the engine's Parts products of 16-bit type E for the dot products,
/// then P' in PParts FP16 parts (2: hi + lo) times the weights in WParts FP16 parts, the
/// products p_hi w_hi, p_lo w_hi (PParts = 2) and p_hi w_lo (WParts = 2).
template <class Profile, int D, int W, class Red, class Out, class E, int Parts, int PParts,
          int WParts, bool Sparse>
struct MatrixWideSumReduce {
  using scalar_type  = float;
  using reducer_type = Red;
  using Formula      = RadialKernel<Profile, D, W, Distance::matrix>;
  using Tiles        = WideSumTiles<E, Parts, matrix_tile_k_step(D)>;
  using Columns      = WideSumColumns<W>;
  /// A lane's part of one 16 x 8 block of weights (see prepare_weight_fragments_cuda).
  using Frag = std::conditional_t<WParts == 2, uint4, uint2>;
  /// A tile's column records: s |y_j|^2 and 2^-p_j.
  using Records = TileColumns<Tiles, 2>;

  static constexpr bool outer_is_i = true;
  static constexpr bool is_sparse  = Sparse;
  static constexpr int MT = Tiles::MT, NT = Tiles::NT, BM = Tiles::BM, BN = Tiles::BN;
  static constexpr int WM = Tiles::WM, WN = Tiles::WN;
  static constexpr int block      = Tiles::block;
  static constexpr int min_blocks = Tiles::min_blocks;
  static constexpr int KS         = NT / 2;           ///< k-slabs of a warp's inner rows
  static constexpr int WB         = Columns::block;   ///< weight columns of a block
  static constexpr int CB         = Columns::blocks;  ///< blocks per row tile
  /// Whether the two column warps of a row pair split the block's columns (mma.sync engine).
  static constexpr bool split = Columns::split && WN == 2;
  /// Whether a tile's weights and column records are staged in shared memory: with one column
  /// warp, every warp multiplies by all of the weights (Hopper engine); two column warps read
  /// theirs, and the columns' s |y_j|^2 and 2^-p_j, through L1 (staged records cost that
  /// kernel 40% at D = 128, W = 64, 0.12e12 against 0.21e12 pairs/s on the H100, and gained 9%
  /// at D = 64, W = 16, 0.52e12 against 0.48e12).
  static constexpr bool staged = WN == 1;
  static constexpr int OT      = (split ? WB / 2 : WB) / 8;  ///< a warp's 8-column tiles
  static constexpr int WBP     = WB + 1;  ///< row stride of the final sums (odd: no conflicts)
  static constexpr int LT      = PParts == 2 ? MT : 1;  ///< m-tiles of P's low parts
  /// A warp's A fragments of P' (high parts) for its MT m-tiles and KS k-slabs.
  using HiFrags = std::uint32_t[MT][KS][4];
  /// The low parts (PParts = 2 only).
  using LoFrags = std::uint32_t[LT][KS][4];
  static_assert(WN == 1 || (WN == 2 && WM == 2), "one column warp, or two pairs (pair_barrier)");
  static_assert(NT % 2 == 0, "P's A fragments take two n8 tiles");
  static_assert(PParts >= 1 && PParts <= 2 && WParts >= 1 && WParts <= 2, "one or two parts");
  static_assert(CudaTuning::genred_2d_chunk_granularity % 16 == 0,
                "chunks of the 2D scheme start on a 16-row slab of the weights panel");

  // Shared memory: [pipeline | final sums] [exchange buffers] [staged weights] [column records]
  // [row constants]
  static constexpr std::size_t sums_bytes = static_cast<std::size_t>(BM) * WBP * sizeof(float);
  static constexpr std::size_t exchange_offset =
      ((Tiles::shared_bytes > sums_bytes ? Tiles::shared_bytes : sums_bytes) + 15) / 16 * 16;
  static constexpr std::size_t exchange_bytes =
      split ? static_cast<std::size_t>(2) * WM * WN * MT * 32 * sizeof(float4) : 0;
  static constexpr std::size_t staged_offset = exchange_offset + exchange_bytes;
  /// 16-byte chunks of one 16-row slab of the block's weights.
  static constexpr int slab_chunks = WB / 8 * 32 * static_cast<int>(sizeof(Frag)) / 16;
  static constexpr std::size_t staged_bytes =
      staged ? static_cast<std::size_t>(BN / 16) * slab_chunks * 16 : 0;
  static constexpr std::size_t records_offset = staged_offset + staged_bytes;
  static constexpr std::size_t rows_offset    = records_offset + (staged ? Records::bytes : 0);

  Formula formula;
  Red red;
  Tiles tiles;
  const Frag* weights   = nullptr;  ///< the weights panel
  const int* column_max = nullptr;  ///< (batch, WP) column maxima (bits of |w|)
  int slabs             = 0;        ///< 16-row slabs of the panel per batch entry
  int n_outer = 0, n_inner = 0, tiles_outer = 0, tile_j = 0, chunks = 0, chunk_rows = 0;
  SparseSchedule sparse;  ///< block-sparse calls only
  Out out;
  PartialBuffer<float> partial;

  KOKKOS_INLINE_FUNCTION int tile_rows() const { return BM; }
  /// Dynamic shared memory of a block (see the layout above).
  std::size_t shared_bytes() const { return rows_offset + 2 * BM * sizeof(float); }

  /// x += P' times one 16 x 8 block of weights f: P's high (ah) and low (al) A fragments.
  __device__ __forceinline__ static void products(float (&x)[4], const std::uint32_t (&ah)[4],
                                                  const std::uint32_t (&al)[4], const Frag& f) {
    const std::uint32_t bh[2] = {f.x, f.y};
    if constexpr (PParts == 2) mma_fp16(x, al, bh);
    if constexpr (WParts == 2) {
      const std::uint32_t bl[2] = {f.z, f.w};
      mma_fp16(x, ah, bl);
    }
    mma_fp16(x, ah, bh);
  }

  /// The A fragments of k-slab ks of m-tile mt of P' (see the file comment): FP16 high parts
  /// into ah and, with PParts = 2, the remainders into al.
  __device__ __forceinline__ static void p_fragments(const typename Tiles::Acc& d, int mt, int ks,
                                                     std::uint32_t (&ah)[4],
                                                     std::uint32_t (&al)[4]) {
    TESSERA_UNROLL_FULL
    for (int a = 0; a < 4; ++a) {
      const float* v  = d[mt][2 * ks + (a >> 1)] + 2 * (a & 1);
      const __half2 h = __floats2half2_rn(v[0], v[1]);
      ah[a]           = *reinterpret_cast<const std::uint32_t*>(&h);
      if constexpr (PParts == 2) {
        const __half2 l = __floats2half2_rn(v[0] - __low2float(h), v[1] - __high2float(h));
        al[a]           = *reinterpret_cast<const std::uint32_t*>(&l);
      }
    }
  }

  /// x[mt] = the warp's P (A fragments ah, al) times the weights of panel column tile ct for
  /// its 64 inner rows, whose first 16-row slab is `slab0`, started from zero (two column warps:
  /// the weights read from L2).
  __device__ __forceinline__ void tile_product(float (&x)[MT][4], const HiFrags& ah,
                                               const LoFrags& al, int b, int slab0, int ct,
                                               int lane) const {
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int q = 0; q < 4; ++q)
        x[mt][q] = 0.0f;
    }
    constexpr int CT = Columns::panel / 8;
    const Frag* src =
        weights + ((static_cast<std::size_t>(b) * slabs + slab0) * CT + ct) * 32 + lane;
    TESSERA_UNROLL_FULL
    for (int ks = 0; ks < KS; ++ks) {
      const Frag f = __ldg(src + static_cast<std::size_t>(ks) * CT * 32);
      TESSERA_UNROLL_FULL
      for (int mt = 0; mt < MT; ++mt)
        products(x[mt], ah[mt][ks], al[PParts == 2 ? mt : 0][ks], f);
    }
  }

  /// Starts copying the weights of the tile at inner row j0 (its BN / 16 slabs, the block's
  /// WB columns from column block cb) to shared memory, slab by slab in fragment order, as one
  /// cp.async group.
  __device__ __forceinline__ void stage_weights(char* dst, int b, int j0, int cb) const {
    constexpr int CT = Columns::panel / 8;
    const char* src  = reinterpret_cast<const char*>(
        weights + ((static_cast<std::size_t>(b) * slabs + j0 / 16) * CT + cb * (WB / 8)) * 32);
    for (int e = static_cast<int>(threadIdx.x); e < BN / 16 * slab_chunks; e += block) {
      const int s = e / slab_chunks, c = e % slab_chunks;
      cp_async_16(dst + 16 * e,
                  src + static_cast<std::size_t>(s) * CT * 32 * sizeof(Frag) + 16 * c);
    }
    cp_async_commit();
  }

  /// Lane `lane`'s slot, MT float4 at a stride of 32, in the exchange buffer of round r written
  /// by warp (wm, wn).
  __device__ __forceinline__ static float4* exchange_slot(char* shared, int r, int wm, int wn,
                                                          int lane) {
    return reinterpret_cast<float4*>(shared + exchange_offset) +
           (((r & 1) * WM + wm) * WN + wn) * MT * 32 + lane;
  }

  __device__ void run(int league, char* shared) const {
    const int cb              = league % CB;
    const MatrixTeamTile tile = matrix_team_tile(*this, league / CB);
    const int b               = tile.batch;
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    const int wm = warp / WN, wn = warp % WN, g = lane >> 2, t = lane & 3;
    const int o0 = tile.o_begin;

    // s |x_i|^2 and -2 s 2^-p_i of the block's rows (read by the epilogues after the engine's
    // first barrier)
    float* row_norm         = reinterpret_cast<float*>(shared + rows_offset);
    float* row_factor       = row_norm + BM;
    const float c2          = static_cast<float>(-2.0 * formula.profile.scale);
    constexpr float p_scale = static_cast<float>(1 << wide_sum_p_shift);
    for (int r = static_cast<int>(threadIdx.x); r < BM; r += block) {
      const std::size_t row = tiles.a.row(b, o0 + r);
      row_norm[r]           = tiles.a.norm[row];
      row_factor[r]         = c2 * tiles.a.factor[row];
    }

    // running sums: tile (mt, r) holds rows (BM / WM) wm + 16 mt + g + 8 (q / 2) and block
    // columns own0 + 8 r + 2t + q % 2
    const int own0 = split ? wn * (WB / 2) : 0;
    float acc[MT][OT][4];
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int r = 0; r < OT; ++r) {
        TESSERA_UNROLL_FULL
        for (int q = 0; q < 4; ++q)
          acc[mt][r][q] = 0.0f;
      }
    }
    // each range from the 16-row slab of the weights panel that holds its first row j_first
    // (the rows before it masked); dense chunks start on one
    for_each_inner_range(*this, tile, [&](int j_first, int j_end) {
      const int j_begin = j_first / 16 * 16;
      Records records{reinterpret_cast<float*>(shared + records_offset), j_begin};
      const auto record = [&](int j, float* rec) {
        const std::size_t r = tiles.b.row(b, j);
        rec[0]              = tiles.b.norm[r];
        rec[1]              = tiles.b.factor[r];
      };
      if constexpr (staged) {
        records.load(j_begin, record);
        records.store(j_begin);  // visible after the engine's first barrier
      }
      tiles.run(shared, b, o0, j_begin, j_end, [&](typename Tiles::Acc& d, int j0, int, int, int) {
        if constexpr (staged) stage_weights(shared + staged_offset, b, j0, cb);
        // P' = 2^14 k(s r^2), in place; 0 past j_end
        const auto kernel_values = [&] {
          float ni[MT][2], fi[MT][2];
          TESSERA_UNROLL_FULL
          for (int mt = 0; mt < MT; ++mt) {
            TESSERA_UNROLL_FULL
            for (int h = 0; h < 2; ++h) {
              const int r = wm * (BM / WM) + 16 * mt + g + 8 * h;
              ni[mt][h]   = row_norm[r];
              fi[mt][h]   = row_factor[r];
            }
          }
          TESSERA_UNROLL_FULL
          for (int nt = 0; nt < NT; ++nt) {
            TESSERA_UNROLL_FULL
            for (int e = 0; e < 2; ++e) {
              const int c = wn * (BN / WN) + 8 * nt + 2 * t + e;
              float col[2];
              if constexpr (staged) {
                col[0] = records.value(j0, c, 0);
                col[1] = records.value(j0, c, 1);
              } else {
                record(j0 + c, col);
              }
              const float nj = col[0], fj = col[1];
              const bool real = j0 + c >= j_first && j0 + c < j_end;
              TESSERA_UNROLL_FULL
              for (int mt = 0; mt < MT; ++mt) {
                TESSERA_UNROLL_FULL
                for (int h = 0; h < 2; ++h) {
                  float& v      = d[mt][nt][2 * h + e];
                  const float u = fmaf(v * fi[mt][h], fj, ni[mt][h] + nj);
                  v             = real ? formula.profile.shape(u) * p_scale : 0.0f;
                }
              }
            }
          }
        };
        if constexpr (staged) {
          records.epilogue(j0, j_end, record, kernel_values);
        } else {
          kernel_values();
        }
        if constexpr (staged) {
          // every warp's P times all of the tile's staged weights, k-slab by k-slab
          cp_async_wait<0>();
          __syncthreads();  // the tile's weights have landed
          const Frag* ws = reinterpret_cast<const Frag*>(shared + staged_offset) + lane;
          float x[MT][OT][4];
          TESSERA_UNROLL_FULL
          for (int mt = 0; mt < MT; ++mt) {
            TESSERA_UNROLL_FULL
            for (int r = 0; r < OT; ++r) {
              TESSERA_UNROLL_FULL
              for (int q = 0; q < 4; ++q)
                x[mt][r][q] = 0.0f;
            }
          }
          TESSERA_UNROLL_FULL
          for (int ks = 0; ks < KS; ++ks) {
            std::uint32_t ah[MT][4], al[LT][4];
            TESSERA_UNROLL_FULL
            for (int mt = 0; mt < MT; ++mt)
              p_fragments(d, mt, ks, ah[mt], al[PParts == 2 ? mt : 0]);
            TESSERA_UNROLL_FULL
            for (int r = 0; r < OT; ++r) {
              const Frag f = ws[(ks * (WB / 8) + r) * 32];
              TESSERA_UNROLL_FULL
              for (int mt = 0; mt < MT; ++mt)
                products(x[mt][r], ah[mt], al[PParts == 2 ? mt : 0], f);
            }
          }
          TESSERA_UNROLL_FULL
          for (int mt = 0; mt < MT; ++mt) {
            TESSERA_UNROLL_FULL
            for (int r = 0; r < OT; ++r) {
              TESSERA_UNROLL_FULL
              for (int q = 0; q < 4; ++q)
                acc[mt][r][q] += x[mt][r][q];
            }
          }
          // the staged weights are next overwritten in the next tile's epilogue, after the
          // engine's barrier of its first step: every warp has read them by then
        } else {
          HiFrags ah;
          LoFrags al;
          TESSERA_UNROLL_FULL
          for (int mt = 0; mt < MT; ++mt) {
            TESSERA_UNROLL_FULL
            for (int ks = 0; ks < KS; ++ks)
              p_fragments(d, mt, ks, ah[mt][ks], al[PParts == 2 ? mt : 0][ks]);
          }
          // times the weights, one 8-column tile at a time
          const int slab0 = (j0 + wn * (BN / WN)) / 16;
          const int ct0   = cb * (WB / 8);
          TESSERA_UNROLL_FULL
          for (int r = 0; r < OT; ++r) {
            float x[MT][4];
            if constexpr (split) {
              // the partner's tile r over this warp's inner rows
              tile_product(x, ah, al, b, slab0, ct0 + (1 - wn) * OT + r, lane);
              float4* mine = exchange_slot(shared, r, wm, wn, lane);
              TESSERA_UNROLL_FULL
              for (int mt = 0; mt < MT; ++mt)
                mine[mt * 32] = make_float4(x[mt][0], x[mt][1], x[mt][2], x[mt][3]);
            }
            tile_product(x, ah, al, b, slab0, ct0 + own0 / 8 + r, lane);
            TESSERA_UNROLL_FULL
            for (int mt = 0; mt < MT; ++mt) {
              TESSERA_UNROLL_FULL
              for (int q = 0; q < 4; ++q)
                acc[mt][r][q] += x[mt][q];
            }
            if constexpr (split) {
              pair_barrier(wm);  // the pair's slots of round r are written
              const float4* other = exchange_slot(shared, r, wm, 1 - wn, lane);
              TESSERA_UNROLL_FULL
              for (int mt = 0; mt < MT; ++mt) {
                const float4 o = other[mt * 32];
                acc[mt][r][0] += o.x;
                acc[mt][r][1] += o.y;
                acc[mt][r][2] += o.z;
                acc[mt][r][3] += o.w;
              }
              // the slots of round r are next written in round r + 2, after the barrier of round
              // r + 1 (or of the engine's next step): both warps have read them by then
            }
          }
        }
      });
    });

    // the block's sums (the two column warps' shares added when they cover the same columns),
    // then one thread per (row, column), unscaled
    float* sums = reinterpret_cast<float*>(shared);
    TESSERA_UNROLL_FULL
    for (int pass = 0; pass < (split ? 1 : WN); ++pass) {
      if (split || wn == pass) {
        TESSERA_UNROLL_FULL
        for (int mt = 0; mt < MT; ++mt) {
          TESSERA_UNROLL_FULL
          for (int r = 0; r < OT; ++r) {
            TESSERA_UNROLL_FULL
            for (int q = 0; q < 4; ++q) {
              const int row = wm * (BM / WM) + 16 * mt + g + 8 * (q >> 1);
              float& s      = sums[row * WBP + own0 + 8 * r + 2 * t + (q & 1)];
              s             = (pass == 0 ? 0.0f : s) + acc[mt][r][q];
            }
          }
        }
      }
      __syncthreads();
    }
    const int* colmax = column_max + static_cast<std::size_t>(b) * Columns::panel;
    for (int e = static_cast<int>(threadIdx.x); e < BM * WB; e += block) {
      const int r = e / WB, c = cb * WB + e % WB, o = o0 + r;
      if (o >= tile.o_end || c >= W) continue;
      const int q   = fp16_row_shift(__int_as_float(colmax[c])) + wide_sum_p_shift;
      const float v = ldexpf(sums[r * WBP + e % WB], -q);
      if (chunks == 1) {
        out.row(b, o).value(c, v);
      } else {
        // column c of the chunk's accumulator row, in the reducer's layout
        using Slots             = typename Red::Slots;
        const AccRef<float> dst = partial.row(b, o, n_outer, chunks, tile.chunk);
        Slots::zero(dst.val, W, c);
        Slots::add(dst.val, W, c, v);
        Slots::flush(dst.val, W, c);
      }
    }
  }
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::block, Kernel::min_blocks)
    matrix_wide_sum_cuda(const Kernel k) {
  extern __shared__ float4 tessera_matrix_wide_sum_shared[];
  k.run(static_cast<int>(blockIdx.x), reinterpret_cast<char*>(tessera_matrix_wide_sum_shared));
}

template <class Call, class Red, class E, int Parts, int PParts, int WParts>
bool launch_matrix_wide_sum_products(const Kokkos::Cuda& space, const Call& call, const Red& red) {
  using Index   = typename Call::index_type;
  using Formula = typename Call::formula_type;
  using Out     = decltype(output_access<float, Index>(call.outputs));
  using Kernel =
      MatrixWideSumReduce<typename Formula::profile_type, Formula::dim, Formula::weight_dim, Red,
                          Out, E, Parts, PParts, WParts, Call::sparse>;
  const auto kernel = &matrix_wide_sum_cuda<Kernel>;

  Kernel k{call.formula, red};
  k.n_outer                    = call.template n_outer<true>();
  k.n_inner                    = call.template n_inner<true>();
  k.tile_j                     = Kernel::BN;
  k.out                        = output_access<float, Index>(call.outputs);
  const CudaDeviceFacts device = cuda_device_facts(space);
  if (k.shared_bytes() > device.shared_max) return false;
  const std::size_t resident = cuda_resident_blocks(space, kernel, Kernel::block, k.shared_bytes());
  const std::size_t league =
      schedule<Kokkos::Cuda>(call.options, call.shape, call.sparsity,
                             resident > Kernel::CB ? resident / Kernel::CB : 1, k);
  if (league == 0) return true;
  require_league(league * Kernel::CB, "batch * row tiles * chunks * weight column blocks");

  const cudaStream_t stream = space.cuda_stream();
  const int batch           = static_cast<int>(call.shape.batch);
  const float s             = static_cast<float>(call.formula.profile.scale);
  const OperandPair<E> rows(stream, batch, k.n_outer, k.n_inner, Kernel::BM, Kernel::BN,
                            Formula::dim, Parts == 3, call.ivars.template accessor<0>(),
                            {s, 0.0f, false, nullptr}, call.jvars.template accessor<0>(),
                            {s, 0.0f, false, nullptr});
  const WeightFragments<typename Kernel::Frag> ws(stream, batch, rows.y.operands().rows_pad,
                                                  Kernel::Columns::panel);
  ws.template prepare<Formula::weight_dim>(call.jvars.template accessor<1>(), k.n_inner);
  k.tiles.a         = rows.x.operands();
  k.tiles.b         = rows.y.operands();
  k.weights         = ws.fragments();
  k.column_max      = ws.column_max();
  k.slabs           = ws.slabs();
  const char* label = Call::sparse   ? "tessera::genred::matrix_wide_sum_block_sparse_cuda"
                      : k.chunks > 1 ? "tessera::genred::matrix_wide_sum_2d_cuda"
                                     : "tessera::genred::matrix_wide_sum_1d_cuda";
  launch_on_stream(space, label, k, call.shape.batch, [&](cudaStream_t st) {
    kernel<<<static_cast<unsigned>(league * Kernel::CB), Kernel::block, k.shared_bytes(), st>>>(k);
  });
  return true;
}

/// Runs a matrix_wide_sum_call through the wide-weights tensor-core kernel. The dot products
/// as the narrow sums take them (MatrixElement: one product in the points' own 16-bit type, else
/// FP16 parts of the float values, split unless options.matrix_precision is fast); P' and the
/// weights in two FP16 parts each by default (half_t or bhalf_t weights, exact in FP16 once
/// scaled, in one), in one part each with MatrixPrecision::fast. Returns false, having run
/// nothing, on GPUs of compute capability below 8.0 or whose blocks cannot hold the kernel's
/// shared memory.
template <class Call, class Red>
bool launch_matrix_wide_sum(const Kokkos::Cuda& space, const Call& call, const Red& red) {
  using SX             = typename Call::storage_type::i_group::template storage_type<0>;
  using SY             = typename Call::storage_type::j_group::template storage_type<0>;
  using SW             = typename Call::storage_type::j_group::template storage_type<1>;
  using Element        = MatrixElement<SX, SY>;
  using E              = typename Element::type;
  constexpr int WSplit = is_half_precision<SW> && !std::is_same_v<SW, float> ? 1 : 2;
  if (cuda_device_facts(space).compute_major < 8) return false;
  if (call.options.matrix_precision == MatrixPrecision::fast) {
    return launch_matrix_wide_sum_products<Call, Red, E, 1, 1, 1>(space, call, red);
  }
  return launch_matrix_wide_sum_products < Call, Red, E, Element::native ? 1 : 3, 2,
         WSplit > (space, call, red);
}

}  // namespace Impl
}  // namespace tessera
