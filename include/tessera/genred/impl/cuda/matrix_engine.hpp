// The streamed tensor-core engine of this build: Hopper's (matrix_tiles_sm90.hpp, warpgroup
// products) when Tessera was configured for sm_90a (TESSERA_CUDA_SM90A, config.hpp: such code
// runs only on compute capability 9.0), else the mma.sync engine (matrix_tiles.hpp, compute
// capability 8.0 and later); the radial sums and the selections at moderate D take the Hopper
// engine in narrow tiles, two blocks per multiprocessor (MatrixSumEngine, MatrixSelectEngine).
// All give their epilogues the same
// accumulator layout.
#pragma once

#include <tessera/core/config.hpp>
#include <tessera/genred/impl/cuda/matrix_tiles.hpp>
#include <tessera/genred/impl/cuda/matrix_tiles_sm90.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {
namespace Impl {

/// True in builds configured for sm_90a.
#if defined(TESSERA_CUDA_SM90A)
inline constexpr bool cuda_sm90a_build = true;
#else
inline constexpr bool cuda_sm90a_build = false;
#endif

/// The engine over operands of 16-bit type E, Parts (3: split, 1) products per element pair,
/// panels padded to k-steps of BK elements; WarpsM x WarpsN: the mma.sync engine's warps (the
/// Hopper engine's are two warpgroups across the whole tile); Stages: the Hopper engine's.
template <class E, int Parts, int BK, int WarpsM = CudaTuning::matrix_tile_warps_m,
          int WarpsN = CudaTuning::matrix_tile_warps_n, int Stages = CudaTuning::matrix_sm90_stages>
using MatrixEngine = std::conditional_t<cuda_sm90a_build, MatrixTilesSm90<E, Parts, BK, Stages>,
                                        MatrixTiles<E, Parts, BK, WarpsM, WarpsN>>;

/// The Hopper engine in narrow tiles, two blocks per multiprocessor, over panels of
/// PanelColumns columns in k-steps of BK elements: with the outer rows resident and
/// ResidentStages stages of inner rows when that takes no more shared memory than Stages stages
/// of both.
template <class E, int Parts, int BK, int PanelColumns, int Stages, int ResidentStages>
struct MatrixNarrowEngine {
  template <int S, int ResidentDim>
  using Tiles    = MatrixTilesSm90<E, Parts, BK, S, CudaTuning::matrix_sm90_narrow_cols,
                                CudaTuning::matrix_sm90_narrow_blocks, ResidentDim>;
  using Staged   = Tiles<Stages, 0>;
  using Resident = Tiles<ResidentStages, PanelColumns>;
  using type = std::conditional_t<Resident::shared_bytes <= Staged::shared_bytes, Resident, Staged>;
};

/// The engine of the radial sums at dimension D over operands of 16-bit type E with Parts
/// products: in builds for sm_90a up to CudaTuning::matrix_sm90_narrow_max_dim, the Hopper engine
/// in narrow tiles (MatrixNarrowEngine: CudaTuning::matrix_sm90_narrow_stages stages, or the
/// outer rows resident beside CudaTuning::matrix_sm90_resident_stages); else MatrixEngine.
template <class E, int Parts, int D>
using MatrixSumEngine = std::conditional_t<
    cuda_sm90a_build && D <= CudaTuning::matrix_sm90_narrow_max_dim,
    typename MatrixNarrowEngine<E, Parts, matrix_tile_k_step(D), matrix_panel_columns(D),
                                CudaTuning::matrix_sm90_narrow_stages,
                                CudaTuning::matrix_sm90_resident_stages>::type,
    MatrixEngine<E, Parts, matrix_tile_k_step(D)>>;

/// The engine of the selections at dimension D over operands of 16-bit type E, in k-steps of at
/// most 32 elements (to leave shared memory to the lists and queues): in builds for sm_90a the
/// Hopper engine, up to CudaTuning::matrix_sm90_narrow_max_dim in narrow tiles
/// (MatrixNarrowEngine: CudaTuning::matrix_select_stages stages, with the outer rows resident
/// where they fit in the same room), beyond in the wide tiles of
/// CudaTuning::matrix_select_wide_stages stages, one block; else the mma.sync engine with
/// CudaTuning::matrix_select_warps_m x _warps_n warps. In all, a warp holds whole outer rows of
/// the tile.
template <class E, int D, int BK = (matrix_tile_k_step(D) < 32 ? matrix_tile_k_step(D) : 32)>
using MatrixSelectEngine = std::conditional_t<
    cuda_sm90a_build,
    std::conditional_t<D <= CudaTuning::matrix_sm90_narrow_max_dim,
                       typename MatrixNarrowEngine<E, 1, BK, matrix_panel_columns(D),
                                                   CudaTuning::matrix_select_stages,
                                                   CudaTuning::matrix_select_stages>::type,
                       MatrixTilesSm90<E, 1, BK, CudaTuning::matrix_select_wide_stages>>,
    MatrixTiles<E, 1, BK, CudaTuning::matrix_select_warps_m, CudaTuning::matrix_select_warps_n>>;

/// Per-column data of the engine's inner tiles (norms, scale factors, weights: CW floats per
/// inner row) staged in shared memory for the epilogues, two tiles deep, value by value (value v
/// of the tile's BN columns side by side, so that a lane reads its two adjacent columns' values
/// in one 8-byte load and a warp's stores are consecutive): while the pairs of one
/// tile are evaluated from shared memory, each thread holds the next tile's records of its
/// BN / block columns in registers and stores them at the end of the epilogue (the engine's
/// barriers order the stores before the next epilogue's reads), so no epilogue waits on a global
/// load.
template <class Tiles, int CW>
struct TileColumns {
  static constexpr int BN = Tiles::BN;
  /// Records a thread loads per tile (the first BN threads load one when BN < block).
  static constexpr int CPT = (BN + Tiles::block - 1) / Tiles::block;
  static_assert(BN % Tiles::block == 0 || BN < Tiles::block, "every loading thread loads as many");
  /// Shared memory of the two tiles' records.
  static constexpr std::size_t bytes = 2 * BN * CW * sizeof(float);

  float* shared;             ///< the records of two tiles
  int j_begin;               ///< the inner row of the first tile
  float next[CPT][CW] = {};  ///< this thread's records of the next tile

  /// Loads the records of the tile at inner row j0 into `next`: load(j, record) fills one.
  template <class Load>
  __device__ __forceinline__ void load(int j0, Load&& load_record) {
    if (BN < Tiles::block && static_cast<int>(threadIdx.x) >= BN) return;
    TESSERA_UNROLL_FULL
    for (int k = 0; k < CPT; ++k)
      load_record(j0 + static_cast<int>(threadIdx.x) + k * Tiles::block, next[k]);
  }
  /// Stores `next` as the records of the tile at inner row j0.
  __device__ __forceinline__ void store(int j0) const {
    if (BN < Tiles::block && static_cast<int>(threadIdx.x) >= BN) return;
    float* t = shared + (j0 - j_begin) / BN % 2 * BN * CW;
    TESSERA_UNROLL_FULL
    for (int k = 0; k < CPT; ++k) {
      TESSERA_UNROLL_FULL
      for (int v = 0; v < CW; ++v)
        t[v * BN + static_cast<int>(threadIdx.x) + k * Tiles::block] = next[k][v];
    }
  }
  /// Value v of column c of the tile at inner row j0.
  __device__ __forceinline__ float value(int j0, int c, int v) const {
    return shared[((j0 - j_begin) / BN % 2 * CW + v) * BN + c];
  }
  /// Value v of columns c and c + 1 (c even) of the tile at inner row j0.
  __device__ __forceinline__ float2 pair(int j0, int c, int v) const {
    return *reinterpret_cast<const float2*>(shared + ((j0 - j_begin) / BN % 2 * CW + v) * BN + c);
  }
  /// In an epilogue of the tile at j0: loads the next tile's records (if any before j_end),
  /// runs body(), then stores them.
  template <class Load, class Body>
  __device__ __forceinline__ void epilogue(int j0, int j_end, Load&& load_record, Body&& body) {
    const bool more = j0 + BN < j_end;
    if (more) load(j0 + BN, load_record);
    body();
    if (more) store(j0 + BN);
  }
};

}  // namespace Impl
}  // namespace tessera
