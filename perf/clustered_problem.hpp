// Clustered test data of the block-sparse benchmarks: two clouds of n points uniform in the unit
// cube, binned by grid_cluster into voxels of side 0.1 (1000 clusters) and sorted by cluster,
// with patterns keeping a given percentage of the cluster-to-cluster tiles.
#pragma once

#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

namespace tessera_perf {

using Space  = Kokkos::DefaultExecutionSpace;
using Mem    = Space::memory_space;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;

inline constexpr double voxel = 0.1;

/// Sorted clustered clouds and their cluster summaries, built once per size.
struct ClusteredProblem {
  Points x, y, b, out;
  tessera::ClusterSummary<float, Mem> cx, cy;
  std::map<int, tessera::BlockSparseRanges<Mem>> patterns;  // by kept percentage

  explicit ClusteredProblem(int n) : x("x", n, 3), y("y", n, 3), b("b", n, 1), out("out", n, 1) {
    Kokkos::Random_XorShift64_Pool<Space> pool(2024);
    Kokkos::fill_random(x, pool, 1.0f);
    Kokkos::fill_random(y, pool, 1.0f);
    Kokkos::fill_random(b, pool, 1.0f);
    const Space space;
    auto lx = tessera::grid_cluster(space, x, voxel);
    auto ly = tessera::grid_cluster(space, y, voxel);
    tessera::sort_clusters(space, lx.labels, x);
    tessera::sort_clusters(space, ly.labels, y, b);
    cx = tessera::cluster_ranges_centroids(space, x, lx.labels);
    cy = tessera::cluster_ranges_centroids(space, y, ly.labels);
    Kokkos::fence();
  }

  /// Each x-cluster keeps its ceil(percent% * Cy) nearest y-clusters.
  const tessera::BlockSparseRanges<Mem>& pattern(int percent) {
    auto it = patterns.find(percent);
    if (it != patterns.end()) return it->second;
    const auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cx.centroids);
    const auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), cy.centroids);
    const int nx = static_cast<int>(hx.extent(0)), ny = static_cast<int>(hy.extent(0));
    const int keep = static_cast<int>(std::ceil(percent / 100.0 * ny));
    Kokkos::View<bool**, Mem> mask("mask", nx, ny);
    auto hm = Kokkos::create_mirror_view(mask);
    std::vector<int> order(ny);
    std::vector<double> dist(ny);
    for (int a = 0; a < nx; ++a) {
      for (int c = 0; c < ny; ++c) {
        dist[c] = 0;
        for (int d = 0; d < 3; ++d)
          dist[c] += (hx(a, d) - hy(c, d)) * (hx(a, d) - hy(c, d));
      }
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                        [&](int p, int q) { return dist[p] < dist[q]; });
      for (int t = 0; t < ny; ++t)
        hm(a, order[t]) = t < keep;
    }
    Kokkos::deep_copy(mask, hm);
    return patterns.emplace(percent, tessera::ranges_from_mask(Space(), mask, cx.ranges, cy.ranges))
        .first->second;
  }
};

/// Problems by size, built once; released when Kokkos is finalised (their Views must go first).
inline std::map<int, std::unique_ptr<ClusteredProblem>>& problems() {
  static std::map<int, std::unique_ptr<ClusteredProblem>> cache;
  static const bool hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  return cache;
}

inline ClusteredProblem& problem(int n) {
  auto& p = problems()[n];
  if (!p) p = std::make_unique<ClusteredProblem>(n);
  return *p;
}

}  // namespace tessera_perf
