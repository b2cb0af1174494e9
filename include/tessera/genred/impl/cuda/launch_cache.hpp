// What the CUDA launches of Genred need to know of a device and a kernel, asked of the CUDA
// runtime once and remembered: a call then costs no attribute or occupancy query.
//
// The device's properties come from Kokkos (Kokkos::Cuda::cuda_device_prop(), read once by
// Kokkos per device). The occupancy of a kernel (resident blocks per multiprocessor for a block
// size and dynamic shared memory) and the raised shared-memory limit of kernels that need more
// than 48 KiB are cached per (kernel, device, block size, shared bytes) in a process-wide table
// guarded by a mutex: facts of the hardware and of the compiled kernels, the same for every
// caller, so sharing them changes no result.
#pragma once

#include <tessera/core/impl/errors.hpp>

#include <Kokkos_Core.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace tessera {
namespace Impl {

inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(
        concat("tessera::genred (CUDA kernel): ", what, ": ", cudaGetErrorString(status)));
  }
}

/// The facts of space's device that the launches use.
struct CudaDeviceFacts {
  int compute_major;       ///< compute capability, major number
  int multiprocessors;     ///< multiprocessor count
  std::size_t shared_max;  ///< dynamic shared memory a block may opt in to, in bytes
};

inline CudaDeviceFacts cuda_device_facts(const Kokkos::Cuda& space) {
  const cudaDeviceProp& prop = space.cuda_device_prop();
  return {prop.major, prop.multiProcessorCount, prop.sharedMemPerBlockOptin};
}

/// Resident blocks per multiprocessor of `kernel` launched with `block` threads and `shared`
/// bytes of dynamic shared memory on space's device (at least 1). Raises the kernel's
/// shared-memory limit first when `shared` exceeds 48 KiB and the largest limit set so far on
/// that device (a limit is only ever raised, so that a remembered launch stays valid). Each
/// query is made once per (kernel, device, block, shared) and remembered.
template <class... Args>
int cuda_blocks_per_multiprocessor(const Kokkos::Cuda& space, void (*kernel)(Args...), int block,
                                   std::size_t shared) {
  using KernelOnDevice = std::pair<const void*, int>;
  using Key            = std::tuple<const void*, int, int, std::size_t>;
  static std::mutex mutex;
  static std::map<KernelOnDevice, std::size_t> raised;  // shared-memory limit set so far
  static std::map<Key, int> known;                      // occupancy
  const auto* id   = reinterpret_cast<const void*>(kernel);
  const int device = space.cuda_device();
  const std::lock_guard<std::mutex> lock(mutex);
  std::size_t& limit = raised[KernelOnDevice{id, device}];
  if (shared > 48 * 1024 && shared > limit) {
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared)),
               "raising the shared memory limit");
    limit = shared;
  }
  const Key key{id, device, block, shared};
  const auto found = known.find(key);
  if (found != known.end()) return found->second;
  int blocks = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, shared),
             "occupancy query");
  blocks = blocks > 1 ? blocks : 1;
  known.emplace(key, blocks);
  return blocks;
}

/// Blocks of `kernel` (`block` threads, `shared` bytes of dynamic shared memory) resident on
/// space's whole device at once: cuda_blocks_per_multiprocessor times its multiprocessors.
template <class... Args>
std::size_t cuda_resident_blocks(const Kokkos::Cuda& space, void (*kernel)(Args...), int block,
                                 std::size_t shared) {
  return static_cast<std::size_t>(cuda_blocks_per_multiprocessor(space, kernel, block, shared)) *
         static_cast<std::size_t>(cuda_device_facts(space).multiprocessors);
}

}  // namespace Impl
}  // namespace tessera
