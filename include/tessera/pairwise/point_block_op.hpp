// PointBlockOp: the BlockOp of point vectors: F(x_i, y_j) for a Genred formula F with one
// i-variable and one j-variable of compile-time dimension D and output dimension 1 (Euclidean
// distance, cosine similarity, a radial kernel...). The BlockOp concept is documented in
// pairwise.hpp.
#pragma once

#include <tessera/genred/formula.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/impl/function_stream.hpp>
#include <tessera/pairwise/impl/packed_points.hpp>
#include <tessera/pairwise/impl/point_kernel.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace tessera {

namespace Impl {
template <class F>
struct PointFormulaDim {
  static_assert(std::is_same_v<typename F::param_dims, Dims<>>,
                "tessera::pairwise: a point formula takes no parameter variables");
  static_assert(F::i_dims::count == 1 && F::j_dims::count == 1,
                "tessera::pairwise: a point formula takes one i-variable and one j-variable");
  static_assert(F::out_dim == 1, "tessera::pairwise: a point formula has output dimension 1");
  static constexpr int value = DimAt<typename F::i_dims, 0>::value;
  static_assert(value > 0 && DimAt<typename F::j_dims, 0>::value == value,
                "tessera::pairwise: a point formula compares points of one compile-time "
                "dimension D");
};
}  // namespace Impl

/// F over pairs of rows x_i (rows of an n x D View) and columns y_j (an m x D View).
template <class ExecSpace, class F, class T, class RowSpace, class ColSpace = RowSpace>
class PointBlockOp {
 public:
  using value_type       = T;  ///< scalar of the points and of the output
  static constexpr int D = Impl::PointFormulaDim<F>::value;  ///< dimension of the points

  /// f over the rows of x (n x D, in RowSpace) and of y (m x D, in ColSpace), Views of T of
  /// any layout (LayoutRight, LayoutLeft, LayoutStride). A View whose rows are D values apart
  /// (LayoutRight without padding) is held, not copied; any other is first copied into a packed
  /// row-major View in its own memory space, which the op holds: n D (or m D) values more and
  /// one pass over the input (Kokkos::deep_copy, which waits for all queued work), once for
  /// both sides when y is x.
  template <class XView, class YView>
  PointBlockOp(const F& f, const XView& x, const YView& y) : PointBlockOp(f, packed(x, y)) {}

  /// n, the rows of x.
  std::size_t rows() const { return n_rows_; }
  /// m, the rows of y.
  std::size_t cols() const { return n_cols_; }
  /// Device bytes the block's streamed points take.
  std::size_t block_data_bytes(const BlockInfo& b) const {
    return rows_.bytes(b.rows) + cols_.bytes(b.cols);
  }
  /// Allocates the device arrays: all functions (uploaded now, once when both sides are the
  /// same functions) when they fit in data_bytes, else the largest bands of the schedule.
  void reserve(const ExecSpace& space, const BlockScheduler& s, std::size_t data_bytes) {
    Impl::reserve_sides(space, s, data_bytes, rows_, cols_);
  }
  /// Queues the upload of block b's points on `space`, unless they are there already (in memory
  /// the space reads, or all uploaded by reserve()).
  void upload(const ExecSpace& space, const BlockInfo& b) {
    x_ = rows_.upload(space, b.rows);
    y_ = cols_.upload(space, b.cols);
  }
  /// Queues block b's kernel on `space`: out (laid out as `storage`) gets every computed pair.
  void launch(const ExecSpace& space, const BlockInfo& b, TriangleSkipMode skip,
              const BlockStorage& storage, T* out) const {
    Impl::launch_point_block<D>(space, x_, y_, out, storage, b.rows.size(), b.cols.size(),
                                b.rows.first, b.cols.first, skip, f_);
  }

 private:
  /// x and y packed (impl/packed_points.hpp), once their types are checked.
  template <class XView, class YView>
  static auto packed(const XView& x, const YView& y) {
    static_assert(Kokkos::is_view<XView>::value && Kokkos::is_view<YView>::value,
                  "tessera::PointBlockOp: x and y are Kokkos Views");
    static_assert(XView::rank == 2 && YView::rank == 2,
                  "tessera::PointBlockOp: x and y are rank-2 Views (n, D) and (m, D)");
    static_assert(std::is_same_v<typename XView::non_const_value_type, T> &&
                      std::is_same_v<typename YView::non_const_value_type, T>,
                  "tessera::PointBlockOp: x and y hold values of T");
    static_assert(std::is_same_v<typename XView::memory_space, RowSpace> &&
                      std::is_same_v<typename YView::memory_space, ColSpace>,
                  "tessera::PointBlockOp: x is in RowSpace and y in ColSpace");
    return Impl::packed_point_pair(x, y);
  }

  template <class Packed>
  PointBlockOp(const F& f, const Packed& xy)
      : f_(f),
        rows_(xy.first),
        cols_(xy.second),
        n_rows_(xy.first.extent(0)),
        n_cols_(xy.second.extent(0)) {}

  F f_;
  Impl::PointStream<ExecSpace, T, RowSpace> rows_;
  Impl::PointStream<ExecSpace, T, ColSpace> cols_;
  std::size_t n_rows_, n_cols_;
  const T* x_ = nullptr;
  const T* y_ = nullptr;
};

}  // namespace tessera
