// What the pairwise engine asks of a backend beyond portable Kokkos: how much device memory is
// free (for an automatic budget), how to make one instance's queue wait for another's without
// blocking the host, and how long the work queued on an instance took.
//
// PairwiseBackend<ExecSpace> is a trait: the primary template answers for host backends (their
// kernels run synchronously, so host clocks around fences time them) and, conservatively, for
// device backends without a specialisation (no memory figure: the default budget; waits between
// instances by fencing the earlier one; no timings: fencing would serialise the pipeline). A
// backend specialises it in a file of its own under impl/<backend>/, included at the end of this
// file (today impl/cuda/, for Kokkos::Cuda).
#pragma once

#include <tessera/core/impl/tiling.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstddef>
#include <optional>

namespace tessera {
namespace Impl {

template <class ExecSpace>
struct PairwiseBackend {
  /// Free bytes of the memory the space's kernels use, where the backend can tell.
  static std::optional<std::size_t> free_memory_bytes(const ExecSpace&) { return std::nullopt; }

  /// Work queued on `later` from now on starts after the work queued so far on `earlier`. Here by
  /// waiting on the host for `earlier`.
  static void wait_for(const ExecSpace& /*later*/, const ExecSpace& earlier) { earlier.fence(); }

  /// Times the work queued on one instance between start() and stop(), summed over intervals.
  class Timer {
   public:
    static constexpr bool measures = !is_device_space<ExecSpace>;
    explicit Timer(const ExecSpace& space) : space_(space) {}
    void start() {
      if constexpr (measures) {
        space_.fence();
        begin_ = std::chrono::steady_clock::now();
      }
    }
    void stop() {
      if constexpr (measures) {
        space_.fence();
        seconds_ +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count();
      }
    }
    /// Total seconds of all intervals; call after the instance's work has completed.
    double seconds() { return seconds_; }

   private:
    ExecSpace space_;
    std::chrono::steady_clock::time_point begin_{};
    double seconds_ = 0;
  };
};

}  // namespace Impl
}  // namespace tessera

// ---- backends that tell more (each specialises PairwiseBackend in its own file)
#if defined(KOKKOS_ENABLE_CUDA)
#include <tessera/pairwise/impl/cuda/cuda_backend.hpp>
#endif
