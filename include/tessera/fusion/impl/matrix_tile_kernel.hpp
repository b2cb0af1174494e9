// The tile schedule of a matrix group whose nested sums are all partial (plan.hpp's tile
// groups). In (o, s) coordinates (matrix_kernel.hpp: o the strided axis, s the contiguous one)
// a team owns a tile of `lines` consecutive owned lines by a band of `width` = VL x E swept
// indices (VL vector lanes, E elements per lane, lane l at s0 + l, s0 + l + VL, ...: coalesced;
// E by the group's kind: Tuning::fusion_tile_elements).
// Its team threads take the tile's lines in turn, U lines at a time, all loads of the U lines
// before any store (the paper's load / compute / store split). At each element a lane runs the
// group's steps in order:
//   - a matrix map keeps the element in registers for later steps and stores it;
//   - a sum along s (row_sum when rows are owned) adds the element's term to a register per
//     line; the lanes then add theirs (vector reduction) and the band's sum of the line is
//     written to the swept buffer, [step][band][o];
//   - a sum along o adds the term to a register per element; at the end of the tile the team
//     threads add theirs (team scratch) and the tile's sum at s is written to the owned buffer,
//     [step][tile line block][s].
// A group that writes no matrix reads its matrices with streaming loads (stream_load: not
// displacing the vectors and sums it reuses). A second launch (matrix_sums_kernel.hpp) adds the
// bands' (tile line blocks') sums and evaluates each sum step's outer expression. Every matrix
// element is loaded once; the buffers hold (swept bands + owned blocks) x extent values per sum
// step, a few percent of the matrix.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/impl/matrix_kernel.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/step.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::FusionTileKind;

/// The kind of the tiles of group [A, B) of matrix sequence Seq (tiling.hpp).
template <class Seq, bool RowsOwned, int A, int B>
constexpr FusionTileKind tile_kind() {
  using Steps = MatrixGroupSteps<Seq, RowsOwned, A, B>;
  if (Steps::completes + Steps::partials == 0) return FusionTileKind::maps;
  return group_matrix_stores(static_cast<const Seq*>(nullptr), A, B) == 0 ? FusionTileKind::sums
                                                                          : FusionTileKind::updates;
}

/// Elements per vector lane and line of the tiles of a kind, for values of type T (at least 1).
template <class ExecSpace, class T>
constexpr int tile_elements(FusionTileKind kind) {
  const int e = Tuning<ExecSpace>::fusion_tile_elements(kind, int(sizeof(T)));
  return e > 0 ? e : 1;
}

/// The fewest swept indices a tile of any kind spans (bounding a tile launch's league).
template <class ExecSpace, class T>
constexpr std::size_t narrowest_tile_width() {
  const int fewest = std::min({tile_elements<ExecSpace, T>(FusionTileKind::maps),
                               tile_elements<ExecSpace, T>(FusionTileKind::sums),
                               tile_elements<ExecSpace, T>(FusionTileKind::updates)});
  return std::size_t(Tuning<ExecSpace>::fusion_tile_vector_length) * std::size_t(fewest);
}

/// The extents of a tile launch: tiles of `lines` owned lines by `width` swept indices,
/// `bands` tiles across the swept axis and `blocks` along the owned one.
struct TileGrid {
  std::size_t owned, swept, lines, width, bands, blocks;
  std::size_t tiles() const { return bands * blocks; }
};

/// The main kernel of the tile group [A, B) of matrix sequence Seq (see the file comment).
template <class ExecSpace, class T, class Seq, int A, int B, std::size_t P, bool RowsOwned>
struct MatrixTileKernel {
  using Member            = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Steps             = MatrixGroupSteps<Seq, RowsOwned, A, B>;  // complete: along s
  using StepList          = std::decay_t<decltype(std::declval<Seq>().steps)>;
  static constexpr int VL = Tuning<ExecSpace>::fusion_tile_vector_length;
  static constexpr int E  = tile_elements<ExecSpace, T>(tile_kind<Seq, RowsOwned, A, B>());
  static constexpr int U  = Tuning<ExecSpace>::fusion_tile_unroll;
  static constexpr int NS = Steps::completes > 0 ? Steps::completes : 1;  // sums along s
  static constexpr int NO = Steps::partials > 0 ? Steps::partials : 1;    // sums along o
  /// Sums along s per line and lane: host backends keep `lanes` (independent sums, vectorised).
  static constexpr int SL = tessera::Impl::fusion_lanes<ExecSpace, T>;
  static_assert(E % SL == 0, "tessera::fusion: tile elements are a multiple of the lanes");
  static constexpr std::size_t width = std::size_t(VL) * E;
  /// The matrices the group reads before writing them (loaded into registers first).
  static constexpr std::uint64_t loads = group_matrix_loads(static_cast<const Seq*>(nullptr), A, B);
  /// Whether the group writes no matrix: it then loads its matrices with streaming loads.
  static constexpr bool read_only =
      group_matrix_stores(static_cast<const Seq*>(nullptr), A, B) == 0;

  StepList steps;
  MatrixEval<T, P, RowsOwned> ev;
  TileGrid grid;
  T* swept_sums;  // [sum along s][band][o]
  T* owned_sums;  // [sum along o][block][s]
  int scratch_level;

  /// The team scratch bytes of `threads` team threads.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int threads) {
    return Steps::partials > 0 ? std::size_t(NO) * std::size_t(threads) * width * sizeof(T) : 0;
  }

  /// The group's steps at element (o, s): matrix K at regs[K RS] (W: the matrices there), the
  /// line's sum of step c along s at sacc[c U SL], the element's sum of step q along o at
  /// oacc[q E].
  template <std::uint64_t W, int RS>
  KOKKOS_INLINE_FUNCTION void element(std::size_t o, std::size_t s, T* regs, T* sacc,
                                      T* oacc) const {
    matrix_element<A, B, W, RS>(steps, ev, o, s, regs, [&](auto step, T term) {
      constexpr int S = decltype(step)::value;
      if constexpr (Steps::template is_complete<S>) {
        sacc[Steps::template complete_at<S> * U * SL] += term;
      } else {
        oacc[Steps::template partial_at<S> * E] += term;
      }
    });
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const std::size_t band    = std::size_t(m.league_rank()) % grid.bands;
    const std::size_t block   = std::size_t(m.league_rank()) / grid.bands;
    const std::size_t s0      = band * width;
    const std::size_t o0      = block * grid.lines;
    const std::size_t o1      = o0 + grid.lines < grid.owned ? o0 + grid.lines : grid.owned;
    const std::size_t threads = std::size_t(m.team_size());
    int lane                  = 0;
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(m, VL), [&](int l) { lane = l; });
    T oacc[NO][E];
    for (int q = 0; q < NO; ++q)
      for (int e = 0; e < E; ++e)
        oacc[q][e] = 0;
    constexpr int NR = P > 0 ? int(P) : 1;
    for (std::size_t first = o0 + std::size_t(m.team_rank()); first < o1; first += threads * U) {
      T regs[NR][U][E];
      T sacc[NS][U][SL];
      for (int c = 0; c < NS; ++c)
        for (int u = 0; u < U; ++u)
          for (int l = 0; l < SL; ++l)
            sacc[c][u][l] = 0;
      // Load the U lines' elements of the matrices the group reads before writing them, then
      // compute (every matrix then read from registers), then store.
      for (int u = 0; u < U; ++u) {
        const std::size_t o = first + std::size_t(u) * threads;
        for (int e = 0; e < E; ++e) {
          const std::size_t s = s0 + std::size_t(lane) + std::size_t(e) * VL;
          const bool inside   = o < o1 && s < grid.swept;
          load_matrices<loads, U * E, read_only>(ev, o * grid.swept + s, inside, &regs[0][u][e]);
        }
      }
      for (int u = 0; u < U; ++u) {
        const std::size_t o = first + std::size_t(u) * threads;
        if (o < o1) {
          for (int e0 = 0; e0 < E; e0 += SL) {
            TESSERA_INDEPENDENT
            for (int l = 0; l < SL; ++l) {
              const int e         = e0 + l;
              const std::size_t s = s0 + std::size_t(lane) + std::size_t(e) * VL;
              if (s < grid.swept)
                element<loads, U * E>(o, s, &regs[0][u][e], &sacc[0][u][l], &oacc[0][e]);
            }
          }
        }
      }
      for (int u = 0; u < U; ++u) {
        const std::size_t o = first + std::size_t(u) * threads;
        if (o < o1) {
          for (int e = 0; e < E; ++e) {
            const std::size_t s = s0 + std::size_t(lane) + std::size_t(e) * VL;
            if (s < grid.swept) store_matrices<A, B, U * E>(steps, ev, o, s, &regs[0][u][e]);
          }
        }
      }
      if constexpr (Steps::completes > 0) {
        LineSums<T, NS * U> mine, total;
        for (int c = 0; c < NS; ++c)
          for (int u = 0; u < U; ++u) {
            T v = 0;
            for (int l = 0; l < SL; ++l)
              v += sacc[c][u][l];
            mine.v[c * U + u] = v;
          }
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(m, VL), [&](int, LineSums<T, NS * U>& v) { v += mine; },
            LineSumsReducer<T, NS * U>(total));
        Kokkos::single(Kokkos::PerThread(m), [&]() {
          for (int c = 0; c < NS; ++c)
            for (int u = 0; u < U; ++u) {
              const std::size_t o = first + std::size_t(u) * threads;
              if (o < o1)
                swept_sums[(std::size_t(c) * grid.bands + band) * grid.owned + o] =
                    total.v[c * U + u];
            }
        });
      }
    }
    if constexpr (Steps::partials > 0) {
      // The team threads' sums at each s of the band, added in team scratch.
      T* sums =
          static_cast<T*>(m.team_scratch(scratch_level).get_shmem(scratch_bytes(m.team_size())));
      for (int q = 0; q < NO; ++q)
        for (int e = 0; e < E; ++e)
          sums[((std::size_t(q) * threads + std::size_t(m.team_rank())) * E + e) * VL + lane] =
              oacc[q][e];
      m.team_barrier();
      const std::size_t first = std::size_t(m.team_rank()) * VL + std::size_t(lane);
      for (int q = 0; q < NO; ++q)
        for (std::size_t i = first; i < width; i += threads * VL) {
          T total = 0;
          for (std::size_t t = 0; t < threads; ++t)
            total += sums[(std::size_t(q) * threads + t) * width + i];
          const std::size_t s = s0 + i;
          if (s < grid.swept)
            owned_sums[(std::size_t(q) * grid.blocks + block) * grid.swept + s] = total;
        }
    }
  }
};

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
