// Gaussian convolution a_i = sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j, D = 3, float,
// M = N: tessera::genred (1D scheme, and the automatic choice) beside a naive Kokkos
// RangePolicy kernel (one thread per i reading y and b from global memory, no scratch),
// measured in the same process. Counters: pairs_per_s, and ratio_vs_naive on the Tessera rows.
#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <vector>

namespace {

using Space  = Kokkos::DefaultExecutionSpace;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Space::memory_space>;

constexpr double sigma = 0.1;

struct Problem {
  Points x, y, b, out;
  explicit Problem(int n) : x("x", n, 3), y("y", n, 3), b("b", n, 1), out("out", n, 1) {
    Kokkos::Random_XorShift64_Pool<Space> pool(12345);
    Kokkos::fill_random(x, pool, 1.0f);
    Kokkos::fill_random(y, pool, 1.0f);
    Kokkos::fill_random(b, pool, 1.0f);
    Kokkos::fence();
  }
};

/// The baseline: a_i accumulated by one thread reading every y_j, b_j from global memory.
struct NaiveGaussian {
  Kokkos::View<const float**, Kokkos::LayoutRight, Space::memory_space> x, y, b;
  Points out;
  float gamma;
  int n;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const float x0 = x(i, 0), x1 = x(i, 1), x2 = x(i, 2);
    float s = 0;
    for (int j = 0; j < n; ++j) {
      const float d0 = x0 - y(j, 0), d1 = x1 - y(j, 1), d2 = x2 - y(j, 2);
      s += tessera::math::exp(-gamma * (d0 * d0 + d1 * d1 + d2 * d2)) * b(j, 0);
    }
    out(i, 0) = s;
  }
};

void run_naive(const Problem& p) {
  const int n = static_cast<int>(p.x.extent(0));
  Kokkos::parallel_for("bench::naive_gaussian", Kokkos::RangePolicy<Space>(0, n),
                       NaiveGaussian{p.x, p.y, p.b, p.out, float(1.0 / (2 * sigma * sigma)), n});
}

void run_tessera(const Problem& p, tessera::Scheme scheme) {
  tessera::GenredOptions options;
  options.scheme = scheme;
  tessera::genred(Space(), tessera::Sum{}, tessera::GaussianKernel<3, 1>(sigma),
                  tessera::i_vars(p.x), tessera::j_vars(p.y, p.b), p.out, options);
}

/// Median seconds of the naive kernel at size n, measured once per size in this process.
double naive_seconds(const Problem& p) {
  static std::map<int, double> cache;
  const int n = static_cast<int>(p.x.extent(0));
  if (cache.count(n)) return cache[n];
  run_naive(p);
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    Kokkos::Timer timer;
    run_naive(p);
    Kokkos::fence();
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  return cache[n] = t[t.size() / 2];
}

void set_pairs(benchmark::State& state, double n) {
  state.counters["pairs_per_s"] =
      benchmark::Counter(n * n * state.iterations(), benchmark::Counter::kIsRate);
}

void BM_naive_range_policy(benchmark::State& state) {
  const Problem p(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    run_naive(p);
    Kokkos::fence();
  }
  set_pairs(state, static_cast<double>(state.range(0)));
}

template <tessera::Scheme S>
void BM_tessera_genred(benchmark::State& state) {
  const Problem p(static_cast<int>(state.range(0)));
  run_tessera(p, S);  // warm-up: first launch, allocations
  Kokkos::fence();
  double seconds = 0;
  for (auto _ : state) {
    Kokkos::Timer timer;
    run_tessera(p, S);
    Kokkos::fence();
    seconds += timer.seconds();
  }
  const double n = static_cast<double>(state.range(0));
  set_pairs(state, n);
  state.counters["ratio_vs_naive"] = naive_seconds(p) / (seconds / state.iterations());
}

/// Sizes 1e3 .. 1e6 on devices; on host backends only those that run in seconds.
void sizes(benchmark::internal::Benchmark* b) {
  const int largest = tessera::Impl::is_device_space<Space> ? 1000000 : 30000;
  for (int n : {1000, 3000, 10000, 30000, 100000, 300000, 1000000}) {
    if (n <= largest) b->Arg(n);
  }
  b->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_naive_range_policy)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_tessera_genred, tessera::Scheme::tiled_1d)->Apply(sizes);
BENCHMARK_TEMPLATE(BM_tessera_genred, tessera::Scheme::automatic)->Apply(sizes);

}  // namespace
