// The hand-written CUDA path of the Genred schemes (1D, 2D and block-sparse), chosen
// automatically when the execution space is Kokkos::Cuda (GenredOptions::implementation).
//
// It runs the same kernel body as the portable path (TiledReduce::run: the same formulas,
// reductions, dimensions, scalar types and batches, several outer rows per thread) as a plain
// __global__ function, with what a TeamPolicy launch cannot express:
//  - a compile-time block size with __launch_bounds__, so that the compiler budgets registers
//    for the occupancy it targets;
//  - staged rows padded to 16 bytes and read as one vector per 16 bytes: every thread of a warp
//    reads the same row, a broadcast free of bank conflicts;
//  - tile sizes and the 2D chunk count from the device's multiprocessor count and the kernel's
//    measured occupancy (cudaOccupancyMaxActiveBlocksPerMultiprocessor), so that the 2D
//    partial buffer is sized to the grid that fills the device;
//  - a launch on the execution space instance's stream, with no synchronisation.
// Sizes known only at run time (dynamic_extent dimensions, k of the KMin family) put their
// per-thread buffers in dynamic shared memory; when those do not fit,
// the call falls back to the portable kernel (which can use level-1 scratch).
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/tiled_reduce.hpp>

#if defined(TESSERA_ENABLE_CUDA_KERNELS)

#include <cuda_runtime.h>

#include <stdexcept>

namespace tessera {
namespace Impl {

/// A one-dimensional CUDA thread block seen as a team.
struct CudaBlock {
  __device__ int team_rank() const { return static_cast<int>(threadIdx.x); }
  __device__ int team_size() const { return static_cast<int>(blockDim.x); }
  __device__ void team_barrier() const { __syncthreads(); }
};

/// True for kernels whose outer rows and accumulators take at most 32 registers per thread.
template <class Kernel>
constexpr bool cuda_light_kernel() {
  return Kernel::R * row_registers<typename Kernel::scalar_type, Kernel>() <= 32;
}
/// Threads per block: 256 for light dense kernels, 128 otherwise. Measured on the H100: light
/// kernels ran 5-8% faster in 256-thread blocks; block-sparse segments end in a partly idle tile,
/// which 128 x 2-row tiles keep small (512-row tiles lost 8% at 1000-row clusters); the double
/// and D = 16 kernels ran 6% faster in 128-thread blocks.
template <class Kernel>
constexpr int cuda_block_size() {
  return cuda_light_kernel<Kernel>() && !Kernel::is_sparse ? 256 : 128;
}
/// Blocks per multiprocessor that the register budget must allow (__launch_bounds__): light
/// kernels are held to 51 registers (1280 resident threads; the Gaussian D = 3 ran 8% faster
/// than at 64), the others may use 128 (512 threads; held to 51, the double and D = 16 kernels
/// spilled and ran 3x slower).
template <class Kernel>
constexpr int cuda_min_blocks() {
  return (cuda_light_kernel<Kernel>() ? 1280 : 512) / cuda_block_size<Kernel>();
}

/// Dynamic shared memory of one block: the staged tile, the parameter row, then one buffer per
/// thread for run-time-sized state.
struct CudaSharedLayout {
  std::size_t prow_offset;
  std::size_t thread_offset;
  std::size_t thread_bytes;
  std::size_t total;
};

template <class Kernel>
CudaSharedLayout cuda_shared_layout(const Kernel& k) {
  CudaSharedLayout s;
  s.prow_offset = (k.tile_bytes() + 15) / 16 * 16;
  s.thread_offset =
      s.prow_offset +
      (buffer_bytes<typename Kernel::scalar_type>(k.params.width() + 1) + 15) / 16 * 16;
  // An odd number of 8-byte words per thread: the threads of a warp reading the same slot of
  // their buffers then hit different banks (at most 2-way conflicts for 4-byte slots).
  const std::size_t words = (k.thread_scratch_bytes() + 7) / 8;
  s.thread_bytes          = words == 0 ? 0 : (words | 1) * 8;
  s.total                 = s.thread_offset + s.thread_bytes * cuda_block_size<Kernel>();
  return s;
}

template <class Kernel>
__global__ void __launch_bounds__(cuda_block_size<Kernel>(), cuda_min_blocks<Kernel>())
    tiled_reduce_cuda(const Kernel k, CudaSharedLayout layout) {
  using T = typename Kernel::scalar_type;
  extern __shared__ float4 tessera_shared[];  // float4: 16-byte aligned
  unsigned char* shared = reinterpret_cast<unsigned char*>(tessera_shared);
  unsigned char* thread_buf =
      layout.thread_bytes == 0 ? nullptr
                               : shared + layout.thread_offset + threadIdx.x * layout.thread_bytes;
  k.run(CudaBlock{}, static_cast<int>(blockIdx.x), reinterpret_cast<T*>(shared),
        reinterpret_cast<T*>(shared + layout.prow_offset), thread_buf);
}

inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(
        concat("tessera::genred (CUDA kernel): ", what, ": ", cudaGetErrorString(status)));
  }
}

/// Launches a scheduled kernel on space's stream (`launch(stream)`), then the 2D combine kernel
/// when it runs several chunks. The 2D partial buffer comes from the stream-ordered allocator
/// (cudaMallocAsync), whose pool makes repeated calls cheap, and is released on the stream after
/// the combine kernel.
template <class Kernel, class Launch>
void launch_on_stream(const Kokkos::Cuda& space, Kernel& k, std::size_t batch,
                      const Launch& launch) {
  using T                   = typename Kernel::scalar_type;
  const cudaStream_t stream = space.cuda_stream();
  void* partial_memory      = nullptr;
  if (k.chunks > 1) {
    const auto extents      = partial_extents(k, batch);
    const std::size_t bytes = (extents.first * sizeof(T) + 255) / 256 * 256;
    check_cuda(cudaMallocAsync(&partial_memory, bytes + extents.second * sizeof(int), stream),
               "partial buffer allocation");
    k.partial = {static_cast<T*>(partial_memory),
                 reinterpret_cast<int*>(static_cast<char*>(partial_memory) + bytes),
                 k.red.acc_values(), k.red.acc_indices()};
  }
  launch(stream);
  check_cuda(cudaGetLastError(), "kernel launch");
  combine_chunks(space, k, batch);
  if (partial_memory != nullptr) {
    check_cuda(cudaFreeAsync(partial_memory, stream), "partial buffer release");
  }
}

/// Runs one call through the CUDA kernel on space's stream. Returns false, having run nothing,
/// when the per-thread buffers of run-time-sized state do not fit in shared memory.
template <class T, class Index, class Formula, class Red, bool OuterIsI, class PG, class IG,
          class JG, class OutputsT, class Sparsity>
bool launch_cuda(const Kokkos::Cuda& space, const GenredOptions& options, const Shape& shape,
                 const Formula& formula, const Red& red, int formula_dim, const PG& params,
                 const IG& ivars, const JG& jvars, const OutputsT& outputs,
                 const Sparsity& sparsity) {
  constexpr bool sparse = !std::is_same_v<Sparsity, NoSparsity>;
  using Kernel          = TiledReduceFor<Kokkos::Cuda, T, Formula, Red, OuterIsI, Index, sparse>;
  const auto kernel     = &tiled_reduce_cuda<Kernel>;

  Kernel k{formula, red, params, ivars, jvars, formula_dim};
  k.n_outer              = static_cast<int>(OuterIsI ? shape.m : shape.n);
  k.n_inner              = static_cast<int>(OuterIsI ? shape.n : shape.m);
  constexpr int block    = cuda_block_size<Kernel>();
  k.team_size            = block;
  k.out                  = output_access<T, Index>(outputs);
  k.thread_scratch_level = 0;

  const int device = space.cuda_device();
  int sms = 0, shared_max = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "multiprocessor count");
  check_cuda(cudaDeviceGetAttribute(&shared_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
             "shared memory limit");

  // Staged tile: as many inner rows as the block holds outer rows, within 16 KiB so that
  // several blocks share a multiprocessor; the user's tile_j if given.
  const int row_bytes     = k.inner_stride() * static_cast<int>(sizeof(T));
  k.tile_j                = options.tile_j > 0
                                ? options.tile_j
                                : std::max(32, std::min(k.tile_rows(), 16384 / std::max(row_bytes, 1)));
  CudaSharedLayout layout = cuda_shared_layout(k);
  while (k.tile_j > 1 && layout.total > static_cast<std::size_t>(shared_max)) {
    k.tile_j /= 2;
    layout = cuda_shared_layout(k);
  }
  if (layout.total > static_cast<std::size_t>(shared_max)) return false;
  if (layout.total > 48 * 1024) {
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(layout.total)),
               "raising the shared memory limit");
  }
  int blocks_per_sm = 0;
  check_cuda(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block, layout.total),
      "occupancy query");

  const std::size_t resident = static_cast<std::size_t>(std::max(blocks_per_sm, 1)) * sms;
  const std::size_t league   = schedule<Kokkos::Cuda>(options, shape, sparsity, resident, k);
  if (league == 0) return true;
  launch_on_stream(space, k, shape.batch, [&](cudaStream_t stream) {
    kernel<<<static_cast<unsigned>(league), block, layout.total, stream>>>(k, layout);
  });
  return true;
}

}  // namespace Impl
}  // namespace tessera

#endif  // TESSERA_ENABLE_CUDA_KERNELS
