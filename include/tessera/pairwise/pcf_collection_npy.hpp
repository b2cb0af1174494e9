// PCF collections saved by NumPy: n functions as two .npy files, as np.save writes them from
// Python,
//
//   np.save("offsets.npy", np.cumsum([0] + [len(f) for f in functions]))   # n + 1 integers
//   np.save("breakpoints.npy", np.concatenate(functions))                  # (K, 2) floats
//
// where each function is a (K_f, 2) array of rows (t, v) (masspcf's point arrays).
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/pairwise/impl/npy_read.hpp>
#include <tessera/pairwise/pcf_collection.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace tessera {

/// Reads n PCFs from two .npy files (format 1.0 to 3.0, C order, little-endian): offsets_path
/// holds the n + 1 offsets, a 1-D array of integers (int8 to int64 or uint8 to uint64, no
/// negative value); breakpoints_path the (K, 2) rows (t, v), float32 or float64 (converted to
/// T). The collection is checked as PcfCollection's list constructors check theirs (offsets
/// from 0 to K, strictly increasing; finite, strictly increasing times; finite values; the tails
/// are checked by each call against its end_time) and copied to MemorySpace. Throws
/// std::invalid_argument naming the path and the defect ("tessera::read_pcf_collection_npy:
/// breakpoints_path 'b.npy' holds '<i8' values (expected floating point ...)", "... the PCFs of
/// 'o.npy' and 'b.npy' function 3 (...) has times that do not increase strictly"), for a missing
/// or unreadable file, a bad magic, version or header, another dtype, big-endian data, Fortran
/// order, another shape, or data shorter or longer than the shape. O(n + K) work; host memory:
/// the two arrays in T and std::size_t (plus one 64 Ki-element chunk per converted file), and
/// their copies in MemorySpace when it is not HostSpace.
template <class T, class MemorySpace = Kokkos::HostSpace>
PcfCollection<T, MemorySpace> read_pcf_collection_npy(const std::string& offsets_path,
                                                      const std::string& breakpoints_path) {
  const char* caller = "read_pcf_collection_npy";
  Impl::NpyReader offsets_file(offsets_path, caller, "offsets_path");
  offsets_file.read_header();
  if (offsets_file.shape().size() != 1 || offsets_file.shape()[0] == 0) {
    offsets_file.fail("has shape ", offsets_file.shape_str(),
                      " (expected (n + 1,): a 1-D array of n + 1 >= 1 offsets)");
  }
  Kokkos::View<std::size_t*, Kokkos::HostSpace> offsets(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pcf_offsets"),
      offsets_file.shape()[0]);
  offsets_file.read_into(offsets);

  Impl::NpyReader points_file(breakpoints_path, caller, "breakpoints_path");
  points_file.read_header();
  if (points_file.shape().size() != 2 || points_file.shape()[1] != 2) {
    points_file.fail("has shape ", points_file.shape_str(),
                     " (expected (K, 2): one row (t, v) per breakpoint)");
  }
  Kokkos::View<T* [2], Kokkos::LayoutRight, Kokkos::HostSpace> breakpoints(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pcf_breakpoints"),
      points_file.shape()[0]);
  points_file.read_into(breakpoints);

  const std::string pcfs =
      Impl::concat("the PCFs of '", offsets_path, "' and '", breakpoints_path, "'");
  return Impl::validated_pcfs<MemorySpace>(
      PcfCollection<T, Kokkos::HostSpace>(offsets, breakpoints), caller, pcfs.c_str());
}

}  // namespace tessera
