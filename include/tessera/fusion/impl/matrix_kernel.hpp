// The kernels of a group of steps of a matrix sequence (plan.hpp): teams own lines of the
// matrix (rows of a LayoutRight matrix, columns of a LayoutLeft one, the owned axis o) and their
// threads sweep the other, contiguous axis s (coalesced); in (o, s) every bound matrix, of
// extents no x ns, is data[o * ns + s]. A team takes R owned lines at a time and sweeps them
// once per sweep of its group; at each element (o, s) a thread runs the sweep's steps in order:
//   - a matrix map computes the element and keeps it in registers for later steps; the
//     elements are stored once the thread's elements of all R lines are computed (the paper's
//     load / compute / store split: no store stands between the loads of the R lines);
//   - a complete nested sum (along s) adds the element's term to a register per owned line; at
//     the end of the sweep the team reduces it, and evaluates and stores the step's outer
//     expression at o;
//   - a partial nested sum (along o) adds the R lines' terms to the team's scratch sum at s.
// A sweep ends before a step that reads the result of a complete step of the same sweep; the
// next sweep reads the matrices again (from cache). After the main kernel, one more launch
// (matrix_sums_kernel.hpp) adds the teams' partial sums at each s and evaluates the partial
// steps' outer expressions.
// matrix_launch.hpp launches these kernels, or matrix_tile_kernel.hpp's.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/streaming_access.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/step.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::Tuning;

/// The nested sum's argument of a row_sum or col_sum step's expression.
template <class E>
KOKKOS_INLINE_FUNCTION const E& nested_sum(const RowSum<E>& e) {
  return e.e;
}
template <class E>
KOKKOS_INLINE_FUNCTION const E& nested_sum(const ColSum<E>& e) {
  return e.e;
}
template <class X>
KOKKOS_INLINE_FUNCTION const auto& nested_sum(const Negate<X>& e) {
  return nested_sum(e.a);
}
template <class Op, class X, class Y>
KOKKOS_INLINE_FUNCTION const auto& nested_sum(const Binary<Op, X, Y>& e) {
  if constexpr (Reads<X>::row_sums + Reads<X>::col_sums > 0) {
    return nested_sum(e.a);
  } else {
    return nested_sum(e.b);
  }
}

/// Compile-time facts about steps [A, B) of matrix sequence Seq with rows (RowsOwned) or
/// columns owned.
template <class Seq, bool RowsOwned, int A, int B>
struct MatrixGroupSteps {
  static constexpr bool complete(int s) { return complete_step<Seq, RowsOwned>(s); }
  static constexpr bool partial(int s) { return partial_step<Seq, RowsOwned>(s); }
  /// Which complete (partial) step of the group step s is.
  static constexpr int complete_index(int s) {
    int c = 0;
    for (int t = A; t < s; ++t)
      c += complete(t) ? 1 : 0;
    return c;
  }
  static constexpr int partial_index(int s) {
    int c = 0;
    for (int t = A; t < s; ++t)
      c += partial(t) ? 1 : 0;
    return c;
  }
  static constexpr int completes = complete_index(B);
  static constexpr int partials  = partial_index(B);
  /// The end of the sweep that starts at step s: the first later step that reads at the owned
  /// index a vector a complete step of the sweep writes, or B.
  static constexpr int sweep_end(int s) {
    std::uint64_t pending = 0;
    for (int t = s; t < B; ++t) {
      if (t > s && (owned_reads<Seq, RowsOwned>(t) & pending)) return t;
      if (complete(t)) pending |= SequenceTraits<Seq>::writes_vectors[t];
    }
    return B;
  }
  // The same as constants (device code reads constants, not host functions).
  template <int S>
  static constexpr bool is_complete = complete(S);
  template <int S>
  static constexpr bool is_partial = partial(S);
  template <int S>
  static constexpr int complete_at = complete_index(S);
  template <int S>
  static constexpr int partial_at = partial_index(S);
  template <int S>
  static constexpr int sweep_end_at = sweep_end(S);
};

/// Evaluation of the expressions of a matrix sequence's steps over the pointers p to the bound
/// Views' data (symbol K at p[K]).
template <class T, std::size_t P, bool RowsOwned>
struct MatrixEval {
  Kokkos::Array<T*, P> p;
  std::size_t ns;  // the swept extent

  // ---- a vector expression at index i
  template <int K>
  KOKKOS_INLINE_FUNCTION T at(const Vec<K>&, std::size_t i) const {
    return p[K][i];
  }
  template <int K>
  KOKKOS_INLINE_FUNCTION T at(const Scalar<K>&, std::size_t) const {
    return *p[K];
  }
  KOKKOS_INLINE_FUNCTION T at(const Number& x, std::size_t) const {
    return static_cast<T>(x.value);
  }
  template <class Op, class X, class Y>
  KOKKOS_INLINE_FUNCTION T at(const Binary<Op, X, Y>& e, std::size_t i) const {
    return Op::apply(at(e.a, i), at(e.b, i));
  }
  template <class X>
  KOKKOS_INLINE_FUNCTION T at(const Negate<X>& e, std::size_t i) const {
    return -at(e.a, i);
  }

  // ---- a step's outer expression at index i, its nested sum being `total`
  template <class E>
  KOKKOS_INLINE_FUNCTION T outer(const E& e, std::size_t i, T) const {
    return at(e, i);
  }
  template <class E>
  KOKKOS_INLINE_FUNCTION T outer(const RowSum<E>&, std::size_t, T total) const {
    return total;
  }
  template <class E>
  KOKKOS_INLINE_FUNCTION T outer(const ColSum<E>&, std::size_t, T total) const {
    return total;
  }
  template <class Op, class X, class Y>
  KOKKOS_INLINE_FUNCTION T outer(const Binary<Op, X, Y>& e, std::size_t i, T total) const {
    return Op::apply(outer(e.a, i, total), outer(e.b, i, total));
  }
  template <class X>
  KOKKOS_INLINE_FUNCTION T outer(const Negate<X>& e, std::size_t i, T total) const {
    return -outer(e.a, i, total);
  }

  // ---- a matrix expression at element (o, s); W: the symbols held in regs (symbol K at
  // regs[K L]): matrices earlier steps of the sweep wrote or the kernel loaded, and vectors whose
  // value at the owned index o a held-lines team has in registers
  template <std::uint64_t W, int L, int K>
  KOKKOS_INLINE_FUNCTION T at2(const Mat<K>&, std::size_t o, std::size_t s, const T* regs) const {
    if constexpr (((W >> K) & 1u) != 0) {
      return regs[K * L];
    } else {
      return p[K][o * ns + s];
    }
  }
  /// Vector K at the owned index o (from regs when held) or at the swept index s.
  template <std::uint64_t W, int L, bool AtOwned, int K>
  KOKKOS_INLINE_FUNCTION T vector_at(std::size_t o, std::size_t s, const T* regs) const {
    if constexpr (AtOwned && ((W >> K) & 1u) != 0) {
      return regs[K * L];
    } else {
      return p[K][AtOwned ? o : s];
    }
  }
  template <std::uint64_t W, int L, class E>
  KOKKOS_INLINE_FUNCTION T at2(const ByRow<E>& e, std::size_t o, std::size_t s, const T*) const {
    return at(e.e, RowsOwned ? o : s);
  }
  template <std::uint64_t W, int L, int K>
  KOKKOS_INLINE_FUNCTION T at2(const ByRow<Vec<K>>&, std::size_t o, std::size_t s,
                               const T* regs) const {
    return vector_at<W, L, RowsOwned, K>(o, s, regs);
  }
  template <std::uint64_t W, int L, class E>
  KOKKOS_INLINE_FUNCTION T at2(const ByCol<E>& e, std::size_t o, std::size_t s, const T*) const {
    return at(e.e, RowsOwned ? s : o);
  }
  template <std::uint64_t W, int L, int K>
  KOKKOS_INLINE_FUNCTION T at2(const ByCol<Vec<K>>&, std::size_t o, std::size_t s,
                               const T* regs) const {
    return vector_at<W, L, !RowsOwned, K>(o, s, regs);
  }
  template <std::uint64_t W, int L, int K>
  KOKKOS_INLINE_FUNCTION T at2(const Scalar<K>&, std::size_t, std::size_t, const T*) const {
    return *p[K];
  }
  template <std::uint64_t W, int L>
  KOKKOS_INLINE_FUNCTION T at2(const Number& x, std::size_t, std::size_t, const T*) const {
    return static_cast<T>(x.value);
  }
  template <std::uint64_t W, int L, class Op, class X, class Y>
  KOKKOS_INLINE_FUNCTION T at2(const Binary<Op, X, Y>& e, std::size_t o, std::size_t s,
                               const T* regs) const {
    return Op::apply(at2<W, L>(e.a, o, s, regs), at2<W, L>(e.b, o, s, regs));
  }
  template <std::uint64_t W, int L, class X>
  KOKKOS_INLINE_FUNCTION T at2(const Negate<X>& e, std::size_t o, std::size_t s,
                               const T* regs) const {
    return -at2<W, L>(e.a, o, s, regs);
  }
};

/// Steps S .. S1 - 1 of a step list at matrix element (o, s): a matrix map's value goes to
/// regs[K RS] (matrix K; W: the matrices held there, read from registers), a nested sum's term
/// to add(integral_constant<int, step>, term).
template <int S, int S1, std::uint64_t W, int RS, class StepList, class T, std::size_t P,
          bool RowsOwned, class Add>
KOKKOS_INLINE_FUNCTION void matrix_element(const StepList& steps,
                                           const MatrixEval<T, P, RowsOwned>& ev, std::size_t o,
                                           std::size_t s, T* regs, const Add& add) {
  if constexpr (S < S1) {
    const auto& step = step_at<S>(steps);
    using Traits     = StepTraits<std::decay_t<decltype(step)>>;
    if constexpr (Traits::kind == StepKind::matrix_map) {
      regs[Traits::target * RS] = ev.template at2<W, RS>(step.e, o, s, regs);
      matrix_element<S + 1, S1, W | Traits::writes_matrices, RS>(steps, ev, o, s, regs, add);
    } else {
      add(std::integral_constant<int, S>{}, ev.template at2<W, RS>(nested_sum(step.e), o, s, regs));
      matrix_element<S + 1, S1, W, RS>(steps, ev, o, s, regs, add);
    }
  }
}

/// Loads element i of the matrices in Loads (bit K: Mat<K>) into regs[K RS] (0 when not inside),
/// with streaming loads (core/impl/streaming_access.hpp) when Streamed.
template <std::uint64_t Loads, int RS, bool Streamed = false, int K = 0, class T, std::size_t P,
          bool RowsOwned>
KOKKOS_INLINE_FUNCTION void load_matrices(const MatrixEval<T, P, RowsOwned>& ev, std::size_t i,
                                          bool inside, T* regs) {
  if constexpr (K < int(P)) {
    if constexpr (((Loads >> K) & 1u) != 0) {
      const T* from = ev.p[K] + i;
      regs[K * RS]  = inside ? (Streamed ? tessera::Impl::stream_load(from) : *from) : T(0);
    }
    load_matrices<Loads, RS, Streamed, K + 1>(ev, i, inside, regs);
  }
}

/// Stores elements (o, s) .. (o, s + N - 1) of the matrices written by steps S .. S1 - 1 of a
/// step list (M: those not stored yet) from registers (matrix K's N consecutive values from
/// regs[K RS] on), those in `streamed` (bit K: Mat<K>) with streaming stores
/// (core/impl/streaming_access.hpp).
template <int S, int S1, int RS, int N = 1, std::uint64_t M = 0, class StepList, class T,
          std::size_t P, bool RowsOwned>
KOKKOS_INLINE_FUNCTION void store_matrices(const StepList& steps,
                                           const MatrixEval<T, P, RowsOwned>& ev, std::size_t o,
                                           std::size_t s, const T* regs,
                                           std::uint64_t streamed = 0) {
  if constexpr (S < S1) {
    using Traits    = StepTraits<std::decay_t<decltype(step_at<S>(steps))>>;
    constexpr int K = Traits::target;
    if constexpr (Traits::kind == StepKind::matrix_map && ((M >> K) & 1u) == 0) {
      T* to = ev.p[K] + (o * ev.ns + s);
      if (N > 1 && ((streamed >> K) & 1u) != 0) {
        tessera::Impl::stream_store<N>(to, regs + K * RS);
      } else {
        for (int l = 0; l < N; ++l)
          to[l] = regs[K * RS + l];
      }
    }
    store_matrices<S + 1, S1, RS, N, M | Traits::writes_matrices>(steps, ev, o, s, regs, streamed);
  }
}

/// N values summed as one (a vector reduction of several lines' sums at once).
template <class T, int N>
struct LineSums {
  T v[N];
  KOKKOS_INLINE_FUNCTION LineSums& operator+=(const LineSums& o) {
    for (int i = 0; i < N; ++i)
      v[i] += o.v[i];
    return *this;
  }
};

/// The sum reducer of LineSums (Kokkos' Sum needs a reduction_identity).
template <class T, int N>
struct LineSumsReducer {
  using reducer          = LineSumsReducer;
  using value_type       = LineSums<T, N>;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  value_type& result;
  KOKKOS_INLINE_FUNCTION explicit LineSumsReducer(value_type& r) : result(r) {}
  KOKKOS_INLINE_FUNCTION void join(value_type& dest, const value_type& src) const { dest += src; }
  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    for (int i = 0; i < N; ++i)
      v.v[i] = 0;
  }
  KOKKOS_INLINE_FUNCTION value_type& reference() const { return result; }
  KOKKOS_INLINE_FUNCTION result_view_type view() const { return result_view_type(&result); }
  KOKKOS_INLINE_FUNCTION bool references_scalar() const { return true; }
};

/// The main kernel of steps [A, B) of matrix sequence Seq (see the file comment); R owned lines
/// at a time. partials: the teams' partial sums, [league][partial steps][ns].
template <class ExecSpace, class T, class Seq, int A, int B, std::size_t P, bool RowsOwned, int R>
struct MatrixGroupKernel {
  using Member               = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Steps                = MatrixGroupSteps<Seq, RowsOwned, A, B>;
  using StepList             = std::decay_t<decltype(std::declval<Seq>().steps)>;
  static constexpr int lanes = tessera::Impl::fusion_lanes<ExecSpace, T>;
  static constexpr int NC    = Steps::completes > 0 ? Steps::completes : 1;
  static constexpr int NP    = Steps::partials > 0 ? Steps::partials : 1;

  /// Whether the group is one sweep (a later sweep would read again what it stores), and the
  /// matrices it stores without reading them (those it streams, with `stream`).
  static constexpr bool one_sweep = Steps::template sweep_end_at<A> == B;
  static constexpr std::uint64_t fresh_matrices =
      group_matrix_stores(static_cast<const Seq*>(nullptr), A, B) &
      ~group_matrix_loads(static_cast<const Seq*>(nullptr), A, B);

  StepList steps;
  MatrixEval<T, P, RowsOwned> ev;
  std::size_t no;  // the owned extent
  T* partials;
  int scratch_level;
  bool stream = false;  // host backends: fresh_matrices stored with streaming stores

  /// The team scratch bytes of a kernel over ns swept elements.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(std::size_t ns) {
    return std::size_t(Steps::partials) * ns * sizeof(T);
  }

  /// Calls f(s) for each swept index s this thread owns (lanes consecutive ones at a time).
  template <class F>
  KOKKOS_INLINE_FUNCTION void for_own(const Member& m, F&& f) const {
    const std::size_t stride = std::size_t(m.team_size()) * lanes;
    for (std::size_t s0 = std::size_t(m.team_rank()) * lanes; s0 < ev.ns; s0 += stride) {
      for (int l = 0; l < lanes; ++l)
        if (s0 + l < ev.ns) f(s0 + l);
    }
  }

  /// Adds the partial terms of elements s .. s + L - 1 (part[q][l]) to the team's partial sums.
  template <int L = lanes>
  KOKKOS_INLINE_FUNCTION void add_partials(T* team_part, std::size_t s,
                                           const T (&part)[NP][lanes]) const {
    if constexpr (Steps::partials > 0) {
      for (int q = 0; q < Steps::partials; ++q)
        for (int l = 0; l < L; ++l)
          team_part[std::size_t(q) * ev.ns + s + std::size_t(l)] += part[q][l];
    }
  }

  /// Steps S .. S1 - 1 at element (o, s) of owned line r of the block. The element's registers
  /// are RS apart (RS: the lanes on host backends, so that consecutive lanes' values are
  /// adjacent for vectorisation; R on GPU backends, one set per line): matrix K at regs[K RS];
  /// complete step c's sum of line r at acc[(c R + r) lanes], partial step q's term at
  /// part[q lanes]. Matrix maps only fill regs (store_matrices stores them).
  template <int S, int S1, std::uint64_t W, int RS>
  KOKKOS_INLINE_FUNCTION void element(std::size_t o, std::size_t s, int r, T* regs, T* acc,
                                      T* part) const {
    matrix_element<S, S1, W, RS>(steps, ev, o, s, regs, [&](auto step, T term) {
      constexpr int S_ = decltype(step)::value;
      if constexpr (Steps::template is_complete<S_>) {
        acc[(Steps::template complete_at<S_> * R + r) * lanes] += term;
      } else {
        part[Steps::template partial_at<S_> * lanes] += term;
      }
    });
  }

  /// The complete steps of [S, S1): reduce each owned line's sum over the team, then store the
  /// step's outer expression at the line.
  template <int S, int S1>
  KOKKOS_INLINE_FUNCTION void finish_lines(const Member& m, std::size_t block,
                                           T (&acc)[NC][R][lanes]) const {
    if constexpr (S < S1) {
      if constexpr (Steps::template is_complete<S>) {
        constexpr int c  = Steps::template complete_at<S>;
        const auto& step = step_at<S>(steps);
        constexpr int K  = StepTraits<std::decay_t<decltype(step)>>::target;
        for (int r = 0; r < R; ++r) {
          T total = 0;
          for (int l = 0; l < lanes; ++l)
            total += acc[c][r][l];
          m.team_reduce(Kokkos::Sum<T, typename ExecSpace::memory_space>(total));
          const std::size_t o = block + std::size_t(r);
          if (m.team_rank() == 0 && o < no) ev.p[K][o] = ev.outer(step.e, o, total);
        }
      }
      finish_lines<S + 1, S1>(m, block, acc);
    }
  }

  /// The sweeps from step S on over the owned lines block .. block + R - 1.
  template <int S>
  KOKKOS_INLINE_FUNCTION void sweep(const Member& m, std::size_t block, T* team_part) const {
    if constexpr (S < B) {
      constexpr int S1 = Steps::template sweep_end_at<S>;
      constexpr int NR = P > 0 ? int(P) : 1;
      T acc[NC][R][lanes];
      for (int c = 0; c < NC; ++c)
        for (int r = 0; r < R; ++r)
          for (int l = 0; l < lanes; ++l)
            acc[c][r][l] = 0;
      if constexpr (lanes > 1) {
        // Host backends (one thread a team): `lanes` consecutive elements (a cache line) of
        // the R lines at a time, with independent sums (which the compiler vectorises).
        const std::uint64_t streamed = stream ? fresh_matrices : 0;
        const int lines              = no - block < std::size_t(R) ? int(no - block) : R;
        std::size_t s0               = 0;
        for (; s0 + lanes <= ev.ns; s0 += lanes) {
          T part[NP][lanes] = {};
          for (int r = 0; r < lines; ++r) {
            T regs[NR][lanes];
            TESSERA_INDEPENDENT
            for (int l = 0; l < lanes; ++l)
              element<S, S1, 0, lanes>(block + r, s0 + l, r, &regs[0][l], &acc[0][0][l],
                                       &part[0][l]);
            store_matrices<S, S1, lanes, lanes>(steps, ev, block + r, s0, &regs[0][0], streamed);
          }
          add_partials(team_part, s0, part);
        }
        for (; s0 < ev.ns; ++s0) {
          T part[NP][lanes] = {};
          for (int r = 0; r < lines; ++r) {
            T regs[NR][lanes];
            element<S, S1, 0, lanes>(block + r, s0, r, &regs[0][0], &acc[0][0][0], &part[0][0]);
            store_matrices<S, S1, lanes>(steps, ev, block + r, s0, &regs[0][0]);
          }
          add_partials<1>(team_part, s0, part);
        }
      } else {
        // GPU backends: each thread its elements team_size apart (coalesced), the R lines'
        // elements at once (R loads in flight), their partial terms summed in registers.
        for_own(m, [&](std::size_t s) {
          T part[NP][lanes] = {};
          T regs[NR][R];
          for (int r = 0; r < R; ++r) {
            const std::size_t o = block + std::size_t(r);
            if (o < no) element<S, S1, 0, R>(o, s, r, &regs[0][r], &acc[0][0][0], &part[0][0]);
          }
          for (int r = 0; r < R; ++r) {
            const std::size_t o = block + std::size_t(r);
            if (o < no) store_matrices<S, S1, R>(steps, ev, o, s, &regs[0][r]);
          }
          add_partials<1>(team_part, s, part);
        });
      }
      finish_lines<S, S1>(m, block, acc);
      if constexpr (S1 < B) {
        m.team_barrier();  // the lines' results stored above are read by the next sweep
        sweep<S1>(m, block, team_part);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    T* team_part = nullptr;
    if constexpr (Steps::partials > 0) {
      team_part = static_cast<T*>(m.team_scratch(scratch_level).get_shmem(scratch_bytes(ev.ns)));
      for_own(m, [&](std::size_t s) {
        for (int q = 0; q < Steps::partials; ++q)
          team_part[std::size_t(q) * ev.ns + s] = 0;
      });
    }
    const std::size_t step = std::size_t(m.league_size()) * R;
    for (std::size_t block = std::size_t(m.league_rank()) * R; block < no; block += step)
      sweep<A>(m, block, team_part);
    if (stream) tessera::Impl::streaming_store_fence();
    if constexpr (Steps::partials > 0) {
      T* out = partials + std::size_t(m.league_rank()) * Steps::partials * ev.ns;
      for_own(m, [&](std::size_t s) {
        for (int q = 0; q < Steps::partials; ++q)
          out[std::size_t(q) * ev.ns + s] = team_part[std::size_t(q) * ev.ns + s];
      });
    }
  }
};

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
