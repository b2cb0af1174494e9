// What the kernels of both kinds of sequences share: the launch shape, the choice of streaming
// stores, and the dispatch from a plan's run-time groups to their compiled kernels.
#pragma once

#include <tessera/core/impl/tiling.hpp>
#include <tessera/fusion/plan.hpp>

#include <cstddef>
#include <cstdint>

namespace tessera {
namespace fusion {
namespace Impl {

/// A launch: threads per team, elements per thread (vector sequences) or owned lines per team
/// (matrix sequences), and teams (with matrix tiles: the most any of the run's kernels may
/// launch).
struct LaunchShape {
  int team_size, per_thread;
  std::size_t league;
  /// The backend's default shape, not the caller's or the tuner's: matrix tile groups then take
  /// the default of their kind (Tuning::fusion_tile_shape, fusion_tile_shape_owned_sums).
  bool automatic = false;
};

/// Whether a group that reads the symbols in `loads` and writes those in `stores` (bit K:
/// symbol K, each of `elements` values of type T) writes the ones it does not read with
/// streaming stores: on host backends, when the Views it touches outgrow the caches
/// (Tuning::fusion_streaming_min_bytes; an output the group reads first is in cache already).
template <class ExecSpace, class T>
bool streams_outputs(std::uint64_t loads, std::uint64_t stores, double elements) {
  const double footprint = double(popcount(loads | stores)) * elements * double(sizeof(T));
  return (stores & ~loads) != 0 &&
         footprint >= double(tessera::Impl::Tuning<ExecSpace>::fusion_streaming_min_bytes);
}

/// Calls visitor.template visit<A, B>() for the run-time group [a, b) of a sequence of N steps
/// (a < b <= N): the dispatch from a plan's groups to their compiled kernels.
template <int N, int A = 0, int B = 1, class Visitor>
void visit_group(int a, int b, Visitor& visitor) {
  if constexpr (A < N) {
    if constexpr (B <= N) {
      if (a == A && b == B) {
        visitor.template visit<A, B>();
      } else {
        visit_group<N, A, B + 1>(a, b, visitor);
      }
    } else {
      visit_group<N, A + 1, A + 2>(a, b, visitor);
    }
  }
}

}  // namespace Impl
}  // namespace fusion
}  // namespace tessera
