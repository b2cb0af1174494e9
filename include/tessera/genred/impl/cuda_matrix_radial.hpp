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
// What set the shape (ncu and timings on the H100, D = 16): mma.sync TF32 and FP16 both issue
// about 0.57 products per clock per multiprocessor, but a 4-warp block with one staged row per
// thread kept the matrix units 31% busy, the warps waiting on the staging loads and on the
// products' fixed latency; the wide block, the asynchronous staging, two n-tiles in flight and
// FP16 in place of TF32 took it from 1.10e12 to 1.58e12 pairs/s (perf/README.md).
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/tiled_reduce.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// True for the (scalar type, formula, reducer, axis, sparsity) of a call that the tensor-core
/// path runs: Sum of a RadialKernel with Distance::matrix, float, Axis::j, dense, 8 < D <= 32.
/// At D = 3 the SIMT kernel's expanded distance is already bound by the exponentials (the first,
/// TF32 version of this kernel ran 22% slower there); the A fragments of D > 32 would not stay
/// in registers.
template <class T, class Formula, class Red, bool OuterIsI, bool Sparse>
inline constexpr bool matrix_radial_call = false;
template <class Profile, int D, int W, int FD, Summation S>
inline constexpr bool matrix_radial_call<float, RadialKernel<Profile, D, W, Distance::matrix>,
                                         Reducer<Sum, float, FD, S>, true, false> =
    D > 8 && D <= 32;

}  // namespace Impl
}  // namespace tessera

#if defined(TESSERA_ENABLE_CUDA_KERNELS)

#include <tessera/genred/impl/cuda_tiled_reduce.hpp>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tessera {
namespace Impl {

/// The power of two 2^p that brings a row whose largest magnitude is m to [2^13, 2^14), where
/// FP16 holds both parts of the split with full precision; p is clamped so that 2^-p stays a
/// normal float (rows below 2^-100 or above 2^100 keep less precision).
__device__ inline int fp16_row_shift(float m) {
  int e = 0;
  frexpf(m, &e);  // m = f 2^e, f in [0.5, 1); 0 for m = 0
  e = e < -100 ? -100 : e > 100 ? 100 : e;
  return 14 - e;
}
/// (v0, v1) 2^p split into packed high FP16 parts and packed FP16 remainders.
__device__ inline void fp16_split2(float v0, float v1, int p, std::uint32_t& hi,
                                   std::uint32_t& lo) {
  v0              = ldexpf(v0, p);
  v1              = ldexpf(v1, p);
  const __half2 h = __floats2half2_rn(v0, v1);
  const __half2 l = __floats2half2_rn(v0 - __low2float(h), v1 - __high2float(h));
  hi              = *reinterpret_cast<const std::uint32_t*>(&h);
  lo              = *reinterpret_cast<const std::uint32_t*>(&l);
}
/// c += a b for one m16n8k16 FP16 tile (row-major A, column-major B, float accumulators).
__device__ inline void mma_fp16(float (&c)[4], const std::uint32_t (&a)[4],
                                const std::uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  __trap();  // compiled for a GPU without FP16 mma.sync; launch_matrix_radial checks first
#endif
}
/// Starts an asynchronous copy of 4 bytes from global to shared memory (sm_80 and later).
__device__ inline void cp_async_4(float* dst, const float* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),
               "l"(src)
               : "memory");
#else
  *dst = *src;
#endif
}
/// Closes the group of copies started so far.
__device__ inline void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
/// Waits for this thread's copies to land.
__device__ inline void cp_async_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
}

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
  static constexpr int MT          = 2;  // 16-row m-tiles per warp
  static constexpr int warps       = 16;
  static constexpr int block       = 32 * warps;
  static constexpr int YS          = KW + 4;       // shared row stride of the y parts (in words)
  static constexpr int RS          = (D + W) | 1;  // row stride of the raw tiles (odd)
  static constexpr int min_blocks  = 512 / block;  // resident blocks the registers allow

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

  __device__ void run(int league, float* shared) const {
    const int chunk = league % chunks;
    const int tile  = (league / chunks) % tiles_outer;
    const int b     = league / chunks / tiles_outer;
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    const int g = lane >> 2, t = lane & 3;
    const int o_begin = tile * tile_rows();
    const int o_end   = o_begin + tile_rows() < n_outer ? o_begin + tile_rows() : n_outer;
    const float s     = static_cast<float>(formula.profile.scale);

    // ---- this lane's A fragments (-2 s x, high and low parts) and s |x|^2 of rows g, g + 8
    std::uint32_t ah[MT][KS][4], al[MT][KS][4];
    float an[MT][2], ia[MT][2];
    const VarAccessor<float>& xa = ivars.vars[0];
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h) {
        const int o     = o_begin + warp * MT * 16 + mt * 16 + g + 8 * h;
        const float* xr = xa.data + b * xa.sb + (o < o_end ? o : o_end - 1) * xa.sr;
        float n2 = 0, mx = 0;
        TESSERA_UNROLL_FULL
        for (int k = 0; k < D; ++k) {
          n2 += xr[k * xa.sc] * xr[k * xa.sc];
          mx = fmaxf(mx, fabsf(xr[k * xa.sc]));
        }
        an[mt][h]   = s * n2;
        const int p = fp16_row_shift(2.0f * s * mx);
        ia[mt][h]   = ldexpf(1.0f, -p);
        TESSERA_UNROLL_FULL
        for (int ks = 0; ks < KS; ++ks) {
          TESSERA_UNROLL_FULL
          for (int q = 0; q < 2; ++q) {  // a0, a1: (g, 2t, 2t + 1), a2, a3: (g + 8, ...), ...
            const int k    = 16 * ks + 2 * t + 8 * q;
            const float v0 = k < D ? -2.0f * s * xr[k * xa.sc] : 0.0f;
            const float v1 = k + 1 < D ? -2.0f * s * xr[(k + 1) * xa.sc] : 0.0f;
            fp16_split2(v0, v1, p, ah[mt][ks][h + 2 * q], al[mt][ks][h + 2 * q]);
          }
        }
      }
    }
    float acc[MT][2][SV > 0 ? SV : 1];
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      red.init({acc[mt][0], nullptr});
      red.init({acc[mt][1], nullptr});
    }

    float* y_hi       = shared;
    float* y_lo       = y_hi + tile_j * YS;
    float* y_n        = y_lo + tile_j * YS;
    float* y_ib       = y_n + tile_j;
    float* wts        = y_ib + tile_j;
    float* raw[2]     = {wts + tile_j * FD, wts + tile_j * FD + tile_j * RS};
    const int tid     = static_cast<int>(threadIdx.x);
    const int j_begin = chunk * chunk_rows;
    const int j_end   = j_begin + chunk_rows < n_inner ? j_begin + chunk_rows : n_inner;
    // rows [j0, j0 + tile_j) of y and the weights, as they are, into raw[buffer] (asynchronous)
    auto prefetch = [&](int j0, int buffer) {
      const int rows = j_end - j0 < tile_j ? j_end - j0 : tile_j;
      copy_rows_async<D>(jvars.vars[0], b, j0, rows, raw[buffer], RS);
      if constexpr (W > 0) copy_rows_async<W>(jvars.vars[1], b, j0, rows, raw[buffer] + D, RS);
      cp_async_commit();
    };
    if (j_begin < j_end) prefetch(j_begin, 0);
    int buffer = 0;
    for (int j0 = j_begin; j0 < j_end; j0 += tile_j, buffer ^= 1) {
      const int rows = j_end - j0 < tile_j ? j_end - j0 : tile_j;
      cp_async_wait_all();
      __syncthreads();  // this tile has landed, the previous one has been consumed
      const float* in = raw[buffer];
      for (int e = tid; e < tile_j * FD; e += block) {  // rows past `rows`: weight 0
        const int r = e / FD, c = e % FD;
        wts[e] = r >= rows ? 0.0f : W == 0 ? 1.0f : in[r * RS + D + c];
      }
      for (int r = tid; r < tile_j; r += block) {  // RS is odd: a warp's rows hit distinct banks
        float n2 = 0, mx = 0;
        TESSERA_UNROLL_FULL
        for (int k = 0; k < D; ++k) {
          const float v = r < rows ? in[r * RS + k] : 0.0f;  // rows past `rows`: y = 0
          n2 += v * v;
          mx = fmaxf(mx, fabsf(v));
        }
        y_n[r]      = s * n2;
        const int p = fp16_row_shift(mx);
        y_ib[r]     = ldexpf(1.0f, -p);
        TESSERA_UNROLL_FULL
        for (int w = 0; w < KW; ++w) {
          const float v0 = r < rows && 2 * w < D ? in[r * RS + 2 * w] : 0.0f;
          const float v1 = r < rows && 2 * w + 1 < D ? in[r * RS + 2 * w + 1] : 0.0f;
          std::uint32_t hi, lo;
          fp16_split2(v0, v1, p, hi, lo);
          y_hi[r * YS + w] = __uint_as_float(hi);
          y_lo[r * YS + w] = __uint_as_float(lo);
        }
      }
      __syncthreads();  // the tile is complete
      if (j0 + tile_j < j_end) prefetch(j0 + tile_j, buffer ^ 1);
      const int n_tiles = (rows + 7) / 8;
      TESSERA_UNROLL(2)  // two n-tiles in flight: their products overlap the profile evaluations
      for (int nt = 0; nt < n_tiles; ++nt) {
        const int j8 = nt * 8;
        std::uint32_t bh[KS][2], bl[KS][2];  // b0: (k = t, n = g), b1: (k = t + 4, n = g)
        TESSERA_UNROLL_FULL
        for (int ks = 0; ks < KS; ++ks) {
          TESSERA_UNROLL_FULL
          for (int q = 0; q < 2; ++q) {
            bh[ks][q] = __float_as_uint(y_hi[(j8 + g) * YS + 8 * ks + t + 4 * q]);
            bl[ks][q] = __float_as_uint(y_lo[(j8 + g) * YS + 8 * ks + t + 4 * q]);
          }
        }
        const int c0   = j8 + 2 * t;  // this lane's columns: c0, c0 + 1
        const float n0 = y_n[c0], n1 = y_n[c0 + 1], ib0 = y_ib[c0], ib1 = y_ib[c0 + 1];
        float w0[FD], w1[FD];
        TESSERA_UNROLL_FULL
        for (int c = 0; c < FD; ++c) {
          w0[c] = wts[c0 * FD + c];
          w1[c] = wts[(c0 + 1) * FD + c];
        }
        // the scaled dot products, smaller terms first; the m-tiles' chains are independent and
        // issued interleaved, and the loop keeps two n-tiles in flight
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
            mma_fp16(u[mt], al[mt][ks], bh[ks]);
          TESSERA_UNROLL_FULL
          for (int mt = 0; mt < MT; ++mt)
            mma_fp16(u[mt], ah[mt][ks], bl[ks]);
          TESSERA_UNROLL_FULL
          for (int mt = 0; mt < MT; ++mt)
            mma_fp16(u[mt], ah[mt][ks], bh[ks]);
        }
        TESSERA_UNROLL_FULL
        for (int mt = 0; mt < MT; ++mt) {
          TESSERA_UNROLL_FULL
          for (int q = 0; q < 4;
               ++q) {  // (row g + 8 (q / 2), column c0 + q % 2): unscale, add norms
            const float ib = q % 2 == 0 ? ib0 : ib1, n = q % 2 == 0 ? n0 : n1;
            u[mt][q] = fmaf(u[mt][q] * ia[mt][q / 2], ib, an[mt][q / 2] + n);
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
            red.add({acc[mt][h], nullptr}, f, 0);
            TESSERA_UNROLL_FULL
            for (int c = 0; c < FD; ++c)
              f[c] = k1 * w1[c];
            red.add({acc[mt][h], nullptr}, f, 0);
          }
        }
      }
      TESSERA_UNROLL_FULL
      for (int mt = 0; mt < MT; ++mt) {
        red.end_tile({acc[mt][0], nullptr});
        red.end_tile({acc[mt][1], nullptr});
      }
    }

    // ---- the four lanes of each row fold their quarters; lane t = 0 writes
    TESSERA_UNROLL_FULL
    for (int mt = 0; mt < MT; ++mt) {
      TESSERA_UNROLL_FULL
      for (int h = 0; h < 2; ++h) {
        TESSERA_UNROLL_FULL
        for (int step = 1; step <= 2; step *= 2) {
          float other[SV > 0 ? SV : 1];
          TESSERA_UNROLL_FULL
          for (int v = 0; v < SV; ++v)
            other[v] = __shfl_xor_sync(0xffffffffu, acc[mt][h][v], step);
          red.combine({acc[mt][h], nullptr}, {other, nullptr});
        }
        const int o = o_begin + warp * MT * 16 + mt * 16 + g + 8 * h;
        if (t != 0 || o >= o_end) continue;
        if (chunks == 1) {
          red.finalize({acc[mt][h], nullptr}, out.row(b, o));
        } else {
          float* dst =
              partial.row((static_cast<std::int64_t>(b) * n_outer + o) * chunks + chunk).val;
          TESSERA_UNROLL_FULL
          for (int v = 0; v < SV; ++v)
            dst[v] = acc[mt][h][v];
        }
      }
    }
  }
};

template <class Kernel>
__global__ void __launch_bounds__(Kernel::block, Kernel::min_blocks)
    matrix_radial_cuda(const Kernel k) {
  extern __shared__ float4 tessera_matrix_shared[];
  k.run(static_cast<int>(blockIdx.x), reinterpret_cast<float*>(tessera_matrix_shared));
}

/// Runs a matrix_radial_call through the tensor-core kernel on space's stream. Returns false,
/// having run nothing, on GPUs without FP16 mma.sync and cp.async (compute capability below
/// 8.0) and when 8 staged rows do not fit in shared memory; the caller then runs the SIMT kernel.
template <class Index, class Profile, int D, int W, class Red, class PG, class IG, class JG,
          class OutputsT>
bool launch_matrix_radial(const Kokkos::Cuda& space, const GenredOptions& options,
                          const Shape& shape,
                          const RadialKernel<Profile, D, W, Distance::matrix>& formula,
                          const Red& red, const PG&, const IG& ivars, const JG& jvars,
                          const OutputsT& outputs) {
  using Kernel      = MatrixRadialReduce<Profile, D, W, Red, Index>;
  const auto kernel = &matrix_radial_cuda<Kernel>;
  const int device  = space.cuda_device();
  int major = 0, sms = 0, shared_max = 0;
  check_cuda(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
             "compute capability");
  if (major < 8) return false;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "multiprocessor count");
  check_cuda(cudaDeviceGetAttribute(&shared_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
             "shared memory limit");

  Kernel k{formula, red, ivars, jvars};
  k.n_outer = static_cast<int>(shape.m);
  k.n_inner = static_cast<int>(shape.n);
  // Staged rows: one per thread (the user's tile_j rounded up to whole 8-row n-tiles), fewer if
  // the weights are so wide that the tile would not fit.
  k.tile_j = options.tile_j > 0 ? (options.tile_j + 7) / 8 * 8 : Kernel::block;
  while (k.tile_j > 8 && k.shared_bytes() > static_cast<std::size_t>(shared_max))
    k.tile_j -= 8;
  if (k.shared_bytes() > static_cast<std::size_t>(shared_max)) return false;
  if (k.shared_bytes() > 48 * 1024) {
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(k.shared_bytes())),
               "raising the shared memory limit");
  }
  k.out             = output_access<float, Index>(outputs);
  int blocks_per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, Kernel::block,
                                                           k.shared_bytes()),
             "occupancy query");
  const std::size_t resident = static_cast<std::size_t>(std::max(blocks_per_sm, 1)) * sms;
  const std::size_t league   = schedule<Kokkos::Cuda>(options, shape, NoSparsity{}, resident, k);
  if (league == 0) return true;
  launch_on_stream(space, k, shape.batch, [&](cudaStream_t stream) {
    kernel<<<static_cast<unsigned>(league), Kernel::block, k.shared_bytes(), stream>>>(k);
  });
  return true;
}

}  // namespace Impl
}  // namespace tessera

#endif  // TESSERA_ENABLE_CUDA_KERNELS
