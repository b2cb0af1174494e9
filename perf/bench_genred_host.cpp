// Genred on host execution spaces (the host kernel against its baselines): Gaussian convolution a_i
// = sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j, ArgKMin (K = 10 nearest neighbours by squared
// distance) and LogSumExp (a_i = log sum_j exp(-|x_i - y_j|^2 / (2 sigma^2))), D = 3, float,
// M = N (20000 by default; TESSERA_BENCH_N overrides), on Kokkos::DefaultHostExecutionSpace
// (Serial in Debian's Kokkos; with OpenMP, as many threads as Kokkos was given).
//
// Rows, per problem:
//   - scalar_double: the baseline, a plain loop over i and j in double (-O3, the same formula;
//     ArgKMin by insertion into a sorted list of K; LogSumExp with a running maximum), one
//     thread, on host arrays;
//   - scalar_double_threads: the same rows spread over the host space's threads by a Kokkos
//     RangePolicy (no shared data: its scaling over threads is what the machine allows);
//   - portable: tessera::genred with Implementation::portable (the TeamPolicy kernel);
//   - automatic: tessera::genred with the default Implementation::automatic.
// Counters: pairs_per_s, and x_scalar (the scalar loop's time over the row's) and x_portable on
// the automatic rows. Results are checked against the scalar loop before timing (relative
// 1e-3 for sums and log-sum-exps, the same neighbours up to ties; the loop's results computed
// once per process).
#include "ratio_reporter.hpp"

#include <tessera.hpp>
#include <tessera/genred/builtin_formulas.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Space  = Kokkos::DefaultHostExecutionSpace;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using Ints   = Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace>;

constexpr double sigma = 0.1;
constexpr int K        = 10;

int problem_size() {
  const char* n = std::getenv("TESSERA_BENCH_N");
  return n ? std::atoi(n) : 20000;
}

struct Problem {
  int n;
  Points x, y, b, sums, lse;
  Ints neighbours;
  std::vector<double> ref_sums, ref_lse;  // the scalar loop's results, once computed
  std::vector<int> ref_neighbours;
  explicit Problem(int n_)
      : n(n_),
        x("x", n_, 3),
        y("y", n_, 3),
        b("b", n_, 1),
        sums("sums", n_, 1),
        lse("lse", n_, 1),
        neighbours("neighbours", n_, K) {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) {
        x(i, k) = u(rng);
        y(i, k) = u(rng);
      }
      b(i, 0) = u(rng);
    }
  }
};

Problem* shared = nullptr;  // owned by main(), destroyed before Kokkos finalizes

Problem& problem() {
  return *shared;
}

double r2_double(const Problem& p, int i, int j) {
  double r2 = 0;
  for (int k = 0; k < 3; ++k) {
    const double d = double(p.x(i, k)) - double(p.y(j, k));
    r2 += d * d;
  }
  return r2;
}

// ---- the scalar double loops (the baseline), one output row at a time
const double gamma_d = 1.0 / (2 * sigma * sigma);

double scalar_gaussian_row(const Problem& p, int i) {
  double s = 0;
  for (int j = 0; j < p.n; ++j)
    s += std::exp(-gamma_d * r2_double(p, i, j)) * double(p.b(j, 0));
  return s;
}

void scalar_argkmin_row(const Problem& p, int i, int* out) {
  double best[K];
  int index[K];
  int kept = 0;
  for (int j = 0; j < p.n; ++j) {
    const double d = r2_double(p, i, j);
    if (kept == K && !(d < best[K - 1])) continue;
    int slot = kept < K ? kept++ : K - 1;
    while (slot > 0 && d < best[slot - 1]) {
      best[slot]  = best[slot - 1];
      index[slot] = index[slot - 1];
      --slot;
    }
    best[slot]  = d;
    index[slot] = j;
  }
  for (int k = 0; k < K; ++k)
    out[k] = index[k];
}

double scalar_logsumexp_row(const Problem& p, int i) {
  double m = -INFINITY, s = 0;
  for (int j = 0; j < p.n; ++j) {
    const double f = -gamma_d * r2_double(p, i, j);
    if (f > m) {
      s = s * std::exp(m - f) + 1;
      m = f;
    } else {
      s += std::exp(f - m);
    }
  }
  return m + std::log(s);
}

/// Row i of one problem into values[i] (sums, log-sum-exps) or indices[i * K ...].
void scalar_row_of(const std::string& what, const Problem& p, int i, double* values, int* indices) {
  if (what == "gaussian") values[i] = scalar_gaussian_row(p, i);
  if (what == "argkmin") scalar_argkmin_row(p, i, indices + std::size_t(i) * K);
  if (what == "logsumexp") values[i] = scalar_logsumexp_row(p, i);
}
// ---- Tessera
tessera::GenredOptions options(tessera::Implementation implementation) {
  tessera::GenredOptions o;
  o.implementation = implementation;
  return o;
}

void tessera_gaussian(Problem& p, tessera::Implementation impl) {
  tessera::genred(Space(), tessera::Sum{}, tessera::GaussianKernel<3, 1>(sigma),
                  tessera::i_vars(p.x), tessera::j_vars(p.y, p.b), p.sums, options(impl));
}
void tessera_argkmin(Problem& p, tessera::Implementation impl) {
  tessera::genred(Space(), tessera::ArgKMin{K}, tessera::SquaredDistance<3>{}, tessera::i_vars(p.x),
                  tessera::j_vars(p.y), p.neighbours, options(impl));
}
void tessera_logsumexp(Problem& p, tessera::Implementation impl) {
  const float gamma = float(gamma_d);
  // F = -gamma |x - y|^2: the log of the Gaussian kernel.
  const auto log_gaussian = tessera::make_formula<1>(
      tessera::Dims<3>{}, tessera::Dims<3>{},
      KOKKOS_LAMBDA(tessera::In<float, 3> x, tessera::In<float, 3> y, tessera::Out<float, 1> out) {
        out[0] = -gamma * tessera::squared_distance(x, y);
      });
  tessera::genred(Space(), tessera::LogSumExp{}, log_gaussian, tessera::i_vars(p.x),
                  tessera::j_vars(p.y), p.lse, options(impl));
}

/// Checks a Tessera result against the scalar loop (once per process and problem).
void check(const std::string& what, Problem& p, tessera::Implementation impl) {
  if (what == "gaussian" || what == "logsumexp") {
    std::vector<double>& ref = what == "gaussian" ? p.ref_sums : p.ref_lse;
    if (ref.empty()) {
      ref.resize(p.n);
      for (int i = 0; i < p.n; ++i)
        scalar_row_of(what, p, i, ref.data(), nullptr);
    }
    what == "gaussian" ? tessera_gaussian(p, impl) : tessera_logsumexp(p, impl);
    Kokkos::fence();
    const Points& got = what == "gaussian" ? p.sums : p.lse;
    for (int i = 0; i < p.n; ++i)
      if (!(std::fabs(got(i, 0) - ref[i]) <= 1e-3 * std::max(1.0, std::fabs(ref[i]))))
        throw std::runtime_error("bench_genred_host: " + what + " differs from the scalar loop");
  } else {
    std::vector<int>& ref = p.ref_neighbours;
    if (ref.empty()) {
      ref.resize(std::size_t(p.n) * K);
      for (int i = 0; i < p.n; ++i)
        scalar_row_of(what, p, i, nullptr, ref.data());
    }
    tessera_argkmin(p, impl);
    Kokkos::fence();
    for (int i = 0; i < p.n; ++i)
      for (int k = 0; k < K; ++k) {
        const int j = p.neighbours(i, k), r = ref[std::size_t(i) * K + k];
        if (j != r && std::fabs(r2_double(p, i, j) - r2_double(p, i, r)) > 1e-6)
          throw std::runtime_error("bench_genred_host: argkmin differs from the scalar loop");
      }
  }
}

void set_pairs(benchmark::State& state, const Problem& p) {
  state.counters["pairs_per_s"] = benchmark::Counter(
      double(p.n) * double(p.n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

/// The scalar loop on one thread, or (parallel) its rows spread over the host space's threads by
/// a Kokkos RangePolicy: work without shared data, whose thread scaling is the machine's.
void scalar_row(benchmark::State& state, const std::string& what, bool parallel) {
  Problem& p = problem();
  std::vector<double> values(p.n);
  std::vector<int> indices(std::size_t(p.n) * K);
  double* v = values.data();
  int* ix   = indices.data();
  for (auto _ : state) {
    if (parallel) {
      Kokkos::parallel_for("bench_genred_host::scalar_rows", Kokkos::RangePolicy<Space>(0, p.n),
                           [&](int i) { scalar_row_of(what, p, i, v, ix); });
      Kokkos::fence();
    } else {
      for (int i = 0; i < p.n; ++i)
        scalar_row_of(what, p, i, v, ix);
    }
    benchmark::DoNotOptimize(values.data());
    benchmark::DoNotOptimize(indices.data());
  }
  set_pairs(state, p);
}

void tessera_row(benchmark::State& state, const std::string& what, tessera::Implementation impl) {
  Problem& p = problem();
  check(what, p, impl);
  for (auto _ : state) {
    if (what == "gaussian") tessera_gaussian(p, impl);
    if (what == "argkmin") tessera_argkmin(p, impl);
    if (what == "logsumexp") tessera_logsumexp(p, impl);
    Kokkos::fence();
  }
  set_pairs(state, p);
}

/// x_scalar on the Tessera rows, x_portable on the automatic ones.
class HostRatios : public tessera_bench::RatioReporter {
  void add_ratios(Run& r, const std::string& name) override {
    const std::string problem = name.substr(0, name.rfind('/'));
    const std::string way     = name.substr(name.rfind('/') + 1);
    const double t            = time(name);
    if (way != "scalar_double" && way != "scalar_double_threads")
      r.counters["x_scalar"] = time(problem + "/scalar_double") / t;
    if (way == "automatic") r.counters["x_portable"] = time(problem + "/portable") / t;
  }
};

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Problem data(problem_size());
  shared              = &data;
  const std::string n = "/n:" + std::to_string(problem_size());
  for (const std::string what : {"gaussian", "argkmin", "logsumexp"}) {
    const auto add = [&](const std::string& way, auto body) {
      benchmark::RegisterBenchmark((what + n + "/" + way).c_str(), body)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1);
    };
    add("scalar_double", [what](benchmark::State& s) { scalar_row(s, what, false); });
    add("scalar_double_threads", [what](benchmark::State& s) { scalar_row(s, what, true); });
    add("portable",
        [what](benchmark::State& s) { tessera_row(s, what, tessera::Implementation::portable); });
    add("automatic",
        [what](benchmark::State& s) { tessera_row(s, what, tessera::Implementation::automatic); });
  }
  HostRatios reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
