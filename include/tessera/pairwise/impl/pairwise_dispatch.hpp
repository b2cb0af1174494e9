// How a pairwise call (pairwise.hpp) reaches the engine: the output target that runs the engine
// itself (is_pairwise_target: tessera::mpi's distributed .npy file), run_pairwise, which resolves
// the call's limits, plans its blocks once (impl/block_plan.hpp), builds the writer of its output
// and runs the pipeline (impl/block_pipeline.hpp), and the PCF calls' validation and choice of
// accumulation type (run_pcf, with_pcf_metric).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/profiling_region.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/function_shape.hpp>
#include <tessera/pairwise/impl/block_pipeline.hpp>
#include <tessera/pairwise/impl/block_plan.hpp>
#include <tessera/pairwise/impl/pairwise_checks.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/npy_file.hpp>
#include <tessera/pairwise/pairwise_options.hpp>
#include <tessera/pairwise/pcf_block_op.hpp>
#include <tessera/pairwise/pcf_collection.hpp>
#include <tessera/pairwise/pcf_operations.hpp>
#include <tessera/pairwise/result_writers.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace tessera {
namespace Impl {

/// True for output targets that schedule and run the engine themselves: a type with
/// `static constexpr bool pairwise_target = true` and a member
///   PairwiseReport run(const char* caller, const ExecSpace&, BlockOp&, BlockTriangleMode,
///                      MatrixLayout, TriangleSkipMode, const std::vector<std::size_t>& shape,
///                      const BlockLimits& limits, const PairwiseOptions&) const;
/// called once the call's arguments are checked, with the call's resolved limits (which it
/// plans its blocks within, plan_blocks) (tessera::mpi's distributed .npy file).
template <class Output, class = void>
inline constexpr bool is_pairwise_target = false;
template <class Output>
inline constexpr bool is_pairwise_target<Output, std::enable_if_t<Output::pairwise_target>> = true;

/// Resolves the call's limits, plans its blocks, builds the writer of `out` (a View or an
/// NpyFile) and runs the pipeline; or hands the limits to a target that runs the engine itself.
template <class ExecSpace, class BlockOp, class Output>
PairwiseReport run_pairwise(const char* caller, const ExecSpace& space, BlockOp& op,
                            MatrixLayout layout, TriangleSkipMode skip, const FunctionShape& rs,
                            const FunctionShape& cs, const Output& out,
                            const PairwiseOptions& options) {
  using T = typename BlockOp::value_type;
  const ProfilingRegion region("tessera::pairwise::", caller);
  space.fence();  // inputs or the output may be in use by work queued on space
  const auto mode =
      layout == MatrixLayout::dense ? BlockTriangleMode::full : BlockTriangleMode::upper_triangle;
  const auto shape         = output_shape(layout, rs, cs);
  const BlockLimits limits = block_limits(space, options);
  if constexpr (is_pairwise_target<Output>) {
    // a target that runs the engine itself (the distributed .npy file of mpi/pairwise.hpp)
    return out.run(caller, space, op, mode, layout, skip, shape, limits, options);
  } else if constexpr (std::is_same_v<Output, NpyFile>) {
    require(!out.path.empty(), caller, "out path is empty");
    const BlockPlan plan = plan_blocks(op, mode, limits, options, caller);
    NpyWriter<T> writer(out, shape, layout, op.cols());
    return run_block_pipeline(space, op, writer, plan.scheduler, plan.data_bytes, skip, options);
  } else {
    check_output_view<T>(caller, out, layout, shape, op.rows(), op.cols());
    using Space = typename Output::memory_space;
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space>::accessible ||
                      Kokkos::SpaceAccessibility<ExecSpace, Space>::accessible,
                  "tessera::pairwise: out must be in host memory or in memory the execution "
                  "space can write");
    const BlockPlan plan = plan_blocks(op, mode, limits, options, caller);
    ArrayWriter<T, Space> writer(out.data(), layout, op.cols());
    return run_block_pipeline(space, op, writer, plan.scheduler, plan.data_bytes, skip, options);
  }
}

/// Runs a PCF call with operation op, choosing the accumulation type.
template <class ExecSpace, class Op, class T, class RS, class CS, class Output>
PairwiseReport run_pcf(const char* caller, const ExecSpace& space, const Op& op,
                       const PcfCollection<T, RS>& x, const PcfCollection<T, CS>& y,
                       bool same_functions, MatrixLayout layout, TriangleSkipMode skip,
                       const Output& out, const PairwiseOptions& options) {
  require(!(options.end_time != options.end_time) && options.end_time > -math::infinity<double>(),
          caller, "options.end_time is NaN or -infinity");
  space.fence();  // the functions may be written by work queued on space
  const T end = static_cast<T>(options.end_time);
  require_contiguous_pcfs(caller, x, "X");
  require_contiguous_pcfs(caller, y, "Y");
  const PcfSummary sx = validate_pcfs(x, end, caller, "X");
  const PcfSummary sy = same_functions ? sx : validate_pcfs(y, end, caller, "Y");
  if (std::max(sx.max_points, sy.max_points) > std::size_t(std::numeric_limits<int>::max())) {
    throw std::length_error(
        concat("tessera::", caller, ": a function has more than 2^31 - 1 ", "breakpoints"));
  }
  require_output_apart(caller, out, x.breakpoints(), "X's breakpoints");
  require_output_apart(caller, out, y.breakpoints(), "Y's breakpoints");
  require_output_apart(caller, out, x.offsets(), "X's offsets");
  require_output_apart(caller, out, y.offsets(), "Y's offsets");
  auto run = [&](auto acc) {
    using Acc = decltype(acc);
    if constexpr (std::is_same_v<Op, PcfLp>) require_p_in<Acc>(caller, op.p);
    PcfBlockOp<ExecSpace, Op, Acc, T, RS, CS> block_op(op, x, sx, y, sy, end);
    return run_pairwise(caller, space, block_op, layout, skip, x.shape(), y.shape(), out, options);
  };
  if (options.accumulation == Accumulation::double_) return run(double{});
  return run(T{});
}

/// PCF metrics as pdist and cdist run them: Lp with p = 1 or 2 as PcfL1 or PcfL2.
template <class Op, class Run>
PairwiseReport with_pcf_metric(const char* caller, const Op& op, const Run& run) {
  if constexpr (std::is_same_v<Op, PcfLp>) {
    require_valid_p(caller, op.p);
    if (op.p == 1) return run(PcfL1{});
    if (op.p == 2) return run(PcfL2{});
  }
  return run(op);
}

}  // namespace Impl
}  // namespace tessera
