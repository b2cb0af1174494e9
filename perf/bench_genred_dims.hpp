// Shared pieces of bench_genred_dims (perf/bench_genred_dims.cpp describes the program): the data
// of one dimension with its host reference, the timing of a Tessera row and the registration
// helpers. perf/bench_genred_dims_rows.cpp defines the rows of one dimension, add_dimension<D>(),
// and perf/CMakeLists.txt compiles it once per dimension, so that the dimensions' genred kernels
// compile in parallel.
#pragma once

#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <cmath>
#include <exception>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera_bench_dims {

using Space = Kokkos::DefaultExecutionSpace;
template <class T>
using Rows = Kokkos::View<T**, Kokkos::LayoutRight, Space::memory_space>;
using tessera::Distance;
using tessera::MatrixPrecision;

inline constexpr bool on_device = tessera::Impl::is_device_space<Space>;
inline constexpr int K          = 10;   // ArgKMin's k
inline constexpr int max_w      = 64;   // weights per point of the wide Sum case
inline constexpr int sampled    = 256;  // output rows checked against the host reference

// Kokkos' bfloat16 (core/kokkos_compat.hpp: TESSERA_HAS_BHALF_T), where it is not float.
#if defined(TESSERA_HAS_BHALF_T)
using BHalf                     = Kokkos::Experimental::bhalf_t;
inline constexpr bool has_bhalf = !std::is_same_v<BHalf, float>;
inline BHalf to_bhalf(float v) {
  return Kokkos::Experimental::cast_to_bhalf(v);
}
inline float from_bhalf(BHalf v) {
  return Kokkos::Experimental::cast_from_bhalf<float>(v);
}
#else
struct BHalf {};  // placeholder: no bhalf rows are compiled
inline constexpr bool has_bhalf = false;
inline BHalf to_bhalf(float) {
  return {};
}
inline float from_bhalf(BHalf) {
  return 0;
}
#endif

/// The Gaussian's sigma at dimension d: sqrt(d) / 4, so that |x - y|^2 / (2 sigma^2) is about
/// 4/3 for a typical pair of points uniform in [0, 1)^d (E |x - y|^2 = d / 6) at every d.
inline double sigma_of(int d) {
  return std::sqrt(static_cast<double>(d)) / 4;
}

/// The double-precision results on the sampled rows, computed on the host from one precision's
/// inputs: the 64-weight sums (column 0 is the one-weight sum: b1 is b64's first column) and
/// the K nearest indices (ties: the smaller index).
struct Reference {
  std::vector<double> sums;  // sampled x max_w
  std::vector<int> nearest;  // sampled x K
};

/// One precision's device inputs (points x, y; weights b1 = b64's first column) and reference.
template <class T>
struct Inputs {
  Rows<T> x, y, b1, b64;
  Reference ref;
};

/// The points and weights of one dimension, in float and (where available) bhalf.
struct Problem {
  int d = 0, m = 0, n = 0;
  std::vector<int> rows;  // the sampled output rows
  Inputs<float> f;
  Inputs<BHalf> h;

  /// The data of dimension d_ at M = N = size, with the host references.
  Problem(int d_, int size);
  /// The inputs of element type T (float or BHalf).
  template <class T>
  const Inputs<T>& inputs() const {
    if constexpr (std::is_same_v<T, float>) {
      return f;
    } else {
      return h;
    }
  }
};

/// The problem of dimension d (the previous dimension's is released first), or nullptr with
/// the row skipped when TESSERA_BENCH_N is not a positive integer.
const Problem* problem(int d, benchmark::State& state);

/// Pairs per second of the baselines measured so far, by "d<D>/<case>/<baseline>".
std::map<std::string, double>& baseline_rates();
inline constexpr const char* baselines[] = {"torch",      "torch_compile", "torch_fp32",
                                            "torch_bf16", "keops",         "keops_f16"};

/// Times `call` (warm-up first); sets pairs_per_s and the x_<baseline> ratios of case `key`.
/// A genred rejection (std::exception) skips the row with its message; returns false then.
template <class Call>
bool run_timed(benchmark::State& state, const std::string& key, double pairs, const Call& call) {
  try {
    call();
    Kokkos::fence();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return false;
  }
  double total = 0;
  for (auto _ : state) {
    Kokkos::Timer timer;
    call();
    Kokkos::fence();
    const double t = timer.seconds();
    state.SetIterationTime(t);
    total += t;
  }
  const double rate             = pairs * static_cast<double>(state.iterations()) / total;
  state.counters["pairs_per_s"] = rate;
  for (const char* b : baselines) {
    const auto it = baseline_rates().find(key + "/" + b);
    if (it != baseline_rates().end()) state.counters[std::string("x_") + b] = rate / it->second;
  }
  return true;
}

/// Registers a row (manual time, in milliseconds).
template <class Row>
void add(const std::string& name, Row row) {
  benchmark::RegisterBenchmark(name.c_str(), row)->UseManualTime()->Unit(benchmark::kMillisecond);
}

/// The baseline rows of case `key`: `kind` (sum or argkmin), then `d` and `w` (the
/// weights per point or k).
void add_baselines(const std::string& key, const std::string& kind, int d, int w);

/// Registers the rows of dimension D: baselines first, so that the Tessera rows after them get
/// their ratios (bench_genred_dims_rows.cpp, explicitly instantiated once per dimension).
template <int D>
void add_dimension();

}  // namespace tessera_bench_dims
