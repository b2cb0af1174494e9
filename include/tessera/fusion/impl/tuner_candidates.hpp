// What the tuner (tuner.hpp) times for a sequence run: the candidates (plans x launch shapes),
// the key it remembers the fastest by, and their timing.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/core/version.hpp>
#include <tessera/fusion/bindings.hpp>
#include <tessera/fusion/impl/check_bindings.hpp>
#include <tessera/fusion/impl/plan_model.hpp>
#include <tessera/fusion/impl/sequence_run.hpp>
#include <tessera/fusion/tuner.hpp>
#include <tessera/core/workspace.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::concat;

/// Whether a candidate is one the run allows: a valid plan, a team size within the backend's
/// limit and a launch shape whose teams fit in an int.
template <class ExecSpace, class Seq, class Run>
bool allowed(const Run& run, const Candidate& c) {
  return (c.cuts & ~unfused_cuts<Seq>()) == 0 && run.valid(c.cuts, c.per_thread) &&
         c.team_size >= 1 && c.team_size <= Tuning<ExecSpace>::fusion_max_team_size &&
         c.per_thread >= 1 && run.per_thread_ok(c.per_thread) &&
         run.shape(c.team_size, c.per_thread).league <=
             std::size_t(std::numeric_limits<int>::max());
}

/// The tuner's key of a sequence run: the sequence's type, value type, extents, device and
/// Tessera version.
template <class T, class ExecSpace, class Seq, class Run>
std::string tuning_key(const ExecSpace& space, const Run& run) {
  return concat(typeid(Seq).name(), "|", typeid(T).name(), "|", run.key(), "|", ExecSpace::name(),
                ":", space.concurrency(), "|tessera ", tessera::version());
}

/// The candidates the tuner times for a run: every valid plan with every launch shape of the
/// backend's tuning lists that the plan's kernels run with and whose teams fit in an int.
template <class ExecSpace, class Seq, class Run>
std::vector<Candidate> candidates(const Run& run) {
  std::vector<Candidate> list;
  for (std::uint32_t cuts = 0; cuts <= unfused_cuts<Seq>(); ++cuts) {
    for (int per : run.tune_per_thread()) {
      if (!run.valid(cuts, per)) continue;
      const int team_max = run.team_size_max(cuts, per);
      for (int team : run.tune_team_sizes()) {
        if (team <= team_max &&
            run.shape(team, per).league <= std::size_t(std::numeric_limits<int>::max())) {
          list.push_back(Candidate{cuts, team, per});
        }
      }
    }
  }
  return list;
}

/// Times every candidate (valid plan x the backend's launch shapes) on scratch copies of the
/// bound Views and returns the fastest with its time (median of 3 runs after a warm-up).
template <class T, class ExecSpace, class Seq, class... Views>
std::pair<Candidate, double> time_candidates(const ExecSpace& space, const Seq& seq,
                                             const Bindings<Views...>& bound,
                                             const SequenceExtents& ext,
                                             tessera::Workspace* workspace) {
  const auto scratch = std::apply(
      [&](const auto&... v) {
        return bind(
            Kokkos::create_mirror(typename std::decay_t<decltype(v)>::memory_space{}, v)...);
      },
      bound.views);
  std::apply(
      [&](const auto&... copy) {
        std::apply([&](const auto&... v) { (Kokkos::deep_copy(space, copy, v), ...); },
                   bound.views);
      },
      scratch.views);
  const auto run = make_run<T>(space, seq, scratch, ext, workspace);
  std::pair<Candidate, double> best{{}, std::numeric_limits<double>::infinity()};
  for (const Candidate& c : candidates<ExecSpace, Seq>(run)) {
    const LaunchShape shape = run.shape(c.team_size, c.per_thread);
    double times[3];
    run.launch(c.cuts, shape);  // warm-up
    for (double& t : times) {
      space.fence();
      const auto start = std::chrono::steady_clock::now();
      run.launch(c.cuts, shape);
      space.fence();
      t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    std::sort(times, times + 3);
    if (times[1] < best.second) best = {c, times[1]};
  }
  return best;
}

}  // namespace Impl

}  // namespace fusion
}  // namespace tessera
