// The Kokkos Tools regions a test's calls open, as a tool (a profiler, Kokkos' space-time stack)
// sees them: Tessera's calls that launch several kernels hold them in a region named
// tessera::<module>::<call> (core/impl/profiling_region.hpp).
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace tessera_test {

/// While alive: the names of the regions pushed and the number popped, through the Kokkos Tools
/// callbacks a tool would register.
class RegionRecording {
 public:
  RegionRecording() {
    pushed().clear();
    popped() = 0;
    Kokkos::Tools::Experimental::set_push_region_callback(&push);
    Kokkos::Tools::Experimental::set_pop_region_callback(&pop);
  }
  ~RegionRecording() {
    Kokkos::Tools::Experimental::set_push_region_callback(nullptr);
    Kokkos::Tools::Experimental::set_pop_region_callback(nullptr);
  }
  RegionRecording(const RegionRecording&)            = delete;
  RegionRecording& operator=(const RegionRecording&) = delete;

  /// The names of the regions pushed, in order.
  static std::vector<std::string>& pushed() {
    static std::vector<std::string> names;
    return names;
  }
  /// The number of regions popped.
  static int& popped() {
    static int count = 0;
    return count;
  }
  /// The number of regions named `name` pushed.
  static int count(const std::string& name) {
    return static_cast<int>(std::count(pushed().begin(), pushed().end(), name));
  }
  /// Whether every region pushed was popped.
  static bool balanced() { return popped() == static_cast<int>(pushed().size()); }

 private:
  static void push(const char* name) { pushed().emplace_back(name); }
  static void pop() { ++popped(); }
};

}  // namespace tessera_test
