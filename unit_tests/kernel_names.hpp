// The names of the kernels a test's calls launch, as a Kokkos Tools tool sees them (Tessera's
// hand-written kernels report theirs through core/impl/tools_labels.hpp): which path took a call.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera_test {

/// The names of the parallel_for kernels begun while it lives (a Kokkos Tools callback).
struct KernelNames {
  static std::vector<std::string>& names() {
    static std::vector<std::string> n;
    return n;
  }
  static void begin(const char* name, const std::uint32_t, std::uint64_t*) {
    names().emplace_back(name);
  }
  KernelNames() {
    names().clear();
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(&KernelNames::begin);
  }
  ~KernelNames() { Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr); }
  KernelNames(const KernelNames&)            = delete;
  KernelNames& operator=(const KernelNames&) = delete;
  /// Whether a kernel named `kernel` was begun.
  static bool launched(const std::string& kernel) {
    for (const auto& n : names())
      if (n == kernel) return true;
    return false;
  }
};

}  // namespace tessera_test
