// The operands of the streamed tensor-core kernels (matrix_tiles.hpp): each side's rows (the
// outer rows x_i and the inner rows y_j of a call) prepared once per call as 16-bit panels.
//
// prepare_operands() reads the rows through their accessor (any layout, any storage type),
// and writes, per batch entry and row r of a panel padded to rows_pad rows and dp columns
// (dp: D rounded up to the pipeline's k-step, the padding zero):
//   hi[r]     the row scaled by 2^p(r) and rounded to the 16-bit type E;
//   lo[r]     (split operands only) the FP16 remainder 2^p v - hi, so that hi + lo carries 22
//             significant bits;
//   factor[r] 2^-p(r), which unscales a product exactly (one p for the whole panel when the
//             transform gives the rows' largest norm: OperandTransform::common_norm2);
//   norm[r]   alpha |v|^2 + offset, computed in float from the values themselves (pad rows:
//             offset).
// FP16 rows are scaled so that their largest magnitude lies in [2^13, 2^14) (mma.hpp:
// fp16_row_shift), or all by the scale that puts the panel's largest norm there (the
// selections' inner rows: one factor); BF16 rows are not scaled (BF16 has float's range). A shift
// vector, if given, is first subtracted from every row (the selections centre both sides on the
// same point: distances do not change, the bound on the rounding error shrinks); with `normalise`
// each row is then divided by its norm (the cosine's unit vectors; a zero row stays zero). The
// panels take (batch * rows_pad) * dp * 2 bytes each, plus 8 bytes per row: linear in the call's
// size, released on the stream after the call.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/impl/cuda/launch_cache.hpp>
#include <tessera/genred/impl/cuda/mma.hpp>
#include <tessera/genred/impl/var_group.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

namespace tessera {
namespace Impl {

/// The k-step of the streamed kernels for dimension D: 16 or 32 elements for small D (less
/// padding), CudaTuning::matrix_tile_k otherwise.
constexpr int matrix_tile_k_step(int dim) {
  return dim <= 16 ? 16 : dim <= 32 ? 32 : CudaTuning::matrix_tile_k;
}

/// Columns of the prepared panels for dimension `dim`: a whole number of the engine's k-steps.
constexpr int matrix_panel_columns(int dim) {
  const int k = matrix_tile_k_step(dim);
  return (dim + k - 1) / k * k;
}

/// One side's prepared rows (see the file comment); lo is null unless the operands are split.
template <class E>
struct MatrixOperands {
  E* hi         = nullptr;
  E* lo         = nullptr;
  float* factor = nullptr;
  float* norm   = nullptr;
  int rows      = 0;  ///< real rows per batch entry
  int rows_pad  = 0;  ///< rows per batch entry in the panels
  int dp        = 0;  ///< columns of the panels (the dimension, padded)

  /// Offset of row r of batch entry b in the per-row arrays.
  __device__ __forceinline__ std::size_t row(int b, int r) const {
    return static_cast<std::size_t>(b) * rows_pad + r;
  }
};

/// The 16-bit operand type of a call whose points are stored in SX and SY: both half_t gives
/// FP16 and both bhalf_t BF16, whose values are exact in it (`native`: one product); anything
/// else (float, mixed) is converted from float to FP16 scaled per row, split into two parts
/// unless MatrixPrecision::fast.
template <class SX, class SY>
struct MatrixElement {
  static constexpr bool native =
      std::is_same_v<SX, SY> && is_half_precision<SX> && !std::is_same_v<SX, float>;
  using type = std::conditional_t<native && !std::is_same_v<SX, Kokkos::Experimental::half_t>,
                                  __nv_bfloat16, __half>;
};

/// How prepare_operands transforms the rows: v = (row - shift) [/ |row - shift|].
struct OperandTransform {
  float alpha        = 1.0f;     ///< norm = alpha |row - shift|^2 + offset
  float offset       = 0.0f;     ///< see alpha (also the norm of pad rows)
  bool normalise     = false;    ///< divide each (shifted) row by its Euclidean norm
  const float* shift = nullptr;  ///< (batch, dim) subtracted from every row; null: none
  /// (batch) the largest |row - shift|^2 of each batch entry's rows, as the bits of a float
  /// (row_norm_max_cuda), or null. When given, FP16 rows all take the scale of that norm's root
  /// (of 1 when normalised), which bounds every element, instead of their own largest element:
  /// one factor for the whole panel.
  const unsigned* common_norm2 = nullptr;
};

/// One warp per (batch entry, panel row): see the file comment.
template <class E, class S>
__global__ void prepare_operands_cuda(const VarAccessor<S> a, const int dim, const int batch,
                                      const MatrixOperands<E> op, const OperandTransform tr) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const long long w =
      (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;  // (b, r)
  if (w >= static_cast<long long>(batch) * op.rows_pad) return;
  const int b = static_cast<int>(w / op.rows_pad), r = static_cast<int>(w % op.rows_pad);
  const bool real            = r < op.rows;
  const long long src_offset = b * a.sb + static_cast<long long>(real ? r : 0) * a.sr;
  const float* shift = tr.shift == nullptr ? nullptr : tr.shift + static_cast<long long>(b) * dim;
  const auto value   = [&](int k) {
    const float v = a.template load<float>(src_offset + k * a.sc);
    return shift == nullptr ? v : v - shift[k];
  };
  float n2 = 0.0f, mx = 0.0f;
  if (real) {
    for (int k = lane; k < dim; k += 32) {
      const float v = value(k);
      n2 += v * v;
      mx = fmaxf(mx, fabsf(v));
    }
  }
  for (int step = 16; step >= 1; step /= 2) {
    n2 += __shfl_xor_sync(0xffffffffu, n2, step);
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, step));
  }
  const float unit = tr.normalise && n2 > 0.0f ? 1.0f / sqrtf(n2) : 1.0f;
  mx *= unit;
  if (tr.common_norm2 != nullptr)
    mx = tr.normalise ? 1.0f : sqrtf(__uint_as_float(tr.common_norm2[b]));
  const int p           = std::is_same_v<E, __half> ? fp16_row_shift(mx) : 0;
  const std::size_t row = op.row(b, r);
  if (lane == 0) {
    op.factor[row] = ldexpf(1.0f, -p);
    op.norm[row]   = tr.alpha * n2 + tr.offset;
  }
  E* hi = op.hi + row * op.dp;
  E* lo = op.lo == nullptr ? nullptr : op.lo + row * op.dp;
  for (int k = lane; k < op.dp; k += 32) {
    const float v = real && k < dim ? ldexpf(value(k) * unit, p) : 0.0f;
    if constexpr (std::is_same_v<E, __half>) {
      const __half h = __float2half_rn(v);
      hi[k]          = h;
      if (lo != nullptr) lo[k] = __float2half_rn(v - __half2float(h));
    } else {
      hi[k] = __float2bfloat16_rn(v);
    }
  }
}

/// Operand panels allocated on a stream (cudaMallocAsync) and released on it when destroyed.
template <class E>
class OperandPanels {
 public:
  /// Panels for `batch` entries of `rows` rows padded to rows_pad, dp columns, split or not.
  OperandPanels(cudaStream_t stream, int batch, int rows, int rows_pad, int dp, bool split)
      : stream_(stream) {
    const std::size_t n     = static_cast<std::size_t>(batch) * rows_pad;
    const std::size_t elems = n * dp * (split ? 2 : 1);
    const std::size_t bytes = (elems * sizeof(E) + 255) / 256 * 256 + 2 * n * sizeof(float);
    check_cuda(cudaMallocAsync(&memory_, bytes, stream), "tensor-core operand allocation");
    op_.hi       = static_cast<E*>(memory_);
    op_.lo       = split ? op_.hi + n * dp : nullptr;
    op_.factor   = reinterpret_cast<float*>(static_cast<char*>(memory_) +
                                          (elems * sizeof(E) + 255) / 256 * 256);
    op_.norm     = op_.factor + n;
    op_.rows     = rows;
    op_.rows_pad = rows_pad;
    op_.dp       = dp;
  }
  OperandPanels(const OperandPanels&)            = delete;
  OperandPanels& operator=(const OperandPanels&) = delete;
  ~OperandPanels() { cudaFreeAsync(memory_, stream_); }

  /// The prepared rows, once prepare() has run.
  const MatrixOperands<E>& operands() const { return op_; }

  /// Fills the panels from the `dim`-column rows read through `a` (one warp per row).
  template <class S>
  void prepare(const VarAccessor<S>& a, int dim, int batch, const OperandTransform& tr) const {
    const long long threads = static_cast<long long>(batch) * op_.rows_pad * 32;
    if (threads == 0) return;
    const unsigned blocks = static_cast<unsigned>((threads + 255) / 256);
    prepare_operands_cuda<E, S><<<blocks, 256, 0, stream_>>>(a, dim, batch, op_, tr);
    check_cuda(cudaGetLastError(), "tensor-core operand preparation");
  }

 private:
  cudaStream_t stream_;
  void* memory_ = nullptr;
  MatrixOperands<E> op_;
};

/// The prepared outer and inner rows of one call: the outer panel padded to whole tiles of
/// `tile_m` rows and the inner one to whole tiles of `tile_n`, each plus one more tile (a 2D
/// chunk, a block-sparse team tile or inner range may start inside a tile and read a whole tile
/// from there).
template <class E>
struct OperandPair {
  OperandPanels<E> x;  ///< the outer rows
  OperandPanels<E> y;  ///< the inner rows

  template <class SX, class SY>
  OperandPair(cudaStream_t stream, int batch, int m, int n, int tile_m, int tile_n, int dim,
              bool split, const VarAccessor<SX>& xa, const OperandTransform& tx,
              const VarAccessor<SY>& ya, const OperandTransform& ty)
      : x(stream, batch, m, (m + tile_m - 1) / tile_m * tile_m + tile_m, matrix_panel_columns(dim),
          split),
        y(stream, batch, n, (n + tile_n - 1) / tile_n * tile_n + tile_n, matrix_panel_columns(dim),
          split) {
    x.prepare(xa, dim, batch, tx);
    y.prepare(ya, dim, batch, ty);
  }
};

}  // namespace Impl
}  // namespace tessera
