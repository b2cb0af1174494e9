// The common body of interval_move, interval_gather and interval_scatter: their checks, then
// one load-balanced kernel over the intervals in the order IntervalOptions::order asks.
#pragma once

#include <tessera/core/impl/call_memory.hpp>
#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/core/impl/errors.hpp>
#include <tessera/interval/impl/check_moves.hpp>
#include <tessera/interval/impl/check_offsets.hpp>
#include <tessera/interval/impl/check_sequences.hpp>
#include <tessera/interval/impl/destination_order.hpp>
#include <tessera/interval/impl/load_balance.hpp>
#include <tessera/interval/impl/move_items.hpp>
#include <tessera/interval/impl/sequence_traits.hpp>
#include <tessera/interval/interval_options.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {
namespace Impl {

/// The moves' common body: static and host checks, the device checks of IntervalOptions,
/// then one load-balanced kernel over the intervals as given or regrouped by destination
/// (IntervalOptions::order).
template <class ExecSpace, class Gather, class Scatter, class Offsets, class Input, class Output>
void move_intervals(const ExecSpace& space, const char* fn, std::int64_t total,
                    const Gather& gather, const Scatter& scatter, const Offsets& offsets,
                    const Input& input, const Output& output, const IntervalOptions& options) {
  static_assert(is_readable_sequence<ExecSpace, Gather>() &&
                    is_readable_sequence<ExecSpace, Scatter>() &&
                    std::is_integral<sequence_value_t<Gather>>::value &&
                    std::is_integral<sequence_value_t<Scatter>>::value,
                "tessera: gather and scatter must be rank-1 integer Views accessible from the "
                "execution space, or CountingSequences");
  static_assert(is_readable_sequence<ExecSpace, Input>(),
                "tessera: input must be a rank-1 View accessible from the execution space or a "
                "CountingSequence");
  static_assert(
      Kokkos::is_view<Output>::value && Output::rank == 1 &&
          !std::is_const<typename Output::value_type>::value &&
          Kokkos::SpaceAccessibility<ExecSpace, typename Output::memory_space>::accessible,
      "tessera: output must be a writable rank-1 View accessible from the execution "
      "space");
  static_assert(std::is_same<sequence_value_t<Input>, typename Output::value_type>::value,
                "tessera: input and output must hold the same type");
  static_assert(std::is_trivially_copyable<typename Output::value_type>::value,
                "tessera: the moved type must be trivially copyable");
  const std::size_t n = offsets.extent(0);
  const ProfilingRegion region("tessera::interval::", fn);
  require_sequence_length(fn, "gather", gather, n);
  require_sequence_length(fn, "scatter", scatter, n);
  require(!sequences_share_memory(output, input), fn, "output shares memory with input");
  require(!sequences_share_memory(output, gather), fn, "output shares memory with gather");
  require(!sequences_share_memory(output, scatter), fn, "output shares memory with scatter");
  require(!sequences_share_memory(output, offsets), fn, "output shares memory with offsets");
  const auto input_extent  = static_cast<std::int64_t>(input.extent(0));
  const auto output_extent = static_cast<std::int64_t>(output.extent(0));
  const MoveItems<Gather, Scatter, Input, Output> op(gather, scatter, input, output);
  const IntervalTile tile = interval_tile(space, fn, total, offsets, op, options.tile);
  const auto run_checks   = [&] {
    check_offsets(space, fn, total, offsets, options);
    if (options.check) {
      check_move_ranges(space, fn, total, offsets, gather, scatter, input_extent, output_extent);
    }
    if (options.check_overlap) check_disjoint_destinations(space, fn, total, offsets, scatter);
  };
  const std::string label    = concat("tessera::interval::", fn);
  Workspace* const workspace = options.workspace;
  using T                    = typename Output::value_type;
  if (total == 0 ||
      !takes_by_destination<ExecSpace>(options.order, total, static_cast<std::int64_t>(n),
                                       output.span() * sizeof(T))) {
    if (!measures_only(workspace)) run_checks();
    for_each_item_with_owner(space, label, total, offsets, op, tile, workspace);
    return;
  }
  using Regrouped   = RegroupedMoves<ExecSpace, std::remove_const_t<sequence_value_t<Gather>>,
                                   std::remove_const_t<sequence_value_t<Scatter>>>;
  using RegroupedOp = MoveItems<decltype(std::declval<Regrouped>().gather),
                                decltype(std::declval<Regrouped>().scatter), Input, Output>;
  const DestinationRegions regions = destination_regions(output.extent(0), sizeof(T));
  const IntervalTile regrouped_shape =
      interval_tile_shape<RegroupedOp>(space, fn, total, offsets, options.tile);
  const std::int64_t pieces =
      merge_path_pieces(total, static_cast<std::int64_t>(n), regrouped_shape.items_per_team);
  // one take of the call's memory: the regrouped intervals and the merge-path points, which
  // both the regrouped move and its fallback use
  CallMemory<typename ExecSpace::memory_space> memory;
  const std::int64_t words  = Regrouped::words(n, regions);
  const std::size_t records = memory.template add<std::uint64_t>(words);
  const std::size_t cuts    = memory.template add<MergePoint>(pieces + 1);
  if (!memory.take(workspace, "tessera::interval::regrouped_moves")) return;
  const Regrouped regrouped(memory.template view<std::uint64_t>(records, words).data(),
                            static_cast<int>(n), regions);
  const RegroupedOp regrouped_op(regrouped.gather, regrouped.scatter, input, output);
  const IntervalTile regrouped_tile =
      interval_tile(space, fn, total, regrouped.offsets, regrouped_op, options.tile);
  const auto points = memory.template view<MergePoint>(cuts, pieces + 1);
  run_checks();
  if (!regroup_by_destination(space, total, offsets, gather, scatter, regrouped, points,
                              regrouped_tile.items_per_team, pieces)) {
    partition_and_run(space, label, total, regrouped.offsets, regrouped_op, regrouped_tile, points);
    return;
  }
  for_each_item_of_pieces(space, label, total, regrouped.offsets, regrouped_op, regrouped_tile,
                          points);
}

}  // namespace Impl
}  // namespace tessera
