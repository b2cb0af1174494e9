// The tensor-core path of the CUDA kernels: Sum reductions of radial kernels with
// Distance::matrix (builtin_formulas.hpp), a_i = sum_j k(|x_i - y_j|^2) b_j, in float, over j.
//
// The scaled squared distance is computed as in Distance::expanded,
//   s |x_i - y_j|^2 = s |x_i|^2 + s |y_j|^2 + (-2 s x_i) . y_j,
// with the dot products of a 32 x 8 block of pairs per warp and k-step done by the matrix units
// (mma.sync m16n8k16, FP16 in, float accumulators), as attention kernels do for Q K^T.
// Precision: every row (of -2 s x and of y) is first scaled by a power of two that brings its
// largest component to [2^13, 2^14), then split into an FP16 high part and an FP16 remainder;
// three products (lo.hi + hi.lo + hi.hi) give the dot product with a relative error of a few
// 2^-22 of sum_k |x_k y_k| (FP16 and TF32 both carry 11 significant bits, so this is 3xTF32's
// accuracy at twice its rate: mma.sync issues an m16n8k16 FP16 product in the time of an m16n8k8
// TF32 one). The product is unscaled exactly, 2^-(p_i + p_j), and added to the norms; each pair
// then costs one profile evaluation and one FMA per weight on the FP32 pipes.
//
// Layout (one block = 16 warps = 512 outer rows; warp w owns rows [32 w, 32 w + 32) as two
// 16-row m-tiles): the A fragments (high and low parts), s |x_i|^2 and the scales stay in
// registers for the whole call. The block stages tile_j = 512 inner rows at a time: raw rows of
// y and the weights are copied to shared memory asynchronously (cp.async, in memory order, so
// coalesced whichever the layout) one tile ahead of the computation, then each thread turns one
// row into its scale, s |y_j|^2 and packed FP16 high and low parts (row stride KW + 4 words:
// the B-fragment loads are free of bank conflicts). Rows of a partial tile are padded with y = 0
// and weight 0, which add exact zeros. In the accumulator layout a lane holds rows g, g + 8 and
// columns 2t, 2t + 1 (g = lane / 4, t = lane % 4), so each lane sums a quarter of each row's
// terms; the four lanes of a row are combined by shuffles at the end.
//
// The shape (block, m-tiles per warp, asynchronous staging, two n-tiles in flight, FP16 rather
// than TF32) comes from CudaTuning and the measurements recorded in docs/perf-history.md.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/impl/cuda/launch_cache.hpp>
#include <tessera/genred/impl/cuda/mma.hpp>
#include <tessera/genred/impl/cuda/tiled_reduce_cuda.hpp>
#include <tessera/genred/impl/output_access.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/var_group.hpp>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace tessera {
namespace Impl {

/// True for the (scalar type, formula, reducer, axis, sparsity) of a call that the tensor-core
/// path runs: Sum of a RadialKernel with Distance::matrix, float, Axis::j, dense, 8 < D <= 32.
/// At small D the SIMT kernel's expanded distance is already bound by the exponentials; the A
/// fragments of D > 32 would not stay in registers.
template <class T, class Formula, class Red, bool OuterIsI, bool Sparse>
inline constexpr bool matrix_radial_call = false;
template <class Profile, int D, int W, int FD, Summation S>
inline constexpr bool matrix_radial_call<float, RadialKernel<Profile, D, W, Distance::matrix>,
                                         Reducer<Sum, float, FD, S>, true, false> =
    D > 8 && D <= 32;

/// The block starts copying rows [j0, j0 + rows) of a Dim-column variable of batch b to
/// dst[r * stride + k], walking the elements in their memory order so that a warp's loads are
/// coalesced whichever the layout.
template <int Dim>
__device__ void copy_rows_async(const VarAccessor<float>& a, int b, int j0, int rows, float* dst,
                                int stride) {
  const float* base    = a.data + b * a.sb + j0 * a.sr;
  const bool row_major = a.sc <= a.sr;
  for (int e = static_cast<int>(threadIdx.x); e < rows * Dim; e += static_cast<int>(blockDim.x)) {
    const int r = row_major ? e / Dim : e % rows;
    const int k = row_major ? e % Dim : e / rows;
    cp_async_4(dst + r * stride + k, base + r * a.sr + k * a.sc);
  }
}

template <class Profile, int D, int W, class Red, class Index>
struct MatrixRadialReduce {
  using scalar_type  = float;
  using reducer_type = Red;
  using index_type   = Index;
  using Formula      = RadialKernel<Profile, D, W, Distance::matrix>;
  using IG           = VarGroup<float, typename Formula::i_dims>;
  using JG           = VarGroup<float, typename Formula::j_dims>;

  static constexpr bool outer_is_i = true;
  static constexpr bool is_sparse  = false;
  static constexpr int KS          = (D + 15) / 16;   // k-steps
  static constexpr int KW          = KS * 8;          // packed words per row
  static constexpr int FD          = W == 0 ? 1 : W;  // output columns
  static constexpr int SV          = Red::static_acc_values;
  static constexpr int MT          = CudaTuning::matrix_radial_m_tiles;  // 16-row m-tiles/warp
  static constexpr int warps       = CudaTuning::matrix_radial_warps;
  static constexpr int block       = 32 * warps;
  static constexpr int YS          = KW + 4;       // shared row stride of the y parts (in words)
  static constexpr int RS          = (D + W) | 1;  // row stride of the raw tiles (odd)
  // resident blocks the registers must allow
  static constexpr int min_blocks = CudaTuning::matrix_radial_resident_threads / block;

  Formula formula;
  Red red;
  IG ivars;
  JG jvars;
  int n_outer, n_inner, tiles_outer, tile_j, chunks, chunk_rows;
  OutputAccess<float, Index> out;
  PartialBuffer<float> partial;

  KOKKOS_INLINE_FUNCTION int tile_rows() const { return warps * MT * 16; }
  /// Dynamic shared memory: y high and low parts, s |y|^2, weights (W = 0: 1 for real rows).
  std::size_t shared_bytes() const {
    return static_cast<std::size_t>(tile_j) * (2 * YS + 2 + FD + 2 * RS) * sizeof(float);
  }

  /// A lane's share of its warp's outer rows: the A fragments (-2 s x, high and low FP16 parts)
  /// and s |x|^2 and 2^-p of rows g and g + 8 of each m-tile, and their accumulators.
  struct LaneRows {
    std::uint32_t ah[MT][KS][4], al[MT][KS][4];
    float an[MT][2], ia[MT][2];
    float acc[MT][2][SV > 0 ? SV : 1];
  };
  /// The shared-memory arrays of one block (shared_bytes()).
  struct Staging {
    float* y_hi;    // (tile_j, YS) packed FP16 high parts of 2^p y
    float* y_lo;    // (tile_j, YS) their remainders
    float* y_n;     // (tile_j) s |y|^2
    float* y_ib;    // (tile_j) 2^-p
    float* wts;     // (tile_j, FD) weights (W = 0: 1 for real rows, 0 past the tile's rows)
    float* raw[2];  // (tile_j, RS) two buffers of raw rows of y and the weights
  };

  /// Outer row of this lane's row g + 8 h of m-tile mt.
  __device__ __forceinline__ int lane_row(int o_begin, int warp, int g, int mt, int h) const {
    return o_begin + warp * MT * 16 + mt * 16 + g + 8 * h;
  }

  /// Loads this lane's outer rows (rows past o_end repeat the last row) and initialises their
  /// accumulators.
  __device__ __forceinline__ void load_lane_rows(LaneRows& rows, int b, int o_begin, int o_end,
                                                 int warp, int g, int t) const {
    const float s                = static_cast<float>(formula.profile.scale);
    const VarAccessor<float>& xa = ivars.vars[0];
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h) {
        const int o     = lane_row(o_begin, warp, g, mt, h);
        const float* xr = xa.data + b * xa.sb + (o < o_end ? o : o_end - 1) * xa.sr;
        float n2 = 0, mx = 0;
        TESSERA_UNROLL_FULL
        for (int k = 0; k < D; ++k) {
          n2 += xr[k * xa.sc] * xr[k * xa.sc];
          mx = fmaxf(mx, fabsf(xr[k * xa.sc]));
        }
        rows.an[mt][h] = s * n2;
        const int p    = fp16_row_shift(2.0f * s * mx);
        rows.ia[mt][h] = ldexpf(1.0f, -p);
        TESSERA_UNROLL_FULL
        for (int ks = 0; ks < KS; ++ks) {
          TESSERA_UNROLL_FULL
          for (int q = 0; q < 2; ++q) {  // a0, a1: (g, 2t, 2t + 1), a2, a3: (g + 8, ...), ...
            const int k    = 16 * ks + 2 * t + 8 * q;
            const float v0 = k < D ? -2.0f * s * xr[k * xa.sc] : 0.0f;
            const float v1 = k + 1 < D ? -2.0f * s * xr[(k + 1) * xa.sc] : 0.0f;
            fp16_split2(v0, v1, p, rows.ah[mt][ks][h + 2 * q], rows.al[mt][ks][h + 2 * q]);
          }
        }
      }
    }
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      red.init({rows.acc[mt][0], nullptr});
      red.init({rows.acc[mt][1], nullptr});
    }
  }

  /// The block starts copying rows [j0, j0 + tile_j) (at most up to j_end) of y and the weights
  /// of batch b, as they are, into raw[buffer] (asynchronous).
  __device__ __forceinline__ void prefetch(const Staging& st, int b, int j0, int j_end,
                                           int buffer) const {
    const int rows = j_end - j0 < tile_j ? j_end - j0 : tile_j;
    copy_rows_async<D>(jvars.vars[0], b, j0, rows, st.raw[buffer], RS);
    if constexpr (W > 0) copy_rows_async<W>(jvars.vars[1], b, j0, rows, st.raw[buffer] + D, RS);
    cp_async_commit();
  }

  /// The block turns `rows` landed raw rows into the staged tile: weights, s |y|^2, 2^-p and the
  /// FP16 parts of 2^p y; rows past `rows` get y = 0 and weight 0 (exact zeros).
  __device__ __forceinline__ void stage_tile(const Staging& st, const float* in, int rows) const {
    const float s = static_cast<float>(formula.profile.scale);
    const int tid = static_cast<int>(threadIdx.x);
    for (int e = tid; e < tile_j * FD; e += block) {
      const int r = e / FD, c = e % FD;
      st.wts[e] = r >= rows ? 0.0f : W == 0 ? 1.0f : in[r * RS + D + c];
    }
    for (int r = tid; r < tile_j; r += block) {  // RS is odd: a warp's rows hit distinct banks
      float n2 = 0, mx = 0;
      TESSERA_UNROLL_FULL
      for (int k = 0; k < D; ++k) {
        const float v = r < rows ? in[r * RS + k] : 0.0f;
        n2 += v * v;
        mx = fmaxf(mx, fabsf(v));
      }
      st.y_n[r]   = s * n2;
      const int p = fp16_row_shift(mx);
      st.y_ib[r]  = ldexpf(1.0f, -p);
      TESSERA_UNROLL_FULL
      for (int w = 0; w < KW; ++w) {
        const float v0 = r < rows && 2 * w < D ? in[r * RS + 2 * w] : 0.0f;
        const float v1 = r < rows && 2 * w + 1 < D ? in[r * RS + 2 * w + 1] : 0.0f;
        std::uint32_t hi, lo;
        fp16_split2(v0, v1, p, hi, lo);
        st.y_hi[r * YS + w] = __uint_as_float(hi);
        st.y_lo[r * YS + w] = __uint_as_float(lo);
      }
    }
  }

  /// Folds the `rows` staged rows into this lane's accumulators, one 8-column n-tile at a time:
  /// the scaled dot products by the matrix units (smaller terms first), unscaled and added to the
  /// norms, then one profile evaluation and one FMA per weight per pair.
  __device__ __forceinline__ void fold_tile(const Staging& st, LaneRows& lr, int rows, int g,
                                            int t) const {
    const int n_tiles = (rows + 7) / 8;
    TESSERA_UNROLL(2)  // two n-tiles in flight: their products overlap the profile evaluations
    for (int nt = 0; nt < n_tiles; ++nt) {
      const int j8 = nt * 8;
      std::uint32_t bh[KS][2], bl[KS][2];  // b0: (k = t, n = g), b1: (k = t + 4, n = g)
      TESSERA_UNROLL_FULL
      for (int ks = 0; ks < KS; ++ks) {
        TESSERA_UNROLL_FULL
        for (int q = 0; q < 2; ++q) {
          bh[ks][q] = __float_as_uint(st.y_hi[(j8 + g) * YS + 8 * ks + t + 4 * q]);
          bl[ks][q] = __float_as_uint(st.y_lo[(j8 + g) * YS + 8 * ks + t + 4 * q]);
        }
      }
      const int c0   = j8 + 2 * t;  // this lane's columns: c0, c0 + 1
      const float n0 = st.y_n[c0], n1 = st.y_n[c0 + 1], ib0 = st.y_ib[c0], ib1 = st.y_ib[c0 + 1];
      float w0[FD], w1[FD];
      TESSERA_UNROLL_FULL
      for (int c = 0; c < FD; ++c) {
        w0[c] = st.wts[c0 * FD + c];
        w1[c] = st.wts[(c0 + 1) * FD + c];
      }
      // the m-tiles' chains are independent and issued interleaved
      float u[MT][4];
      TESSERA_UNROLL_FULL
      for (int mt = 0; mt < MT; ++mt) {
        TESSERA_UNROLL_FULL
        for (int q = 0; q < 4; ++q)
          u[mt][q] = 0.0f;
      }
      TESSERA_UNROLL_FULL
      for (int ks = 0; ks < KS; ++ks) {
        TESSERA_UNROLL_FULL
        for (int mt = 0; mt < MT; ++mt)
          mma_fp16(u[mt], lr.al[mt][ks], bh[ks]);
        TESSERA_UNROLL_FULL
        for (int mt = 0; mt < MT; ++mt)
          mma_fp16(u[mt], lr.ah[mt][ks], bl[ks]);
        TESSERA_UNROLL_FULL
        for (int mt = 0; mt < MT; ++mt)
          mma_fp16(u[mt], lr.ah[mt][ks], bh[ks]);
      }
      TESSERA_UNROLL_FULL
      for (int mt = 0; mt < MT; ++mt) {
        TESSERA_UNROLL_FULL
        for (int q = 0; q < 4; ++q) {  // (row g + 8 (q / 2), column c0 + q % 2)
          const float ib = q % 2 == 0 ? ib0 : ib1, n = q % 2 == 0 ? n0 : n1;
          u[mt][q] = fmaf(u[mt][q] * lr.ia[mt][q / 2], ib, lr.an[mt][q / 2] + n);
        }
      }
      TESSERA_UNROLL_FULL
      for (int mt = 0; mt < MT; ++mt) {
        TESSERA_UNROLL_FULL
        for (int h = 0; h < 2; ++h) {
          const float k0 = formula.profile.shape(u[mt][2 * h]);
          const float k1 = formula.profile.shape(u[mt][2 * h + 1]);
          float f[FD];
          TESSERA_UNROLL_FULL
          for (int c = 0; c < FD; ++c)
            f[c] = k0 * w0[c];
          red.add({lr.acc[mt][h], nullptr}, f, 0);
          TESSERA_UNROLL_FULL
          for (int c = 0; c < FD; ++c)
            f[c] = k1 * w1[c];
          red.add({lr.acc[mt][h], nullptr}, f, 0);
        }
      }
    }
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      red.end_tile({lr.acc[mt][0], nullptr});
      red.end_tile({lr.acc[mt][1], nullptr});
    }
  }

  /// The four lanes of each row fold their quarters of its terms; lane t = 0 writes the row (its
  /// output, or its chunk's partial accumulator).
  __device__ __forceinline__ void write_rows(LaneRows& lr, const DenseTile& tile, int o_begin,
                                             int o_end, int warp, int g, int t) const {
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h) {
        TESSERA_UNROLL_FULL
        for (int step = 1; step <= 2; step *= 2) {
          float other[SV > 0 ? SV : 1];
          TESSERA_UNROLL_FULL
          for (int v = 0; v < SV; ++v)
            other[v] = __shfl_xor_sync(0xffffffffu, lr.acc[mt][h][v], step);
          red.combine({lr.acc[mt][h], nullptr}, {other, nullptr});
        }
        const int o = lane_row(o_begin, warp, g, mt, h);
        if (t != 0 || o >= o_end) continue;
        if (chunks == 1) {
          red.finalize({lr.acc[mt][h], nullptr}, out.row(tile.batch, o));
        } else {
          partial.store(tile.batch, o, n_outer, chunks, tile.chunk, red, {lr.acc[mt][h], nullptr});
        }
      }
    }
  }

  /// The kernel body of block `league`: this lane's rows in registers, then the chunk's staged
  /// tiles (raw rows of the next tile copied asynchronously while this one is folded).
  __device__ void run(int league, float* shared) const {
    const DenseTile tile = dense_tile(league, chunks, tiles_outer);
    const int b          = tile.batch;
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int o_begin = tile.tile * tile_rows();
    const int o_end   = o_begin + tile_rows() < n_outer ? o_begin + tile_rows() : n_outer;

    LaneRows lr;
    load_lane_rows(lr, b, o_begin, o_end, warp, g, t);

    Staging st;
    st.y_hi           = shared;
    st.y_lo           = st.y_hi + tile_j * YS;
    st.y_n            = st.y_lo + tile_j * YS;
    st.y_ib           = st.y_n + tile_j;
    st.wts            = st.y_ib + tile_j;
    st.raw[0]         = st.wts + tile_j * FD;
    st.raw[1]         = st.raw[0] + tile_j * RS;
    const int j_begin = tile.chunk * chunk_rows;
    const int j_end   = j_begin + chunk_rows < n_inner ? j_begin + chunk_rows : n_inner;
    if (j_begin < j_end) prefetch(st, b, j_begin, j_end, 0);
    int buffer = 0;
    for (int j0 = j_begin; j0 < j_end; j0 += tile_j, buffer ^= 1) {
      const int rows = j_end - j0 < tile_j ? j_end - j0 : tile_j;
      cp_async_wait_all();
      __syncthreads();  // this tile has landed, the previous one has been consumed
      stage_tile(st, st.raw[buffer], rows);
      __syncthreads();  // the tile is complete
      if (j0 + tile_j < j_end) prefetch(st, b, j0 + tile_j, j_end, buffer ^ 1);
      fold_tile(st, lr, rows, g, t);
    }
    write_rows(lr, tile, o_begin, o_end, warp, g, t);
  }
};

/// The MatrixRadialReduce of a matrix_radial_call's formula.
template <class Formula, class Red, class Index>
struct MatrixRadialKernel;
template <class Profile, int D, int W, class Red, class Index>
struct MatrixRadialKernel<RadialKernel<Profile, D, W, Distance::matrix>, Red, Index> {
  using type = MatrixRadialReduce<Profile, D, W, Red, Index>;
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::block, Kernel::min_blocks)
    matrix_radial_cuda(const Kernel k) {
  extern __shared__ float4 tessera_matrix_shared[];
  k.run(static_cast<int>(blockIdx.x), reinterpret_cast<float*>(tessera_matrix_shared));
}

/// Runs a matrix_radial_call through the tensor-core kernel with reducer `red` on space's
/// stream. Returns false, having run nothing, on GPUs without FP16 mma.sync and cp.async
/// (compute capability below 8.0) and when 8 staged rows do not fit in shared memory; the
/// caller then runs the SIMT kernel.
template <class Call, class Red>
bool launch_matrix_radial(const Kokkos::Cuda& space, const Call& call, const Red& red) {
  using Index                  = typename Call::index_type;
  using Formula                = typename Call::formula_type;
  using Kernel                 = typename MatrixRadialKernel<Formula, Red, Index>::type;
  const auto kernel            = &matrix_radial_cuda<Kernel>;
  const CudaDeviceFacts device = cuda_device_facts(space);
  if (device.compute_major < 8) return false;

  Kernel k{call.formula, red, call.ivars, call.jvars};
  k.n_outer = call.template n_outer<true>();
  k.n_inner = call.template n_inner<true>();
  // Staged rows: one per thread (the user's tile_j rounded up to whole 8-row n-tiles), fewer if
  // the weights are so wide that the tile would not fit.
  k.tile_j = call.options.tile_j > 0 ? (call.options.tile_j + 7) / 8 * 8 : Kernel::block;
  while (k.tile_j > 8 && k.shared_bytes() > device.shared_max)
    k.tile_j -= 8;
  if (k.shared_bytes() > device.shared_max) return false;
  k.out                      = output_access<float, Index>(call.outputs);
  const std::size_t resident = cuda_resident_blocks(space, kernel, Kernel::block, k.shared_bytes());
  const std::size_t league =
      schedule<Kokkos::Cuda>(call.options, call.shape, NoSparsity{}, resident, k);
  if (league == 0) return true;
  const char* label = k.chunks > 1 ? "tessera::genred::matrix_radial_2d_cuda"
                                   : "tessera::genred::matrix_radial_1d_cuda";
  launch_on_stream(space, label, k, call.shape.batch, [&](cudaStream_t stream) {
    kernel<<<static_cast<unsigned>(league), Kernel::block, k.shared_bytes(), stream>>>(k);
  });
  return true;
}

}  // namespace Impl
}  // namespace tessera
