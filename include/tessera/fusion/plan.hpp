// Plans: how a sequence is cut into kernels (the paper's fusion rules and cost model).
//
// A plan cuts the sequence into groups of consecutive steps, one kernel each, given by its cuts
// (bit s set: a kernel boundary after step s). A group is valid unless
//   - a step reads a scalar that a step of the same group reduces: the reduction's result
//     exists only once every team has finished, which needs a kernel boundary (the paper's
//     global barrier), and while the kernel runs the target holds neither the old value nor
//     the result (a reduction step reading its own target is rejected at compile time);
//   - it holds two reductions (a kernel reduces one value into its target without a temporary
//     buffer; the model then pays a second read of what they share).
// Inside a group, a vector that an earlier step of the group wrote is read from registers; every
// other vector the group reads is loaded once, every vector it writes stored once. The model
// counts those bytes plus Tuning::fusion_launch_bytes per kernel.
//
// Matrix sequences run in teams that own whole lines of the matrix (rows of a LayoutRight
// matrix, columns of a LayoutLeft one: the owned axis; their threads sweep the other, contiguous
// axis). A nested map-reduce along the swept axis (row_sum when rows are owned) is complete
// inside the team: later steps of the group read its result at the owned index (the team
// sweeps its lines again, the matrix then coming from cache: ATAX reads A once from memory). One
// along the owned axis (col_sum when rows are owned) is partial: each team sums its lines into
// scratch, and a second launch adds the teams' partial sums and evaluates the step's outer
// expression. A matrix group is valid unless
//   - a step reads or writes the target of an earlier partial step of the group (it is written
//     only after the kernel);
//   - a step reads at the swept index a vector that a complete step of the group writes (other
//     teams write it meanwhile);
//   - a partial step's outer expression (evaluated after the kernel) reads a vector that a later
//     step of the group writes.
// A group can also run as tiles (impl/matrix_tile_kernel.hpp): a team owns a tile of lines x a
// band of the swept axis and every nested sum of the group is partial, its result written after
// the kernel by a second launch. Such a group is valid unless
//   - a step reads or writes the target of an earlier nested sum of the group;
//   - a nested sum's outer expression reads a vector that a later step of the group writes.
// Every single step is valid as tiles (y = A y included: y is read during the kernel and written
// after it). A tile group reads each matrix once; the model counts no re-reads for it. Under a
// tile launch shape, a group valid only as lines holds each line in a team's registers where the
// lines fit (impl/matrix_held_kernel.hpp), reading each matrix once too.
#pragma once

#include <tessera/fusion/impl/plan_model.hpp>
#include <tessera/fusion/step.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace tessera {
namespace fusion {

/// The fewest lines per team (a matrix launch shape's per_thread) that make a matrix group run as
/// tiles of that many lines by a band of the swept axis, when it is valid as tiles (fewer: its
/// teams sweep whole lines, per_thread at a time).
inline constexpr int tile_lines = 64;

/// The valid plans of a sequence type (their cuts), in increasing order of the cuts (the fully
/// fused plan, if valid, first; the unfused plan, valid unless the sequence has no valid plan,
/// last). Layout: that of a matrix sequence's matrices (which axis the teams own); tiles:
/// whether a matrix sequence's groups may run as tiles (a launch shape of at least
/// fusion::tile_lines lines per team), or all sweep whole lines.
template <class Seq, class Layout = Kokkos::LayoutRight>
std::vector<std::uint32_t> candidate_plans(bool tiles = true) {
  std::vector<std::uint32_t> plans;
  constexpr bool rows_owned = !std::is_same_v<Layout, Kokkos::LayoutLeft>;
  for (std::uint32_t cuts = 0; cuts <= Impl::unfused_cuts<Seq>(); ++cuts) {
    if (Impl::plan_valid<Seq, rows_owned>(cuts, tiles)) plans.push_back(cuts);
  }
  return plans;
}

}  // namespace fusion
}  // namespace tessera
