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
// The engine (block_scheduler.hpp, impl/block_plan.hpp, impl/block_pipeline.hpp) cuts the matrix
// into blocks that fit PairwiseOptions::budget_bytes, planned once per call, and runs them through
// a double-buffered pipeline in which each block's kernel overlaps the previous block's download
// and host writes. Every call validates
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
// PcfBlockOp and PointBlockOp are the two built in. pairwise() checks the concept at compile time
// (Impl::is_block_op, impl/concept_checks.hpp), naming each member an op lacks.
#pragma once

#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/function_shape.hpp>
#include <tessera/pairwise/impl/concept_checks.hpp>
#include <tessera/pairwise/impl/pairwise_checks.hpp>
#include <tessera/pairwise/impl/pairwise_dispatch.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/npy_file.hpp>
#include <tessera/pairwise/pairwise_options.hpp>
#include <tessera/pairwise/pcf_block_op.hpp>
#include <tessera/pairwise/pcf_collection.hpp>
#include <tessera/pairwise/pcf_operations.hpp>
#include <tessera/pairwise/point_block_op.hpp>
#include <tessera/pairwise/result_writers.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tessera {

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
/// dense every pair; the dense shape is (op.rows(), op.cols()). A type that is not a BlockOp on
/// ExecSpace fails to compile with a static_assert naming each member it lacks.
template <class ExecSpace, class BlockOp, class Output>
std::enable_if_t<Kokkos::is_execution_space<ExecSpace>::value, PairwiseReport> pairwise(
    const ExecSpace& space, BlockOp& op, MatrixLayout layout, const Output& out,
    const PairwiseOptions& options = {}) {
  Impl::check_block_op<BlockOp, ExecSpace>();
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
