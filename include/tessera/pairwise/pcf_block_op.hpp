// PcfBlockOp: the BlockOp of piecewise constant functions (masspcf's PcfBlockOp): streams a
// block's row and column PCFs and runs the PCF block kernel with one of the operations of
// pcf_operations.hpp. The BlockOp concept is documented in pairwise.hpp.
#pragma once

#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/impl/function_stream.hpp>
#include <tessera/pairwise/impl/pcf_kernel.hpp>
#include <tessera/pairwise/pcf_collection.hpp>

#include <cstddef>

namespace tessera {

/// Integrates Op over pairs of rows (PCFs) and columns (PCFs) in Acc arithmetic (T or double).
/// Both collections must have been validated (validate_pcfs) with the same end time; their
/// summaries size the kernel's scratch.
template <class ExecSpace, class Op, class Acc, class T, class RowSpace, class ColSpace = RowSpace>
class PcfBlockOp {
 public:
  /// Output scalar: the functions' T.
  using value_type = T;

  /// op over rows x cols up to end_time; row_summary and col_summary are what validate_pcfs
  /// returned for them. The Views are held, not copied.
  PcfBlockOp(const Op& op, const PcfCollection<T, RowSpace>& rows, const PcfSummary& row_summary,
             const PcfCollection<T, ColSpace>& cols, const PcfSummary& col_summary, T end_time)
      : op_(op),
        rows_(rows),
        cols_(cols),
        n_rows_(rows.size()),
        n_cols_(cols.size()),
        max_points_(row_summary.max_points > col_summary.max_points ? row_summary.max_points
                                                                    : col_summary.max_points),
        end_(end_time) {}

  /// Number of row functions.
  std::size_t rows() const { return n_rows_; }
  /// Number of column functions.
  std::size_t cols() const { return n_cols_; }
  /// Device bytes the block's streamed functions take.
  std::size_t block_data_bytes(const BlockInfo& b) const {
    return rows_.bytes(b.rows) + cols_.bytes(b.cols);
  }
  /// Allocates the device arrays: all functions (uploaded now, once when both sides are the
  /// same functions) when they fit in data_bytes, else the largest bands of the schedule.
  void reserve(const ExecSpace& space, const BlockScheduler& s, std::size_t data_bytes) {
    Impl::reserve_sides(space, s, data_bytes, rows_, cols_);
  }
  /// Queues the upload of block b's functions on `space`.
  void upload(const ExecSpace& space, const BlockInfo& b) {
    const auto r = rows_.upload(space, b.rows);
    const auto c = cols_.upload(space, b.cols);
    data_        = {r.offsets, c.offsets, r.base, c.base, r.points, c.points};
  }
  /// Queues block b's kernel on `space`: out (laid out as `storage`) gets every computed pair.
  void launch(const ExecSpace& space, const BlockInfo& b, TriangleSkipMode skip,
              const BlockStorage& storage, T* out) const {
    Impl::launch_pcf_block<Acc>(space, data_, out, storage, b.rows.size(), b.cols.size(),
                                b.rows.first, b.cols.first, skip, end_, op_, max_points_);
  }

 private:
  Op op_;
  Impl::PcfStream<ExecSpace, T, RowSpace> rows_;
  Impl::PcfStream<ExecSpace, T, ColSpace> cols_;
  std::size_t n_rows_, n_cols_, max_points_;
  T end_;
  Impl::PcfBlockData<T> data_{};
};

}  // namespace tessera
