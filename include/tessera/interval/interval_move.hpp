// IntervalMove, IntervalGather, IntervalScatter: many variable-length copies in one
// load-balanced kernel (a vectorised device memcpy).
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/interval/impl/check_moves.hpp>
#include <tessera/interval/impl/destination_order.hpp>
#include <tessera/interval/impl/load_balance.hpp>
#include <tessera/interval/interval_options.hpp>
#include <tessera/interval/sequence.hpp>

#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace tessera {
namespace Impl {

/// Unsigned type of the item indices computed from starts of integer type T: 32 bits where a
/// start plus a rank cannot reach 2^32 - 1 (T's values at most 2^31 - 1), else 64.
template <class T>
using move_index_t =
    std::conditional_t<(std::numeric_limits<T>::max() <= INT_MAX), std::uint32_t, std::uint64_t>;

/// Per-item operation of the moves: the r-th item of interval k goes from input[gather[k] + r]
/// to output[scatter[k] + r]. Each team stages its intervals' two starts once, less the local
/// index of the interval's first item, in the narrowest index type that holds them (modular
/// arithmetic: local item q is at source + q). Ranges outside the sequences (possible only when
/// IntervalOptions::check is off) are neither read nor written.
template <class Gather, class Scatter, class Input, class Output>
struct MoveItems {
  static constexpr bool fills = false;
  using SourceIndex           = move_index_t<sequence_value_t<Gather>>;
  using DestinationIndex      = move_index_t<sequence_value_t<Scatter>>;
  struct staged_type {
    SourceIndex source;
    DestinationIndex destination;
  };
  using value_type  = typename Output::non_const_value_type;
  using target_type = DestinationIndex;  // the output item
  Gather gather;
  Scatter scatter;
  Input input;
  Output output;
  /// The extents, capped at the index types' largest value (no valid index reaches it).
  SourceIndex input_limit;
  DestinationIndex output_limit;

  MoveItems(const Gather& g, const Scatter& s, const Input& in, const Output& out)
      : gather(g),
        scatter(s),
        input(in),
        output(out),
        input_limit(capped<SourceIndex>(in.extent(0))),
        output_limit(capped<DestinationIndex>(out.extent(0))) {}

  /// extent, or Index's largest value if smaller.
  template <class Index>
  static Index capped(std::uint64_t extent) {
    const auto largest = static_cast<std::uint64_t>(std::numeric_limits<Index>::max());
    return static_cast<Index>(extent < largest ? extent : largest);
  }

  /// Interval k, whose first item is the team's local item `first`.
  KOKKOS_INLINE_FUNCTION staged_type stage(std::int64_t k, int first) const {
    return {static_cast<SourceIndex>(static_cast<SourceIndex>(gather(k)) -
                                     static_cast<SourceIndex>(first)),
            static_cast<DestinationIndex>(static_cast<DestinationIndex>(scatter(k)) -
                                          static_cast<DestinationIndex>(first))};
  }
  KOKKOS_INLINE_FUNCTION value_type load(int q, const staged_type& s) const {
    const auto j = static_cast<SourceIndex>(s.source + static_cast<SourceIndex>(q));
    return j < input_limit ? value_type(input(j)) : value_type{};
  }
  KOKKOS_INLINE_FUNCTION target_type target(int q, const staged_type& s) const {
    return static_cast<DestinationIndex>(s.destination + static_cast<DestinationIndex>(q));
  }
  KOKKOS_INLINE_FUNCTION void store(target_type j, const value_type& v) const {
    if (j < output_limit) output(j) = v;
  }
};

/// The moves' common body: static and host checks, the device checks of IntervalOptions,
/// then one load-balanced kernel over the intervals as given or regrouped by destination
/// (IntervalOptions::order).
template <class ExecSpace, class Gather, class Scatter, class Offsets, class Input, class Output>
void move_intervals(const ExecSpace& space, const char* fn, std::int64_t total,
                    const Gather& gather, const Scatter& scatter, const Offsets& offsets,
                    const Input& input, const Output& output, const IntervalOptions& options,
                    IntervalWorkspace<ExecSpace>* workspace) {
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
  const std::string label = concat("tessera::interval::", fn);
  IntervalWorkspace<ExecSpace> own;  // the call's memory when it is given none
  IntervalWorkspace<ExecSpace>& memory = workspace != nullptr ? *workspace : own;
  using T                              = typename Output::value_type;
  if (total == 0 ||
      !takes_by_destination<ExecSpace>(options.order, total, static_cast<std::int64_t>(n),
                                       output.span() * sizeof(T))) {
    run_checks();
    for_each_item_with_owner(space, label, total, offsets, op, tile, &memory);
    return;
  }
  using Regrouped = RegroupedMoves<ExecSpace, std::remove_const_t<sequence_value_t<Gather>>,
                                   std::remove_const_t<sequence_value_t<Scatter>>>;
  const DestinationRegions regions = destination_regions(output.extent(0), sizeof(T));
  const Regrouped regrouped(memory.words(space, Regrouped::words(n, regions)).data(),
                            static_cast<int>(n), regions);
  const MoveItems<decltype(regrouped.gather), decltype(regrouped.scatter), Input, Output>
      regrouped_op(regrouped.gather, regrouped.scatter, input, output);
  const IntervalTile regrouped_tile =
      interval_tile(space, fn, total, regrouped.offsets, regrouped_op, options.tile);
  const std::int64_t pieces =
      merge_path_pieces(total, static_cast<std::int64_t>(n), regrouped_tile.items_per_team);
  const auto points = memory.points(space, pieces + 1);
  run_checks();
  if (regroup_by_destination(space, total, offsets, gather, scatter, regrouped, points,
                             regrouped_tile.items_per_team, pieces)) {
    for_each_item_of_pieces(space, label, total, regrouped.offsets, regrouped_op, regrouped_tile,
                            points);
  } else {
    for_each_item_with_owner(space, label, total, regrouped.offsets, regrouped_op, regrouped_tile,
                             &memory);
  }
}

}  // namespace Impl

/// For every interval k of counts[k] = offsets[k + 1] - offsets[k] items (offsets[n] taken as
/// total): output[scatter[k] + r] = input[gather[k] + r] for r in [0, counts[k]). Many
/// variable-length copies as one load-balanced kernel (moderngpu's IntervalMove): any
/// distribution of counts costs O(total + n).
///
/// - offsets: rank-1 integer View, the exclusive scan of the counts (exclusive_scan).
/// - gather, scatter: n source and destination starts, each a rank-1 integer View of extent n
///   or a CountingSequence (counting_sequence(s): s, s + 1, ...).
/// - input: rank-1 View or CountingSequence; output: writable rank-1 View of the same trivially
///   copyable type (int, float, double, structs).
/// Throws before any write: gather or scatter not of n entries, output sharing memory with
/// another argument, total outside [0, 2^31 - 1]; with options.check (the default: one pass over
/// the intervals and a fence) offsets that do not start at 0, decrease or exceed total, and
/// source or destination ranges outside input or output; with options.check_overlap (a sort)
/// two intervals writing the same output item. Without check_overlap, overlapping destinations
/// are the caller's responsibility (which value lands there is unspecified). options.order: the
/// order in which the kernel takes the intervals (IntervalOrder; by default regrouped by
/// destination for large moves on GPUs). workspace (optional): memory reused across calls
/// (IntervalWorkspace).
template <class ExecSpace, class Gather, class Scatter, class Offsets, class Input, class Output>
void interval_move(const ExecSpace& space, std::int64_t total, const Gather& gather,
                   const Scatter& scatter, const Offsets& offsets, const Input& input,
                   const Output& output, const IntervalOptions& options = {},
                   IntervalWorkspace<ExecSpace>* workspace = nullptr) {
  Impl::move_intervals(space, "interval_move", total, gather, scatter, offsets, input, output,
                       options, workspace);
}

/// interval_move with consecutive destinations: output[offsets[k] + r] = input[gather[k] + r]
/// for r in [0, counts[k]), so output holds the gathered intervals one after the other (its
/// extent must be at least total). Same arguments, checks and options as interval_move;
/// check_overlap has nothing to verify (the destinations are disjoint by construction).
template <class ExecSpace, class Gather, class Offsets, class Input, class Output>
void interval_gather(const ExecSpace& space, std::int64_t total, const Gather& gather,
                     const Offsets& offsets, const Input& input, const Output& output,
                     const IntervalOptions& options          = {},
                     IntervalWorkspace<ExecSpace>* workspace = nullptr) {
  IntervalOptions o = options;
  o.check_overlap   = false;
  o.order           = IntervalOrder::given;
  Impl::move_intervals(space, "interval_gather", total, gather, offsets, offsets, input, output, o,
                       workspace);
}

/// interval_move with consecutive sources: output[scatter[k] + r] = input[offsets[k] + r] for
/// r in [0, counts[k]), so input holds the intervals one after the other (its extent must be at
/// least total). Same arguments, checks and options as interval_move.
template <class ExecSpace, class Scatter, class Offsets, class Input, class Output>
void interval_scatter(const ExecSpace& space, std::int64_t total, const Scatter& scatter,
                      const Offsets& offsets, const Input& input, const Output& output,
                      const IntervalOptions& options          = {},
                      IntervalWorkspace<ExecSpace>* workspace = nullptr) {
  Impl::move_intervals(space, "interval_scatter", total, offsets, scatter, offsets, input, output,
                       options, workspace);
}

}  // namespace tessera
