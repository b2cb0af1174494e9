// The plan of a pairwise call's blocks, resolved once per call: the limits its blocks are cut
// within (the memory budget, PairwiseOptions::budget_bytes or what the backend says is free, and
// the block-side floor, PairwiseOptions::min_block_side or the occupancy floor), the budget's
// share for the blocks' function data, and the schedule (BlockScheduler) that fits them.
//
// A single-rank call resolves its limits (block_limits) and plans with them (plan_blocks). The
// distributed call (tessera::mpi, mpi/impl/distributed_pairwise.hpp) receives the limits the
// single-rank call resolved, takes the smallest of all ranks', and plans with those, so that every
// rank cuts the same grid.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/core/kokkos_compat.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/backend.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/pairwise_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <utility>

namespace tessera {
namespace Impl {

/// The occupancy floor of the block side on `space` (see PairwiseOptions::min_block_side).
template <class ExecSpace>
std::size_t automatic_min_block_side(const ExecSpace& space) {
  const double share = Tuning<ExecSpace>::pairwise_occupancy_share;
  return static_cast<std::size_t>(std::floor(std::sqrt(share * double(space.concurrency()))));
}

/// Bytes of execution-space memory the call may use (PairwiseOptions::budget_bytes).
template <class ExecSpace>
std::size_t pairwise_budget(const ExecSpace& space, const PairwiseOptions& options) {
  if (options.budget_bytes > 0) return options.budget_bytes;
  if (auto free = PairwiseBackend<ExecSpace>::free_memory_bytes(space)) {
    return static_cast<std::size_t>(double(*free) * TuningBase::pairwise_free_memory_share);
  }
  return Tuning<ExecSpace>::pairwise_default_budget_bytes;
}

/// The share of a budget that the blocks' function data may take (the rest holds the two block
/// buffers).
inline std::size_t pairwise_data_share(std::size_t budget) {
  return budget - static_cast<std::size_t>(budget * TuningBase::pairwise_output_share);
}

/// The limits a call's blocks are cut within: its options resolved on its execution space.
struct BlockLimits {
  std::size_t budget_bytes;    ///< PairwiseOptions::budget_bytes resolved (pairwise_budget)
  std::size_t min_block_side;  ///< PairwiseOptions::min_block_side resolved (automatic: the
                               ///< occupancy floor, automatic_min_block_side)
};

/// Resolves the budget and the block-side floor of a call on `space` (reads the free device
/// memory where the budget is automatic).
template <class ExecSpace>
BlockLimits block_limits(const ExecSpace& space, const PairwiseOptions& options) {
  return {pairwise_budget(space, options), options.min_block_side == PairwiseOptions::automatic
                                               ? automatic_min_block_side(space)
                                               : options.min_block_side};
}

/// The plan of a call's blocks (plan_blocks): the schedule and what it was made within.
struct BlockPlan {
  BlockScheduler scheduler;    ///< the blocks, largest first
  std::size_t budget_bytes;    ///< the budget (BlockLimits::budget_bytes)
  std::size_t data_bytes;      ///< its share for the blocks' function data (BlockOp::reserve)
  std::size_t min_block_side;  ///< the block-side floor (BlockLimits::min_block_side)
};

/// Schedules the blocks of `op` within `limits`: the output share of the budget holds two block
/// buffers, the rest the largest block's streamed function data (the block side shrinks until
/// it does, or the call fails with std::length_error). options: the splits hint.
template <class BlockOp>
BlockPlan plan_blocks(const BlockOp& op, BlockTriangleMode mode, const BlockLimits& limits,
                      const PairwiseOptions& options, const char* caller) {
  using T                         = typename BlockOp::value_type;
  const std::size_t budget        = limits.budget_bytes;
  const std::size_t data_share    = pairwise_data_share(budget);
  const std::size_t output_budget = budget - data_share;
  // A block buffer never needs more than the whole rows x cols square (one block).
  const std::size_t needed =
      std::max<std::size_t>(layout_size(MatrixLayout::dense, op.rows(), op.cols()), 1);
  std::size_t max_elements =
      std::max<std::size_t>(std::min(output_budget / 2 / sizeof(T), needed), 1);
  // The hint splits the whole output: a budget smaller than the output already cuts it into
  // needed / max_elements blocks, so the budget is split by proportionally less (else an output
  // 4 times the budget would run in blocks 32 times smaller than the budget allows).
  const std::size_t hint =
      options.n_splits_hint > 0 ? options.n_splits_hint : TuningBase::pairwise_splits_hint;
  BlockSchedulerConfig config;
  config.n_splits_hint = std::max<std::size_t>(
      static_cast<std::size_t>(double(hint) * double(max_elements) / double(needed) + 0.5), 1);
  config.min_block_side = limits.min_block_side;
  for (;;) {
    config.max_output_elements = max_elements;
    BlockScheduler s(op.rows(), op.cols(), mode, config);
    std::size_t data = 0;
    for (const BlockInfo& b : s.blocks())
      data = std::max(data, op.block_data_bytes(b));
    if (data <= data_share) return {std::move(s), budget, data_share, limits.min_block_side};
    if (s.block_side() == 1 || max_elements == 1) {
      throw std::length_error(concat("tessera::", caller, ": the functions of one block need ",
                                     data, " bytes, more than the budget's ", data_share,
                                     " for function data (raise budget_bytes)"));
    }
    max_elements = std::max<std::size_t>(max_elements / 4, 1);
  }
}

}  // namespace Impl
}  // namespace tessera
