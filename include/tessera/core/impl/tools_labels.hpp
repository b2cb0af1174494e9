// Kokkos Tools names for the kernels Tessera launches without Kokkos' parallel dispatch (the
// hand-written CUDA kernels): a tool (a profiler, Kokkos' kernel logger) sees them as
// parallel_for regions named tessera::<module>::<kernel>, as it sees the TeamPolicy kernels.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace tessera {
namespace Impl {

/// While alive, reports the kernel `name` launched on `space` to the Kokkos Tools callbacks as a
/// parallel_for: begun at construction, ended at destruction, after the asynchronous launch
/// (as Kokkos' own dispatch reports it). Does nothing when no tool is loaded.
class ToolsKernelScope {
 public:
  template <class ExecSpace>
  ToolsKernelScope(const ExecSpace& space, const std::string& name) {
    if (Kokkos::Tools::profileLibraryLoaded()) {
      active_ = true;
      Kokkos::Tools::beginParallelFor(name, Kokkos::Tools::Experimental::device_id(space), &id_);
    }
  }
  ~ToolsKernelScope() {
    if (active_) Kokkos::Tools::endParallelFor(id_);
  }
  ToolsKernelScope(const ToolsKernelScope&)            = delete;
  ToolsKernelScope& operator=(const ToolsKernelScope&) = delete;

 private:
  bool active_      = false;
  std::uint64_t id_ = 0;
};

}  // namespace Impl
}  // namespace tessera
