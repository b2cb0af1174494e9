// GenredBackend for the host execution spaces (Serial, OpenMP, Threads: every space whose memory
// is Kokkos::HostSpace): the vectorised host kernel (host_tiled_reduce.hpp), chosen by the
// dispatch layer (dispatch.hpp) unless options.implementation is portable. It declines the
// calls it does not take, which the portable kernel then runs.
#pragma once

#include <tessera/genred/impl/dispatch.hpp>
#include <tessera/genred/impl/host/host_tiled_reduce.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

template <class ExecSpace>
struct GenredBackend<
    ExecSpace,
    std::enable_if_t<std::is_same_v<typename ExecSpace::memory_space, Kokkos::HostSpace>>> {
  static constexpr Implementation implementation = Implementation::host;

  /// Runs the call and returns true, or returns false, having run nothing, when the host kernel
  /// does not take it (see launch_host).
  template <bool OuterIsI, class Call, class Red>
  static bool launch(const ExecSpace& space, const Call& call, const Red& red) {
    return launch_host<OuterIsI>(space, call, red);
  }
};

}  // namespace Impl
}  // namespace tessera
