#include <tessera/core/config.hpp>
#include <tessera/core/version.hpp>

#include <Kokkos_Core.hpp>

#include <ostream>

namespace tessera {

std::string version() {
  return std::to_string(TESSERA_VERSION_MAJOR) + "." + std::to_string(TESSERA_VERSION_MINOR) + "." +
         std::to_string(TESSERA_VERSION_PATCH);
}

void print_configuration(std::ostream& os) {
  // Kokkos's own names (ExecutionSpace::name()) of the backends compiled into this Kokkos.
  const char* const enabled_spaces[] = {
#ifdef KOKKOS_ENABLE_CUDA
      "Cuda",
#endif
#ifdef KOKKOS_ENABLE_HIP
      "HIP",
#endif
#ifdef KOKKOS_ENABLE_SYCL
      "SYCL",
#endif
#ifdef KOKKOS_ENABLE_OPENMP
      "OpenMP",
#endif
#ifdef KOKKOS_ENABLE_THREADS
      "Threads",
#endif
#ifdef KOKKOS_ENABLE_HPX
      "HPX",
#endif
#ifdef KOKKOS_ENABLE_SERIAL
      "Serial",
#endif
      nullptr};
  os << "Tessera " << version() << " built against Kokkos " << KOKKOS_VERSION / 10000 << "."
     << KOKKOS_VERSION / 100 % 100 << "." << KOKKOS_VERSION % 100 << "\n  execution spaces:";
  for (const char* const* space = enabled_spaces; *space != nullptr; ++space)
    os << " " << *space;
  os << "\n  default execution space: " << Kokkos::DefaultExecutionSpace::name()
     << "\n  Tessera's CUDA kernels: "
#if defined(TESSERA_ENABLE_CUDA_KERNELS)
     << "compiled in"
#else
     << "not compiled in (they need a Kokkos 4 with CUDA)"
#endif
     << "\n";
}

}  // namespace tessera
