// The options of fusion::run (run.hpp): how the plan is chosen, the launch shape, the tuner and
// the workspace.
#pragma once

#include <tessera/fusion/tuner.hpp>
#include <tessera/core/workspace.hpp>

#include <cstdint>
#include <optional>

namespace tessera {
namespace fusion {

/// How run() chooses its plan (plan.hpp).
enum class PlanChoice {
  model,   ///< the valid plan that moves the fewest bytes, launches counted
  unfused  ///< every step its own kernel (the sequence of library calls)
};

/// Options of run().
struct FusionOptions {
  /// How the plan is chosen when neither cuts nor tuner is given.
  PlanChoice choice = PlanChoice::model;
  /// A plan given by its cuts (bit s: a kernel boundary after step s); overrides choice.
  std::optional<std::uint32_t> cuts;
  /// Threads per team; 0: Tuning<ExecSpace>'s.
  int team_size = 0;
  /// Elements per thread (vector sequences) or matrix lines per team (matrix sequences: 1, 4,
  /// 16 or 32 lines a team sweeps at a time, or tiles of at least fusion::tile_lines lines for
  /// the groups valid as tiles, the others then holding each line in a team's registers where
  /// it fits (Tuning<ExecSpace>::fusion_held_*), else sweeping
  /// Tuning<ExecSpace>::fusion_matrix_rows lines at a time); 0: Tuning<ExecSpace>'s.
  int per_thread = 0;
  /// When set (and no cuts are given): the plan and launch shape the tuner found fastest for
  /// this sequence, value type, extents and device, timing the candidates on the first call
  /// (tuner.hpp; that call waits on the host). The options' own shape is then ignored.
  Tuner* tuner = nullptr;
  /// When set: the memory matrix groups keep their partial sums in (core/workspace.hpp), so
  /// that the call does not allocate and free it (freeing waits for the device). A size query
  /// (Workspace::size_query()) records what the plan the model picks needs (a tuner is not run)
  /// and launches nothing.
  tessera::Workspace* workspace = nullptr;
};

}  // namespace fusion
}  // namespace tessera
