// Random piecewise constant functions for the pairwise benchmarks (bench_pairwise,
// bench_mpi_pdist): the same functions from the same seed on every rank and every run.
#pragma once

#include <tessera/pairwise/pcf_collection.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <random>

namespace tessera_bench {

constexpr int pcf_points = 100;  ///< breakpoints per PCF

/// n random PCFs of `pcf_points` breakpoints in host memory: times 0 = t_0 < t_1 < ... with gaps
/// uniform in [0.5, 1.5), values uniform in [-1, 1), the last value 0.
template <class T>
tessera::PcfCollection<T> random_pcfs(std::size_t n, unsigned seed) {
  Kokkos::View<std::size_t*, Kokkos::HostSpace> offsets("offsets", n + 1);
  Kokkos::View<T* [2], Kokkos::LayoutRight, Kokkos::HostSpace> bp(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "breakpoints"), n * pcf_points);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> gap(0.5, 1.5), value(-1.0, 1.0);
  for (std::size_t f = 0; f <= n; ++f)
    offsets(f) = f * pcf_points;
  for (std::size_t f = 0; f < n; ++f) {
    double t = 0;
    for (int k = 0; k < pcf_points; ++k) {
      bp(f * pcf_points + k, 0) = static_cast<T>(t);
      bp(f * pcf_points + k, 1) = k + 1 < pcf_points ? static_cast<T>(value(gen)) : T(0);
      t += gap(gen);
    }
  }
  return {offsets, bp};
}

}  // namespace tessera_bench
