// IntervalMove, IntervalGather, IntervalScatter: many variable-length copies in one
// load-balanced kernel (a vectorised device memcpy).
#pragma once

#include <tessera/interval/impl/move_intervals.hpp>
#include <tessera/interval/interval_options.hpp>
#include <tessera/interval/sequence.hpp>

#include <cstdint>

namespace tessera {

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
/// destination for large moves on GPUs). options.workspace (optional): memory reused across
/// calls (tessera::Workspace; a size query runs nothing).
template <class ExecSpace, class Gather, class Scatter, class Offsets, class Input, class Output>
void interval_move(const ExecSpace& space, std::int64_t total, const Gather& gather,
                   const Scatter& scatter, const Offsets& offsets, const Input& input,
                   const Output& output, const IntervalOptions& options = {}) {
  Impl::move_intervals(space, "interval_move", total, gather, scatter, offsets, input, output,
                       options);
}

/// interval_move with consecutive destinations: output[offsets[k] + r] = input[gather[k] + r]
/// for r in [0, counts[k]), so output holds the gathered intervals one after the other (its
/// extent must be at least total). Same arguments, checks and options as interval_move;
/// check_overlap has nothing to verify (the destinations are disjoint by construction).
template <class ExecSpace, class Gather, class Offsets, class Input, class Output>
void interval_gather(const ExecSpace& space, std::int64_t total, const Gather& gather,
                     const Offsets& offsets, const Input& input, const Output& output,
                     const IntervalOptions& options = {}) {
  IntervalOptions o = options;
  o.check_overlap   = false;
  o.order           = IntervalOrder::given;
  Impl::move_intervals(space, "interval_gather", total, gather, offsets, offsets, input, output, o);
}

/// interval_move with consecutive sources: output[scatter[k] + r] = input[offsets[k] + r] for
/// r in [0, counts[k]), so input holds the intervals one after the other (its extent must be at
/// least total). Same arguments, checks and options as interval_move.
template <class ExecSpace, class Scatter, class Offsets, class Input, class Output>
void interval_scatter(const ExecSpace& space, std::int64_t total, const Scatter& scatter,
                      const Offsets& offsets, const Input& input, const Output& output,
                      const IntervalOptions& options = {}) {
  Impl::move_intervals(space, "interval_scatter", total, offsets, scatter, offsets, input, output,
                       options);
}

}  // namespace tessera
