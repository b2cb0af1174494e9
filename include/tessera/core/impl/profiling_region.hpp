// Kokkos Tools regions around the calls that launch several kernels (a pairwise pipeline, an MPI
// ring, a fused sequence of several groups, ...): a profiler or Kokkos' space-time stack shows
// the call as one named region tessera::<module>::<call> holding its kernels, as Kokkos Kernels
// and ArborX do for theirs.
#pragma once

#include <tessera/core/impl/errors.hpp>

#include <Kokkos_Core.hpp>

namespace tessera {
namespace Impl {

/// While alive, a Kokkos Tools region named by the concatenation of `name`'s parts (the string
/// is built only when a tool is loaded; Kokkos::Profiling::pushRegion at
/// construction, popRegion at destruction, on every path out of the call, exceptions included).
/// Costs one test of a function pointer when no tool is loaded.
class ProfilingRegion {
 public:
  template <class... Parts>
  explicit ProfilingRegion(const Parts&... name) {
    if (Kokkos::Tools::profileLibraryLoaded()) {
      active_ = true;
      Kokkos::Profiling::pushRegion(concat(name...));
    }
  }
  ~ProfilingRegion() {
    if (active_) Kokkos::Profiling::popRegion();
  }
  ProfilingRegion(const ProfilingRegion&)            = delete;
  ProfilingRegion& operator=(const ProfilingRegion&) = delete;

 private:
  bool active_ = false;
};

}  // namespace Impl
}  // namespace tessera
