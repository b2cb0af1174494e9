// The Hopper engine of the streamed tensor-core kernels (compute capability 9.0, code compiled
// for sm_90a): the same contract as MatrixTiles (matrix_tiles.hpp), whose place it takes in
// such builds (matrix_engine.hpp), with the products on warpgroup MMA (wgmma.hpp).
//
// A block of two warpgroups owns BM = 128 outer rows (64 per warpgroup) and walks the inner rows
// in tiles of BN = 256 by default, twice MatrixTiles' width: every operand byte brought from L2
// now serves 3/256 of a pair instead of 2/128 (the mma.sync engine ran at about 4.4 TB/s of L2
// reads at D >= 64). The radial sums at moderate D take tiles of 128 in blocks of 128 registers
// a thread, two blocks per multiprocessor (matrix_engine.hpp: MatrixSumEngine). A split operand's
// two parts are staged once per k-step and used by all three products (lo.hi, hi.lo, hi.hi). Stages
// hold [A hi, (A lo), B hi, (B lo)], rows of KS 16-bit elements with MatrixTiles' swizzle, which is
// the wgmma's 32/64/128-byte swizzle mode; each warpgroup's products read them straight from shared
// memory through descriptors. The stages are filled by cp.async STAGES - 2 steps ahead, and one
// group of products stays in flight while the next step's copies are issued. With a resident
// dimension (ResidentDim > 0, the panels' columns), the block's outer rows are staged once per
// walk, all their k-steps, and the stages hold only the inner rows: half the copies and L2 reads
// of a tile at one product, and more stages in the same shared memory. A warp's accumulators
// are MatrixTiles' layout with WM = 8 warps of 16 rows and WN = 1: tile (0, nt), rows g and g + 8,
// columns 8 nt + 2t and 8 nt + 2t + 1.
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/impl/cuda/matrix_operands.hpp>
#include <tessera/genred/impl/cuda/mma.hpp>
#include <tessera/genred/impl/cuda/pipeline_step.hpp>
#include <tessera/genred/impl/cuda/wgmma.hpp>

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace Impl {

/// The Hopper streamed tile engine over operands of 16-bit type E, Parts = 3 (split) or 1
/// products per element pair, panels padded to k-steps of BK elements, Stages pipeline stages,
/// tiles of Cols inner rows, MinBlocks blocks per multiprocessor (the register budget);
/// ResidentDim > 0: the outer rows' panels, of that many columns, stay in shared memory for a
/// whole walk (see the file comment).
template <class E, int Parts, int BK, int Stages = CudaTuning::matrix_sm90_stages,
          int Cols = CudaTuning::matrix_sm90_tile_cols, int MinBlocks = 1, int ResidentDim = 0>
struct MatrixTilesSm90 {
  static constexpr int BM     = CudaTuning::matrix_sm90_tile_rows;
  static constexpr int BN     = Cols;
  static constexpr int STAGES = Stages;
  /// Elements per k-step: split operands stage four panels, so their steps are shorter.
  static constexpr int KS =
      Parts == 3 && BK > CudaTuning::matrix_sm90_split_k ? CudaTuning::matrix_sm90_split_k : BK;
  static constexpr int WM = BM / 16, WN = 1, MT = 1, NT = BN / 8;
  static constexpr int block      = 32 * WM;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int row_bytes  = KS * 2;
  static constexpr int chunks     = KS / 8;              ///< 16-byte chunks per row
  static constexpr int sides      = Parts == 3 ? 2 : 1;  ///< panels per side: hi (and lo)
  static constexpr int a_bytes = BM * row_bytes, b_bytes = BN * row_bytes;
  static constexpr bool resident = ResidentDim > 0;
  /// k-steps of the resident outer rows, and their bytes (all k-steps' panels, ahead of the
  /// stages).
  static constexpr int resident_steps = resident ? ResidentDim / KS : 0;
  static constexpr int resident_bytes = resident_steps * sides * a_bytes;
  static constexpr int stage_bytes    = sides * ((resident ? 0 : a_bytes) + b_bytes);
  static constexpr int align          = 1024;  ///< the swizzle's period (8 rows of 128 bytes)
  static_assert(BM == 128 && BN % 128 == 0, "two warpgroups of 64 rows, products 128 wide");
  static_assert(KS == 16 || KS == 32 || KS == 64, "rows of 2, 4 or 8 chunks");
  static_assert(STAGES >= 3, "one step in flight, one being copied, one computed");
  static_assert(ResidentDim % KS == 0, "the resident panels hold whole k-steps");
  /// Dynamic shared memory of the pipeline (and the resident outer rows), with room to align it
  /// to the swizzle's period.
  static constexpr std::size_t shared_bytes = static_cast<std::size_t>(resident_bytes) +
                                              static_cast<std::size_t>(STAGES) * stage_bytes +
                                              align;
  /// Shared memory of a multiprocessor of compute capability 9.0 for its blocks, of which the
  /// runtime reserves 1 KiB per block (CUDA C++ Programming Guide, compute capabilities).
  static constexpr std::size_t multiprocessor_shared = 228 * 1024, reserved_per_block = 1024;

  /// A warp's accumulators: tile (0, nt), element q = (row g + 8 (q / 2), column 2t + q % 2).
  using Acc = float[MT][NT][4];

  MatrixOperands<E> a;  ///< the outer rows
  MatrixOperands<E> b;  ///< the inner rows

  /// Byte offset of 16-byte chunk c of staged row r (MatrixTiles' swizzle; every panel of a
  /// stage starts on a multiple of 8 rows, so r may count across panels).
  __device__ __forceinline__ static int swizzle(int r, int c) {
    return r * row_bytes + ((c ^ ((r / (8 / chunks)) & (chunks - 1))) << 4);
  }

  /// The staged rows a block's copies advance by.
  static constexpr int rows_per_copy = block / chunks;
  static_assert(BM % rows_per_copy == 0 && BN % rows_per_copy == 0,
                "each copy of a thread stays in one panel");

  /// This thread's copy sources at k-step 0 of the first tile (inner row j_begin): chunk
  /// t % chunks of staged row t / chunks of each panel [A hi, A lo, B hi, B lo] (lo only if
  /// split), computed once per call.
  struct CopySources {
    const E* panel[4];
  };
  __device__ __forceinline__ CopySources copy_sources(int batch, int o0, int j_begin) const {
    const int tr = static_cast<int>(threadIdx.x) / chunks,
              tc = static_cast<int>(threadIdx.x) % chunks;
    CopySources c{{a.hi + (a.row(batch, o0) + tr) * a.dp + tc * 8, nullptr,
                   b.hi + (b.row(batch, j_begin) + tr) * b.dp + tc * 8, nullptr}};
    if constexpr (sides == 2) {
      c.panel[1] = a.lo + (a.row(batch, o0) + tr) * a.dp + tc * 8;
      c.panel[3] = b.lo + (b.row(batch, j_begin) + tr) * b.dp + tc * 8;
    }
    return c;
  }

  /// Rows [First, Last) of k-step s of the panels [A hi, (A lo), B hi, (B lo)] (the tile's
  /// inner rows at j_begin + dj) into shared memory, at dst this thread's first chunk there
  /// (swizzle(t / chunks, t % chunks)) for row First: copy i of thread t moves its chunk of
  /// staged row First + t / chunks + i rows_per_copy, whose panel is known at compile time.
  template <int First, int Last>
  __device__ __forceinline__ void load_rows(char* dst, const CopySources& src, int dj,
                                            int s) const {
    static_assert((Last - First) * chunks % block == 0, "every thread copies as many chunks");
    const int k0 = s * KS;
    TESSERA_UNROLL_FULL
    for (int i = 0; i < (Last - First) / rows_per_copy; ++i) {
      const int r = First + i * rows_per_copy;  // first staged row of this copy, a multiple of 8
      int panel, row;
      if (r < sides * BM) {
        panel = r / BM;
        row   = r % BM;
      } else {
        panel = 2 + (r - sides * BM) / BN;
        row   = (r - sides * BM) % BN;
      }
      const E* from = panel < 2 ? src.panel[panel] + static_cast<std::size_t>(row) * a.dp + k0
                                : src.panel[panel] + static_cast<std::size_t>(row + dj) * b.dp + k0;
      cp_async_16(dst + (r - First) * row_bytes, from);
    }
  }
  /// k-step s of the tile at inner row j_begin + dj into a stage (dst: as for load_rows): both
  /// sides, or the inner rows only when the outer rows are resident.
  __device__ __forceinline__ void load_stage(char* dst, const CopySources& src, int dj,
                                             int s) const {
    load_rows<resident ? sides * BM : 0, sides*(BM + BN)>(dst, src, dj, s);
  }

  /// Issues this warpgroup's products of one k-step into acc, its outer rows' panels at
  /// a_step and its inner rows' at b_step; the first of a tile overwrites acc.
  __device__ __forceinline__ static void compute_step(const char* a_step, const char* b_step,
                                                      Acc& acc, int group, bool first) {
    TESSERA_UNROLL_FULL
    for (int kk = 0; kk < KS / 16; ++kk) {
      TESSERA_UNROLL_FULL
      for (int q = 0; q < Parts; ++q) {  // lo.hi, hi.lo, hi.hi: smaller terms first
        const int pa = Parts == 3 && q == 0 ? 1 : 0, pb = Parts == 3 && q == 1 ? 1 : 0;
        const std::uint64_t da =
            wgmma_descriptor(a_step + pa * a_bytes + group * 64 * row_bytes + kk * 32, row_bytes);
        TESSERA_UNROLL_FULL
        for (int h = 0; h < BN / 128; ++h) {
          const std::uint64_t db =
              wgmma_descriptor(b_step + pb * b_bytes + h * 128 * row_bytes + kk * 32, row_bytes);
          wgmma_m64n128k16<E>(reinterpret_cast<float(&)[64]>(acc[0][16 * h][0]), da, db,
                              first && kk == 0 && q == 0 ? 0 : 1);
        }
      }
    }
  }

  /// Walks the inner rows [j_begin, j_end) against outer rows [o0, o0 + BM) of batch entry
  /// `batch`: for each tile of BN inner rows starting at j0, epi(acc, j0, warp, 0, lane)
  /// receives this warp's accumulators of the complete dot products. The whole block must call
  /// it; shared memory is free again when it returns.
  template <class Epilogue>
  __device__ __forceinline__ void run(char* shared, int batch, int o0, int j_begin, int j_end,
                                      Epilogue&& epi) const {
    char* smem = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(shared) + align - 1) /
                                         align * align);
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    const int steps     = a.dp / KS;
    const int total     = j_end > j_begin ? (j_end - j_begin + BN - 1) / BN * steps : 0;
    constexpr int ahead = STAGES - 2;
    PipelineStep<STAGES> load{0, j_begin, 0};  // the next step copied
    const CopySources sources = copy_sources(batch, o0, j_begin);
    const int offset =
        swizzle(static_cast<int>(threadIdx.x) / chunks, static_cast<int>(threadIdx.x) % chunks);
    char* const stages   = smem + resident_bytes;  // after the resident outer rows
    const auto copy_next = [&](int s) {
      if (s < total)
        load_stage(stages + load.stage * stage_bytes + offset, sources, load.j0 - j_begin, load.k);
      cp_async_commit();
      load.advance(steps, BN);
    };
    if constexpr (resident) {  // all k-steps of the outer rows, in the first group of copies
      TESSERA_UNROLL_FULL
      for (int k = 0; k < resident_steps; ++k)
        load_rows<0, sides * BM>(smem + k * sides * a_bytes + offset, sources, 0, k);
    }
    Acc acc;
    TESSERA_UNROLL_FULL
    for (int s = 0; s < ahead; ++s)
      copy_next(s);
    int s = 0, stage = 0;  // the step computed and its stage
    for (int j0 = j_begin; j0 < j_end; j0 += BN) {
      // the tile's k-steps, one group of products left in flight by each; no branch holds a
      // wait on the products (in a branch, ptxas may serialize every product: C7518)
      for (int k = 0; k < steps; ++k, ++s) {
        cp_async_wait<ahead - 1>();
        fence_proxy_async();
        __syncthreads();  // step s has landed; step s - 2's products are complete in every group
        copy_next(s + ahead);
        wgmma_fence();
        const char* b_step = stages + stage * stage_bytes;
        compute_step(resident ? smem + k * sides * a_bytes : b_step,
                     b_step + (resident ? 0 : sides * a_bytes), acc, warp / 4, k == 0);
        wgmma_commit();
        wgmma_wait<1>();
        stage = PipelineStep<STAGES>::next_stage(stage);
      }
      wgmma_wait<0>();
      TESSERA_UNROLL_FULL
      for (int nt = 0; nt < NT; ++nt) {
        TESSERA_UNROLL_FULL
        for (int q = 0; q < 4; ++q)
          register_fence(acc[0][nt][q]);
      }
      epi(acc, j0, warp, 0, lane);
    }
    cp_async_wait<0>();
    __syncthreads();
  }
};

}  // namespace Impl
}  // namespace tessera
