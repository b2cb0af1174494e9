// Writing a NumPy .npy file (format version 1.0) at element offsets: the header of an array of
// float or double in the host's byte order (npy_header) and the open file the pairwise engine's
// NpyWriter streams blocks into (NpyFileWriter). The format is described in npy_file.hpp; the
// reader is npy_read.hpp.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/pairwise/impl/npy_dtype.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

namespace tessera {
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
}  // namespace tessera
