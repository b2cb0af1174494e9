// The benchmark of the pairwise block engine, every row in one run:
//
//   pdist_pcf_<T>/n:N            tessera::pdist (L1) of N random PCFs of 100 breakpoints in host
//                                memory into a condensed host View: the whole call (uploads,
//                                kernels, downloads, host scatter), default budget
//   pdist_pcf_float_4x_budget    the same with budget_bytes a quarter of the output's bytes (the
//                                output is 4 times the device budget); its values are compared
//                                with pdist_pcf_float's (mismatches must read 0)
//   pdist_pcf_float_device_in    the same with the PCFs in device memory (no uploads)
//   pdist_pcf_float_device_out   the same into a View in device memory (no download or scatter)
//   pdist_output_download        deep_copy of the float output's bytes from a device View to a
//                                host View: Kokkos' own rate of moving the result to the host
//   pcf_block_<T>/staged|naive|naive_tessera_walk
//                                one 8192 x 8192 block (every pair), kernel only: the staged
//                                team kernel against perf/pcf_naive_kernel.hpp (one thread per
//                                pair reading global memory, with the seed's walk or Tessera's)
//   euclid_d16/genred_sum        Genred's Sum_j |x_i - y_j| over 10,000 x 50,000 points, D = 16
//   euclid_d16/download          deep_copy of a 10,000 x 50,000 float device View to a host View
//   euclid_d16/cdist             tessera::cdist (EuclideanDistance<16>) of the same points into a
//                                host View of 10,000 x 50,000
//
// Counters: pairs_per_s; merge_steps_per_s (PCF rows: pairs times the breakpoints of both
// functions, the steps of the walk); from the PairwiseReport, per call: kernel_s, download_s,
// write_s (host scatter), upload_s, overlap ((upload + kernel + download + write) / wall) and
// x_max (wall / max(kernel, download + write): 1 is perfect overlap); blocks; x_default (4x-budget
// row: its pairs/s over pdist_pcf_float's); x_naive, x_naive_walk (staged rows: over the two
// naive rows); x_genred_dl (cdist row: its pairs/s over pairs / (genred time + download time));
// bad_pairs (pdist rows: spot checks of 64 pairs against a direct double integration, or the
// 4x-budget row's values that differ from pdist_pcf_float's; block rows: values off the staged
// kernel's by more than float rounding).
//
// Set TESSERA_BENCH_LARGE=1 to add pdist_pcf_float/n:100000 (20 GB of output in host memory).
// On host backends the sizes shrink (N = 1500, blocks of 512, 1000 x 5000 points).
#include "pcf_naive_kernel.hpp"
#include "random_pcfs.hpp"
#include "ratio_reporter.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Mem   = Space::memory_space;

constexpr bool on_device = tessera::Impl::is_device_space<Space>;
constexpr int points     = tessera_bench::pcf_points;

std::size_t size(std::size_t device_n, std::size_t host_n) {
  return on_device ? device_n : host_n;
}

/// The L1 distance of functions f and g of a host collection, by evaluating both on the union
/// of their breakpoints (double).
template <class T>
double direct_l1(const tessera::PcfCollection<T>& X, std::size_t f, std::size_t g) {
  const auto& off = X.offsets();
  const auto& bp  = X.breakpoints();
  std::vector<double> times;
  for (std::size_t k = off(f); k < off(f + 1); ++k)
    times.push_back(bp(k, 0));
  for (std::size_t k = off(g); k < off(g + 1); ++k)
    times.push_back(bp(k, 0));
  std::sort(times.begin(), times.end());
  auto value = [&](std::size_t h, double t) {  // value at t: of the last breakpoint <= t
    double v = 0;
    for (std::size_t k = off(h); k < off(h + 1) && double(bp(k, 0)) <= t; ++k)
      v = bp(k, 1);
    return v;
  };
  double sum = 0;
  for (std::size_t k = 0; k + 1 < times.size(); ++k)
    sum += (times[k + 1] - times[k]) * std::abs(value(f, times[k]) - value(g, times[k]));
  return sum;  // both functions end at 0: nothing after the last breakpoint
}

/// Pairs of 64 spot checks (and the diagonal neighbours) whose condensed value is off by more
/// than float rounding allows.
template <class T, class View>
int spot_check(const tessera::PcfCollection<T>& X, const View& out) {
  const std::size_t n = X.size();
  std::mt19937 gen(7);
  std::uniform_int_distribution<std::size_t> pick(1, n - 1);
  int bad = 0;
  for (int s = 0; s < 64; ++s) {
    const std::size_t i = s == 0 ? n - 1 : pick(gen), j = s == 1 ? i - 1 : pick(gen) % i;
    T got;
    Kokkos::deep_copy(got, Kokkos::subview(out, n * j - j * (j + 1) / 2 + i - j - 1));  // j < i
    const double ref = direct_l1(X, i, j);
    if (!(std::abs(got - ref) <= 1e-4 * (1 + std::abs(ref)))) ++bad;
  }
  return bad;
}

/// Sets the report counters of `calls` calls whose reports were summed into r.
void report_counters(benchmark::State& state, const tessera::PairwiseReport& r, double pairs,
                     double steps_per_pair) {
  using benchmark::Counter;
  const double calls            = double(state.iterations());
  state.counters["pairs_per_s"] = Counter(pairs, Counter::kIsIterationInvariantRate);
  if (steps_per_pair > 0) {
    state.counters["merge_steps_per_s"] =
        Counter(pairs * steps_per_pair, Counter::kIsIterationInvariantRate);
  }
  state.counters["kernel_s"]   = r.kernel_seconds / calls;
  state.counters["download_s"] = r.download_seconds / calls;
  state.counters["write_s"]    = r.write_seconds / calls;
  state.counters["upload_s"]   = r.upload_seconds / calls;
  state.counters["overlap"]    = r.overlap();
  state.counters["x_max"] =
      r.seconds / std::max(r.kernel_seconds, r.download_seconds + r.write_seconds);
  state.counters["blocks"] = double(r.blocks) / calls;
}

void add(tessera::PairwiseReport& sum, const tessera::PairwiseReport& r) {
  sum.blocks += r.blocks;
  sum.seconds += r.seconds;
  sum.upload_seconds += r.upload_seconds;
  sum.kernel_seconds += r.kernel_seconds;
  sum.download_seconds += r.download_seconds;
  sum.write_seconds += r.write_seconds;
}

/// The inputs and outputs the rows share, built on first use and released before Kokkos
/// finalizes (owned by main()).
struct SharedData {
  std::map<std::size_t, tessera::PcfCollection<float>> pcfs_float;
  std::map<std::size_t, tessera::PcfCollection<double>> pcfs_double;
  /// pdist_pcf_float's output, which the 4x-budget row must reproduce.
  Kokkos::View<float*, Kokkos::HostSpace> pdist_float_out;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> x, y;  // points (m x 16), (n x 16)
};
SharedData* shared = nullptr;

template <class T>
const tessera::PcfCollection<T>& pcfs(std::size_t n) {
  auto& cache = []() -> auto& {
    if constexpr (std::is_same_v<T, float>) {
      return shared->pcfs_float;
    } else {
      return shared->pcfs_double;
    }
  }
  ();
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, tessera_bench::random_pcfs<T>(n, 1)).first;
  return it->second;
}

/// pdist of n PCFs into `Out`'s memory; budget_divisor > 0: budget = output bytes / divisor.
template <class T, class OutSpace>
void pdist_pcf(benchmark::State& state, std::size_t n, std::size_t budget_divisor,
               bool device_input = false) {
  const auto& X = pcfs<T>(n);
  const tessera::PcfCollection<T, Mem> X_device(
      Kokkos::create_mirror_view_and_copy(Mem(), X.offsets()),
      Kokkos::create_mirror_view_and_copy(Mem(), X.breakpoints()));
  const std::size_t pairs = n * (n - 1) / 2;
  Kokkos::View<T*, OutSpace> out("out", pairs);  // zero-filled, as a user's View
  tessera::PairwiseOptions options;
  if (budget_divisor > 0) options.budget_bytes = pairs * sizeof(T) / budget_divisor;
  tessera::PairwiseReport sum;
  for (auto _ : state) {
    add(sum, device_input ? tessera::pdist(Space(), tessera::PcfL1{}, X_device, out, options)
                          : tessera::pdist(Space(), tessera::PcfL1{}, X, out, options));
  }
  report_counters(state, sum, double(pairs), 2.0 * points);
  state.counters["bad_pairs"] = spot_check(X, out);
  if constexpr (std::is_same_v<T, float> && std::is_same_v<OutSpace, Kokkos::HostSpace>) {
    auto& reference = shared->pdist_float_out;
    if (budget_divisor == 0 && reference.extent(0) == 0) reference = out;
    if (budget_divisor > 0 && reference.extent(0) == pairs) {
      std::size_t mismatches = 0;
      for (std::size_t e = 0; e < pairs; ++e)
        mismatches += out(e) != reference(e);
      state.counters["bad_pairs"] = double(mismatches);
    }
  }
}

enum class Kernel { staged, naive_seed, naive_tessera_walk };

/// One full block of n x n PCFs in device memory, kernel only; bad_pairs counts the pairs
/// whose value differs from the staged kernel's by more than float rounding.
template <class T>
void pcf_block(benchmark::State& state, Kernel kernel) {
  using tessera_bench::NaiveWalk;
  const std::size_t n = size(8192, 512);
  const auto& X       = pcfs<T>(n);
  const auto off      = Kokkos::create_mirror_view_and_copy(Mem(), X.offsets());
  const auto bp       = Kokkos::create_mirror_view_and_copy(Mem(), X.breakpoints());
  const auto* pts     = reinterpret_cast<const tessera::PcfPoint<T>*>(bp.data());
  const tessera::Impl::PcfBlockData<T> data{off.data(), off.data(), 0, 0, pts, pts};
  Kokkos::View<T*, Mem> out("out", n * n), staged("staged", n * n);
  const auto skip = tessera::TriangleSkipMode::none;
  const T end     = tessera::math::infinity<T>();
  auto run        = [&](Kernel k, T* to) {
    if (k == Kernel::staged) {
      tessera::Impl::launch_pcf_block<T>(Space(), data, to, tessera::BlockStorage::row_major(n), n,
                                         n, 0, 0, skip, end, tessera::PcfL1{}, points);
    } else if (k == Kernel::naive_seed) {
      tessera_bench::launch_naive_pcf_block<NaiveWalk::seed, T>(Space(), data, to, n, n, 0, 0, skip,
                                                                end, tessera::PcfL1{});
    } else {
      tessera_bench::launch_naive_pcf_block<NaiveWalk::tessera, T>(Space(), data, to, n, n, 0, 0,
                                                                   skip, end, tessera::PcfL1{});
    }
  };
  for (auto _ : state) {
    run(kernel, out.data());
    Space().fence();
  }
  run(Kernel::staged, staged.data());
  std::size_t bad = 0;
  Kokkos::parallel_reduce(
      "bench::compare", Kokkos::RangePolicy<Space>(0, n * n),
      KOKKOS_LAMBDA(std::size_t e, std::size_t & count) {
        const T d = out(e) - staged(e), a = staged(e) < 0 ? -staged(e) : staged(e);
        if (!((d < 0 ? -d : d) <= T(1e-4) * (1 + a))) ++count;
      },
      bad);
  const double pairs = double(n) * n;
  using benchmark::Counter;
  state.counters["pairs_per_s"] = Counter(pairs, Counter::kIsIterationInvariantRate);
  state.counters["merge_steps_per_s"] =
      Counter(pairs * 2 * points, Counter::kIsIterationInvariantRate);
  state.counters["bad_pairs"] = double(bad);
}

/// Random points in [0, 1)^16: x (10,000 x 16) and y (50,000 x 16).
void make_points() {
  if (shared->x.extent(0) > 0) return;
  shared->x = Kokkos::View<float**, Kokkos::LayoutRight, Mem>("x", size(10000, 1000), 16);
  shared->y = Kokkos::View<float**, Kokkos::LayoutRight, Mem>("y", size(50000, 5000), 16);
  Kokkos::Random_XorShift64_Pool<Space> pool(1);
  Kokkos::fill_random(shared->x, pool, 1.0f);
  Kokkos::fill_random(shared->y, pool, 1.0f);
}

void euclid_genred(benchmark::State& state) {
  make_points();
  const auto &x = shared->x, &y = shared->y;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> out("out", x.extent(0), 1);
  for (auto _ : state) {
    tessera::genred(Space(), tessera::Sum{}, tessera::EuclideanDistance<16>{}, tessera::i_vars(x),
                    tessera::j_vars(y), out);
    Space().fence();
  }
}

/// The bytes of pdist's condensed float output of n functions, deep_copied from a device View
/// to a host View: how fast Kokkos alone moves the result to host memory (pairs_per_s as pdist
/// would count them).
void pdist_output_download(benchmark::State& state, std::size_t n) {
  const std::size_t pairs = n * (n - 1) / 2;
  Kokkos::View<float*, Mem> dev("dev", pairs);
  Kokkos::View<float*, Kokkos::HostSpace> host("host", pairs);
  for (auto _ : state)
    Kokkos::deep_copy(host, dev);
  state.counters["pairs_per_s"] =
      benchmark::Counter(double(pairs), benchmark::Counter::kIsIterationInvariantRate);
}

void euclid_download(benchmark::State& state) {
  make_points();
  const std::size_t m = shared->x.extent(0), n = shared->y.extent(0);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> dev("dev", m, n);
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> host("host", m, n);
  for (auto _ : state)
    Kokkos::deep_copy(host, dev);
}

void euclid_cdist(benchmark::State& state) {
  make_points();
  const auto &x = shared->x, &y = shared->y;
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> out("out", x.extent(0),
                                                                    y.extent(0));
  tessera::PairwiseReport sum;
  for (auto _ : state)
    add(sum, tessera::cdist(Space(), tessera::EuclideanDistance<16>{}, x, y, out));
  report_counters(state, sum, double(x.extent(0)) * double(y.extent(0)), 0);
}

/// Registers a row (wall-clock time, milliseconds; `iterations` > 0: exactly that many).
template <class F>
void row(const std::string& name, F&& body, int iterations = 0) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(body));
  b->UseRealTime()->Unit(benchmark::kMillisecond);
  if (iterations > 0) b->Iterations(iterations);
}

/// The ratio counters of bench_pairwise (see the file comment).
class PairwiseRatios : public tessera_bench::RatioReporter {
  void add_ratios(Run& r, const std::string& name) override {
    const double t = time(name);
    auto ratio_to  = [&](const std::string& base) { return time(base) / t; };
    if (name.rfind("/staged") != std::string::npos) {
      const std::string base     = name.substr(0, name.rfind('/'));
      r.counters["x_naive"]      = ratio_to(base + "/naive");
      r.counters["x_naive_walk"] = ratio_to(base + "/naive_tessera_walk");
    }
    if (name.find("pdist_pcf_float_4x_budget") == 0) {
      r.counters["x_default"] = ratio_to("pdist_pcf_float" + name.substr(name.find('/')));
    }
    const double genred = time("euclid_d16/genred_sum"), download = time("euclid_d16/download");
    if (name == "euclid_d16/cdist" && genred > 0 && download > 0) {
      r.counters["x_genred_dl"] = (genred + download) / t;
    }
  }
};

void register_rows() {
  const std::size_t n = size(20000, 1500);
  const std::string N = "/n:" + std::to_string(n);
  row("pdist_pcf_float" + N,
      [n](benchmark::State& s) { pdist_pcf<float, Kokkos::HostSpace>(s, n, 0); });
  row("pdist_pcf_double" + N,
      [n](benchmark::State& s) { pdist_pcf<double, Kokkos::HostSpace>(s, n, 0); });
  row("pdist_pcf_float_4x_budget" + N,
      [n](benchmark::State& s) { pdist_pcf<float, Kokkos::HostSpace>(s, n, 4); });
  row("pdist_pcf_float_device_in" + N,
      [n](benchmark::State& s) { pdist_pcf<float, Kokkos::HostSpace>(s, n, 0, true); });
  row("pdist_pcf_float_device_out" + N,
      [n](benchmark::State& s) { pdist_pcf<float, Mem>(s, n, 0); });
  row("pdist_output_download" + N, [n](benchmark::State& s) { pdist_output_download(s, n); });
  const char* large = std::getenv("TESSERA_BENCH_LARGE");
  if (on_device && large && std::string(large) == "1") {
    row(
        "pdist_pcf_float/n:100000",
        [](benchmark::State& s) { pdist_pcf<float, Kokkos::HostSpace>(s, 100000, 0); }, 1);
  }
  for (const char* type : {"float", "double"}) {
    const bool f = std::string(type) == "float";
    for (const auto& variant : {std::pair{Kernel::naive_seed, "naive"},
                                std::pair{Kernel::naive_tessera_walk, "naive_tessera_walk"},
                                std::pair{Kernel::staged, "staged"}}) {
      const Kernel kernel = variant.first;  // captured below (C++17)
      row(std::string("pcf_block_") + type + "/" + variant.second,
          [f, kernel](benchmark::State& s) {
            f ? pcf_block<float>(s, kernel) : pcf_block<double>(s, kernel);
          });
    }
  }
  row("euclid_d16/genred_sum", euclid_genred);
  row("euclid_d16/download", euclid_download);
  row("euclid_d16/cdist", euclid_cdist);
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  SharedData data;  // destroyed before guard finalizes Kokkos
  shared = &data;
  register_rows();
  PairwiseRatios reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
