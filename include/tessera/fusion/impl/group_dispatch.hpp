// What the kernels of both kinds of sequences share: the launch shape, and the dispatch from a
// plan's run-time groups to their compiled kernels.
#pragma once

#include <tessera/core/tiling.hpp>

#include <cstddef>

namespace tessera {
namespace fusion {
namespace Impl {

using tessera::Impl::Tuning;

/// A launch: threads per team, elements per thread (vector sequences) or owned lines per team
/// iteration (matrix sequences), and teams.
struct LaunchShape {
  int team_size, per_thread;
  std::size_t league;
};

/// The launch shape over n elements (0: the backend's tuning).
template <class ExecSpace>
LaunchShape vector_launch_shape(std::size_t n, int team_size, int per_thread) {
  LaunchShape shape;
  shape.team_size  = team_size > 0 ? team_size : Tuning<ExecSpace>::fusion_vector_team_size;
  shape.per_thread = per_thread > 0 ? per_thread : Tuning<ExecSpace>::fusion_vector_per_thread;
  const std::size_t chunk = std::size_t(shape.team_size) * std::size_t(shape.per_thread);
  shape.league            = (n + chunk - 1) / chunk;
  return shape;
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
