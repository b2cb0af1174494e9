// Block-sparse vs dense Gaussian convolution, D = 3, float, M = N, on clustered data: points
// uniform in the unit cube, binned by grid_cluster into voxels of side 0.1 (1000 clusters) and
// sorted by cluster. For a kept fraction f of the cluster-to-cluster tiles, each x-cluster keeps
// its ceil(f * Cy) nearest y-clusters (by centroid distance); f = 100% is the full mask.
// Counters: pairs_per_s counts the pairs actually computed (kept_pairs); kept_fraction is
// kept_pairs / (M * N); speedup_vs_dense is the dense call's time over the block-sparse call's,
// the dense time measured in the same process on the same sorted data.
#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

namespace {

using Space  = Kokkos::DefaultExecutionSpace;
using Mem    = Space::memory_space;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;

constexpr double sigma = 0.05;
constexpr double voxel = 0.1;

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

/// Problems by size; released when Kokkos is finalised (their Views must go first).
std::map<int, std::unique_ptr<ClusteredProblem>>& problems() {
  static std::map<int, std::unique_ptr<ClusteredProblem>> cache;
  static const bool hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  return cache;
}

ClusteredProblem& problem(int n) {
  auto& p = problems()[n];
  if (!p) p = std::make_unique<ClusteredProblem>(n);
  return *p;
}

void run(const ClusteredProblem& p, const tessera::BlockSparseRanges<Mem>* ranges) {
  const auto k = tessera::GaussianKernel<3, 1>(sigma);
  if (ranges) {
    tessera::genred(Space(), tessera::Sum{}, k, tessera::i_vars(p.x), tessera::j_vars(p.y, p.b),
                    p.out, *ranges);
  } else {
    tessera::GenredOptions options;
    options.scheme = tessera::Scheme::tiled_1d;
    tessera::genred(Space(), tessera::Sum{}, k, tessera::i_vars(p.x), tessera::j_vars(p.y, p.b),
                    p.out, options);
  }
}

/// Median seconds of one call, after a warm-up.
double median_seconds(const ClusteredProblem& p, const tessera::BlockSparseRanges<Mem>* ranges) {
  run(p, ranges);
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    Kokkos::Timer timer;
    run(p, ranges);
    Kokkos::fence();
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double dense_seconds(int n) {
  static std::map<int, double> cache;
  if (!cache.count(n)) cache[n] = median_seconds(problem(n), nullptr);
  return cache[n];
}

void BM_dense_1d(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto& p     = problem(n);
  run(p, nullptr);
  Kokkos::fence();
  for (auto _ : state) {
    run(p, nullptr);
    Kokkos::fence();
  }
  state.counters["pairs_per_s"] = benchmark::Counter(
      static_cast<double>(n) * n * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["kept_fraction"] = 1.0;
}

void BM_block_sparse(benchmark::State& state) {
  const int n       = static_cast<int>(state.range(0));
  const int percent = static_cast<int>(state.range(1));
  auto& p           = problem(n);
  const auto& r     = p.pattern(percent);
  run(p, &r);
  Kokkos::fence();
  double seconds = 0;
  for (auto _ : state) {
    Kokkos::Timer timer;
    run(p, &r);
    Kokkos::fence();
    seconds += timer.seconds();
  }
  const double kept = static_cast<double>(r.kept_pairs());
  state.counters["pairs_per_s"] =
      benchmark::Counter(kept * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["kept_fraction"]    = kept / (static_cast<double>(n) * n);
  state.counters["speedup_vs_dense"] = dense_seconds(n) / (seconds / state.iterations());
}

/// The one-call construction from two clouds and a cutoff (clustering, sorting, mask, ranges).
void BM_block_sparse_from_cutoff(benchmark::State& state) {
  const int n   = static_cast<int>(state.range(0));
  const auto& p = problem(n);
  Points x("x", n, 3), y("y", n, 3);
  for (auto _ : state) {
    state.PauseTiming();
    Kokkos::deep_copy(x, p.x);
    Kokkos::deep_copy(y, p.y);
    Kokkos::fence();
    state.ResumeTiming();
    const auto s = tessera::block_sparse_from_cutoff(Space(), x, y, voxel, 3 * sigma);
    benchmark::DoNotOptimize(s.ranges.kept_pairs());
  }
  state.counters["points_per_s"] =
      benchmark::Counter(2.0 * n * state.iterations(), benchmark::Counter::kIsRate);
}

int largest() {
  return tessera::Impl::is_device_space<Space> ? 1000000 : 20000;
}

void dense_sizes(benchmark::internal::Benchmark* b) {
  b->Arg(largest())->UseRealTime()->Unit(benchmark::kMillisecond);
}
void sparse_sizes(benchmark::internal::Benchmark* b) {
  for (int percent : {1, 10, 50, 100})
    b->Args({largest(), percent});
  b->ArgNames({"n", "percent"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_dense_1d)->Apply(dense_sizes);
BENCHMARK(BM_block_sparse)->Apply(sparse_sizes);
BENCHMARK(BM_block_sparse_from_cutoff)->Apply(dense_sizes);

}  // namespace
