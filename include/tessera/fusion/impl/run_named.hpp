// The body of fusion::run (run.hpp), with the caller's name and argument names in its messages:
// the checks of the options, the choice of the plan and launch shape, the launch.
#pragma once

#include <tessera/core/impl/call_memory.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/bindings.hpp>
#include <tessera/fusion/impl/check_bindings.hpp>
#include <tessera/fusion/impl/plan_model.hpp>
#include <tessera/fusion/impl/sequence_run.hpp>
#include <tessera/fusion/impl/tuner_candidates.hpp>
#include <tessera/fusion/options.hpp>
#include <tessera/fusion/report.hpp>
#include <tessera/fusion/step.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::concat;
using tessera::Impl::require;
using tessera::Impl::require_int_extent;

/// run() with the caller's name and argument names (one per bound View, or nullptr) in its
/// messages: the ready functions' way to name their own arguments.
template <class ExecSpace, class... S, class... Views>
FusionReport run_named(const char* caller, const char* const* names, const ExecSpace& space,
                       const Sequence<S...>& seq, const Bindings<Views...>& bound,
                       const FusionOptions& options) {
  using Seq = Sequence<S...>;
  using T = std::remove_const_t<typename std::tuple_element_t<0, std::tuple<Views...>>::value_type>;
  static_assert((std::is_same_v<std::remove_const_t<typename Views::value_type>, T> && ...),
                "tessera::fusion: every bound View holds the same value type");
  const Impl::SequenceExtents ext = Impl::check_bindings<ExecSpace, Seq>(caller, names, bound);
  const auto run                  = Impl::make_run<T>(space, seq, bound, ext, options.workspace);
  const int max_team              = Impl::Tuning<ExecSpace>::fusion_max_team_size;
  Impl::require(options.team_size >= 0 && options.team_size <= max_team, caller,
                "options.team_size is ", options.team_size, " (expected 0 to ", max_team, ")");
  Impl::require(run.per_thread_ok(options.per_thread), caller, "options.per_thread is ",
                options.per_thread, " (expected ", run.shape_rule(), ")");
  Impl::LaunchShape shape = run.shape(options.team_size, options.per_thread);
  Impl::require_int_extent(caller, "the number of teams", shape.league);
  // A step alone is invalid only when its teams sweep whole lines and it sums along them into a
  // vector it reads at the swept index (y = A y with rows owned): other teams write that vector
  // while it is read. As tiles, every step is valid (and a tuner times tile shapes too).
  Impl::require(
      (options.tuner && !options.cuts) || run.valid(Impl::unfused_cuts<Seq>(), shape.per_thread),
      caller, "the sequence has no valid plan with ", shape.per_thread,
      " lines per team: a row_sum or col_sum step sums within a team's lines into a vector that "
      "a step reads at the swept index (by_col with LayoutRight matrices, by_row with "
      "LayoutLeft), which other teams write meanwhile; run it as tiles (options.per_thread at "
      "least fusion::tile_lines)");
  const double launch = Impl::Tuning<ExecSpace>::fusion_launch_bytes;

  FusionReport report;
  if (options.cuts) {
    Impl::require((*options.cuts & ~Impl::unfused_cuts<Seq>()) == 0, caller, "options.cuts ",
                  *options.cuts, " cuts after the last step");
    Impl::require(run.valid(*options.cuts, shape.per_thread), caller, "options.cuts ",
                  *options.cuts, " groups steps the fusion rules keep apart (plan.hpp)");
    report.cuts = *options.cuts;
  } else if (options.tuner && !tessera::Impl::measures_only(options.workspace)) {
    const std::string key = Impl::tuning_key<T, ExecSpace, Seq>(space, run);
    auto found            = options.tuner->find(key);
    if (found && (!Impl::allowed<ExecSpace, Seq>(run, *found) ||
                  found->team_size > run.team_size_max(found->cuts, found->per_thread))) {
      options.tuner->reject(key, "is not a plan and launch shape this sequence allows");
      found.reset();
    }
    if (!found) {
      const auto [best, seconds] =
          Impl::time_candidates<T>(space, seq, bound, ext, options.workspace);
      if (!(seconds < std::numeric_limits<double>::infinity())) {
        throw std::length_error(Impl::concat("tessera::", caller, ": no launch shape the tuner ",
                                             "times keeps ", run.key(), " within 2^31 - 1 teams"));
      }
      options.tuner->remember(key, best, seconds);
      found = best;
    }
    report.cuts = found->cuts;
    shape       = run.shape(found->team_size, found->per_thread);
  } else if (options.choice == PlanChoice::unfused) {
    report.cuts = Impl::unfused_cuts<Seq>();
  } else {
    double best = std::numeric_limits<double>::infinity();
    for (std::uint32_t cuts = 0; cuts <= Impl::unfused_cuts<Seq>(); ++cuts) {
      if (!run.valid(cuts, shape.per_thread)) continue;
      const double bytes = run.bytes(cuts, shape.per_thread, launch);
      if (bytes < best) {
        best        = bytes;
        report.cuts = cuts;
      }
    }
  }
  const int team_max = run.team_size_max(report.cuts, shape.per_thread);
  if (options.team_size == 0 && !options.tuner && shape.team_size > team_max) {
    const bool automatic = shape.automatic;
    shape = run.shape(team_max, shape.per_thread);  // the backend's default, where it fits
    shape.automatic = automatic;
  }
  Impl::require(shape.team_size <= team_max, caller, "team size ", shape.team_size, " exceeds the ",
                team_max, " threads the plan's kernels can run with on this device");
  report.model_bytes = run.bytes(report.cuts, shape.per_thread, launch);
  report.team_size   = shape.team_size;
  report.per_thread  = shape.per_thread;
  if (tessera::Impl::measures_only(options.workspace)) {  // the groups record, launch nothing
    if constexpr (Seq::matrix) run.launch(report.cuts, shape);
    return report;
  }
  // Several groups are several kernels: a Kokkos Tools region holds them.
  std::optional<tessera::Impl::ProfilingRegion> region;
  if (report.cuts != 0) region.emplace("tessera::", caller);
  report.kernels = run.launch(report.cuts, shape);
  return report;
}

}  // namespace Impl

}  // namespace fusion
}  // namespace tessera
