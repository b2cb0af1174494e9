// Host references for piecewise constant functions: direct integration in double over the
// union of both functions' breakpoints (each piece evaluated by search, not by a merge walk), and
// random PCF collections for the tests.
#pragma once

#include <tessera/pairwise/pcf_collection.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

namespace tessera_test {

/// A PCF on the host: breakpoints t (strictly increasing) and values v.
struct HostPcf {
  std::vector<double> t, v;
};

/// f(t): 0 before the first breakpoint, v_k on [t_k, t_{k+1}), the last value after.
inline double pcf_value(const HostPcf& f, double t) {
  const auto it = std::upper_bound(f.t.begin(), f.t.end(), t);
  return it == f.t.begin() ? 0.0 : f.v[std::size_t(it - f.t.begin()) - 1];
}

/// Integral of integrand(f(t), g(t)) over (-inf, end); with an infinite end the functions'
/// tails must be 0 (they then add nothing).
template <class Integrand>
double pcf_integral(const HostPcf& f, const HostPcf& g, double end, Integrand integrand) {
  std::vector<double> times(f.t);
  times.insert(times.end(), g.t.begin(), g.t.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  double sum = 0;
  for (std::size_t k = 0; k < times.size() && times[k] < end; ++k) {
    const double a = times[k];
    const double b = k + 1 < times.size() ? std::min(times[k + 1], end) : end;
    if (std::isinf(b)) break;
    sum += (b - a) * integrand(pcf_value(f, a), pcf_value(g, a));
  }
  return sum;
}

inline double lp_distance(const HostPcf& f, const HostPcf& g, double p, double end) {
  const double s =
      pcf_integral(f, g, end, [p](double a, double b) { return std::pow(std::abs(a - b), p); });
  return std::pow(s, 1.0 / p);
}

inline double l2_inner_product(const HostPcf& f, const HostPcf& g, double end) {
  return pcf_integral(f, g, end, [](double a, double b) { return a * b; });
}

/// How random breakpoints are drawn.
enum class PcfTimes {
  random,       // uniform in [0, 10), sorted
  shared,       // every function on the grid 0, 1, 2, ...
  interleaved,  // function f on f % 2 + 2 k (even and odd functions never share a time)
};

/// n random PCFs of lengths in [min_len, max_len], values in [-1, 1], ending at 0 (so that
/// integrals to +infinity are finite) unless nonzero_tail.
inline std::vector<HostPcf> random_pcfs(std::size_t n, unsigned seed, int min_len, int max_len,
                                        PcfTimes times    = PcfTimes::random,
                                        bool nonzero_tail = false) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> len(min_len, max_len);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<HostPcf> pcfs(n);
  for (std::size_t f = 0; f < n; ++f) {
    const int k = len(gen);
    auto& p     = pcfs[f];
    if (times == PcfTimes::random) {
      while (int(p.t.size()) < k) {
        // float-representable times, so that float and double collections hold the same PCFs
        p.t.push_back(double(float(10.0 * unit(gen))));
        std::sort(p.t.begin(), p.t.end());
        p.t.erase(std::unique(p.t.begin(), p.t.end()), p.t.end());
      }
    } else {
      for (int i = 0; i < k; ++i) {
        p.t.push_back(times == PcfTimes::shared ? double(i) : double(f % 2 + 2 * i));
      }
    }
    for (int i = 0; i < k; ++i)
      p.v.push_back(double(float(2.0 * unit(gen) - 1.0)));
    if (!nonzero_tail) p.v.back() = 0;
  }
  return pcfs;
}

/// The functions as a host PcfCollection<T>.
template <class T>
tessera::PcfCollection<T> to_collection(const std::vector<HostPcf>& pcfs) {
  Kokkos::View<std::size_t*, Kokkos::HostSpace> offsets("offsets", pcfs.size() + 1);
  std::size_t total = 0;
  for (std::size_t f = 0; f < pcfs.size(); ++f) {
    offsets(f) = total;
    total += pcfs[f].t.size();
  }
  offsets(pcfs.size()) = total;
  Kokkos::View<T* [2], Kokkos::LayoutRight, Kokkos::HostSpace> bp("breakpoints", total);
  for (std::size_t f = 0; f < pcfs.size(); ++f) {
    for (std::size_t k = 0; k < pcfs[f].t.size(); ++k) {
      bp(offsets(f) + k, 0) = static_cast<T>(pcfs[f].t[k]);
      bp(offsets(f) + k, 1) = static_cast<T>(pcfs[f].v[k]);
    }
  }
  return {offsets, bp};
}

/// A copy of a collection in MemorySpace.
template <class MemorySpace, class T>
tessera::PcfCollection<T, MemorySpace> copy_to(const tessera::PcfCollection<T>& pcfs) {
  auto off = Kokkos::create_mirror_view_and_copy(MemorySpace{}, pcfs.offsets());
  auto bp  = Kokkos::create_mirror_view_and_copy(MemorySpace{}, pcfs.breakpoints());
  return tessera::PcfCollection<T, MemorySpace>(off, bp).reshaped(pcfs.shape());
}

}  // namespace tessera_test
