// The engine of the streamed tensor-core kernels: a block owns BM outer rows and walks the
// inner rows of its range in tiles of BN, computing each BM x BN tile of dot products
// sum_k hi_i[k] hi_j[k] (three products lo.hi + hi.lo + hi.hi for split operands, smaller terms
// first) on the matrix units, and hands the tile's accumulators to an epilogue (the radial sum,
// the selections), as a matrix-product kernel hands its tile to a fused epilogue.
//
// Operands come from the prepared 16-bit panels (matrix_operands.hpp), whose padding removes
// every bounds check from the loop. Both sides stream through shared memory in k-steps of BK
// elements: each stage holds BM + BN rows of BK elements (their 16-byte
// chunks XOR-swizzled, so that the 8 rows an ldmatrix reads hit distinct banks), filled by cp.async
// STAGES - 1 steps ahead of the products. The steps of all tiles form one sequence, so the copies
// of the next tile overlap the epilogue of this one. Warps are laid out WM x WN over the tile; each
// holds a (BM / WM) x (BN / WN) piece as MT x NT m16n8 accumulator tiles (lane layout: rows g and g
// + 8, columns 2t and 2t + 1 of each, with g = lane / 4 and t = lane % 4). The shape is
// CudaTuning's (matrix_tile_*).
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/impl/cuda/matrix_operands.hpp>
#include <tessera/genred/impl/cuda/mma.hpp>
#include <tessera/genred/impl/cuda/pipeline_step.hpp>

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace Impl {

/// The streamed tile engine over operands of 16-bit type E (__half or __nv_bfloat16), with
/// Parts = 3 (split operands) or 1 products per element pair, in k-steps of BK (16, 32 or 64)
/// elements, with WarpsM x WarpsN warps.
template <class E, int Parts, int BK, int WarpsM = CudaTuning::matrix_tile_warps_m,
          int WarpsN = CudaTuning::matrix_tile_warps_n>
struct MatrixTiles {
  static constexpr int BM         = CudaTuning::matrix_tile_rows;
  static constexpr int BN         = CudaTuning::matrix_tile_cols;
  static constexpr int STAGES     = CudaTuning::matrix_tile_stages;
  static constexpr int WM         = WarpsM;
  static constexpr int WN         = WarpsN;
  static constexpr int block      = 32 * WM * WN;
  static constexpr int min_blocks = CudaTuning::matrix_tile_min_blocks;
  /// Shared memory of a multiprocessor for its blocks: unknown here (compute capabilities 8.x
  /// differ), and the runtime's reserve per block.
  static constexpr std::size_t multiprocessor_shared = 0, reserved_per_block = 1024;
  static constexpr int MT          = BM / WM / 16;  ///< m16 tiles per warp
  static constexpr int NT          = BN / WN / 8;   ///< n8 tiles per warp
  static constexpr int row_bytes   = BK * 2;
  static constexpr int chunks      = BK / 8;  ///< 16-byte chunks per row
  static constexpr int stage_bytes = (BM + BN) * row_bytes;
  static_assert(BK == 16 || BK == 32 || BK == 64, "rows of 2, 4 or 8 chunks");
  static_assert((BM + BN) * chunks % block == 0, "every thread copies as many chunks");
  static_assert(NT % 2 == 0 && MT >= 1, "B fragments are loaded two n-tiles at a time");
  /// Dynamic shared memory of the pipeline.
  static constexpr std::size_t shared_bytes = static_cast<std::size_t>(STAGES) * stage_bytes;

  /// A warp's accumulators: tile (mt, nt), element q = (row g + 8 (q / 2), column 2t + q % 2).
  using Acc = float[MT][NT][4];

  MatrixOperands<E> a;  ///< the outer rows
  MatrixOperands<E> b;  ///< the inner rows

  /// Byte offset of 16-byte chunk c of row r in a stage's row array: the chunk index is XORed
  /// with (r / (8 / chunks)) % chunks, so that the same chunk of 8 consecutive rows (what one
  /// ldmatrix matrix reads) lies in 8 distinct 16-byte bank groups.
  __device__ __forceinline__ static int swizzle(int r, int c) {
    return r * row_bytes + ((c ^ ((r / (8 / chunks)) & (chunks - 1))) << 4);
  }

  /// Step s of a tile: part s / (dp / BK) (lo.hi, hi.lo, hi.hi), k-step s % (dp / BK).
  __device__ __forceinline__ void load_stage(char* stage, int batch, int o0, int j0, int s) const {
    const int kc = a.dp / BK;
    const int q = s / kc, k0 = (s % kc) * BK;
    const E* pa = Parts == 3 && q == 0 ? a.lo : a.hi;
    const E* pb = Parts == 3 && q == 1 ? b.lo : b.hi;
    pa += a.row(batch, o0) * a.dp + k0;
    pb += b.row(batch, j0) * b.dp + k0;
    TESSERA_UNROLL_FULL
    for (int i = 0; i < (BM + BN) * chunks / block; ++i) {
      const int e = static_cast<int>(threadIdx.x) + i * block;
      const int r = e / chunks, c = e % chunks;
      if (r < BM) {
        cp_async_16(stage + swizzle(r, c), pa + static_cast<std::size_t>(r) * a.dp + c * 8);
      } else {
        cp_async_16(stage + BM * row_bytes + swizzle(r - BM, c),
                    pb + static_cast<std::size_t>(r - BM) * b.dp + c * 8);
      }
    }
  }

  /// acc = 0.
  __device__ __forceinline__ static void zero(Acc& acc) {
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int nt = 0; nt < NT; ++nt) {
        TESSERA_UNROLL_FULL
        for (int q = 0; q < 4; ++q)
          acc[mt][nt][q] = 0.0f;
      }
    }
  }

  /// acc += the products of one stage (BK elements) for warp (wm, wn).
  __device__ __forceinline__ void compute_stage(const char* stage, Acc& acc, int wm, int wn,
                                                int lane) const {
    const char* bs = stage + BM * row_bytes;
    TESSERA_UNROLL_FULL
    for (int kk = 0; kk < BK / 16; ++kk) {
      std::uint32_t af[MT][4], bf[NT][2];
      TESSERA_UNROLL_FULL
      for (int mt = 0; mt < MT; ++mt)
        ldmatrix_x4(af[mt],
                    stage + swizzle(wm * (BM / WM) + mt * 16 + (lane & 15), 2 * kk + (lane >> 4)));
      TESSERA_UNROLL_FULL
      for (int np = 0; np < NT / 2; ++np) {
        std::uint32_t r[4];
        ldmatrix_x4(r, bs + swizzle(wn * (BN / WN) + np * 16 + ((lane >> 4) << 3) + (lane & 7),
                                    2 * kk + ((lane >> 3) & 1)));
        bf[2 * np][0]     = r[0];
        bf[2 * np][1]     = r[1];
        bf[2 * np + 1][0] = r[2];
        bf[2 * np + 1][1] = r[3];
      }
      TESSERA_UNROLL_FULL
      for (int mt = 0; mt < MT; ++mt) {
        TESSERA_UNROLL_FULL
        for (int nt = 0; nt < NT; ++nt)
          mma_16816<E>(acc[mt][nt], af[mt], bf[nt]);
      }
    }
  }

  /// Walks the inner rows [j_begin, j_end) against outer rows [o0, o0 + BM) of batch entry
  /// `batch`: for each tile of BN inner rows starting at j0, epi(acc, j0) receives this warp's
  /// accumulators of the complete dot products. The whole block must call it; shared memory
  /// is free again when it returns.
  template <class Epilogue>
  __device__ __forceinline__ void run(char* shared, int batch, int o0, int j_begin, int j_end,
                                      Epilogue&& epi) const {
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    const int wm = warp / WN, wn = warp % WN;
    const int steps = Parts * (a.dp / BK);
    const int total = j_end > j_begin ? (j_end - j_begin + BN - 1) / BN * steps : 0;
    PipelineStep<STAGES> load{0, j_begin, 0}, step{0, j_begin, 0};  // the next copied, computed
    const auto copy_next = [&](int s) {
      if (s < total) load_stage(shared + load.stage * stage_bytes, batch, o0, load.j0, load.k);
      cp_async_commit();
      load.advance(steps, BN);
    };
    Acc acc;
    zero(acc);
    TESSERA_UNROLL_FULL
    for (int s = 0; s < STAGES - 1; ++s)
      copy_next(s);
    for (int s = 0; s < total; ++s) {
      cp_async_wait<STAGES - 2>();
      __syncthreads();  // step s has landed; step s - 1's stage is free
      copy_next(s + STAGES - 1);
      compute_stage(shared + step.stage * stage_bytes, acc, wm, wn, lane);
      if (step.k == steps - 1) {
        epi(acc, step.j0, wm, wn, lane);
        zero(acc);
      }
      step.advance(steps, BN);
    }
    cp_async_wait<0>();
    __syncthreads();
  }
};

}  // namespace Impl
}  // namespace tessera
