// Helpers shared by the interval primitives' tests: host <-> device copies and the count
// distributions the primitives must balance.
#pragma once

#include <tessera/interval/exclusive_scan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera_test {

/// A device copy of a host vector.
template <class T, class Space>
Kokkos::View<T*, typename Space::memory_space> device_view(const std::vector<T>& host) {
  Kokkos::View<T*, typename Space::memory_space> v("v", host.size());
  auto h = Kokkos::create_mirror_view(v);
  for (std::size_t k = 0; k < host.size(); ++k)
    h(k) = host[k];
  Kokkos::deep_copy(v, h);
  return v;
}

/// A host copy of a rank-1 View.
template <class View>
std::vector<typename View::non_const_value_type> host_vector(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename View::non_const_value_type>(h.data(), h.data() + h.extent(0));
}

/// The offsets of counts on the device (exclusive_scan); total receives their sum.
template <class Space>
Kokkos::View<int*, typename Space::memory_space> scan_counts(const std::vector<int>& counts,
                                                             std::int64_t& total) {
  Kokkos::View<int*, typename Space::memory_space> offsets("offsets", counts.size());
  total = tessera::exclusive_scan(Space(), device_view<int, Space>(counts), offsets);
  return offsets;
}

/// The counts of the seed's IntervalExpand demonstration (moderngpu's demo.cu).
inline std::vector<int> seed_expand_counts() {
  return {2, 5, 7, 16, 0, 1, 0, 0, 14, 10, 3, 14, 2, 1, 11, 2, 1, 0, 5, 6};
}

/// A 12-byte trivially copyable value.
struct Vec3 {
  float x, y, z;
  bool operator==(const Vec3& o) const { return x == o.x && y == o.y && z == o.z; }
};

/// A distinct value of type T for every k.
template <class T>
T value_of(int k) {
  if constexpr (std::is_same_v<T, Vec3>) {
    return {float(k), -0.5f * float(k), float(k % 7)};
  } else {
    return static_cast<T>(k) * T(3) + T(1) / T(2);
  }
}

/// The names of the distributions of make_counts.
inline std::vector<std::string> count_kinds() {
  return {"uniform", "zeros", "one_huge", "power_law", "alternating", "sparse"};
}

/// The distributions of counts the primitives must balance.
inline std::vector<int> make_counts(const std::string& kind, int n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<int> c(n, 0);
  for (int k = 0; k < n; ++k) {
    if (kind == "uniform") c[k] = std::uniform_int_distribution<int>(0, 8)(gen);
    if (kind == "one_huge") c[k] = k == n / 2 ? 100003 : 0;
    if (kind == "alternating") c[k] = k % 2 == 0 ? 0 : 4099;
    if (kind == "sparse") c[k] = k % 2003 == 1000 ? 1 + k % 37 : 0;  // runs of 2002 zeros
    if (kind == "power_law") {  // P(c > x) ~ x^-1.2, capped at 1e5
      const double u = std::uniform_real_distribution<double>(1e-6, 1)(gen);
      c[k]           = static_cast<int>(std::min(1e5, std::pow(u, -1 / 1.2) - 1));
    }
  }
  return c;
}

}  // namespace tessera_test
