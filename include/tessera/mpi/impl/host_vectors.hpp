// Host std::vectors of the small data a distributed block-sparsity pattern is built from
// (mpi/block_sparse.hpp: cluster summaries, row lists): a View's host copy, a host vector copied
// into a View, and host vectors gathered from every rank.
#pragma once

#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/reduced_slices.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera {
namespace mpi {
namespace Impl {

/// Host copy of a View, as a std::vector (row-major).
template <class View>
std::vector<typename View::non_const_value_type> to_host_vector(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<typename View::non_const_value_type> out(h.size());
  for (std::size_t e = 0; e < h.size(); ++e)
    out[e] = h.data()[e];
  return out;
}

/// A host vector as a rank-1 View in MemorySpace (a copy).
template <class MemorySpace, class Value>
Kokkos::View<Value*, MemorySpace> to_view(const char* label, const std::vector<Value>& v) {
  Kokkos::View<Value*, MemorySpace> out(std::string(label), v.size());
  Kokkos::deep_copy(out, Kokkos::View<const Value*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                             v.data(), v.size()));
  return out;
}

/// A row-major host vector as a (rows, cols) LayoutRight View in MemorySpace (a copy).
template <class MemorySpace, class Value>
Kokkos::View<Value**, Kokkos::LayoutRight, MemorySpace> to_view(const char* label,
                                                                const std::vector<Value>& v,
                                                                int cols) {
  Kokkos::View<Value**, Kokkos::LayoutRight, MemorySpace> out(std::string(label), v.size() / cols,
                                                              cols);
  Kokkos::deep_copy(
      out,
      Kokkos::View<const Value**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
          v.data(), v.size() / cols, cols));
  return out;
}

/// MPI_Allgatherv of `count_per_item` values per item of each rank's `mine` (host vectors of
/// int or the scalar type).
template <class Value>
std::vector<Value> allgather_items(MPI_Comm comm, const std::vector<Value>& mine, int items,
                                   int count_per_item, const std::vector<int>& items_per_rank) {
  const int size = static_cast<int>(items_per_rank.size());
  std::vector<int> counts(size), displs(size);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = items_per_rank[r] * count_per_item;
    displs[r] = total;
    total += counts[r];
  }
  std::vector<Value> all(static_cast<std::size_t>(total));
  MPI_Datatype type = MPI_INT;
  if constexpr (!std::is_same_v<Value, int>) type = mpi_scalar<Value>();
  check_mpi(MPI_Allgatherv(mine.data(), items * count_per_item, type, all.data(), counts.data(),
                           displs.data(), type, comm),
            "MPI_Allgatherv");
  return all;
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
