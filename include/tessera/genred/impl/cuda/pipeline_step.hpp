// The position of one step in the pipelines of the streamed tile engines (matrix_tiles.hpp,
// matrix_tiles_sm90.hpp): the steps of all tiles form one sequence, and a step is advanced
// without dividing by the runtime number of k-steps per tile.
#pragma once

namespace tessera {
namespace Impl {

/// K-step `k` of the tile at inner row `j0`, held in pipeline stage `stage` of Stages.
template <int Stages>
struct PipelineStep {
  int k;
  int j0;
  int stage;

  /// The stage after `s`, cyclically.
  __device__ __forceinline__ static int next_stage(int s) { return s + 1 == Stages ? 0 : s + 1; }

  /// The next step: the next k-step of the tile, or the first of the next tile (BN inner rows
  /// further) after the last of `steps`; the next stage, cyclically.
  __device__ __forceinline__ void advance(int steps, int BN) {
    stage = next_stage(stage);
    if (++k == steps) {
      k = 0;
      j0 += BN;
    }
  }
};

}  // namespace Impl
}  // namespace tessera
