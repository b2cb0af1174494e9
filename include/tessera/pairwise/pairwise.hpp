// The pairwise block engine: pdist, cdist and kernel matrices of functions, larger than device
// memory (after masspcf's CUDA block engine).
//
//   pdist(space, metric, X, out)      out = condensed d(X_i, X_j), i < j, in scipy's order
//   l2_kernel(space, X, out)          out = packed symmetric <X_i, X_j>, i <= j (PCFs)
//   cdist(space, metric, X, Y, out)   out = dense d(X_i, Y_j), shape (*X.shape, *Y.shape)
//   pairwise(space, op, layout, out)  any BlockOp (below) into any layout
//
// Functions are PCFs (PcfCollection; metrics PcfL1, PcfL2, PcfLp, PcfL2InnerProduct) or point
// vectors (n x D Views of any layout, packed row-major inputs read in place; the metric is a
// Genred formula of one i- and one j-variable of dimension D and output dimension 1:
// EuclideanDistance<D>, CosineSimilarity<D>, GaussianKernel<D>, SquaredDistance<D>, ...).
// Inputs live in host memory (streamed to the device block by block, so they may exceed device
// memory) or in memory the execution space reads.
// `out` is a View (host memory: filled by host threads as blocks arrive; the execution space's
// memory: filled on the device) or an NpyFile (streamed to disk, for outputs larger than host
// memory); the layouts are described in matrix_layout.hpp.
//
// The engine (block_scheduler.hpp, impl/block_pipeline.hpp) cuts the matrix into blocks that fit
// PairwiseOptions::budget_bytes and runs them through a double-buffered pipeline in which each
// block's kernel overlaps the previous block's download and host writes. Every call validates
// its arguments on the host before any kernel runs (std::invalid_argument naming the argument;
// nothing is written), returns a PairwiseReport, and therefore waits for its work; it first
// waits for the work already queued on `space` (which may write its inputs).
//
// The BlockOp concept (the extension point: a new function type is a new BlockOp, run by
// pairwise() with every scheduler, pipeline and writer feature):
//   using value_type = float or double;                 // output scalar
//   std::size_t rows() const, cols() const;              // functions on each side
//   std::size_t block_data_bytes(const BlockInfo&) const; // device bytes of a block's inputs
//   void reserve(const ExecSpace&, const BlockScheduler&, std::size_t data_bytes);
//                                // allocate for the largest block; functions that fit in
//                                // data_bytes whole may be uploaded here (queued) once
//   void upload(const ExecSpace&, const BlockInfo&);     // queue the block's inputs
//   void launch(const ExecSpace&, const BlockInfo&, TriangleSkipMode, const BlockStorage&,
//               value_type* out) const;
//                                // queue the kernel: pair (r, c) of the block at
//                                // out[storage.index(r, c)] (in the space's memory) for every
//                                // pair the skip mode computes, nothing else (matrix_layout.hpp:
//                                // a diagonal block of a triangular output is stored packed)
// PcfBlockOp and PointBlockOp are the two built in.
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/core/memory_overlap.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/function_shape.hpp>
#include <tessera/pairwise/impl/block_pipeline.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/npy_file.hpp>
#include <tessera/pairwise/pairwise_options.hpp>
#include <tessera/pairwise/pcf_block_op.hpp>
#include <tessera/pairwise/pcf_collection.hpp>
#include <tessera/pairwise/pcf_operations.hpp>
#include <tessera/pairwise/point_block_op.hpp>
#include <tessera/pairwise/result_writers.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera {

namespace Impl {

/// The shape of an output: 1-D for the triangular layouts, (*rows, *cols) for dense.
inline std::vector<std::size_t> output_shape(MatrixLayout layout, const FunctionShape& rows,
                                             const FunctionShape& cols) {
  if (layout != MatrixLayout::dense) return {layout_size(layout, rows.size(), cols.size())};
  std::vector<std::size_t> shape;
  for (int d = 0; d < rows.rank(); ++d)
    shape.push_back(rows.extent(d));
  for (int d = 0; d < cols.rank(); ++d)
    shape.push_back(cols.extent(d));
  return shape;
}

inline std::string shape_str(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t d = 0; d < shape.size(); ++d)
    s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + ")";
}

/// Checks an output View against the call's layout and shape: extents equal to the shape, or
/// (dense) rank 2 (rows, cols), or rank 1 with all values; contiguous; a non-const value type T.
template <class T, class View>
void check_output_view(const char* caller, const View& out, MatrixLayout layout,
                       const std::vector<std::size_t>& shape, std::size_t rows, std::size_t cols) {
  static_assert(Kokkos::is_view<View>::value, "tessera::pairwise: out must be a Kokkos View");
  static_assert(std::is_same_v<typename View::value_type, T>,
                "tessera::pairwise: out must hold non-const values of the functions' scalar type");
  static_assert(View::rank == 1 || std::is_same_v<typename View::array_layout, Kokkos::LayoutRight>,
                "tessera::pairwise: a multi-dimensional out must be LayoutRight (row-major)");
  std::vector<std::size_t> got;
  for (unsigned d = 0; d < View::rank; ++d)
    got.push_back(out.extent(d));
  const std::size_t total = layout_size(layout, rows, cols);
  const bool fits         = got == shape || (layout == MatrixLayout::dense &&
                                     ((View::rank == 2 && got[0] == rows && got[1] == cols) ||
                                      (View::rank == 1 && got[0] == total)));
  if (!fits) {
    throw std::invalid_argument(concat("tessera::", caller, ": out extents ", shape_str(got),
                                       " do not match the output (expected ", shape_str(shape),
                                       ")"));
  }
  require(total == 0 || out.span_is_contiguous(), caller, "out must be contiguous");
}

/// True for output targets that schedule and run the engine themselves: a type with
/// `static constexpr bool pairwise_target = true` and a member
///   PairwiseReport run(const char* caller, const ExecSpace&, BlockOp&, BlockTriangleMode,
///                      MatrixLayout, TriangleSkipMode, const std::vector<std::size_t>& shape,
///                      std::size_t budget_bytes, const PairwiseOptions&) const;
/// called once the call's arguments are checked (tessera::mpi's distributed .npy file).
template <class Output, class = void>
inline constexpr bool is_pairwise_target = false;
template <class Output>
inline constexpr bool is_pairwise_target<Output, std::enable_if_t<Output::pairwise_target>> = true;

/// Builds the writer of `out` (a View, an NpyFile or a target that runs the engine itself) and
/// runs the pipeline.
template <class ExecSpace, class BlockOp, class Output>
PairwiseReport run_pairwise(const char* caller, const ExecSpace& space, BlockOp& op,
                            MatrixLayout layout, TriangleSkipMode skip, const FunctionShape& rs,
                            const FunctionShape& cs, const Output& out,
                            const PairwiseOptions& options) {
  using T = typename BlockOp::value_type;
  space.fence();  // inputs or the output may be in use by work queued on space
  const auto mode =
      layout == MatrixLayout::dense ? BlockTriangleMode::full : BlockTriangleMode::upper_triangle;
  const auto shape         = output_shape(layout, rs, cs);
  const std::size_t budget = pairwise_budget(space, options);
  if constexpr (is_pairwise_target<Output>) {
    // a target that runs the engine itself (the distributed .npy file of mpi/pairwise.hpp)
    return out.run(caller, space, op, mode, layout, skip, shape, budget, options);
  } else if constexpr (std::is_same_v<Output, NpyFile>) {
    require(!out.path.empty(), caller, "out path is empty");
    const BlockScheduler s = schedule_blocks(space, op, mode, options, budget, caller);
    NpyWriter<T> writer(out, shape, layout, op.cols());
    return run_block_pipeline(space, op, writer, s, pairwise_data_share(budget), skip, options);
  } else {
    check_output_view<T>(caller, out, layout, shape, op.rows(), op.cols());
    using Space = typename Output::memory_space;
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space>::accessible ||
                      Kokkos::SpaceAccessibility<ExecSpace, Space>::accessible,
                  "tessera::pairwise: out must be in host memory or in memory the execution "
                  "space can write");
    const BlockScheduler s = schedule_blocks(space, op, mode, options, budget, caller);
    ArrayWriter<T, Space> writer(out.data(), layout, op.cols());
    return run_block_pipeline(space, op, writer, s, pairwise_data_share(budget), skip, options);
  }
}

/// Rejects an output View that shares memory with an input View.
template <class Output, class In>
void require_output_apart(const char* caller, const Output& out, const In& in,
                          const char* argument) {
  if constexpr (Kokkos::is_view<Output>::value) {
    if (views_share_memory(out, in)) {
      throw std::invalid_argument(
          concat("tessera::", caller, ": out shares memory with ", argument));
    }
  }
}

/// Rejects PCFs whose Views are not contiguous (the kernels read breakpoints as packed (t, v)
/// pairs and offsets as an array).
template <class T, class MS>
void require_contiguous_pcfs(const char* caller, const PcfCollection<T, MS>& pcfs,
                             const char* argument) {
  const auto contiguous = [](const auto& v) { return v.size() == 0 || v.span_is_contiguous(); };
  if (!contiguous(pcfs.breakpoints()) || !contiguous(pcfs.offsets())) {
    throw std::invalid_argument(concat("tessera::", caller, ": ", argument,
                                       " has non-contiguous offsets or breakpoints (rows of ",
                                       "(t, v) must be 2 values apart)"));
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

/// Checks point vectors of any layout (rank 2, D columns); PointBlockOp packs them.
template <class F, class XView, class YView>
void check_points(const char* caller, const XView& x, const YView& y) {
  static_assert(Kokkos::is_view<XView>::value && Kokkos::is_view<YView>::value &&
                    XView::rank == 2 && YView::rank == 2,
                "tessera::pairwise: point vectors are rank-2 Views (n, D)");
  constexpr int D = PointFormulaDim<F>::value;
  require_equal(caller, "X", "extent(1)", x.extent(1), D);
  require_equal(caller, "Y", "extent(1)", y.extent(1), D);
}

}  // namespace Impl

/// Condensed pairwise distances of n PCFs: out[n i - i (i + 1) / 2 + j - i - 1] = d(X_i, X_j)
/// for i < j, n (n - 1) / 2 values: scipy's condensed distance vector (the upper triangle row by
/// row; scipy.spatial.distance.squareform expands it). metric: PcfL1, PcfL2 or PcfLp{p} (p > 0):
/// (integral over [t_min, end_time) of |X_i - X_j|^p)^(1/p). out: a rank-1 View in host or
/// execution-space memory, or an NpyFile. O(n^2 (K_i + K_j)) work for functions of K
/// breakpoints, memory: the budget on the device, two pinned staging buffers on the host (8 MiB
/// each on GPUs, none on host spaces).
template <class ExecSpace, class Metric, class T, class MS, class Output>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, PairwiseReport> pdist(
    const ExecSpace& space, const Metric& metric, const PcfCollection<T, MS>& X, const Output& out,
    const PairwiseOptions& options = {}) {
  return Impl::with_pcf_metric("pdist", metric, [&](auto op) {
    return Impl::run_pcf("pdist", space, op, X, X, true, MatrixLayout::condensed,
                         TriangleSkipMode::upper_triangle_skip_diag, out, options);
  });
}

/// pdist with the L1 distance (masspcf's default).
template <class ExecSpace, class T, class MS, class Output>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, PairwiseReport> pdist(
    const ExecSpace& space, const PcfCollection<T, MS>& X, const Output& out,
    const PairwiseOptions& options = {}) {
  return pdist(space, PcfL1{}, X, out, options);
}

/// Condensed pairwise values F(X_i, X_j), i < j, of n point vectors (X: n x D, any layout) for
/// a Genred formula F (EuclideanDistance<D>, CosineSimilarity<D>, ...), in scipy's order as the
/// PCF pdist: scipy.spatial.distance.pdist(X, F) for any F, symmetric or not. A LayoutRight X
/// without padding is read in place; any other (LayoutLeft, LayoutStride, padded) is first
/// copied into a packed row-major View in X's memory space: n D values held for the call and
/// one pass over X (see PointBlockOp).
template <class ExecSpace, class F, class XView, class Output>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value && Kokkos::is_view<XView>::value,
                 PairwiseReport>
pdist(const ExecSpace& space, const F& formula, const XView& X, const Output& out,
      const PairwiseOptions& options = {}) {
  using T = typename XView::non_const_value_type;
  Impl::check_points<F>("pdist", X, X);
  Impl::require_output_apart("pdist", out, X, "X");
  PointBlockOp<ExecSpace, F, T, typename XView::memory_space> op(formula, X, X);
  return Impl::run_pairwise("pdist", space, op, MatrixLayout::condensed,
                            TriangleSkipMode::upper_triangle_skip_diag, FunctionShape(X.extent(0)),
                            FunctionShape(X.extent(0)), out, options);
}

/// The L2 inner-product kernel matrix of n PCFs, packed: out[n i - i (i - 1) / 2 + j - i] =
/// integral of X_i X_j for i <= j, n (n + 1) / 2 values: the upper triangle with the diagonal
/// row by row, numpy's np.triu_indices(n) order (LAPACK's 'L' packed storage); numpy reads it
/// with M[np.triu_indices(n)] = out; M.T[np.triu_indices(n)] = out.
template <class ExecSpace, class T, class MS, class Output>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, PairwiseReport> l2_kernel(
    const ExecSpace& space, const PcfCollection<T, MS>& X, const Output& out,
    const PairwiseOptions& options = {}) {
  return Impl::run_pcf("l2_kernel", space, PcfL2InnerProduct{}, X, X, true, MatrixLayout::symmetric,
                       TriangleSkipMode::upper_triangle, out, options);
}

/// Cross values of two PCF collections: out(*i, *j) = metric(X_i, Y_j), a dense array of shape
/// (*X.shape(), *Y.shape()) (or (n_X, n_Y), or n_X n_Y values). metric: PcfL1, PcfL2, PcfLp or
/// PcfL2InnerProduct.
template <class ExecSpace, class Metric, class T, class MX, class MY, class Output>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, PairwiseReport> cdist(
    const ExecSpace& space, const Metric& metric, const PcfCollection<T, MX>& X,
    const PcfCollection<T, MY>& Y, const Output& out, const PairwiseOptions& options = {}) {
  return Impl::with_pcf_metric("cdist", metric, [&](auto op) {
    return Impl::run_pcf("cdist", space, op, X, Y, false, MatrixLayout::dense,
                         TriangleSkipMode::none, out, options);
  });
}

/// Cross values of point vectors: out(i, j) = F(X_i, Y_j), X: n x D, Y: m x D, of any layout
/// (as pdist: an input other than a LayoutRight View without padding costs a packed copy of it,
/// n D or m D values in its memory space, for the call).
template <class ExecSpace, class F, class XView, class YView, class Output>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value && Kokkos::is_view<XView>::value,
                 PairwiseReport>
cdist(const ExecSpace& space, const F& formula, const XView& X, const YView& Y, const Output& out,
      const PairwiseOptions& options = {}) {
  using T = typename XView::non_const_value_type;
  static_assert(std::is_same_v<T, typename YView::non_const_value_type>,
                "tessera::cdist: X and Y must hold one scalar type");
  Impl::check_points<F>("cdist", X, Y);
  Impl::require_output_apart("cdist", out, X, "X");
  Impl::require_output_apart("cdist", out, Y, "Y");
  PointBlockOp<ExecSpace, F, T, typename XView::memory_space, typename YView::memory_space> op(
      formula, X, Y);
  return Impl::run_pairwise("cdist", space, op, MatrixLayout::dense, TriangleSkipMode::none,
                            FunctionShape(X.extent(0)), FunctionShape(Y.extent(0)), out, options);
}

/// Runs any BlockOp (see the file comment) over the matrix into `out` in `layout`: condensed and
/// symmetric compute the upper triangle (without or with the diagonal) of a square matrix,
/// dense every pair; the dense shape is (op.rows(), op.cols()).
template <class ExecSpace, class BlockOp, class Output>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, PairwiseReport> pairwise(
    const ExecSpace& space, BlockOp& op, MatrixLayout layout, const Output& out,
    const PairwiseOptions& options = {}) {
  const TriangleSkipMode skip =
      layout == MatrixLayout::condensed   ? TriangleSkipMode::upper_triangle_skip_diag
      : layout == MatrixLayout::symmetric ? TriangleSkipMode::upper_triangle
                                          : TriangleSkipMode::none;
  return Impl::run_pairwise("pairwise", space, op, layout, skip, FunctionShape(op.rows()),
                            FunctionShape(op.cols()), out, options);
}

/// pdist (any overload above) on the default execution space.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, PairwiseReport> pdist(
    const First& first, const Rest&... rest) {
  return pdist(Kokkos::DefaultExecutionSpace{}, first, rest...);
}
/// cdist (any overload above) on the default execution space.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, PairwiseReport> cdist(
    const First& first, const Rest&... rest) {
  return cdist(Kokkos::DefaultExecutionSpace{}, first, rest...);
}
/// l2_kernel (any overload above) on the default execution space.
template <class First, class... Rest>
std::enable_if_t<!Kokkos::is_execution_space<First>::value, PairwiseReport> l2_kernel(
    const First& first, const Rest&... rest) {
  return l2_kernel(Kokkos::DefaultExecutionSpace{}, first, rest...);
}

}  // namespace tessera
