// Block-sparse vs dense Gaussian convolution, D = 3, float, M = N, on clustered data: points
// uniform in the unit cube, binned by grid_cluster into voxels of side 0.1 (1000 clusters) and
// sorted by cluster. For a kept fraction f of the cluster-to-cluster tiles, each x-cluster keeps
// its ceil(f * Cy) nearest y-clusters (by centroid distance); f = 100% is the full mask.
// Counters: pairs_per_s counts the pairs actually computed (kept_pairs); kept_fraction is
// kept_pairs / (M * N); speedup_vs_dense is the dense call's time over the block-sparse call's,
// the dense time measured in the same process on the same sorted data.
#include "clustered_problem.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <vector>

namespace {

using tessera_perf::ClusteredProblem;
using tessera_perf::Mem;
using tessera_perf::Points;
using tessera_perf::Space;
using tessera_perf::voxel;

constexpr double sigma = 0.05;

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
  if (!cache.count(n)) cache[n] = median_seconds(tessera_perf::problem(n), nullptr);
  return cache[n];
}

void BM_dense_1d(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto& p     = tessera_perf::problem(n);
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
  auto& p           = tessera_perf::problem(n);
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
  const auto& p = tessera_perf::problem(n);
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
