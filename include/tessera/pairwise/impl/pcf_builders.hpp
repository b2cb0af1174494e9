// The PcfCollection constructors' bodies (pcf_collection.hpp): host lists of functions, or of
// times and values, into a host collection (host_pcfs), then validated and copied to the
// collection's memory space (validated_pcfs). Included at the end of pcf_collection.hpp, since
// it builds collections and validates them with validate_pcfs().
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/pairwise/pcf_collection.hpp>

#include <Kokkos_Core.hpp>

#include <array>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace tessera {
namespace Impl {

/// The functions of a host list as a host collection (not validated).
template <class T>
PcfCollection<T, Kokkos::HostSpace> host_pcfs(
    const std::vector<std::vector<std::array<T, 2>>>& functions) {
  Kokkos::View<std::size_t*, Kokkos::HostSpace> offsets("tessera::pcf_offsets",
                                                        functions.size() + 1);
  for (std::size_t f = 0; f < functions.size(); ++f)
    offsets(f + 1) = offsets(f) + functions[f].size();
  Kokkos::View<T* [2], Kokkos::LayoutRight, Kokkos::HostSpace> breakpoints(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pcf_breakpoints"),
      offsets(functions.size()));
  for (std::size_t f = 0; f < functions.size(); ++f) {
    for (std::size_t k = 0; k < functions[f].size(); ++k) {
      breakpoints(offsets(f) + k, 0) = functions[f][k][0];
      breakpoints(offsets(f) + k, 1) = functions[f][k][1];
    }
  }
  return {offsets, breakpoints};
}

/// The functions of host lists of times and values as a host collection (the lengths checked,
/// nothing else).
template <class T>
PcfCollection<T, Kokkos::HostSpace> host_pcfs(const std::vector<std::vector<T>>& times,
                                              const std::vector<std::vector<T>>& values) {
  if (times.size() != values.size()) {
    throw std::invalid_argument(concat("tessera::PcfCollection: times holds ", times.size(),
                                       " functions and values ", values.size(),
                                       " (expected one list of values per list of times)"));
  }
  std::vector<std::vector<std::array<T, 2>>> functions(times.size());
  for (std::size_t f = 0; f < times.size(); ++f) {
    if (times[f].size() != values[f].size()) {
      throw std::invalid_argument(concat("tessera::PcfCollection: times[", f, "] has ",
                                         times[f].size(), " entries and values[", f, "] ",
                                         values[f].size(), " (expected one value per time)"));
    }
    for (std::size_t k = 0; k < times[f].size(); ++k)
      functions[f].push_back({times[f][k], values[f][k]});
  }
  return host_pcfs(functions);
}

/// A host collection checked by validate_pcfs() but for the tails (a finite end), then copied
/// to MemorySpace (no copy for host memory). The one check of every way a collection is read.
template <class MemorySpace, class T>
PcfCollection<T, MemorySpace> validated_pcfs(const PcfCollection<T, Kokkos::HostSpace>& host,
                                             const char* caller, const char* argument) {
  validate_pcfs(host, std::numeric_limits<T>::max(), caller, argument);
  if constexpr (std::is_same_v<MemorySpace, Kokkos::HostSpace>) {
    return host;
  } else {
    return {Kokkos::create_mirror_view_and_copy(MemorySpace{}, host.offsets()),
            Kokkos::create_mirror_view_and_copy(MemorySpace{}, host.breakpoints())};
  }
}

}  // namespace Impl
}  // namespace tessera
