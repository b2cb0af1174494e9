// The operands of the streamed tensor-core kernels (matrix_tiles.hpp): each side's rows (the
// outer rows x_i and the inner rows y_j of a call) prepared once per call as 16-bit panels.
//
// prepare_operands() reads the rows through their accessor (any layout, any storage type),
// and writes, per batch entry and row r of a panel padded to rows_pad rows and dp columns
// (dp: D rounded up to the pipeline's k-step, the padding zero):
//   hi[r]     the row scaled by 2^p(r) and rounded to the 16-bit type E;
//   lo[r]     (split operands only) the FP16 remainder 2^p v - hi, so that hi + lo carries 22
//             significant bits;
//   factor[r] 2^-p(r), which unscales a product exactly;
//   norm[r]   alpha |v|^2, computed in float from the values themselves (pad rows: pad_norm).
// FP16 rows are scaled so that their largest magnitude lies in [2^13, 2^14) (mma.hpp:
// fp16_row_shift), BF16 rows are not scaled (BF16 has float's range). With `normalise` each
// row is first divided by its norm (the cosine's unit vectors; a zero row stays zero).
// The panels take (batch * rows_pad) * dp * 2 bytes each, plus 8 bytes per row: linear in the
// call's size, released on the stream after the call.
#pragma once

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

/// How prepare_operands transforms the rows.
struct OperandTransform {
  float alpha    = 1.0f;   ///< norm = alpha |v|^2
  float pad_norm = 0.0f;   ///< the norm of pad rows
  bool normalise = false;  ///< divide each row by its Euclidean norm first
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
  const bool real = r < op.rows;
  const S* src    = a.data + b * a.sb + static_cast<long long>(real ? r : 0) * a.sr;
  float n2 = 0.0f, mx = 0.0f;
  if (real) {
    for (int k = lane; k < dim; k += 32) {
      const float v = static_cast<float>(src[k * a.sc]);
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
  const int p           = std::is_same_v<E, __half> ? fp16_row_shift(mx) : 0;
  const std::size_t row = op.row(b, r);
  if (lane == 0) {
    op.factor[row] = ldexpf(1.0f, -p);
    op.norm[row] = real ? tr.alpha * (tr.normalise ? (n2 > 0.0f ? 1.0f : 0.0f) : n2) : tr.pad_norm;
  }
  E* hi = op.hi + row * op.dp;
  E* lo = op.lo == nullptr ? nullptr : op.lo + row * op.dp;
  for (int k = lane; k < op.dp; k += 32) {
    const float v = real && k < dim ? ldexpf(static_cast<float>(src[k * a.sc]) * unit, p) : 0.0f;
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

}  // namespace Impl
}  // namespace tessera
