#include <tessera/core/version.hpp>

#include <Kokkos_Core.hpp>

#include <ostream>

namespace tessera {

std::string version() {
  return std::to_string(TESSERA_VERSION_MAJOR) + "." + std::to_string(TESSERA_VERSION_MINOR) + "." +
         std::to_string(TESSERA_VERSION_PATCH);
}

void print_configuration(std::ostream& os) {
  os << "Tessera " << version() << " built against Kokkos " << KOKKOS_VERSION / 10000 << "."
     << KOKKOS_VERSION / 100 % 100 << "." << KOKKOS_VERSION % 100
     << "; default execution space: " << Kokkos::DefaultExecutionSpace::name()
     << "\n";
}

}  // namespace tessera
