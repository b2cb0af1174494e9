// What the kernels of both kinds of sequences share: the launch shape, and the dispatch from a
// plan's run-time groups to their compiled kernels.
#pragma once

#include <cstddef>

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
