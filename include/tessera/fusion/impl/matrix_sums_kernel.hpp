// The second launch of a matrix group whose nested sums are finished after its main kernel: the
// parts of each sum (one per team of the line and held-lines schedules, per band or line block
// of the tile schedule) are added and the step's outer expression evaluated and stored, in step
// order. A team takes `width` consecutive indices (its vector lanes: coalesced reads of the
// parts); each of its threads adds every team_size-th part with independent accumulators (loads
// in flight), and its first thread adds the threads' sums (team scratch: nested sums x team
// size x width values).
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/impl/matrix_kernel.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/step.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {
namespace fusion {
namespace Impl {

/// Where the parts of a group's nested sums of one kind are: part p of the kind's q-th step at
/// index i (i < n) is base[q step_stride + p part_stride + i].
template <class T>
struct SumParts {
  const T* base           = nullptr;
  std::size_t n           = 0;
  std::size_t parts       = 0;
  std::size_t part_stride = 0;
  std::size_t step_stride = 0;

  /// The sum of parts first, first + every, ... of the q-th step at index i.
  KOKKOS_INLINE_FUNCTION T sum(int q, std::size_t i, std::size_t first, std::size_t every) const {
    constexpr int ways = 4;  // independent accumulators: that many loads in flight
    T acc[ways]        = {};
    const T* p         = base + std::size_t(q) * step_stride + i;
    std::size_t k      = first;
    for (; k + (ways - 1) * every < parts; k += ways * every)
      for (int w = 0; w < ways; ++w)
        acc[w] += p[(k + std::size_t(w) * every) * part_stride];
    for (; k < parts; k += every)
      acc[0] += p[k * part_stride];
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
  }
};

/// The sums kernel of group [A, B) of matrix sequence Seq (see the file comment): its complete
/// steps' parts in along_s (at owned indices), its partial steps' in along_o (at swept ones).
template <class ExecSpace, class T, class Seq, int A, int B, std::size_t P, bool RowsOwned>
struct MatrixSumsKernel {
  using Member               = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Steps                = MatrixGroupSteps<Seq, RowsOwned, A, B>;
  using StepList             = std::decay_t<decltype(std::declval<Seq>().steps)>;
  static constexpr int width = 32;
  static constexpr int sums  = Steps::completes + Steps::partials;
  StepList steps;
  MatrixEval<T, P, RowsOwned> ev;
  SumParts<T> along_s, along_o;

  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int team_size) {
    return std::size_t(sums) * std::size_t(team_size) * width * sizeof(T);
  }

  /// The teams of a launch: one per width indices of the longer kind.
  std::size_t league() const {
    const std::size_t n = along_s.n > along_o.n ? along_s.n : along_o.n;
    return (n + width - 1) / width;
  }

  /// Steps S .. B - 1 at lane c of the team's indices (team threads' sums in `sums_of`).
  template <int S>
  KOKKOS_INLINE_FUNCTION void finish(std::size_t i0, int c, int team, const T* sums_of) const {
    if constexpr (S < B) {
      constexpr bool complete = Steps::template is_complete<S>;
      if constexpr (complete || Steps::template is_partial<S>) {
        const auto& step    = step_at<S>(steps);
        constexpr int K     = StepTraits<std::decay_t<decltype(step)>>::target;
        constexpr int slot  = complete ? Steps::template complete_at<S>
                                       : Steps::completes + Steps::template partial_at<S>;
        const std::size_t i = i0 + std::size_t(c);
        if (i < (complete ? along_s.n : along_o.n)) {
          T total = 0;
          for (int g = 0; g < team; ++g)
            total += sums_of[(slot * team + g) * width + c];
          ev.p[K][i] = ev.outer(step.e, i, total);
        }
      }
      finish<S + 1>(i0, c, team, sums_of);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const int team = m.team_size(), g = m.team_rank();
    const std::size_t i0 = std::size_t(m.league_rank()) * width;
    T* sums_of           = static_cast<T*>(m.team_scratch(0).get_shmem(scratch_bytes(team)));
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, width), [&](int c) {
      const std::size_t i = i0 + std::size_t(c);
      for (int q = 0; q < Steps::completes; ++q)
        sums_of[(q * team + g) * width + c] =
            i < along_s.n ? along_s.sum(q, i, std::size_t(g), std::size_t(team)) : T(0);
      for (int q = 0; q < Steps::partials; ++q)
        sums_of[((Steps::completes + q) * team + g) * width + c] =
            i < along_o.n ? along_o.sum(q, i, std::size_t(g), std::size_t(team)) : T(0);
    });
    m.team_barrier();
    if (g == 0) {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, width),
                           [&](int c) { finish<A>(i0, c, team, sums_of); });
    }
  }
};

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
