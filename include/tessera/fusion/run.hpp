// Running a fused sequence: bind its symbols to Views, choose a plan, launch its kernels.
//
//   constexpr fusion::Vec<0> z;  constexpr fusion::Vec<1> w;  constexpr fusion::Vec<2> v;
//   constexpr fusion::Vec<3> u;  constexpr fusion::Scalar<4> r;
//   auto seq = fusion::sequence(fusion::assign(z, w - alpha * v),   // map:    z_i = w_i - a v_i
//                               fusion::assign(r, dot(z, u)));       // reduce: r = sum z_i u_i
//   fusion::run(space, seq, fusion::bind(z_view, w_view, v_view, u_view, r_view));
//
// The plan (plan.hpp) is the one the model prefers, the unfused one, or one given by its cuts.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/memory_overlap.hpp>
#include <tessera/core/tiling.hpp>
#include <tessera/fusion/impl/vector_kernel.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/step.hpp>
#include <tessera/fusion/tuner.hpp>
#include <tessera/core/version.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tessera {
namespace fusion {

/// The Views a sequence runs on: symbol K is the K-th View (Vec: rank 1, Scalar: rank 0).
template <class... Views>
struct Bindings {
  std::tuple<Views...> views;
};

/// Binds symbols 0, 1, ... to the given Views.
template <class... Views>
Bindings<Views...> bind(const Views&... views) {
  static_assert((Kokkos::is_view<Views>::value && ...), "tessera::fusion::bind takes Views");
  return {std::tuple<Views...>(views...)};
}

/// How run() chooses its plan (plan.hpp).
enum class PlanChoice {
  model,   ///< the valid plan that moves the fewest bytes, launches counted
  unfused  ///< every step its own kernel (the sequence of library calls)
};

/// Options of run().
struct FusionOptions {
  PlanChoice choice = PlanChoice::model;
  /// A plan given by its cuts (bit s: a kernel boundary after step s); overrides choice.
  std::optional<std::uint32_t> cuts;
  /// Threads per team and elements per thread; 0: Tuning<ExecSpace>'s.
  int team_size  = 0;
  int per_thread = 0;
  /// When set (and no cuts are given): the plan and launch shape the tuner found fastest for
  /// this sequence, value type, length and device, timing the candidates on the first call
  /// (tuner.hpp; that call waits on the host). The options' own shape is then ignored.
  Tuner* tuner = nullptr;
};

/// What run() did.
struct FusionReport {
  std::uint32_t cuts = 0;  ///< the plan (bit s: a kernel boundary after step s)
  int kernels        = 0;  ///< kernels launched
  double model_bytes = 0;  ///< the bytes the model counts for the plan, launches included
  int team_size      = 0;  ///< the launch shape run
  int per_thread     = 0;
};

namespace Impl {

using tessera::Impl::concat;
using tessera::Impl::memory_range;
using tessera::Impl::MemoryRange;
using tessera::Impl::require;
using tessera::Impl::require_equal;
using tessera::Impl::require_int_extent;

/// Calls f(integral_constant<int, K>, get<K>(t)) for every element K of a tuple.
template <class F, class Tuple, std::size_t... K>
void for_each_indexed(F&& f, const Tuple& t, std::index_sequence<K...>) {
  (f(std::integral_constant<int, int(K)>{}, std::get<K>(t)), ...);
}

/// The bound Views' data pointers (symbol K at K), for the kernels; const removed (only the
/// symbols a sequence writes, bound to non-const Views, are written through them).
template <class T, class... Views>
Kokkos::Array<T*, sizeof...(Views)> bound_pointers(const Views&... views) {
  return {const_cast<T*>(views.data())...};
}

/// Checks a sequence's bindings (before any kernel) and returns its length n.
template <class ExecSpace, class Seq, class... Views>
std::size_t check_bindings(const char* caller, const Bindings<Views...>& bound) {
  using Tr              = SequenceTraits<Seq>;
  constexpr int n_bound = int(sizeof...(Views));
  static_assert(((Tr::vectors | Tr::scalars) >> n_bound) == 0,
                "tessera::fusion: a symbol's number is not below the number of bound Views");
  static_assert((Tr::vectors & Tr::scalars) == 0,
                "tessera::fusion: a symbol is used both as Vec and as Scalar");
  std::size_t n = 0;
  bool have_n   = false;
  MemoryRange ranges[sizeof...(Views)];
  auto check = [&](auto index, const auto& view) {
    constexpr int K  = decltype(index)::value;
    using View       = std::decay_t<decltype(view)>;
    constexpr auto b = std::uint64_t(1) << K;
    static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                  "tessera::fusion: a bound View is not accessible from the execution space");
    static_assert((Tr::vectors & b) == 0 || View::rank == 1,
                  "tessera::fusion: a Vec symbol is bound to a rank-1 View");
    static_assert((Tr::scalars & b) == 0 || View::rank == 0,
                  "tessera::fusion: a Scalar symbol is bound to a rank-0 View");
    static_assert((Tr::written & b) == 0 || !std::is_const_v<typename View::value_type>,
                  "tessera::fusion: a symbol the sequence writes is bound to a const View");
    if constexpr ((Tr::vectors & b) != 0) {
      const std::string name = concat("vector ", K);
      if (!have_n) {
        n      = view.extent(0);
        have_n = true;
      }
      require_equal(caller, name, "extent", view.extent(0), n);
      require(view.extent(0) == 0 || view.span_is_contiguous(), caller,
              name + " is not contiguous");
    }
    if constexpr (((Tr::vectors | Tr::scalars) & b) != 0) {
      require(view.data() != nullptr || view.size() == 0, caller,
              concat("symbol ", K, " is bound to an unallocated View"));
      ranges[K] = memory_range(view);
    }
  };
  for_each_indexed(check, bound.views, std::index_sequence_for<Views...>{});
  // A written symbol shares memory with another only as the very same vector that the
  // sequence only reads (an in-place update, as z = w - alpha v with z and w one View): a
  // partial overlap would read elements that another element's step already wrote, and two
  // written symbols on one View would leave the value one of them keeps in registers stale.
  if constexpr (n_bound > 1) {
    for (int k = 0; k < n_bound; ++k) {
      if (!((Tr::written >> k) & 1u)) continue;
      for (int j = 0; j < n_bound; ++j) {
        if (j == k || !ranges[k].overlaps(ranges[j])) continue;
        const bool same_range =
            ranges[k].begin == ranges[j].begin && ranges[k].end == ranges[j].end;
        const bool vectors   = ((Tr::vectors >> k) & 1u) && ((Tr::vectors >> j) & 1u);
        const bool read_only = !((Tr::written >> j) & 1u);
        require(same_range && vectors && read_only, caller,
                concat("symbol ", k, " (written) shares memory with symbol ", j,
                       ", which is not the same vector, only read"));
      }
    }
  }
  return n;
}

/// The kernels of a run of `seq` over the bound Views (see GroupKernels).
template <class T, class ExecSpace, class Seq, class... Views>
auto group_kernels(const ExecSpace& space, const Seq& seq, const Bindings<Views...>& bound,
                   const Kokkos::Array<T*, sizeof...(Views)>& p, std::size_t n,
                   const VectorLaunch& shape, bool only_limit) {
  return GroupKernels<ExecSpace, T, std::decay_t<decltype(seq.steps)>, sizeof...(Views),
                      Bindings<Views...>>{space, seq.steps, p, bound, n, shape, only_limit};
}

/// The largest team size every kernel of plan `cuts` runs with on `space`.
template <class T, class ExecSpace, class Seq, class... Views>
int plan_team_size_max(const ExecSpace& space, const Seq& seq, const Bindings<Views...>& bound,
                       std::size_t n, std::uint32_t cuts) {
  const auto p = std::apply([](const auto&... v) { return bound_pointers<T>(v...); }, bound.views);
  auto kernels =
      group_kernels<T>(space, seq, bound, p, n, vector_launch_shape<ExecSpace>(n, 1, 1), true);
  for_each_group(Seq::size, cuts, [&](int a, int b) { visit_group<Seq::size>(a, b, kernels); });
  return kernels.team_size_max;
}

/// Launches the groups of plan `cuts` (checked) over n elements with launch shape `shape`;
/// returns the number of kernels.
template <class T, class ExecSpace, class Seq, class... Views>
int run_plan(const ExecSpace& space, const Seq& seq, const Bindings<Views...>& bound, std::size_t n,
             std::uint32_t cuts, const VectorLaunch& shape) {
  const auto p = std::apply([](const auto&... v) { return bound_pointers<T>(v...); }, bound.views);
  auto kernels = group_kernels<T>(space, seq, bound, p, n, shape, false);
  int count    = 0;
  for_each_group(Seq::size, cuts, [&](int a, int b) {
    visit_group<Seq::size>(a, b, kernels);
    ++count;
  });
  return count;
}

/// Whether a candidate is one the sequence allows on ExecSpace over n elements.
template <class ExecSpace, class Seq>
bool allowed(const Candidate& c, std::size_t n) {
  return (c.cuts & ~unfused_cuts<Seq>()) == 0 && plan_bytes<Seq>(c.cuts, 1, 1, 0) &&
         c.team_size >= 1 && c.team_size <= Tuning<ExecSpace>::fusion_max_team_size &&
         c.per_thread >= 1 &&
         vector_launch_shape<ExecSpace>(n, c.team_size, c.per_thread).league <=
             std::size_t(std::numeric_limits<int>::max());
}

/// The tuner's key of a sequence run: the sequence's type, value type, length, device and
/// Tessera version.
template <class T, class ExecSpace, class Seq>
std::string tuning_key(const ExecSpace& space, std::size_t n) {
  return concat(typeid(Seq).name(), "|", typeid(T).name(), "|n=", n, "|", ExecSpace::name(), ":",
                space.concurrency(), "|tessera ", tessera::version());
}

/// Times every candidate (valid plan x the backend's launch shapes) on scratch copies of the
/// bound Views and returns the fastest with its time (median of 3 runs after a warm-up).
template <class T, class ExecSpace, class Seq, class... Views>
std::pair<Candidate, double> time_candidates(const ExecSpace& space, const Seq& seq,
                                             const Bindings<Views...>& bound, std::size_t n) {
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
  std::pair<Candidate, double> best{{}, std::numeric_limits<double>::infinity()};
  for (std::uint32_t cuts : candidate_plans<Seq>()) {
    const int team_max = plan_team_size_max<T>(space, seq, bound, n, cuts);
    for (int team : Tuning<ExecSpace>::fusion_tune_team_sizes) {
      for (int per : Tuning<ExecSpace>::fusion_tune_per_thread) {
        const VectorLaunch shape = vector_launch_shape<ExecSpace>(n, team, per);
        if (shape.league > std::size_t(std::numeric_limits<int>::max()) || team > team_max) {
          continue;
        }
        double times[3];
        run_plan<T>(space, seq, scratch, n, cuts, shape);  // warm-up
        for (double& t : times) {
          space.fence();
          const auto start = std::chrono::steady_clock::now();
          run_plan<T>(space, seq, scratch, n, cuts, shape);
          space.fence();
          t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
        std::sort(times, times + 3);
        if (times[1] < best.second) best = {Candidate{cuts, team, per}, times[1]};
      }
    }
  }
  return best;
}

}  // namespace Impl

/// Runs `seq` on the bound Views: every step in order over the n elements of its vectors, in
/// the kernels of the chosen plan. Vectors: contiguous rank-1 Views of one length n; scalars:
/// rank-0 Views; one value type; all in memory `space` can access. Throws
/// std::invalid_argument (before any kernel) for mismatched extents, non-contiguous vectors,
/// written symbols overlapping others, invalid cuts or options. Asynchronous (nothing waits on
/// the host) unless a tuner times candidates. O(n x steps) work; memory: none besides the bound
/// Views (while tuning, a copy of them).
template <class ExecSpace, class... S, class... Views>
FusionReport run(const ExecSpace& space, const Sequence<S...>& seq, const Bindings<Views...>& bound,
                 const FusionOptions& options = {}) {
  using Seq = Sequence<S...>;
  using T = std::remove_const_t<typename std::tuple_element_t<0, std::tuple<Views...>>::value_type>;
  static_assert((std::is_same_v<std::remove_const_t<typename Views::value_type>, T> && ...),
                "tessera::fusion: every bound View holds the same value type");
  const char* caller  = "fusion::run";
  const std::size_t n = Impl::check_bindings<ExecSpace, Seq>(caller, bound);
  const int max_team  = Impl::Tuning<ExecSpace>::fusion_max_team_size;
  Impl::require(
      options.team_size >= 0 && options.team_size <= max_team, caller,
      Impl::concat("options.team_size is ", options.team_size, " (expected 0 to ", max_team, ")"));
  Impl::require(options.per_thread >= 0, caller,
                Impl::concat("options.per_thread is ", options.per_thread, " (expected >= 0)"));
  Impl::VectorLaunch shape =
      Impl::vector_launch_shape<ExecSpace>(n, options.team_size, options.per_thread);
  Impl::require_int_extent(caller, "the number of teams", shape.league);
  const double launch = Impl::Tuning<ExecSpace>::fusion_launch_bytes;

  FusionReport report;
  if (options.cuts) {
    Impl::require((*options.cuts & ~Impl::unfused_cuts<Seq>()) == 0, caller,
                  Impl::concat("options.cuts ", *options.cuts, " cuts after the last step"));
    Impl::require(bool(Impl::plan_bytes<Seq>(*options.cuts, 1, 1, 0)), caller,
                  Impl::concat("options.cuts ", *options.cuts,
                               " groups a reduction with a step that reads its result, or two "
                               "reductions"));
    report.cuts = *options.cuts;
  } else if (options.tuner) {
    const std::string key = Impl::tuning_key<T, ExecSpace, Seq>(space, n);
    auto found            = options.tuner->find(key);
    if (found &&
        (!Impl::allowed<ExecSpace, Seq>(*found, n) ||
         found->team_size > Impl::plan_team_size_max<T>(space, seq, bound, n, found->cuts))) {
      options.tuner->reject(key, "is not a plan and launch shape this sequence allows");
      found.reset();
    }
    if (!found) {
      const auto [best, seconds] = Impl::time_candidates<T>(space, seq, bound, n);
      if (!(seconds < std::numeric_limits<double>::infinity())) {
        throw std::length_error(Impl::concat("tessera::", caller, ": no launch shape the tuner ",
                                             "times keeps ", n, " elements within 2^31 - 1 teams"));
      }
      options.tuner->remember(key, best, seconds);
      found = best;
    }
    report.cuts = found->cuts;
    shape       = Impl::vector_launch_shape<ExecSpace>(n, found->team_size, found->per_thread);
  } else if (options.choice == PlanChoice::unfused) {
    report.cuts = Impl::unfused_cuts<Seq>();
  } else {
    double best = std::numeric_limits<double>::infinity();
    for (std::uint32_t cuts : candidate_plans<Seq>()) {
      const double bytes = *Impl::plan_bytes<Seq>(cuts, n, sizeof(T), launch);
      if (bytes < best) {
        best        = bytes;
        report.cuts = cuts;
      }
    }
  }
  const int team_max = Impl::plan_team_size_max<T>(space, seq, bound, n, report.cuts);
  Impl::require(shape.team_size <= team_max, caller,
                Impl::concat("team size ", shape.team_size, " exceeds the ", team_max,
                             " threads the plan's kernels can run with on this device"));
  report.model_bytes = *Impl::plan_bytes<Seq>(report.cuts, n, sizeof(T), launch);
  report.team_size   = shape.team_size;
  report.per_thread  = shape.per_thread;
  report.kernels     = Impl::run_plan<T>(space, seq, bound, n, report.cuts, shape);
  return report;
}

/// run() on the default execution space.
template <class... S, class... Views>
FusionReport run(const Sequence<S...>& seq, const Bindings<Views...>& bound,
                 const FusionOptions& options = {}) {
  return run(Kokkos::DefaultExecutionSpace{}, seq, bound, options);
}

}  // namespace fusion
}  // namespace tessera
