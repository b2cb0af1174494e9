// The argument checks of the pairwise calls (pairwise.hpp), run on the host before any kernel:
// the output's shape and an output View against it, outputs apart from inputs, contiguous PCFs,
// point vectors of the formula's dimension.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/core/impl/memory_overlap.hpp>
#include <tessera/pairwise/function_shape.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/pcf_collection.hpp>
#include <tessera/pairwise/point_block_op.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
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
}  // namespace tessera
