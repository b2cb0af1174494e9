// Block-sparse vs dense Gaussian convolution, D = 3, float, M = N, on clustered data: points
// uniform in the unit cube, binned by grid_cluster into voxels of side 0.1 (1000 clusters) and
// sorted by cluster. For a kept fraction f of the cluster-to-cluster tiles, each x-cluster keeps
// its ceil(f * Cy) nearest y-clusters (by centroid distance); f = 100% is the full mask.
// Counters: pairs_per_s counts the pairs actually computed (kept_pairs); kept_fraction is
// kept_pairs / (M * N); speedup_vs_dense is the dense call's time over the block-sparse call's,
// the dense time measured in the same process on the same sorted data.
// The _d64 rows: the same clouds and patterns at D = 64 (the 3 clustered coordinates, then 61
// uniform in [0, 0.1): the clusters' segments and ranges unchanged), Gaussian of sigma 0.5, with
// Distance::matrix (evaluation 1: on CUDA the tensor-core kernels) or Distance::direct (0: the
// SIMT kernel), the dense call of the same evaluation as the baseline.
#include "clustered_problem.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
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

/// Times `call`, a block-sparse call on pattern r of the n x n plane, after a warm-up, and sets
/// the counters of the file comment against a dense call of `dense` seconds.
template <class Call>
void time_block_sparse(benchmark::State& state, int n, const tessera::BlockSparseRanges<Mem>& r,
                       double dense, Call&& call) {
  call();
  Kokkos::fence();
  double seconds = 0;
  for (auto _ : state) {
    Kokkos::Timer timer;
    call();
    Kokkos::fence();
    seconds += timer.seconds();
  }
  const double kept = static_cast<double>(r.kept_pairs());
  state.counters["pairs_per_s"] =
      benchmark::Counter(kept * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["kept_fraction"]    = kept / (static_cast<double>(n) * n);
  state.counters["speedup_vs_dense"] = dense / (seconds / state.iterations());
}

void BM_block_sparse(benchmark::State& state) {
  const int n       = static_cast<int>(state.range(0));
  const int percent = static_cast<int>(state.range(1));
  auto& p           = tessera_perf::problem(n);
  const auto& r     = p.pattern(percent);
  time_block_sparse(state, n, r, dense_seconds(n), [&] { run(p, &r); });
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

// ------------------------------------------------------------------------ D = 64
constexpr int lifted_dim = 64;

/// The clouds of problem(n) lifted to lifted_dim coordinates (see the file comment), built once.
struct LiftedProblem {
  Points x, y;
  explicit LiftedProblem(int n) : x("x64", n, lifted_dim), y("y64", n, lifted_dim) {
    const ClusteredProblem& p = tessera_perf::problem(n);
    Kokkos::Random_XorShift64_Pool<Space> pool(2025);
    Kokkos::fill_random(x, pool, 0.1f);
    Kokkos::fill_random(y, pool, 0.1f);
    const auto first3 = std::make_pair(0, 3);
    Kokkos::deep_copy(Kokkos::subview(x, Kokkos::ALL, first3), p.x);
    Kokkos::deep_copy(Kokkos::subview(y, Kokkos::ALL, first3), p.y);
    Kokkos::fence();
  }
};

const LiftedProblem& lifted(int n) {
  static std::map<int, std::unique_ptr<LiftedProblem>> cache;
  static const bool hooked = (Kokkos::push_finalize_hook([] { cache.clear(); }), true);
  (void)hooked;
  auto& l = cache[n];
  if (!l) l = std::make_unique<LiftedProblem>(n);
  return *l;
}

template <tessera::Distance Dist>
void run_lifted(int n, const tessera::BlockSparseRanges<Mem>* ranges) {
  const ClusteredProblem& p = tessera_perf::problem(n);
  const LiftedProblem& l    = lifted(n);
  const tessera::RadialKernel<tessera::GaussianProfile, lifted_dim, 1, Dist> k(0.5);
  if (ranges) {
    tessera::genred(Space(), tessera::Sum{}, k, tessera::i_vars(l.x), tessera::j_vars(l.y, p.b),
                    p.out, *ranges);
  } else {
    tessera::genred(Space(), tessera::Sum{}, k, tessera::i_vars(l.x), tessera::j_vars(l.y, p.b),
                    p.out);
  }
}

/// Seconds per call of run_lifted over `calls` calls, after a warm-up.
template <tessera::Distance Dist>
double lifted_seconds(int n, const tessera::BlockSparseRanges<Mem>* ranges, int calls) {
  run_lifted<Dist>(n, ranges);
  Kokkos::fence();
  Kokkos::Timer timer;
  for (int c = 0; c < calls; ++c)
    run_lifted<Dist>(n, ranges);
  Kokkos::fence();
  return timer.seconds() / calls;
}

template <tessera::Distance Dist>
void block_sparse_d64(benchmark::State& state, int n, int percent) {
  const auto& r = tessera_perf::problem(n).pattern(percent);
  static std::map<int, double> dense;
  if (!dense.count(n)) dense[n] = lifted_seconds<Dist>(n, nullptr, 3);
  time_block_sparse(state, n, r, dense[n], [&] { run_lifted<Dist>(n, &r); });
  state.counters["dense_pairs_per_s"] = static_cast<double>(n) * n / dense[n];
}

void BM_block_sparse_d64(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0)), percent = static_cast<int>(state.range(1));
  if (state.range(2) != 0) {
    block_sparse_d64<tessera::Distance::matrix>(state, n, percent);
  } else {
    block_sparse_d64<tessera::Distance::direct>(state, n, percent);
  }
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

void d64_sizes(benchmark::internal::Benchmark* b) {
  const int n = tessera::Impl::is_device_space<Space> ? 200000 : 10000;
  for (int matrix : {1, 0})
    for (int percent : {10, 100})
      b->Args({n, percent, matrix});
  b->ArgNames({"n", "percent", "matrix"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_dense_1d)->Apply(dense_sizes);
BENCHMARK(BM_block_sparse)->Apply(sparse_sizes);
BENCHMARK(BM_block_sparse_from_cutoff)->Apply(dense_sizes);
BENCHMARK(BM_block_sparse_d64)->Apply(d64_sizes);

}  // namespace
