// Helpers shared by the interval primitives' tests: host <-> device copies and the count
// distributions the primitives must balance.
#pragma once

#include "expect_rejected.hpp"

#include <tessera/interval/exclusive_scan.hpp>
#include <tessera/interval/interval_options.hpp>

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
  using T = typename View::non_const_value_type;
  // packed in v's own memory space first: a copy between spaces needs contiguous Views
  Kokkos::View<T*, typename View::memory_space> packed("packed", v.extent(0));
  Kokkos::deep_copy(packed, v);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), packed);
  return std::vector<T>(h.data(), h.data() + h.extent(0));
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

/// An 8-byte value aligned to 4 bytes (16-byte stores only where the output happens to be
/// 8-byte aligned).
struct IntPair {
  std::int32_t a, b;
  bool operator==(const IntPair& o) const { return a == o.a && b == o.b; }
};

/// A 32-byte value (GPU tiles shrink to fit its staged copies in shared memory).
struct Wide {
  double v[4];
  bool operator==(const Wide& o) const {
    return v[0] == o.v[0] && v[1] == o.v[1] && v[2] == o.v[2] && v[3] == o.v[3];
  }
};

/// A distinct value of type T for every k (modulo T's range).
template <class T>
T value_of(int k) {
  if constexpr (std::is_same_v<T, Vec3>) {
    return {float(k), -0.5f * float(k), float(k % 7)};
  } else if constexpr (std::is_same_v<T, IntPair>) {
    return {k, -3 * k};
  } else if constexpr (std::is_same_v<T, Wide>) {
    return {{double(k), 0.25 * k, -double(k), 1.0 / (k + 2)}};
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

/// A team kernel that does nothing (to ask a backend for its largest team).
template <class Space>
struct NoTeamWork {
  KOKKOS_INLINE_FUNCTION void operator()(
      const typename Kokkos::TeamPolicy<Space>::member_type&) const {}
};

/// A rank-1 View `inside` of `extent` items with 8 items of `guard` on each side in the same
/// allocation, to find accesses outside a View.
template <class T, class Space>
struct Guarded {
  Kokkos::View<T*, typename Space::memory_space> all;
  Kokkos::View<T*, typename Space::memory_space> inside;
  T guard;
  Guarded(const std::vector<T>& values, T guard_value)
      : all("guarded", values.size() + 16), guard(guard_value) {
    std::vector<T> host(8, guard);
    host.insert(host.end(), values.begin(), values.end());
    host.insert(host.end(), 8, guard);
    all    = device_view<T, Space>(host);
    inside = Kokkos::subview(all, std::make_pair(std::size_t{8}, 8 + values.size()));
  }
  /// Whether the 16 guard items still hold the guard value.
  bool guards_intact() const {
    const std::vector<T> host = host_vector(all);
    return std::all_of(host.begin(), host.begin() + 8, [&](const T& v) { return v == guard; }) &&
           std::all_of(host.end() - 8, host.end(), [&](const T& v) { return v == guard; });
  }
};

/// One tile and one number of intervals to test.
struct TileCase {
  tessera::IntervalTile tile;
  int n;
};

/// The default tile with every size of `sizes`, then tiles smaller than the default (many
/// teams, pieces cut inside and between intervals; with team sizes > 1 where the backend runs
/// them; all small enough for a GPU's shared memory with 32-byte values) with sizes 1, 13 and
/// 211.
template <class Space>
std::vector<TileCase> tile_cases(const std::vector<int>& sizes) {
  std::vector<TileCase> cases;
  for (const int n : sizes)
    cases.push_back({{}, n});
  const int team_max = Kokkos::TeamPolicy<Space>(Space(), 1, 1)
                           .team_size_max(NoTeamWork<Space>{}, Kokkos::ParallelForTag());
  const std::vector<tessera::IntervalTile> small = {{1, 1},    {1, 7},      {1, 64},  {4, 24},
                                                    {32, 250}, {256, 1024}, {64, 100}};
  for (const tessera::IntervalTile& tile : small) {
    if (tile.team_size > team_max) continue;
    for (const int n : {1, 13, 211})
      cases.push_back({tile, n});
  }
  return cases;
}

/// "tile T x E, n = N" for failure messages.
inline std::string describe(const TileCase& c) {
  return "tile " + std::to_string(c.tile.team_size) + " x " +
         std::to_string(c.tile.items_per_team) + ", n = " + std::to_string(c.n);
}

}  // namespace tessera_test
