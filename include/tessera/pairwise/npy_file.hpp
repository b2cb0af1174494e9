// NumPy .npy files (format version 1.0): the pairwise engine streams outputs larger than host
// memory into one, block by block, and read_npy() reads one back.
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

#include <Kokkos_Core.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <stdexcept>
#include <string>
#include <sys/types.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace tessera {

/// Output target of a pairwise call: the .npy file at `path` (created or truncated).
struct NpyFile {
  std::string path;  ///< where the file goes; not empty
};

namespace Impl {

/// The byte order of this host's values as a .npy descr writes it: '<' little-endian (every
/// platform Kokkos supports today), '>' big-endian. Files hold the host's bytes as they are.
inline constexpr char npy_host_order =
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    '>';
#else
    '<';
#endif

/// The descr of T's values in this host's byte order: "<f4" or "<f8" on little-endian hosts.
template <class T>
constexpr const char* npy_descr() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tessera: .npy files hold float or double");
  if constexpr (npy_host_order == '<') {
    return std::is_same_v<T, float> ? "<f4" : "<f8";
  } else {
    return std::is_same_v<T, float> ? ">f4" : ">f8";
  }
}

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

/// Reads a version-1.x .npy file of little-endian float or double in C order (what the pairwise
/// engine writes); throws std::runtime_error for a missing file, another dtype or order, or a
/// file shorter than its shape says. Reads the whole array: O(size) host memory.
template <class T>
NpyArray<T> read_npy(const std::string& path) {
  auto fail = [&](const std::string& what) {
    throw std::runtime_error("tessera::read_npy: '" + path + "' " + what);
  };
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail("cannot be opened");
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  unsigned char pre[10];
  if (std::fread(pre, 1, 10, f) != 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0 || pre[6] != 1) {
    fail("is not a version-1 .npy file");
  }
  const std::size_t len = pre[8] | (std::size_t(pre[9]) << 8);
  std::string dict(len, '\0');
  if (std::fread(dict.data(), 1, len, f) != len) fail("has a truncated header");
  if (dict.find(std::string("'descr': '") + Impl::npy_descr<T>() + "'") == std::string::npos) {
    fail(std::string("does not hold ") + Impl::npy_descr<T>() + " values");
  }
  if (dict.find("'fortran_order': False") == std::string::npos) fail("is not in C order");
  NpyArray<T> a;
  const std::size_t open = dict.find("'shape': (");
  if (open == std::string::npos) fail("has no shape");
  std::size_t pos   = open + 10;
  std::size_t count = 1;
  while (pos < dict.size() && dict[pos] != ')') {
    if (dict[pos] == ',' || dict[pos] == ' ') {
      ++pos;
      continue;
    }
    if (dict[pos] < '0' || dict[pos] > '9') fail("has a malformed shape");
    std::size_t e = 0;
    for (; pos < dict.size() && dict[pos] >= '0' && dict[pos] <= '9'; ++pos) {
      const std::size_t digit = std::size_t(dict[pos] - '0');
      if (e > (std::numeric_limits<std::size_t>::max() - digit) / 10) fail("has too large a shape");
      e = e * 10 + digit;
    }
    if (e != 0 && count > std::numeric_limits<std::size_t>::max() / sizeof(T) / e) {
      fail("has too large a shape");
    }
    a.shape.push_back(e);
    count *= e;
  }
  a.values = Kokkos::View<T*, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::npy"), count);
  if (std::fread(a.values.data(), sizeof(T), count, f) != count) fail("is shorter than its shape");
  return a;
}

}  // namespace tessera
