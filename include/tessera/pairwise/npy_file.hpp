// NumPy .npy files: the pairwise engine streams outputs larger than host memory into one (format
// version 1.0), block by block, and read_npy() reads one back (with Impl::NpyReader, the reader
// of every .npy file the library takes: versions 1.0 to 3.0).
//
// The file holds a C-order array of float ('<f4') or double ('<f8') in the host's byte order
// (little-endian on every platform Kokkos supports; the descr says '>' on a big-endian host): a
// condensed distance matrix of n functions is the 1-D array of n (n - 1) / 2 values in scipy's
// condensed order (pairs i < j, the upper triangle row by row) that squareform() of
// scipy.spatial.distance expands; a packed symmetric matrix is the 1-D array of n (n + 1) / 2
// values in np.triu_indices(n) order (matrix_layout.hpp); a dense output is the array of shape
// (*X.shape, *Y.shape). numpy.load(path, mmap_mode='r') maps any of them without reading it
// whole (the test pairwise_scipy_roundtrip checks all of this with numpy and scipy).
#pragma once

#include <tessera/core/errors.hpp>
#include <tessera/pairwise/impl/npy_dtype.hpp>
#include <tessera/pairwise/impl/npy_read.hpp>

#include <Kokkos_Core.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

namespace tessera {

/// Output target of a pairwise call: the .npy file at `path` (created or truncated).
struct NpyFile {
  std::string path;  ///< where the file goes; not empty
};

namespace Impl {

/// The header of a version-1.0 .npy file: magic, version, length, dictionary, padded with
/// spaces and a newline to a multiple of 64 bytes.
inline std::string npy_header(const char* descr, const std::vector<std::size_t>& shape) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t e : shape)
    dict += std::to_string(e) + ", ";
  if (shape.size() > 1) dict.erase(dict.size() - 1);  // (a, b) but (a,)
  if (shape.size() > 1)
    dict.back() = ')';
  else
    dict += ")";
  dict += ", }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 65535) throw std::length_error("tessera::NpyFile: header too long");
  std::string header("\x93NUMPY\x01\x00", 8);
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>(dict.size() >> 8);
  return header + dict;
}

/// An open .npy file of `count` elements written at element offsets (POSIX pwrite); the data
/// region is allocated (sparse) up front, the file closed by the destructor.
template <class T>
class NpyFileWriter {
 public:
  NpyFileWriter(const std::string& path, const std::vector<std::size_t>& shape) : path_(path) {
    const std::string header = npy_header(npy_descr<T>(), shape);
    std::size_t count        = 1;
    for (std::size_t e : shape)
      count *= e;
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd_ < 0) fail("cannot create");
    data_offset_ = header.size();
    if (::pwrite(fd_, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size())) {
      abandon("cannot write the header of");
    }
    if (::ftruncate(fd_, static_cast<off_t>(data_offset_ + count * sizeof(T))) != 0) {
      abandon("cannot size");
    }
  }
  NpyFileWriter(const NpyFileWriter&)            = delete;
  NpyFileWriter& operator=(const NpyFileWriter&) = delete;
  ~NpyFileWriter() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// Writes count elements at element offset `at`; false on an I/O error (thread-safe).
  bool write(const T* values, std::size_t at, std::size_t count) const {
    const char* p    = reinterpret_cast<const char*>(values);
    std::size_t left = count * sizeof(T);
    off_t where      = static_cast<off_t>(data_offset_ + at * sizeof(T));
    while (left > 0) {
      const ssize_t done = ::pwrite(fd_, p, left, where);
      if (done <= 0) return false;
      p += done;
      where += done;
      left -= static_cast<std::size_t>(done);
    }
    return true;
  }

  /// Closes the file, throwing on a failed close (data not on disk).
  void close() {
    const int fd = fd_;
    fd_          = -1;
    if (fd >= 0 && ::close(fd) != 0) fail("cannot close");
  }

  [[noreturn]] void fail(const char* what) const {
    throw std::runtime_error(
        concat("tessera::NpyFile: ", what, " '", path_, "' (", std::strerror(errno), ")"));
  }

 private:
  /// fail() from the constructor: closes the file first (no destructor will run).
  [[noreturn]] void abandon(const char* what) {
    const int error = errno;
    ::close(fd_);
    fd_   = -1;
    errno = error;
    fail(what);
  }

 private:
  std::string path_;
  int fd_                  = -1;
  std::size_t data_offset_ = 0;
};

}  // namespace Impl

/// A .npy array read into host memory: its shape and its values in C order.
template <class T>
struct NpyArray {
  std::vector<std::size_t> shape;              ///< extents, as the file's header gives them
  Kokkos::View<T*, Kokkos::HostSpace> values;  ///< the product of the extents, in C order
};

/// Reads a .npy file of T values (format version 1.0, 2.0 or 3.0, C order, descr
/// Impl::npy_descr<T>(): '<f4' for float, '<f8' for double, in the host's byte order) into host
/// memory: what the pairwise engine writes, or np.save of a float32 or float64 array. The dtype
/// must be exactly T's, no conversion: a float file read as double (or an integer file) is
/// rejected, so that a reader of the engine's files sees the precision it was written in.
/// Every defect (missing or unreadable file, bad magic or version, a malformed header, another
/// dtype or byte order, Fortran order, data shorter or longer than the shape) throws
/// std::invalid_argument "tessera::read_npy: path '<path>' <what>" (for instance "... holds
/// '<f4' values (expected '<f8' ...)", "... is truncated: its shape needs 48 bytes of data, it
/// has 47"); a shape whose size overflows throws std::length_error. Reads the whole array:
/// O(size) host memory.
template <class T>
NpyArray<T> read_npy(const std::string& path) {
  Impl::NpyReader file(path, "read_npy", "path");
  file.read_header();
  if (file.descr() != Impl::npy_descr<T>()) {
    file.fail("holds '", file.descr(), "' values (expected '", Impl::npy_descr<T>(),
              "': read_npy<T> reads T's own dtype, without conversion)");
  }
  NpyArray<T> a{file.shape(),
                Kokkos::View<T*, Kokkos::HostSpace>(
                    Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::npy"), file.count())};
  file.read_into(a.values);
  return a;
}

}  // namespace tessera
