// The hand-written CUDA kernel of the Genred schemes (1D, 2D and block-sparse): the SIMT path
// of GenredBackend<Kokkos::Cuda> (cuda_backend.hpp).
//
// It runs the same kernel body as the portable path (TiledReduce::run: the same formulas,
// reductions, dimensions, scalar types and batches, several outer rows per thread) as a plain
// __global__ function, with what a TeamPolicy launch cannot express:
//  - a compile-time block size with __launch_bounds__, so that the compiler budgets registers
//    for the occupancy it targets (CudaTuning);
//  - staged rows padded to 16 bytes and read as one vector per 16 bytes: every thread of a warp
//    reads the same row, a broadcast free of bank conflicts;
//  - tile sizes and the 2D chunk count from the device's multiprocessor count and the kernel's
//    occupancy (both cached, launch_cache.hpp), so that the 2D partial buffer is sized to the
//    grid that fills the device;
//  - a launch on the execution space instance's stream, with no synchronisation.
// Sizes known only at run time (dynamic_extent dimensions, k of the KMin family) put their
// per-thread buffers in dynamic shared memory; when those do not fit, the call falls back to
// the portable kernel (which can use level-1 scratch).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/core/impl/tools_labels.hpp>
#include <tessera/genred/impl/combine_partials.hpp>
#include <tessera/genred/impl/cuda/launch_cache.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/impl/tiled_reduce.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

namespace tessera {
namespace Impl {

/// A one-dimensional CUDA thread block seen as a team.
struct CudaBlock {
  __device__ int team_rank() const { return static_cast<int>(threadIdx.x); }
  __device__ int team_size() const { return static_cast<int>(blockDim.x); }
  __device__ void team_barrier() const { __syncthreads(); }
};

/// True for kernels whose outer rows and accumulators take at most
/// CudaTuning::genred_light_row_registers registers per thread.
template <class Kernel>
constexpr bool cuda_light_kernel() {
  return Kernel::R * row_registers<typename Kernel::scalar_type, Kernel>() <=
         CudaTuning::genred_light_row_registers;
}
/// Threads per block (CudaTuning): the light block for light dense kernels.
template <class Kernel>
constexpr int cuda_block_size() {
  return cuda_light_kernel<Kernel>() && !Kernel::is_sparse ? CudaTuning::genred_light_block
                                                           : CudaTuning::genred_block;
}
/// Blocks per multiprocessor that the register budget must allow (__launch_bounds__).
template <class Kernel>
constexpr int cuda_min_blocks() {
  return (cuda_light_kernel<Kernel>() ? CudaTuning::genred_light_resident_threads
                                      : CudaTuning::genred_resident_threads) /
         cuda_block_size<Kernel>();
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

/// Launches a scheduled kernel on space's stream (`launch(stream)`), then the 2D combine kernel
/// when it runs several chunks. The 2D partial buffer comes from the stream-ordered allocator
/// (cudaMallocAsync), whose pool makes repeated calls cheap, and is released on the stream after
/// the combine kernel.
template <class Kernel, class Launch>
void launch_on_stream(const Kokkos::Cuda& space, const char* label, Kernel& k, std::size_t batch,
                      const Launch& launch) {
  using T                   = typename Kernel::scalar_type;
  const cudaStream_t stream = space.cuda_stream();
  void* partial_memory      = nullptr;
  if (k.chunks > 1) {
    const auto extents      = partial_extents(k, batch);
    const std::size_t bytes = (extents.values * sizeof(T) + 255) / 256 * 256;
    check_cuda(cudaMallocAsync(&partial_memory, bytes + extents.indices * sizeof(int), stream),
               "partial buffer allocation");
    k.partial = {static_cast<T*>(partial_memory),
                 reinterpret_cast<int*>(static_cast<char*>(partial_memory) + bytes),
                 k.red.acc_values(), k.red.acc_indices()};
  }
  {
    const ToolsKernelScope scope(space, label);
    launch(stream);
  }
  check_cuda(cudaGetLastError(), "kernel launch");
  combine_chunks(space, k, batch);
  if (partial_memory != nullptr) {
    check_cuda(cudaFreeAsync(partial_memory, stream), "partial buffer release");
  }
}

/// Runs one call through the CUDA kernel with reducer `red` on space's stream. Returns false,
/// having run nothing, when the per-thread buffers of run-time-sized state do not fit in shared
/// memory.
template <bool OuterIsI, class Call, class Red>
bool launch_tiled_reduce_cuda(const Kokkos::Cuda& space, const Call& call, const Red& red) {
  using T      = typename Call::scalar_type;
  using Index  = typename Call::index_type;
  using Kernel = TiledReduceFor<Kokkos::Cuda, T, typename Call::formula_type, Red, OuterIsI, Index,
                                Call::sparse>;
  const auto kernel = &tiled_reduce_cuda<Kernel>;

  Kernel k{call.formula, red, call.params, call.ivars, call.jvars, call.formula_dim};
  k.n_outer                    = call.template n_outer<OuterIsI>();
  k.n_inner                    = call.template n_inner<OuterIsI>();
  constexpr int block          = cuda_block_size<Kernel>();
  k.team_size                  = block;
  k.out                        = output_access<T, Index>(call.outputs);
  k.thread_scratch_level       = 0;
  const CudaDeviceFacts device = cuda_device_facts(space);

  // Staged tile: as many inner rows as the block holds outer rows, within the tuning's bytes
  // and at least its minimum of rows; the user's tile_j if given.
  const int row_bytes     = k.inner_stride() * static_cast<int>(sizeof(T));
  k.tile_j                = call.options.tile_j > 0
                                ? call.options.tile_j
                                : std::max(CudaTuning::genred_min_tile_rows,
                                           std::min(k.tile_rows(),
                                                    CudaTuning::genred_tile_bytes / std::max(row_bytes, 1)));
  CudaSharedLayout layout = cuda_shared_layout(k);
  while (k.tile_j > 1 && layout.total > device.shared_max) {
    k.tile_j /= 2;
    layout = cuda_shared_layout(k);
  }
  if (layout.total > device.shared_max) return false;
  const int blocks_per_sm = cuda_blocks_per_multiprocessor(space, kernel, block, layout.total);

  const std::size_t resident = static_cast<std::size_t>(blocks_per_sm) * device.multiprocessors;
  const std::size_t league =
      schedule<Kokkos::Cuda>(call.options, call.shape, call.sparsity, resident, k);
  if (league == 0) return true;
  const char* label = tiled_reduce_label(Call::sparse, k.chunks > 1, true);
  launch_on_stream(space, label, k, call.shape.batch, [&](cudaStream_t stream) {
    kernel<<<static_cast<unsigned>(league), block, layout.total, stream>>>(k, layout);
  });
  return true;
}

}  // namespace Impl
}  // namespace tessera
