// PairwiseBackend<Kokkos::Cuda>: free device memory from cudaMemGetInfo, waits between instances
// as stream waits on CUDA events (the host goes on), and timings from CUDA events recorded on the
// instance's stream (they do not wait, so the pipeline keeps its overlap).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/pairwise/impl/backend.hpp>

#include <Kokkos_Core.hpp>

#include <cuda_runtime.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tessera {
namespace Impl {

template <>
struct PairwiseBackend<Kokkos::Cuda> {
  static std::optional<std::size_t> free_memory_bytes(const Kokkos::Cuda&) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess) return std::nullopt;
    return free;
  }

  static void wait_for(const Kokkos::Cuda& later, const Kokkos::Cuda& earlier) {
    cudaEvent_t event;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    const cudaError_t recorded = cudaEventRecord(event, earlier.cuda_stream());
    const cudaError_t waited =
        recorded == cudaSuccess ? cudaStreamWaitEvent(later.cuda_stream(), event, 0) : recorded;
    cudaEventDestroy(event);  // released once the wait is done
    check(recorded, "cudaEventRecord");
    check(waited, "cudaStreamWaitEvent");
  }

  class Timer {
   public:
    static constexpr bool measures = true;
    explicit Timer(const Kokkos::Cuda& space) : stream_(space.cuda_stream()) {}
    Timer(const Timer&)            = delete;
    Timer& operator=(const Timer&) = delete;
    ~Timer() {
      for (auto& e : events_) {
        cudaEventDestroy(e.first);
        cudaEventDestroy(e.second);
      }
    }
    void start() {
      events_.emplace_back();
      cudaEventCreate(&events_.back().first);
      cudaEventCreate(&events_.back().second);
      cudaEventRecord(events_.back().first, stream_);
    }
    void stop() { cudaEventRecord(events_.back().second, stream_); }
    double seconds() {
      double total = 0;
      for (auto& e : events_) {
        float ms = 0;
        if (cudaEventSynchronize(e.second) == cudaSuccess &&
            cudaEventElapsedTime(&ms, e.first, e.second) == cudaSuccess) {
          total += 1e-3 * ms;
        }
      }
      return total;
    }

   private:
    cudaStream_t stream_;
    std::vector<std::pair<cudaEvent_t, cudaEvent_t>> events_;
  };

 private:
  static void check(cudaError_t error, const char* call) {
    if (error != cudaSuccess) {
      throw std::runtime_error(
          concat("tessera::pairwise: ", call, " failed: ", cudaGetErrorString(error)));
    }
  }
};

}  // namespace Impl
}  // namespace tessera
