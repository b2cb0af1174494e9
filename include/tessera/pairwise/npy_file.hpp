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

#include <tessera/pairwise/impl/npy_dtype.hpp>
#include <tessera/pairwise/impl/npy_read.hpp>
#include <tessera/pairwise/impl/npy_write.hpp>

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace tessera {

/// Output target of a pairwise call: the .npy file at `path` (created or truncated).
struct NpyFile {
  std::string path;  ///< where the file goes; not empty
};

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
