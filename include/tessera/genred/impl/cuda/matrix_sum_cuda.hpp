// The streamed tensor-core path of radial-kernel sums at any dimension: Sum reductions of a
// RadialKernel with Distance::matrix, a_i = sum_j k(|x_i - y_j|^2) b_j, computed in float, over
// j, dense or block-sparse (matrix_team_tile.hpp), weights of width W <=
// CudaTuning::matrix_sum_max_weights; for float Views at D > 32 (at D <= 32 the
// register-resident kernel of matrix_radial_cuda.hpp is faster; it takes dense calls only, so
// this kernel takes block-sparse ones at any D), and at any D for points stored as half_t or
// bhalf_t (one product in that type).
//
// The rows are prepared once (matrix_operands.hpp: x_i and y_j scaled per row, split into FP16
// parts unless options.matrix_precision is fast, with s |x_i|^2 and s |y_j|^2), then the tile
// engine of the build (matrix_engine.hpp, MatrixSumEngine: Hopper's 128 x 128 tiles, two blocks
// per multiprocessor, up to D = 256, with the outer rows resident in shared memory up to D = 128
// at one product and D = 64 split, and 128 x 256 beyond; else mma.sync's 128 x 128)
// computes the dot products of each tile and this file's epilogue turns each into
//   s r^2 = s |x_i|^2 + s |y_j|^2 - 2 s 2^-(p_i + p_j) (2^p_i x_i . 2^p_j y_j),
// with the tile's column data (s |y_j|^2, 2^-p_j, b_j; BF16 rows have no 2^-p_j, being unscaled)
// from shared memory (TileColumns, a lane's two columns read as pairs),
// evaluates the profile once per pair and adds k b_j to the lane's running sums of its rows
// (each lane holds 2 MT outer rows and sees 2 NT of each tile's columns; its four lanes per row
// and the WN warps across the tile are combined at the end, through shared memory).
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/impl/cuda/launch_cache.hpp>
#include <tessera/genred/impl/cuda/matrix_operands.hpp>
#include <tessera/genred/impl/cuda/matrix_engine.hpp>
#include <tessera/genred/impl/cuda/matrix_team_tile.hpp>
#include <tessera/genred/impl/cuda/tiled_reduce_cuda.hpp>
#include <tessera/genred/impl/output_access.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/var_group.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace tessera {
namespace Impl {

/// True for the calls the streamed radial-sum kernel runs (see the file comment); Uniform:
/// every View of the call holds the compute type.
template <class T, class Formula, class Red, bool OuterIsI, bool Sparse, bool Uniform>
inline constexpr bool matrix_sum_call = false;
template <class Profile, int D, int W, int FD, Summation S, bool Sparse, bool Uniform>
inline constexpr bool matrix_sum_call<float, RadialKernel<Profile, D, W, Distance::matrix>,
                                      Reducer<Sum, float, FD, S>, true, Sparse, Uniform> =
    W <= CudaTuning::matrix_sum_max_weights && (D > 32 || !Uniform || Sparse);

template <class Profile, int D, int W, class Red, class JG, class Out, class E, int Parts,
          bool Sparse>
struct MatrixSumReduce {
  using scalar_type  = float;
  using reducer_type = Red;
  using Formula      = RadialKernel<Profile, D, W, Distance::matrix>;
  using Tiles        = MatrixSumEngine<E, Parts, D>;

  static constexpr bool outer_is_i = true;
  static constexpr bool is_sparse  = Sparse;
  static constexpr int FD          = W == 0 ? 1 : W;
  static constexpr int SV          = Red::static_acc_values;
  static constexpr int MT = Tiles::MT, NT = Tiles::NT, BM = Tiles::BM, BN = Tiles::BN;
  static constexpr int block      = Tiles::block;
  static constexpr int min_blocks = Tiles::min_blocks;

  Formula formula;
  Red red;
  JG jvars;
  Tiles tiles;
  int n_outer, n_inner, tiles_outer, tile_j, chunks, chunk_rows;
  SparseSchedule sparse;  ///< block-sparse calls only
  Out out;
  PartialBuffer<float> partial;

  /// BF16 rows are not scaled (matrix_operands.hpp): every factor 2^-p is 1, and neither the
  /// column records nor the epilogue carry them.
  static constexpr bool unscaled = std::is_same_v<E, __nv_bfloat16>;
  static constexpr int CV        = unscaled ? 1 : 2;  ///< values before the weights
  /// A column record: s |y_j|^2, 2^-p_j (unless unscaled) and the weights of inner row j.
  using Columns = TileColumns<Tiles, CV + FD>;
  static_assert(Tiles::WN * BM * SV * sizeof(float) <= Tiles::shared_bytes,
                "the warps' partial sums fit in the pipeline's stages");

  KOKKOS_INLINE_FUNCTION int tile_rows() const { return BM; }
  /// The pipeline's stages (reused at the end for the warps' partial sums), then two tiles'
  /// column records.
  std::size_t shared_bytes() const { return Tiles::shared_bytes + Columns::bytes; }

  /// Weight c of inner row j (1 without weights), 0 for j >= j_end.
  __device__ __forceinline__ float weight(int b, int j, int j_end, int c) const {
    if (j >= j_end) return 0.0f;
    if constexpr (W == 0) {
      return 1.0f;
    } else {
      const auto& wa = jvars.template accessor<1>();
      return wa.template load<float>(b * wa.sb + static_cast<long long>(j) * wa.sr + c * wa.sc);
    }
  }

  /// Fills the column record of inner row j (zero weights past j_end).
  __device__ __forceinline__ void load_record(int b, int j, int j_end, float* rec) const {
    const std::size_t r = tiles.b.row(b, j);
    rec[0]              = tiles.b.norm[r];
    if constexpr (!unscaled) rec[1] = tiles.b.factor[r];
    TESSERA_UNROLL_FULL
    for (int c = 0; c < FD; ++c)
      rec[CV + c] = weight(b, j, j_end, c);
  }

  __device__ void run(int league, char* shared) const {
    const MatrixTeamTile tile = matrix_team_tile(*this, league);
    const int b               = tile.batch;
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    const int wm = warp / Tiles::WN, wn = warp % Tiles::WN, g = lane >> 2, t = lane & 3;
    const int o0   = tile.o_begin;
    const float c2 = static_cast<float>(-2.0 * formula.profile.scale);

    // this lane's rows: wm * (BM / WM) + 16 mt + g + 8 h
    float ni[MT][2], fi[MT][2], acc[MT][2][SV];
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h) {
        const std::size_t r = tiles.a.row(b, o0 + wm * (BM / Tiles::WM) + 16 * mt + g + 8 * h);
        ni[mt][h]           = tiles.a.norm[r];
        fi[mt][h]           = c2 * tiles.a.factor[r];
        red.init({acc[mt][h], nullptr});
      }
    }
    for_each_inner_range(*this, tile, [&](int j_begin, int j_end) {
      Columns columns{reinterpret_cast<float*>(shared + Tiles::shared_bytes), j_begin};
      const auto record = [&](int j, float* rec) { load_record(b, j, j_end, rec); };
      columns.load(j_begin, record);
      columns.store(j_begin);  // visible after the engine's first barrier
      tiles.run(shared, b, o0, j_begin, j_end, [&](typename Tiles::Acc& d, int j0, int, int, int) {
        columns.epilogue(j0, j_end, record, [&] {
          TESSERA_UNROLL_FULL
          for (int nt = 0; nt < NT; ++nt) {
            // this lane's columns c0 and c0 + 1: their values in one load each
            const int c0 = wn * (BN / Tiles::WN) + 8 * nt + 2 * t;
            float2 col[CV + FD];
            TESSERA_UNROLL_FULL
            for (int v = 0; v < CV + FD; ++v)
              col[v] = columns.pair(j0, c0, v);
            TESSERA_UNROLL_FULL
            for (int e = 0; e < 2; ++e) {
              const auto of = [&](int v) { return e == 0 ? col[v].x : col[v].y; };
              TESSERA_UNROLL_FULL
              for (int mt = 0; mt < MT; ++mt) {
                TESSERA_UNROLL_FULL
                for (int h = 0; h < 2; ++h) {
                  float dot = d[mt][nt][2 * h + e];
                  if constexpr (!unscaled) dot *= of(1);  // 2^-p_j: exact
                  const float u = fmaf(dot, fi[mt][h], ni[mt][h] + of(0));
                  const float k = formula.profile.shape(u);
                  float f[FD];
                  TESSERA_UNROLL_FULL
                  for (int c = 0; c < FD; ++c)
                    f[c] = k * of(CV + c);
                  red.add({acc[mt][h], nullptr}, f, 0);
                }
              }
            }
          }
          TESSERA_UNROLL_FULL
          for (int mt = 0; mt < MT; ++mt) {
            red.end_tile({acc[mt][0], nullptr});
            red.end_tile({acc[mt][1], nullptr});
          }
        });
      });
    });

    // the four lanes of a row, then the WN warps across the tile, through shared memory
    float* sums = reinterpret_cast<float*>(shared);
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h) {
        TESSERA_UNROLL_FULL
        for (int step = 1; step <= 2; step *= 2) {
          float other[SV];
          TESSERA_UNROLL_FULL
          for (int v = 0; v < SV; ++v)
            other[v] = __shfl_xor_sync(0xffffffffu, acc[mt][h][v], step);
          red.combine({acc[mt][h], nullptr}, {other, nullptr});
        }
        const int r = wm * (BM / Tiles::WM) + 16 * mt + g + 8 * h;
        if (t == 0) {
          TESSERA_UNROLL_FULL
          for (int v = 0; v < SV; ++v)
            sums[(wn * BM + r) * SV + v] = acc[mt][h][v];
        }
      }
    }
    __syncthreads();
    for (int r = static_cast<int>(threadIdx.x); r < BM; r += block) {
      const int o = o0 + r;
      if (o >= tile.o_end) continue;
      float total[SV];
      TESSERA_UNROLL_FULL
      for (int v = 0; v < SV; ++v)
        total[v] = sums[r * SV + v];
      for (int w2 = 1; w2 < Tiles::WN; ++w2)
        red.combine({total, nullptr}, {sums + (w2 * BM + r) * SV, nullptr});
      if (chunks == 1) {
        red.finalize({total, nullptr}, out.row(b, o));
      } else {
        partial.store(b, o, n_outer, chunks, tile.chunk, red, {total, nullptr});
      }
    }
  }
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::block, Kernel::min_blocks)
    matrix_sum_cuda(const Kernel k) {
  extern __shared__ float4 tessera_matrix_sum_shared[];
  k.run(static_cast<int>(blockIdx.x), reinterpret_cast<char*>(tessera_matrix_sum_shared));
}

template <class Call, class Red, class E, int Parts>
bool launch_matrix_sum_parts(const Kokkos::Cuda& space, const Call& call, const Red& red) {
  using Index   = typename Call::index_type;
  using Formula = typename Call::formula_type;
  using Out     = decltype(output_access<float, Index>(call.outputs));
  using Kernel  = MatrixSumReduce<typename Formula::profile_type, Formula::dim, Formula::weight_dim,
                                 Red, decltype(call.jvars), Out, E, Parts, Call::sparse>;
  const auto kernel = &matrix_sum_cuda<Kernel>;

  Kernel k{call.formula, red, call.jvars};
  k.n_outer                  = call.template n_outer<true>();
  k.n_inner                  = call.template n_inner<true>();
  k.tile_j                   = Kernel::BN;
  k.out                      = output_access<float, Index>(call.outputs);
  const std::size_t resident = cuda_resident_blocks(space, kernel, Kernel::block, k.shared_bytes());
  const std::size_t league =
      schedule<Kokkos::Cuda>(call.options, call.shape, call.sparsity, resident, k);
  if (league == 0) return true;

  const cudaStream_t stream = space.cuda_stream();
  const int batch           = static_cast<int>(call.shape.batch);
  const float s             = static_cast<float>(call.formula.profile.scale);
  const OperandPair<E> rows(stream, batch, k.n_outer, k.n_inner, Kernel::BM, Kernel::BN,
                            Formula::dim, Parts == 3, call.ivars.template accessor<0>(),
                            {s, 0.0f, false, nullptr}, call.jvars.template accessor<0>(),
                            {s, 0.0f, false, nullptr});
  k.tiles.a         = rows.x.operands();
  k.tiles.b         = rows.y.operands();
  const char* label = Call::sparse   ? "tessera::genred::matrix_sum_block_sparse_cuda"
                      : k.chunks > 1 ? "tessera::genred::matrix_sum_2d_cuda"
                                     : "tessera::genred::matrix_sum_1d_cuda";
  launch_on_stream(space, label, k, call.shape.batch, [&](cudaStream_t st) {
    kernel<<<static_cast<unsigned>(league), Kernel::block, k.shared_bytes(), st>>>(k);
  });
  return true;
}

/// Runs a matrix_sum_call through the streamed tensor-core kernel: one product in the points'
/// own 16-bit type (half_t or bhalf_t points), else FP16 parts of the float values, split or
/// not per options.matrix_precision. Returns false, having run nothing, on GPUs of compute
/// capability below 8.0.
template <class Call, class Red>
bool launch_matrix_sum(const Kokkos::Cuda& space, const Call& call, const Red& red) {
  using SX      = typename Call::storage_type::i_group::template storage_type<0>;
  using SY      = typename Call::storage_type::j_group::template storage_type<0>;
  using Element = MatrixElement<SX, SY>;
  if (cuda_device_facts(space).compute_major < 8) return false;
  if (Element::native || call.options.matrix_precision == MatrixPrecision::fast) {
    return launch_matrix_sum_parts<Call, Red, typename Element::type, 1>(space, call, red);
  }
  return launch_matrix_sum_parts<Call, Red, __half, 3>(space, call, red);
}

}  // namespace Impl
}  // namespace tessera
