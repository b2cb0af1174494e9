// Result writers: where the engine puts each finished block (masspcf's DistanceMatrix,
// SymmetricMatrix and Tensor writers).
//
// The layouts (condensed, symmetric, dense) are described in matrix_layout.hpp: condensed is
// scipy's condensed distance vector (pairs i < j, the upper triangle row by row), symmetric the
// upper triangle with the diagonal in np.triu_indices(n) order. In every layout the kept columns
// of one row of a block (from the row's first kept column to the block's last column) are
// consecutive positions, and consecutive values of the block's row in its buffer (BlockStorage),
// so a writer moves a block as one copy per row. Blocks do not overlap: writers need no locking.
//
// Targets: a rank-1 (or contiguous LayoutRight) View in host memory, filled by host threads from
// the downloaded block; a View in the execution space's memory, filled by a kernel from the
// block on the device (no download); a .npy file (npy_file.hpp), written by host threads.
//
// The Writer concept (what the pipeline, impl/block_pipeline.hpp, asks of a writer of T values
// on an execution space ExecSpace; Impl::is_result_writer checks it at compile time):
//   static constexpr bool on_host;   // true: blocks reach the writer from host memory
//   MatrixLayout layout() const;     // the output's layout
//   void write_host(const BlockInfo&, const BlockStorage&, std::size_t r0, std::size_t n,
//                   const T* rows);  // (on_host) rows [r0, r0 + n) of a block, in host memory
//                                    // laid out as the storage lays out those rows
//   void write_device(const ExecSpace&, const BlockInfo&, const BlockStorage&, const T* block);
//                                    // (not on_host) queues the copy of a block, in the space's
//                                    // memory, into place on the space
//   void finish();                   // after the last block: the values are in place
// ArrayWriter and NpyWriter below are the writers of a single-rank call (tessera::mpi adds
// MpiNpyWriter).
#pragma once

#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/impl/row_copy.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/npy_file.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <vector>

namespace tessera {

/// Writes blocks into a contiguous array of layout_size() values: host memory (on_host =
/// true: host threads copy the downloaded block) or the execution space's memory (a kernel
/// copies the block on the device, no download).
template <class T, class MemorySpace>
class ArrayWriter {
 public:
  /// True when the host can write MemorySpace: the pipeline then calls write_host, else
  /// write_device.
  static constexpr bool on_host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

  /// Writes into `data` (held, not owned) in `layout`; n_cols: the matrix's columns.
  ArrayWriter(T* data, MatrixLayout layout, std::size_t n_cols)
      : data_(data), layout_(layout), n_cols_(n_cols) {}

  /// The layout of the output.
  MatrixLayout layout() const { return layout_; }

  /// Host target: copies rows [r0, r0 + n) of block b from `rows` (host memory, laid out as
  /// `storage` lays out those rows) into place.
  void write_host(const BlockInfo& b, const BlockStorage& storage, std::size_t r0, std::size_t n,
                  const T* rows) const {
    Kokkos::parallel_for("tessera::pairwise::write_block_host",
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
                         Impl::HostRowCopy<T>{data_, rows, b, storage, r0, layout_, n_cols_});
  }

  /// Device target: copies block b (in the space's memory, as `storage`) into place on `space`
  /// (asynchronous).
  template <class ExecSpace>
  void write_device(const ExecSpace& space, const BlockInfo& b, const BlockStorage& storage,
                    const T* block) const {
    Kokkos::parallel_for(
        "tessera::pairwise::write_block_device",
        Kokkos::TeamPolicy<ExecSpace>(space, int(b.rows.size()), Kokkos::AUTO),
        Impl::DeviceRowCopy<ExecSpace, T>{data_, block, b, storage, layout_, n_cols_});
  }

  /// Does nothing: the values are in place once the blocks' copies have run.
  void finish() {}

 private:
  T* data_;
  MatrixLayout layout_;
  std::size_t n_cols_;
};

/// Streams blocks into a .npy file (host threads write each row with pwrite).
template <class T>
class NpyWriter {
 public:
  /// Always true: blocks reach the file from host memory (write_host).
  static constexpr bool on_host = true;

  /// Creates (or truncates) file.path as a .npy array of `shape`, its data region allocated;
  /// n_cols: the matrix's columns. Throws std::runtime_error if the file cannot be made.
  NpyWriter(const NpyFile& file, const std::vector<std::size_t>& shape, MatrixLayout layout,
            std::size_t n_cols)
      : file_(std::make_unique<Impl::NpyFileWriter<T>>(file.path, shape)),
        layout_(layout),
        n_cols_(n_cols) {}

  /// The layout of the output.
  MatrixLayout layout() const { return layout_; }

  /// Writes rows [r0, r0 + n) of block b from `rows` (host memory, laid out as `storage` lays
  /// out those rows).
  void write_host(const BlockInfo& b, const BlockStorage& storage, std::size_t r0, std::size_t n,
                  const T* rows) const {
    std::size_t failures = 0;
    Kokkos::parallel_reduce(
        "tessera::pairwise::write_block_file",
        Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
        Impl::FileRowCopy<T>{file_.get(), rows, b, storage, r0, layout_, n_cols_}, failures);
    if (failures > 0) file_->fail("cannot write to");
  }

  /// Does nothing: the pipeline never calls it for a writer on the host (on_host).
  template <class ExecSpace>
  void write_device(const ExecSpace&, const BlockInfo&, const BlockStorage&, const T*) const {}

  /// Closes the file (throws if the data did not reach it).
  void finish() { file_->close(); }

 private:
  std::unique_ptr<Impl::NpyFileWriter<T>> file_;
  MatrixLayout layout_;
  std::size_t n_cols_;
};

}  // namespace tessera
