// The held-lines schedule of a matrix group that is not valid as tiles (matrix_tile_kernel.hpp),
// under a tile launch shape: typically one that sweeps its lines twice, a later step reading at
// the owned index a complete nested sum of an earlier one (ATAX's tmp = A x, then y = A^T tmp,
// with rows owned; SGEMVT with columns owned). It runs when a whole line fits in the registers
// of a team of TH lanes (Tuning::fusion_held_team_size; team threads of VL vector lanes) of E
// elements each (Tuning::fusion_held_bytes), ns <= TH x E, and fills more than
// Tuning::fusion_held_min_share of them (a team's lines follow each other, each waiting for its
// loads and its reductions: with short lines, reading the matrix twice with more teams is as
// fast). A team takes every league-th owned line o, one at a time (its league: a team per
// Tuning::fusion_held_league_threads threads the device holds at once). Lane t holds the line's
// elements s = t, t + TH, ... (coalesced) of every matrix the group reads, loaded once, and
// prefetches the same elements of its next line. Each sweep runs on the held elements
// (matrix_kernel.hpp's steps):
//   - a complete sum is reduced over the team (a vector reduction per team thread, one barrier,
//     a vector reduction of the team threads' sums); every lane keeps its outer expression in
//     registers for the later sweeps (which read it at the owned index, by_row(tmp) with rows
//     owned), and the team's first lane then stores it at o (after a barrier when an outer
//     expression of the sweep reads a vector the sweep's sums write: t = t + row_sum(...)); a team
//     barrier precedes the next sweep only when a later step reads it from memory (in a composed
//     expression such as by_row(2 * tmp), or in a complete step's outer expression);
//   - a partial sum (along o) adds its term to a register per held element: a lane owns the
//     same swept indices for all its lines, so its sums stay in registers until the end, when
//     the team writes them, [league][partial step][ns], for the sums kernel
//     (matrix_sums_kernel.hpp) to add.
// Every matrix element is read from memory once: ATAX runs at the rate of one read of A.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/prefetch.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/impl/matrix_kernel.hpp>
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

/// Elements of each matrix a thread of a held-lines team holds, for values of type T.
template <class ExecSpace, class T>
inline constexpr int held_elements = Tuning<ExecSpace>::fusion_held_bytes / int(sizeof(T));

/// Whether lines of `swept` elements of type T are held by a team (matrix_held_kernel.hpp):
/// they fit, and fill more than Tuning::fusion_held_min_share of it.
template <class ExecSpace, class T>
constexpr bool held_fits(std::size_t swept) {
  const double capacity =
      double(Tuning<ExecSpace>::fusion_held_team_size) * double(held_elements<ExecSpace, T>);
  return double(swept) <= capacity &&
         double(swept) > Tuning<ExecSpace>::fusion_held_min_share * capacity;
}

/// The main kernel of the held-lines group [A, B) of matrix sequence Seq (see the file comment);
/// its teams have exactly TH / VL team threads of VL vector lanes (a warp each on GPUs).
template <class ExecSpace, class T, class Seq, int A, int B, std::size_t P, bool RowsOwned>
struct MatrixHeldKernel {
  using Member                 = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Steps                  = MatrixGroupSteps<Seq, RowsOwned, A, B>;
  using StepList               = std::decay_t<decltype(std::declval<Seq>().steps)>;
  static constexpr int TH      = Tuning<ExecSpace>::fusion_held_team_size;
  static constexpr int VL      = Tuning<ExecSpace>::fusion_tile_vector_length;
  static constexpr int threads = TH / VL;  // team threads
  static constexpr int E       = held_elements<ExecSpace, T>;
  /// Complete sums per line and lane: host backends keep `lanes` (independent, vectorised).
  static constexpr int SL = tessera::Impl::fusion_lanes<ExecSpace, T>;
  static constexpr int NR = P > 0 ? int(P) : 1;
  static constexpr int NP = Steps::partials > 0 ? Steps::partials : 1;
  static constexpr int NC = Steps::completes > 0 ? Steps::completes : 1;
  static_assert(E > 0 && E % SL == 0 && TH % VL == 0,
                "tessera::fusion: held elements are a positive multiple of the lanes");

  StepList steps;
  MatrixEval<T, P, RowsOwned> ev;
  std::size_t no;  // the owned extent
  T* partials;     // [league][partial step][ns]

  /// Team scratch: the team threads' sums of a line's complete steps, twice (lines alternate).
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return 2 * std::size_t(threads) * NC * sizeof(T);
  }

  /// The symbols in registers when the sweep from step S starts: the matrices the group loads
  /// and those its earlier steps wrote, and the vectors its earlier complete steps wrote (their
  /// value at the line, read at the owned index).
  template <int S>
  static constexpr std::uint64_t held = group_matrix_loads(static_cast<const Seq*>(nullptr), A, B) |
                                        group_matrix_stores(static_cast<const Seq*>(nullptr), A,
                                                            S) |
                                        group_complete_stores<Seq, RowsOwned>(A, S);

  /// Prefetches the lane's elements, from index i on, of the matrices in Loads (bit K: Mat<K>),
  /// so that the next line's loads are in flight while the team computes this one.
  template <std::uint64_t Loads, int K = 0>
  KOKKOS_INLINE_FUNCTION void prefetch_matrices(std::size_t i, int count) const {
    if constexpr (K < int(P)) {
      if constexpr (((Loads >> K) & 1u) != 0) {
        for (int e = 0; e < E; ++e)
          if (e < count) tessera::Impl::prefetch(ev.p[K] + i + std::size_t(e) * TH);
      }
      prefetch_matrices<Loads, K + 1>(i, count);
    }
  }

  /// Prefetches, into the multiprocessor's cache, the vectors that the outer expressions of the
  /// complete steps from S on read at line o (read by every lane once the sums are reduced).
  template <int S>
  KOKKOS_INLINE_FUNCTION void prefetch_outer_vectors(std::size_t o) const {
    if constexpr (S < B) {
      using Step = std::decay_t<decltype(step_at<S>(steps))>;
      if constexpr (Steps::template is_complete<S>) {
        prefetch_vectors<StepTraits<Step>::outer_vectors>(o);
      }
      prefetch_outer_vectors<S + 1>(o);
    }
  }
  template <std::uint64_t V, int K = 0>
  KOKKOS_INLINE_FUNCTION void prefetch_vectors(std::size_t o) const {
    if constexpr (K < int(P)) {
      if constexpr (((V >> K) & 1u) != 0)
        tessera::Impl::prefetch<tessera::Impl::CacheLevel::multiprocessor>(ev.p[K] + o);
      prefetch_vectors<V, K + 1>(o);
    }
  }

  /// The complete steps' sums of the line (`mine`: this lane's) added over the team: a vector
  /// reduction per team thread, their sums in scratch (`slots`), one barrier, a vector
  /// reduction of those; every lane gets the totals.
  KOKKOS_INLINE_FUNCTION LineSums<T, NC> team_sums(const Member& m, const LineSums<T, NC>& mine,
                                                   T* slots) const {
    LineSums<T, NC> thread_sums, totals;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(m, VL), [&](int, LineSums<T, NC>& v) { v += mine; },
        LineSumsReducer<T, NC>(thread_sums));
    Kokkos::single(Kokkos::PerThread(m), [&]() {
      for (int c = 0; c < NC; ++c)
        slots[m.team_rank() * NC + c] = thread_sums.v[c];
    });
    m.team_barrier();
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(m, threads),
        [&](int g, LineSums<T, NC>& v) {
          for (int c = 0; c < NC; ++c)
            v.v[c] += slots[g * NC + c];
        },
        LineSumsReducer<T, NC>(totals));
    return totals;
  }

  /// The complete steps of [S, S1) at line o: their outer expressions (totals: their sums) in
  /// every element's registers.
  template <int S, int S1>
  KOKKOS_INLINE_FUNCTION void finish_line(std::size_t o, const LineSums<T, NC>& totals,
                                          T (&regs)[NR][E]) const {
    if constexpr (S < S1) {
      if constexpr (Steps::template is_complete<S>) {
        const auto& step = step_at<S>(steps);
        constexpr int K  = StepTraits<std::decay_t<decltype(step)>>::target;
        const T value    = ev.outer(step.e, o, totals.v[Steps::template complete_at<S>]);
        for (int e = 0; e < E; ++e)
          regs[K][e] = value;
      }
      finish_line<S + 1, S1>(o, totals, regs);
    }
  }
  /// Stores the complete steps of [S, S1) at line o from the registers.
  template <int S, int S1>
  KOKKOS_INLINE_FUNCTION void store_line(std::size_t o, const T (&regs)[NR][E]) const {
    if constexpr (S < S1) {
      if constexpr (Steps::template is_complete<S>) {
        constexpr int K = StepTraits<std::decay_t<decltype(step_at<S>(steps))>>::target;
        ev.p[K][o]      = regs[K][0];
      }
      store_line<S + 1, S1>(o, regs);
    }
  }

  /// Whether the outer expression of a complete step among [S, S1) reads the target of one:
  /// every lane must have read it before the first lane stores the new values.
  template <int S, int S1>
  static constexpr bool outer_reads_targets() {
    std::uint64_t outer = 0;
    outer_vectors_of<S, S1>(outer);
    return (outer & group_complete_stores<Seq, RowsOwned>(S, S1)) != 0;
  }
  template <int S, int S1>
  static constexpr void outer_vectors_of(std::uint64_t& outer) {
    if constexpr (S < S1) {
      using Step = std::decay_t<decltype(step_at<S>(std::declval<const StepList&>()))>;
      if (Steps::complete(S)) outer |= StepTraits<Step>::outer_vectors;
      outer_vectors_of<S + 1, S1>(outer);
    }
  }

  /// Whether a step from S on reads, at the owned index, a vector in v other than straight
  /// from registers: inside a composed by_row/by_col expression, or in the outer expression of
  /// a complete step.
  template <int S>
  static constexpr bool reads_from_memory(std::uint64_t v) {
    if constexpr (S >= B) {
      return false;
    } else {
      using Step = std::decay_t<decltype(step_at<S>(std::declval<const StepList&>()))>;
      using R    = Reads<decltype(Step::e)>;
      const std::uint64_t composed = RowsOwned ? R::row_composed : R::col_composed;
      const std::uint64_t outer    = Steps::complete(S) ? StepTraits<Step>::outer_vectors : 0;
      return ((composed | outer) & v) != 0 || reads_from_memory<S + 1>(v);
    }
  }

  // The same as constants (device code reads constants, not host functions): whether the
  // first lane's stores of the sweep [S, S1) wait for a barrier, and whether the sweep from S1
  // does.
  template <int S, int S1>
  static constexpr bool barrier_before_store = outer_reads_targets<S, S1>();
  template <int S1>
  static constexpr bool barrier_before_sweep =
      reads_from_memory<S1>(group_complete_stores<Seq, RowsOwned>(A, S1));

  /// The sweeps from step S on over line o; the lane holds its first `count` elements, at
  /// swept indices t, t + TH, ...; `parity` picks the scratch slots of the next reduction.
  template <int S>
  KOKKOS_INLINE_FUNCTION void sweep(const Member& m, std::size_t o, std::size_t t, int count,
                                    int& parity, T* scratch, T (&regs)[NR][E],
                                    T (&part)[NP][E]) const {
    if constexpr (S < B) {
      constexpr int S1 = Steps::template sweep_end_at<S>;
      T acc[NC][SL];
      for (int c = 0; c < NC; ++c)
        for (int l = 0; l < SL; ++l)
          acc[c][l] = 0;
      for (int e0 = 0; e0 < E; e0 += SL) {
        TESSERA_INDEPENDENT
        for (int l = 0; l < SL; ++l) {
          const int e         = e0 + l;
          const std::size_t s = t + std::size_t(e) * TH;
          if (e < count) {
            matrix_element<S, S1, held<S>, E>(steps, ev, o, s, &regs[0][e], [&](auto step, T term) {
              constexpr int Q = decltype(step)::value;
              if constexpr (Steps::template is_complete<Q>) {
                acc[Steps::template complete_at<Q>][l] += term;
              } else {
                part[Steps::template partial_at<Q>][e] += term;
              }
            });
            store_matrices<S, S1, E>(steps, ev, o, s, &regs[0][e]);
          }
        }
      }
      if constexpr ((Steps::template complete_at<S1>) > (Steps::template complete_at<S>)) {
        LineSums<T, NC> mine;
        for (int c = 0; c < NC; ++c) {
          mine.v[c] = 0;
          for (int l = 0; l < SL; ++l)
            mine.v[c] += acc[c][l];
        }
        const LineSums<T, NC> totals = team_sums(m, mine, scratch + parity * threads * NC);
        parity ^= 1;
        finish_line<S, S1>(o, totals, regs);
        if constexpr (barrier_before_store<S, S1>) m.team_barrier();
        if (t == 0) store_line<S, S1>(o, regs);
      }
      if constexpr (S1 < B) {
        // The line's results stored above are read from memory by a later step that does not
        // take them from registers.
        if constexpr (barrier_before_sweep<S1>) m.team_barrier();
        sweep<S1>(m, o, t, count, parity, scratch, regs, part);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    constexpr std::uint64_t loads = held<A>;  // the matrices the group loads
    int lane                      = 0;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, VL), [&](int l) { lane = l; });
    const std::size_t t = std::size_t(m.team_rank()) * VL + std::size_t(lane);
    const int count     = t < ev.ns ? int((ev.ns - t + TH - 1) / TH) : 0;
    T* scratch          = static_cast<T*>(m.team_scratch(0).get_shmem(scratch_bytes()));
    int parity          = 0;
    T part[NP][E];
    for (int q = 0; q < NP; ++q)
      for (int e = 0; e < E; ++e)
        part[q][e] = 0;
    for (std::size_t o = std::size_t(m.league_rank()); o < no; o += std::size_t(m.league_size())) {
      T regs[NR][E];
      const std::size_t line = o * ev.ns + t;
      for (int e = 0; e < E; ++e)
        load_matrices<loads, E>(ev, line + std::size_t(e) * TH, e < count, &regs[0][e]);
      const std::size_t next = o + std::size_t(m.league_size());
      if (next < no) prefetch_matrices<loads>(next * ev.ns + t, count);
      if (t == 0) prefetch_outer_vectors<A>(o);
      sweep<A>(m, o, t, count, parity, scratch, regs, part);
    }
    if constexpr (Steps::partials > 0) {
      T* out = partials + std::size_t(m.league_rank()) * Steps::partials * ev.ns + t;
      for (int q = 0; q < NP; ++q)
        for (int e = 0; e < E; ++e)
          if (e < count) out[std::size_t(q) * ev.ns + std::size_t(e) * TH] = part[q][e];
    }
  }
};

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
