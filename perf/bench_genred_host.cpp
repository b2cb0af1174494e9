// Genred on host execution spaces (the host kernel against its baselines): Gaussian convolution a_i
// = sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j, ArgKMin (K = 10 nearest neighbours by squared
// distance) and LogSumExp (a_i = log sum_j exp(-|x_i - y_j|^2 / (2 sigma^2))), float, on
// Kokkos::DefaultHostExecutionSpace (Serial in Debian's Kokkos; with OpenMP, as many threads as
// Kokkos was given).
//
// Problems:
//   - D = 3, M = N (20000 by default; TESSERA_BENCH_N overrides), points uniform in the unit
//     cube, sigma = 0.1: the Gaussian (direct distance), ArgKMin and LogSumExp;
//   - embeddings, D = 16, 64, 128 and 512, M = N = n0 sqrt(16 / D) (n0 = 8000 by default;
//     TESSERA_BENCH_DIMS_N overrides), points uniform in [-0.5, 0.5)^D, sigma = sqrt(D / 12)
//     (exp(-|x - y|^2 / (2 sigma^2)) is about exp(-1) for typical pairs): the Gaussian with the
//     direct and with the expanded distance (Distance::expanded; Distance::matrix takes the same
//     evaluation on host spaces), and ArgKMin.
//
// Rows, per problem:
//   - scalar_double: the baseline, a plain loop over i and j in double (-O3, the same formula;
//     ArgKMin by insertion into a sorted list of K; LogSumExp with a running maximum), one
//     thread, on host arrays;
//   - scalar_double_threads (D = 3 only): the same rows spread over the host space's threads by
//     a Kokkos RangePolicy (no shared data: its scaling over threads is what the machine allows);
//   - portable: tessera::genred with Implementation::portable (the TeamPolicy kernel);
//   - automatic: tessera::genred with the default Implementation::automatic.
// Counters: pairs_per_s, and x_scalar (the scalar loop's time over the row's) and x_portable on
// the automatic rows. Results are checked against the scalar loop before timing (relative
// 1e-3 for sums and log-sum-exps, the same neighbours up to ties within float rounding of the
// distances; the loop's results computed once per process and problem).
#include "ratio_reporter.hpp"

#include <tessera.hpp>
#include <tessera/genred/builtin_formulas.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using Space    = Kokkos::DefaultHostExecutionSpace;
using Points   = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using Ints     = Kokkos::View<int**, Kokkos::LayoutRight, Kokkos::HostSpace>;
using Distance = tessera::Distance;

constexpr int K = 10;

int env_or(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

struct Problem {
  int n, d;
  double sigma;
  Points x, y, b, sums, lse;
  Ints neighbours;
  std::vector<double> ref_sums, ref_lse;  // the scalar loop's results, once computed
  std::vector<int> ref_neighbours;
  /// n points of dimension d uniform in [lo, lo + 1)^d, weights uniform in [0, 1).
  Problem(int n_, int d_, double sigma_, float lo)
      : n(n_),
        d(d_),
        sigma(sigma_),
        x("x", n_, d_),
        y("y", n_, d_),
        b("b", n_, 1),
        sums("sums", n_, 1),
        lse("lse", n_, 1),
        neighbours("neighbours", n_, K) {
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < d; ++k) {
        x(i, k) = lo + u(rng);
        y(i, k) = lo + u(rng);
      }
      b(i, 0) = u(rng);
    }
  }
  double gamma() const { return 1.0 / (2 * sigma * sigma); }
};

double r2_double(const Problem& p, int i, int j) {
  double r2 = 0;
  for (int k = 0; k < p.d; ++k) {
    const double d = double(p.x(i, k)) - double(p.y(j, k));
    r2 += d * d;
  }
  return r2;
}

// ---- the scalar double loops (the baseline), one output row at a time
double scalar_gaussian_row(const Problem& p, int i) {
  const double gamma = p.gamma();
  double s           = 0;
  for (int j = 0; j < p.n; ++j)
    s += std::exp(-gamma * r2_double(p, i, j)) * double(p.b(j, 0));
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
  const double gamma = p.gamma();
  double m = -INFINITY, s = 0;
  for (int j = 0; j < p.n; ++j) {
    const double f = -gamma * r2_double(p, i, j);
    if (f > m) {
      s = s * std::exp(m - f) + 1;
      m = f;
    } else {
      s += std::exp(f - m);
    }
  }
  return m + std::log(s);
}

/// What a benchmark problem computes: the Gaussian (with a distance evaluation), ArgKMin or
/// LogSumExp.
enum class What { gaussian, argkmin, logsumexp };

/// Row i of one problem into values[i] (sums, log-sum-exps) or indices[i * K ...].
void scalar_row_of(What what, const Problem& p, int i, double* values, int* indices) {
  if (what == What::gaussian) values[i] = scalar_gaussian_row(p, i);
  if (what == What::argkmin) scalar_argkmin_row(p, i, indices + std::size_t(i) * K);
  if (what == What::logsumexp) values[i] = scalar_logsumexp_row(p, i);
}
// ---- Tessera
tessera::GenredOptions options(tessera::Implementation implementation) {
  tessera::GenredOptions o;
  o.implementation = implementation;
  return o;
}

template <int D>
void tessera_call(What what, Distance distance, Problem& p, tessera::Implementation impl) {
  const auto x = tessera::i_vars(p.x);
  if (what == What::gaussian && distance == Distance::direct) {
    tessera::genred(Space(), tessera::Sum{}, tessera::GaussianKernel<D, 1>(p.sigma), x,
                    tessera::j_vars(p.y, p.b), p.sums, options(impl));
  } else if (what == What::gaussian) {
    tessera::genred(Space(), tessera::Sum{},
                    tessera::GaussianKernel<D, 1, Distance::expanded>(p.sigma), x,
                    tessera::j_vars(p.y, p.b), p.sums, options(impl));
  } else if (what == What::argkmin) {
    tessera::genred(Space(), tessera::ArgKMin{K}, tessera::SquaredDistance<D>{}, x,
                    tessera::j_vars(p.y), p.neighbours, options(impl));
  } else {
    const float gamma = float(p.gamma());
    // F = -gamma |x - y|^2: the log of the Gaussian kernel.
    const auto log_gaussian = tessera::make_formula<1>(
        tessera::Dims<D>{}, tessera::Dims<D>{},
        KOKKOS_LAMBDA(tessera::In<float, D> xi, tessera::In<float, D> yj,
                      tessera::Out<float, 1> out) {
          out[0] = -gamma * tessera::squared_distance(xi, yj);
        });
    tessera::genred(Space(), tessera::LogSumExp{}, log_gaussian, x, tessera::j_vars(p.y), p.lse,
                    options(impl));
  }
}

/// The call of a problem of dimension p.d (3, 16, 64, 128 or 512).
void tessera_run(What what, Distance distance, Problem& p, tessera::Implementation impl) {
  switch (p.d) {
    case 3:
      return tessera_call<3>(what, distance, p, impl);
    case 16:
      return tessera_call<16>(what, distance, p, impl);
    case 64:
      return tessera_call<64>(what, distance, p, impl);
    case 128:
      return tessera_call<128>(what, distance, p, impl);
    case 512:
      return tessera_call<512>(what, distance, p, impl);
    default:
      throw std::invalid_argument("bench_genred_host: no call of this dimension");
  }
}

/// Checks a Tessera result against the scalar loop (once per process and problem).
void check(What what, Distance distance, Problem& p, tessera::Implementation impl) {
  if (what != What::argkmin) {
    std::vector<double>& ref = what == What::gaussian ? p.ref_sums : p.ref_lse;
    if (ref.empty()) {
      ref.resize(p.n);
      for (int i = 0; i < p.n; ++i)
        scalar_row_of(what, p, i, ref.data(), nullptr);
    }
    tessera_run(what, distance, p, impl);
    Kokkos::fence();
    const Points& got = what == What::gaussian ? p.sums : p.lse;
    for (int i = 0; i < p.n; ++i)
      if (!(std::fabs(got(i, 0) - ref[i]) <= 1e-3 * std::max(1.0, std::fabs(ref[i]))))
        throw std::runtime_error("bench_genred_host: a result differs from the scalar loop");
  } else {
    std::vector<int>& ref = p.ref_neighbours;
    if (ref.empty()) {
      ref.resize(std::size_t(p.n) * K);
      for (int i = 0; i < p.n; ++i)
        scalar_row_of(what, p, i, nullptr, ref.data());
    }
    tessera_run(what, distance, p, impl);
    Kokkos::fence();
    // ties up to the float rounding of the distances (D + 1 roundings of values up to r^2)
    for (int i = 0; i < p.n; ++i)
      for (int k = 0; k < K; ++k) {
        const int j = p.neighbours(i, k), r = ref[std::size_t(i) * K + k];
        const double rj = r2_double(p, i, j), rr = r2_double(p, i, r);
        if (j != r && std::fabs(rj - rr) > 1.2e-7 * (p.d + 1) * std::max(rj, 1e-3))
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
void scalar_row(benchmark::State& state, What what, Problem& p, bool parallel) {
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

void tessera_row(benchmark::State& state, What what, Distance distance, Problem& p,
                 tessera::Implementation impl) {
  check(what, distance, p, impl);
  for (auto _ : state) {
    tessera_run(what, distance, p, impl);
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

/// One problem's rows: its name, what it computes, and the scalar loop on threads too or not.
struct Case {
  std::string name;
  What what;
  Distance distance;
  bool threads;
};

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // the problems' data, destroyed before Kokkos finalizes
  std::vector<std::unique_ptr<Problem>> problems;
  const auto add_cases = [&](Problem& p, const std::vector<Case>& cases) {
    const std::string suffix = "/n:" + std::to_string(p.n);
    for (const Case& c : cases) {
      const auto add = [&](const std::string& way, auto body) {
        benchmark::RegisterBenchmark((c.name + suffix + "/" + way).c_str(), body)
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond)
            ->Iterations(1);
      };
      Problem* q = &p;
      add("scalar_double", [c, q](benchmark::State& s) { scalar_row(s, c.what, *q, false); });
      if (c.threads)
        add("scalar_double_threads",
            [c, q](benchmark::State& s) { scalar_row(s, c.what, *q, true); });
      for (const auto impl :
           {tessera::Implementation::portable, tessera::Implementation::automatic})
        add(impl == tessera::Implementation::portable ? "portable" : "automatic",
            [c, q, impl](benchmark::State& s) { tessera_row(s, c.what, c.distance, *q, impl); });
    }
  };
  problems.push_back(std::make_unique<Problem>(env_or("TESSERA_BENCH_N", 20000), 3, 0.1, 0.0f));
  add_cases(*problems.back(), {{"gaussian", What::gaussian, Distance::direct, true},
                               {"argkmin", What::argkmin, Distance::direct, true},
                               {"logsumexp", What::logsumexp, Distance::direct, true}});
  const int n0 = env_or("TESSERA_BENCH_DIMS_N", 8000);
  for (const int d : {16, 64, 128, 512}) {
    const int n = std::max(1, int(n0 * std::sqrt(16.0 / d)));
    problems.push_back(std::make_unique<Problem>(n, d, std::sqrt(d / 12.0), -0.5f));
    const std::string dim = "_d" + std::to_string(d);
    add_cases(*problems.back(),
              {{"gaussian_direct" + dim, What::gaussian, Distance::direct, false},
               {"gaussian_expanded" + dim, What::gaussian, Distance::expanded, false},
               {"argkmin" + dim, What::argkmin, Distance::direct, false}});
  }
  HostRatios reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
