// Which kernel runs a validated Genred call (the dispatch layer, as Kokkos Kernels' *_spec.hpp
// and CUB's dispatch layer).
//
// dispatch() instantiates the call's reducer (reduction, scalar type, formula dimension and
// summation: with_reducer) and its direction (over j or over i), then launch() offers the call to
// the backend's hand-written kernels, GenredBackend<ExecSpace>, and runs the portable TeamPolicy
// kernel (portable_launch.hpp) when they decline it or options.implementation asks for it.
//
// GenredBackend<ExecSpace> is a trait: the primary template below has no kernels; a backend
// with hand-written kernels specialises it in a file of its own under impl/<backend>/, included
// at the end of this file (impl/host/ for every host execution space; impl/cuda/, for
// Kokkos::Cuda, under its configuration macro). A HIP or SYCL backend is one new file and one
// include line.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/genred/impl/distance_rule.hpp>
#include <tessera/genred/impl/genred_call.hpp>
#include <tessera/genred/impl/portable_launch.hpp>
#include <tessera/genred/impl/reducers.hpp>
#include <tessera/genred/options.hpp>

#include <type_traits>

namespace tessera {
namespace Impl {

/// The hand-written kernels of the backend of ExecSpace. Specialisations provide
///   static constexpr Implementation implementation;  // the option that forces them
///   template <bool OuterIsI, class Call, class Red>
///   static bool launch(const ExecSpace&, const Call&, const Red&);
/// which runs the call and returns true, or returns false, having run nothing, when its kernels
/// cannot take the call (the portable kernel then runs it). Enable: for specialisations that
/// cover a family of execution spaces (std::enable_if_t on a trait).
template <class ExecSpace, class Enable = void>
struct GenredBackend {
  static constexpr Implementation implementation = Implementation::portable;  // no kernels
  template <bool OuterIsI, class Call, class Red>
  static bool launch(const ExecSpace&, const Call&, const Red&) {
    return false;
  }
};

/// Runs the call with reducer `red` over j (OuterIsI) or over i: the backend's kernels unless
/// options.implementation is portable, else (or if they decline) the portable kernel. A radial
/// kernel with Distance::automatic reaches each kernel with the evaluation of that kernel's rule
/// (distance_rule.hpp: DistanceRule for the backend's, PortableDistanceRule for the portable one).
template <bool OuterIsI, class ExecSpace, class Call, class Red>
void launch(const ExecSpace& space, const Call& call, const Red& red) {
  if (call.template n_outer<OuterIsI>() == 0 || call.shape.batch == 0) return;
  const Implementation implementation = call.options.implementation;
  if (implementation != Implementation::portable &&
      GenredBackend<ExecSpace>::template launch<OuterIsI>(
          space, with_resolved_distance<DistanceRule<ExecSpace>, OuterIsI, Red>(call), red)) {
    return;
  }
  require(implementation != Implementation::cuda, "genred",
          "Implementation::cuda: the CUDA kernels take calls whose Views all hold the compute "
          "type and whose per-thread buffers of run-time sizes fit in shared memory "
          "(Implementation::automatic falls back to the portable kernel)");
  require(implementation != Implementation::host, "genred",
          "Implementation::host: the host kernel takes calls of the 1D scheme (dense or "
          "block-sparse) whose formula has compile-time dimensions (Implementation::automatic "
          "falls back to the portable kernel)");
  launch_portable<OuterIsI>(
      space, with_resolved_distance<PortableDistanceRule<ExecSpace>, OuterIsI, Red>(call), red);
}

/// Calls f(red) with the reducer of `reduction` for the call: its summation variant (options.
/// summation, for the reductions that sum) and the formula's compile-time output dimension.
template <class Call, class Reduction, class F>
void with_reducer(const Call& call, const Reduction& reduction, F&& f) {
  using T             = typename Call::scalar_type;
  constexpr int FD    = Call::formula_type::out_dim;
  const auto run_with = [&](auto summation_tag) {
    constexpr Summation S = decltype(summation_tag)::value;
    f(make_reducer<Reduction, T, FD, S>(reduction, call.formula_dim));
  };
  using Direct = std::integral_constant<Summation, Summation::direct>;
  using Block  = std::integral_constant<Summation, Summation::block_sum>;
  using Kahan  = std::integral_constant<Summation, Summation::kahan>;
  if constexpr (uses_summation<Reduction>) {
    switch (call.options.summation) {
      case Summation::direct:
        run_with(Direct{});
        break;
      case Summation::kahan:
        run_with(Kahan{});
        break;
      default:
        run_with(Block{});
        break;
    }
  } else {
    run_with(Block{});  // the summation option does not change min/max arithmetic
  }
}

/// Runs the call with reducer `red` in the direction of options.axis.
template <class ExecSpace, class Call, class Red>
void launch_along_axis(const ExecSpace& space, const Call& call, const Red& red) {
  if (call.options.axis == Axis::j) {
    launch<true>(space, call, red);
  } else {
    launch<false>(space, call, red);
  }
}

/// Runs a validated call: its reducer (with_reducer) in the direction of options.axis, inside
/// the Kokkos Tools region tessera::genred (the 2D scheme and the selections launch several
/// kernels).
template <class ExecSpace, class Call, class Reduction>
void dispatch(const ExecSpace& space, const Call& call, const Reduction& reduction) {
  const ProfilingRegion region("tessera::genred");
  with_reducer(call, reduction, [&](const auto& red) { launch_along_axis(space, call, red); });
}

}  // namespace Impl
}  // namespace tessera

// ---- backends with hand-written kernels (each specialises GenredBackend in its own file)
#include <tessera/genred/impl/host/host_backend.hpp>
#if defined(TESSERA_ENABLE_CUDA_KERNELS)
#include <tessera/genred/impl/cuda/cuda_backend.hpp>
#include <tessera/genred/impl/cuda/cuda_distance_rule.hpp>
#endif
