// The kernel of a group of steps over vectors (plan.hpp): a TeamPolicy launch whose team takes
// team_size x per_thread consecutive elements, each thread per_thread of them team_size apart
// (coalesced), and runs the group's steps on each element in order: the elementary functions'
// load, compute and store, glued (on GPUs the loads of Tuning::fusion_vector_unroll elements
// first, then their computing and stores). Vectors an earlier step of the group wrote are read
// from registers (their symbols are known at compile time), others loaded; a reduction step adds
// to the thread's share of the launch's reduction, which Kokkos combines into the target scalar.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/streaming_access.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/impl/group_dispatch.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/step.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::FusionVectorShape;
using tessera::Impl::Tuning;

/// The launch shape over n elements of type T (0: the backend's tuning).
template <class ExecSpace, class T>
LaunchShape vector_launch_shape(std::size_t n, int team_size, int per_thread) {
  constexpr int bytes = Tuning<ExecSpace>::fusion_vector_bytes_per_thread;
  constexpr int per   = bytes >= int(sizeof(T)) ? bytes / int(sizeof(T)) : 1;
  LaunchShape shape;
  shape.team_size         = team_size > 0 ? team_size : Tuning<ExecSpace>::fusion_vector_team_size;
  shape.per_thread        = per_thread > 0 ? per_thread : per;
  const std::size_t chunk = std::size_t(shape.team_size) * std::size_t(shape.per_thread);
  shape.league            = (n + chunk - 1) / chunk;
  shape.automatic         = team_size == 0 && per_thread == 0;
  return shape;
}

/// The kernel of steps [A, B) of a sequence with step list L; P: pointers to the bound Views'
/// data (symbol K at p[K]).
template <class ExecSpace, class T, int A, int B, std::size_t P, class L>
struct GroupKernel {
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  L steps;
  Kokkos::Array<T*, P> p;
  std::size_t n;
  int per_thread;
  bool stream = false;  // host backends: the vectors written with streaming stores

  // ---- evaluation of an expression at element i; W: the vectors earlier steps of the group wrote
  // (vector K's value at regs[K RS])
  template <std::uint64_t W, int RS = 1, int K>
  KOKKOS_INLINE_FUNCTION T eval(const Vec<K>&, std::size_t i, const T* regs) const {
    if constexpr (((W >> K) & 1u) != 0) {
      return regs[K * RS];
    } else {
      return p[K][i];
    }
  }
  template <std::uint64_t W, int RS = 1, int K>
  KOKKOS_INLINE_FUNCTION T eval(const Scalar<K>&, std::size_t, const T*) const {
    return *p[K];
  }
  template <std::uint64_t W, int RS = 1>
  KOKKOS_INLINE_FUNCTION T eval(const Number& x, std::size_t, const T*) const {
    return static_cast<T>(x.value);
  }
  template <std::uint64_t W, int RS = 1, class Op, class X, class Y>
  KOKKOS_INLINE_FUNCTION T eval(const Binary<Op, X, Y>& e, std::size_t i, const T* regs) const {
    return Op::apply(eval<W, RS>(e.a, i, regs), eval<W, RS>(e.b, i, regs));
  }
  template <std::uint64_t W, int RS = 1, class X>
  KOKKOS_INLINE_FUNCTION T eval(const Negate<X>& e, std::size_t i, const T* regs) const {
    return -eval<W, RS>(e.a, i, regs);
  }

  /// Steps S.. B - 1 on element i: the values of the vectors they write in regs (vector K's at
  /// regs[K RS]), and in memory when Store.
  template <int S, std::uint64_t W, int RS = 1, bool Store = true>
  KOKKOS_INLINE_FUNCTION void apply(std::size_t i, T* regs, T& sum) const {
    if constexpr (S < B) {
      const auto& step = step_at<S>(steps);
      using Traits     = StepTraits<std::decay_t<decltype(step)>>;
      if constexpr (Traits::reduction) {
        sum += eval<W, RS>(step.e.e, i, regs);
        apply<S + 1, W, RS, Store>(i, regs, sum);
      } else {
        constexpr int K = Traits::target;  // a local: device code cannot bind the member
        const T v       = eval<W, RS>(step.e, i, regs);
        regs[K * RS]    = v;
        if constexpr (Store) p[K][i] = v;
        apply<S + 1, W | Traits::writes_vectors, RS, Store>(i, regs, sum);
      }
    }
  }

  /// The vectors the group reads before writing them (loaded first), and those it writes.
  static constexpr std::uint64_t loads  = group_vector_loads(static_cast<const L*>(nullptr), A, B);
  static constexpr std::uint64_t stores = group_vector_stores(static_cast<const L*>(nullptr), A, B);
  /// Elements a one-thread team takes at once (a cache line, independent partial sums).
  static constexpr int lanes = tessera::Impl::fusion_lanes<ExecSpace, T>;

  /// Stores elements i .. i + lanes - 1 of the vectors in Stores (bit K: Vec<K>) from
  /// regs[K][0 .. lanes - 1]: with streaming stores (core/impl/streaming_access.hpp) those the
  /// group does not read (an output it read first is in cache already), with ordinary stores the
  /// others.
  template <std::uint64_t Stores, int K = 0>
  KOKKOS_INLINE_FUNCTION void store_lanes(std::size_t i,
                                          const T (&regs)[P > 0 ? P : 1][lanes]) const {
    if constexpr (K < int(P)) {
      if constexpr (((Stores >> K) & 1u) != 0) {
        if constexpr (((loads >> K) & 1u) != 0) {
          for (int l = 0; l < lanes; ++l)
            p[K][i + std::size_t(l)] = regs[K][l];
        } else {
          tessera::Impl::stream_store<lanes>(p[K] + i, regs[K]);
        }
      }
      store_lanes<Stores, K + 1>(i, regs);
    }
  }

  /// Loads element i of the vectors in Loads (bit K: Vec<K>) into regs[K].
  template <std::uint64_t Loads, int K = 0>
  KOKKOS_INLINE_FUNCTION void load_vectors(std::size_t i, T* regs) const {
    if constexpr (K < int(P)) {
      if constexpr (((Loads >> K) & 1u) != 0) regs[K] = p[K][i];
      load_vectors<Loads, K + 1>(i, regs);
    }
  }

  KOKKOS_INLINE_FUNCTION void run(const Member& m, T& sum) const {
    const std::size_t team  = std::size_t(m.team_size());
    const std::size_t first = std::size_t(m.league_rank()) * team * std::size_t(per_thread);
    const std::size_t last =
        n - first < team * std::size_t(per_thread) ? n : first + team * std::size_t(per_thread);
    T regs[P > 0 ? P : 1];
    T terms = 0;
    if (team == 1) {
      // Host backends: consecutive elements, `lanes` at a time with as many partial sums
      // (independent additions the core overlaps or vectorises; one running sum would wait on
      // each addition); with `stream`, the lanes' values of the vectors written stored as one
      // line with streaming stores.
      T partial[lanes] = {};
      std::size_t i    = first;
      if (stream) {
        for (; i + lanes <= last; i += lanes) {
          T lane_regs[P > 0 ? P : 1][lanes];
          TESSERA_INDEPENDENT
          for (int l = 0; l < lanes; ++l)
            apply<A, 0, lanes, false>(i + l, &lane_regs[0][l], partial[l]);
          store_lanes<stores>(i, lane_regs);
        }
      } else {
        for (; i + lanes <= last; i += lanes) {
          for (int l = 0; l < lanes; ++l)
            apply<A, 0>(i + l, regs, partial[l]);
        }
      }
      for (; i < last; ++i)
        apply<A, 0>(i, regs, partial[0]);
      for (int l = 0; l < lanes; ++l)
        terms += partial[l];
      if (stream) tessera::Impl::streaming_store_fence();
    } else {
      // U elements at a time, team apart: all their loads before any computing or storing (a
      // store would otherwise keep the next element's loads from being issued early).
      constexpr int U = Tuning<ExecSpace>::fusion_vector_unroll;
      for (std::size_t i0 = first + std::size_t(m.team_rank()); i0 < last; i0 += U * team) {
        T held[U][P > 0 ? P : 1];
        for (int u = 0; u < U; ++u) {
          const std::size_t i = i0 + std::size_t(u) * team;
          if (i < last) load_vectors<loads>(i, held[u]);
        }
        for (int u = 0; u < U; ++u) {
          const std::size_t i = i0 + std::size_t(u) * team;
          if (i < last) apply<A, loads>(i, held[u], terms);
        }
      }
    }
    sum += terms;
  }
};

/// A group without a reduction (parallel_for).
template <class Body, class T>
struct MapKernel {
  Body body;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    T unused = 0;
    body.run(m, unused);
  }
};

/// A group with a reduction (parallel_reduce: each thread adds its elements' terms).
template <class Body, class T>
struct ReduceKernel {
  using value_type = T;
  Body body;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m, T& sum) const {
    body.run(m, sum);
  }
};

/// The reduction target of steps [A, B) (-1: none).
template <class L, int A, int B>
constexpr int reduction_target() {
  if constexpr (A >= B) {
    return -1;
  } else {
    using Traits = StepTraits<std::decay_t<decltype(step_at<A>(std::declval<const L&>()))>>;
    if constexpr (Traits::reduction) {
      return Traits::target;
    } else {
      return reduction_target<L, A + 1, B>();
    }
  }
}

/// The kernels of the groups of one sequence run, a visitor of visit_group: launches each group
/// visited (asynchronous), or, with only_limit, finds the largest team size they all run with.
template <class ExecSpace, class T, class L, std::size_t P, class Bound>
struct GroupKernels {
  const ExecSpace& space;
  const L& steps;
  const Kokkos::Array<T*, P>& p;
  const Bound& bound;
  std::size_t n;
  LaunchShape shape;
  bool only_limit   = false;
  int team_size_max = std::numeric_limits<int>::max();  // over the groups visited

  template <int A, int B>
  using Body = GroupKernel<ExecSpace, T, A, B, P, L>;
  template <int A, int B>
  static constexpr int target = reduction_target<L, A, B>();

  /// Launches steps [A, B): a parallel_for, or a parallel_reduce into the group's reduction
  /// target (a rank-0 View of `bound`; with the default shape, in the backend's shape for
  /// reductions, Tuning::fusion_vector_reduction_shape).
  template <int A, int B>
  void launch() const {
    LaunchShape s = shape;
    if (target<A, B> >= 0 && shape.automatic) {
      constexpr FusionVectorShape r = Tuning<ExecSpace>::fusion_vector_reduction_shape;
      s = vector_launch_shape<ExecSpace, T>(n, r.team_size, r.per_thread);
    }
    const bool stream =
        streams_outputs<ExecSpace, T>(Body<A, B>::loads, Body<A, B>::stores, double(n));
    const Body<A, B> body{steps, p, n, s.per_thread, stream};
    const Kokkos::TeamPolicy<ExecSpace> policy(space, int(s.league), s.team_size);
    if constexpr (target<A, B> < 0) {
      Kokkos::parallel_for("tessera::fusion::vector_group", policy, MapKernel<Body<A, B>, T>{body});
    } else {
      Kokkos::parallel_reduce("tessera::fusion::vector_group", policy,
                              ReduceKernel<Body<A, B>, T>{body},
                              std::get<target<A, B>>(bound.views));
    }
  }

  /// Lowers team_size_max to what the kernel of steps [A, B) runs with.
  template <int A, int B>
  void limit() {
    const Body<A, B> body{steps, p, n, shape.per_thread};
    const Kokkos::TeamPolicy<ExecSpace> policy(space, 1, 1);
    int limit = 0;
    if constexpr (target<A, B> < 0) {
      limit = policy.team_size_max(MapKernel<Body<A, B>, T>{body}, Kokkos::ParallelForTag{});
    } else {
      limit = policy.team_size_max(ReduceKernel<Body<A, B>, T>{body}, Kokkos::ParallelReduceTag{});
    }
    team_size_max = limit < team_size_max ? limit : team_size_max;
  }

  template <int A, int B>
  void visit() {
    if (only_limit) {
      limit<A, B>();
    } else {
      launch<A, B>();
    }
  }
};

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
