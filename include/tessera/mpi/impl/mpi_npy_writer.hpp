// The pipeline writer of a distributed pairwise call (mpi/pairwise.hpp): every rank writes the
// rows of its blocks into one shared .npy file with MPI-IO (independent MPI_File_write_at at the
// rows' positions), so the file is the one a single-rank call writes, on any file system MPI-IO
// serves (a parallel one across nodes). The file is opened and closed collectively.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/matrix_layout.hpp>
#include <tessera/pairwise/npy_file.hpp>
#include <tessera/pairwise/result_writers.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace tessera {
namespace mpi {
namespace Impl {

/// Writes a pairwise output into one .npy file shared by the ranks of `comm` (see the file
/// comment). The pipeline's writer concept (result_writers.hpp): on_host, layout, write_host,
/// write_device, finish; plus close(), collective, which the distributed call makes on every rank
/// whatever happened.
template <class T>
class MpiNpyWriter {
 public:
  /// Always true: blocks reach the file from host memory (write_host).
  static constexpr bool on_host = true;

  /// Opens (creates or truncates) `path` on every rank of comm, sizes it for `shape` and writes
  /// the header from rank 0. Collective; throws std::runtime_error on every rank when the file
  /// cannot be made on any (the message names `caller`).
  MpiNpyWriter(MPI_Comm comm, const char* caller, const std::string& path,
               const std::vector<std::size_t>& shape, MatrixLayout layout, std::size_t n_cols)
      : path_(path), layout_(layout), n_cols_(n_cols) {
    const std::string header = tessera::Impl::npy_header(tessera::Impl::npy_descr<T>(), shape);
    std::size_t count        = 1;
    for (std::size_t e : shape)
      count *= e;
    data_offset_ = header.size();
    int rank     = 0;
    MPI_Comm_rank(comm, &rank);
    LocalVerdict verdict;
    const auto checked = [&](int rc, const char* what) {
      if (rc != MPI_SUCCESS && verdict.kind == LocalVerdict::ok) {
        verdict = {LocalVerdict::runtime_error, message(what, rc)};
      }
      return rc == MPI_SUCCESS;
    };
    // MPI_MODE_CREATE without MPI_MODE_EXCL keeps an existing file's bytes: delete it first.
    if (rank == 0) MPI_File_delete(path.c_str(), MPI_INFO_NULL);  // absent: an error, ignored
    MPI_Barrier(comm);
    const bool opened = checked(
        MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file_),
        "cannot create");
    if (opened) {
      checked(MPI_File_set_size(file_, static_cast<MPI_Offset>(data_offset_ + count * sizeof(T))),
              "cannot size");
      if (rank == 0) {
        MPI_Status status;
        checked(MPI_File_write_at(file_, 0, header.data(), static_cast<int>(header.size()),
                                  MPI_BYTE, &status),
                "cannot write the header of");
      }
    } else {
      file_ = MPI_FILE_NULL;
    }
    try {
      agree(comm, caller, verdict, {}, {});
    } catch (...) {
      close();
      throw;
    }
  }
  MpiNpyWriter(const MpiNpyWriter&)            = delete;
  MpiNpyWriter& operator=(const MpiNpyWriter&) = delete;
  ~MpiNpyWriter() {
    if (file_ != MPI_FILE_NULL) MPI_File_close(&file_);  // not reached: close() ran
  }

  /// The layout of the output.
  MatrixLayout layout() const { return layout_; }

  /// Writes rows [r0, r0 + n) of block b from `rows` (host memory, laid out as `storage` lays
  /// out those rows), a row at a time from the calling thread (MPI needs no thread support).
  void write_host(const BlockInfo& b, const BlockStorage& storage, std::size_t r0, std::size_t n,
                  const T* rows) const {
    for (std::size_t r = 0; r < n; ++r) {
      const tessera::Impl::RowMove m = tessera::Impl::row_move(b, storage, r0, r, layout_, n_cols_);
      const char* p                  = reinterpret_cast<const char*>(rows + m.from);
      std::size_t left               = m.count * sizeof(T);
      MPI_Offset at                  = static_cast<MPI_Offset>(data_offset_ + m.to * sizeof(T));
      while (left > 0) {
        const int chunk = static_cast<int>(std::min<std::size_t>(left, std::size_t{1} << 30));
        MPI_Status status;
        const int rc = MPI_File_write_at(file_, at, p, chunk, MPI_BYTE, &status);
        if (rc != MPI_SUCCESS) throw std::runtime_error(message("cannot write to", rc));
        p += chunk;
        at += chunk;
        left -= static_cast<std::size_t>(chunk);
      }
    }
  }

  /// Does nothing: the pipeline never calls it for a writer on the host (on_host).
  template <class ExecSpace>
  void write_device(const ExecSpace&, const BlockInfo&, const BlockStorage&, const T*) const {}

  /// Does nothing: the file is closed by close(), collectively, after every rank's pipeline.
  void finish() {}

  /// Closes the file (collective). Returns false if the data may not have reached it.
  bool close() {
    if (file_ == MPI_FILE_NULL) return true;
    return MPI_File_close(&file_) == MPI_SUCCESS;
  }

  /// The message of a failed MPI-IO call on the file.
  std::string message(const char* what, int rc) const {
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    return tessera::Impl::concat("tessera::mpi: ", what, " '", path_, "' (",
                                 std::string(text, length), ")");
  }

 private:
  std::string path_;
  MatrixLayout layout_;
  std::size_t n_cols_;
  std::size_t data_offset_ = 0;
  MPI_File file_           = MPI_FILE_NULL;
};

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
