// The GPU benchmark suite of tessera::genred: each case through the CUDA kernel
// (Implementation::cuda), the portable TeamPolicy kernel (Implementation::portable), a naive
// Kokkos kernel (one thread per output row reading every reduced row from global memory, no
// scratch) and, where `python3 -c "import torch"` works, a tensorized PyTorch reference
// (perf/torch_reference.py: the M-by-N matrix built by matrix products, at the largest size
// that fits), all in one process. Rows are named case/path; counters:
//   pairs_per_s   formula evaluations per second (block-sparse: the pairs actually computed)
//   x_naive, x_portable, x_torch   this row's pairs/s over that path's, same case, same run
//   x_dense       block-sparse rows: pairs/s over the dense call's on the same data and path
//   rel_err       expanded and matrix rows: max |a - a_direct| / max |a_direct| over the
//                 outputs, on the same data and path (the cancellation error, see Distance)
// Cases (float unless named): Gaussian convolution D = 3 at M = N = 1e6 and 1e4, D = 16 with
// 3 weights, ArgKMin K = 10 (D = 3), the 2D scheme at M = 1000, N = 1e7, block-sparse with 10%
// of the tiles kept (M = N = 1e6, clustered), and double precision Gaussian D = 3; each also
// with Distance::expanded (suffix _expanded), and D = 16 with Distance::matrix (suffix _matrix,
// the tensor-core path); those variants take x_naive and x_torch from the
// direct case's naive and PyTorch rows, which compute the same values. On host
// backends the sizes shrink (and the CUDA rows are skipped) so that the program stays quick.
#include "clustered_problem.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Mem   = Space::memory_space;
template <class T>
using Rows = Kokkos::View<T**, Kokkos::LayoutRight, Mem>;

constexpr bool on_device = tessera::Impl::is_device_space<Space>;
constexpr double sigma   = 0.1;

/// n on devices, n / shrink (at least 1000) on host backends.
int size(double n, double shrink = 100) {
  return static_cast<int>(on_device ? n : std::max(1000.0, n / shrink));
}

template <class T>
Rows<T> random_rows(const char* label, int rows, int cols, unsigned seed) {
  Rows<T> v(std::string(label), rows, cols);
  Kokkos::Random_XorShift64_Pool<Space> pool(seed);
  Kokkos::fill_random(v, pool, T(1));
  return v;
}

// ---------------------------------------------------------------- naive kernels
/// a_i = sum_j exp(-gamma |x_i - y_j|^2) b_j, every y_j and b_j read from global memory.
template <class T, int D, int W>
struct NaiveGaussian {
  Rows<T> x, y, b, out;
  T gamma;
  int n;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    T xi[D], s[W] = {};
    for (int d = 0; d < D; ++d)
      xi[d] = x(i, d);
    for (int j = 0; j < n; ++j) {
      T r2 = 0;
      for (int d = 0; d < D; ++d)
        r2 += (xi[d] - y(j, d)) * (xi[d] - y(j, d));
      const T k = tessera::math::exp(-gamma * r2);
      for (int w = 0; w < W; ++w)
        s[w] += k * b(j, w);
    }
    for (int w = 0; w < W; ++w)
      out(i, w) = s[w];
  }
};

/// The indices of the K nearest y_j (ties: smaller j), a sorted list per thread.
template <int K>
struct NaiveArgKMin {
  Rows<float> x, y;
  Rows<int> out;
  int n;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    float best[K];
    int idx[K];
    for (int k = 0; k < K; ++k) {
      best[k] = tessera::math::infinity<float>();
      idx[k]  = -1;
    }
    const float x0 = x(i, 0), x1 = x(i, 1), x2 = x(i, 2);
    for (int j = 0; j < n; ++j) {
      const float d0 = x0 - y(j, 0), d1 = x1 - y(j, 1), d2 = x2 - y(j, 2);
      const float r2 = d0 * d0 + d1 * d1 + d2 * d2;
      if (!(r2 < best[K - 1])) continue;
      int p = K - 1;
      for (; p > 0 && r2 < best[p - 1]; --p) {
        best[p] = best[p - 1];
        idx[p]  = idx[p - 1];
      }
      best[p] = r2;
      idx[p]  = j;
    }
    for (int k = 0; k < K; ++k)
      out(i, k) = idx[k];
  }
};

// ---------------------------------------------------------------- cases
enum class Path { naive, torch, portable, cuda };
const char* path_name(Path p) {
  switch (p) {
    case Path::naive:
      return "naive";
    case Path::torch:
      return "torch";
    case Path::portable:
      return "portable";
    default:
      return "cuda";
  }
}

/// One benchmark case: its data (built on first use), a call per path, its pair count.
struct Case {
  std::string name;
  double pairs = 0;
  std::function<void(tessera::Implementation)> tessera_call;
  std::function<void()> naive_call;  // empty: no naive row
  std::string torch_args;            // empty: no PyTorch row
  std::string dense_case;            // block-sparse: the dense case on the same data
  std::string direct_case;           // expanded distance: the direct case on the same data
  std::function<double(tessera::Implementation)> rel_err;  // expanded: error against direct
};

/// max |a - b| / max |b| over two host Views of the same extents.
template <class View>
double relative_difference(const View& a, const View& b) {
  const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double diff = 0, scale = 0;
  for (std::size_t e = 0; e < ha.size(); ++e) {
    diff  = std::max(diff, std::abs(double(ha.data()[e]) - double(hb.data()[e])));
    scale = std::max(scale, std::abs(double(hb.data()[e])));
  }
  return scale > 0 ? diff / scale : diff;
}

tessera::GenredOptions with(tessera::Implementation impl) {
  tessera::GenredOptions o;
  o.implementation = impl;
  return o;
}

using tessera::Distance;
const std::vector<std::string> variant_suffixes = {"_expanded", "_matrix"};
const std::string& suffix_of(Distance d) {
  static const std::string none;
  return d == Distance::direct ? none : variant_suffixes[d == Distance::expanded ? 0 : 1];
}

/// Gaussian convolution; with another Distance, named name + its suffix.
template <class T, int D, int W, Distance Dist = Distance::direct>
Case gaussian(const std::string& name, int m, int n) {
  const Rows<T> x = random_rows<T>("x", m, D, 1), y = random_rows<T>("y", n, D, 2),
                b = random_rows<T>("b", n, W, 3), out("out", m, W);
  Case c;
  c.name         = name;
  c.pairs        = static_cast<double>(m) * n;
  c.tessera_call = [=](tessera::Implementation impl) {
    tessera::genred(Space(), tessera::Sum{}, tessera::GaussianKernel<D, W, Dist>(sigma),
                    tessera::i_vars(x), tessera::j_vars(y, b), out, with(impl));
  };
  if constexpr (Dist != Distance::direct) {
    c.name        = name + suffix_of(Dist);
    c.direct_case = name;
    c.rel_err     = [=](tessera::Implementation impl) {
      const Rows<T> direct("direct", m, W);
      tessera::genred(Space(), tessera::Sum{},
                          tessera::GaussianKernel<D, W, Distance::direct>(sigma), tessera::i_vars(x),
                          tessera::j_vars(y, b), direct, with(impl));
      return relative_difference(out, direct);
    };
    return c;
  }
  const T gamma = static_cast<T>(1 / (2 * sigma * sigma));
  c.naive_call  = [=] {
    Kokkos::parallel_for("bench::naive_gaussian", Kokkos::RangePolicy<Space>(0, m),
                          NaiveGaussian<T, D, W>{x, y, b, out, gamma, n});
  };
  c.torch_args = "gaussian " + std::to_string(m) + " " + std::to_string(n) + " " +
                 std::to_string(D) + " " + std::to_string(W) + " " +
                 (sizeof(T) == 4 ? "float32" : "float64") + " " + std::to_string(sigma);
  return c;
}

Case arg_k_min(const std::string& name, int m, int n) {
  constexpr int K     = 10;
  const Rows<float> x = random_rows<float>("x", m, 3, 4), y = random_rows<float>("y", n, 3, 5);
  const Rows<int> out("out", m, K);
  Case c;
  c.name         = name;
  c.pairs        = static_cast<double>(m) * n;
  c.tessera_call = [=](tessera::Implementation impl) {
    tessera::genred(Space(), tessera::ArgKMin{K}, tessera::SquaredDistance<3>{}, tessera::i_vars(x),
                    tessera::j_vars(y), out, with(impl));
  };
  c.naive_call = [=] {
    Kokkos::parallel_for("bench::naive_argkmin", Kokkos::RangePolicy<Space>(0, m),
                         NaiveArgKMin<K>{x, y, out, n});
  };
  c.torch_args = "argkmin " + std::to_string(m) + " " + std::to_string(n) + " 3 " +
                 std::to_string(K) + " float32 0";
  return c;
}

/// Dense and 10%-of-tiles block-sparse Gaussian convolution on the same clustered data.
template <Distance Dist>
std::vector<Case> block_sparse(int n) {
  auto& p                  = tessera_perf::problem(n);
  const auto& r            = p.pattern(10);
  const auto k             = tessera::GaussianKernel<3, 1, Dist>(0.05);
  const std::string suffix = suffix_of(Dist);
  Case dense, sparse;
  dense.name         = "clustered_dense" + suffix;
  dense.pairs        = static_cast<double>(n) * n;
  dense.tessera_call = [&p, k](tessera::Implementation impl) {
    tessera::genred(Space(), tessera::Sum{}, k, tessera::i_vars(p.x), tessera::j_vars(p.y, p.b),
                    p.out, with(impl));
  };
  sparse.name         = "block_sparse_10pct" + suffix;
  sparse.pairs        = static_cast<double>(r.kept_pairs());
  sparse.dense_case   = dense.name;
  sparse.tessera_call = [&p, &r, k](tessera::Implementation impl) {
    tessera::genred(Space(), tessera::Sum{}, k, tessera::i_vars(p.x), tessera::j_vars(p.y, p.b),
                    p.out, r, with(impl));
  };
  return {dense, sparse};
}

/// The cases, built on first use and released when Kokkos is finalised.
std::map<std::string, Case>& cases() {
  static std::map<std::string, Case> all;
  static const bool hooked = (Kokkos::push_finalize_hook([] { all.clear(); }), true);
  (void)hooked;
  return all;
}

const std::vector<std::string> case_names = {"gauss_d3_1e6",
                                             "gauss_d3_1e6_expanded",
                                             "gauss_d3_1e4",
                                             "gauss_d3_1e4_expanded",
                                             "gauss_d16_w3_1e6",
                                             "gauss_d16_w3_1e6_expanded",
                                             "gauss_d16_w3_1e6_matrix",
                                             "argkmin_k10_d3_1e6",
                                             "gauss_2d_m1e3_n1e7",
                                             "gauss_2d_m1e3_n1e7_expanded",
                                             "clustered_dense",
                                             "block_sparse_10pct",
                                             "clustered_dense_expanded",
                                             "block_sparse_10pct_expanded",
                                             "gauss_d3_double_1e6",
                                             "gauss_d3_double_1e6_expanded"};

/// The direct-distance case a variant's name extends ("" for direct cases).
std::string direct_name(const std::string& name) {
  for (const std::string& suffix : variant_suffixes) {
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return "";
}

/// The direct-distance case `base` and its variants (the matrix one where the tensor-core path
/// exists: float, D > 8).
template <class T, int D, int W>
void add_gaussian(std::map<std::string, Case>& all, const std::string& base, int m, int n) {
  all[base]           = gaussian<T, D, W>(base, m, n);
  const Case expanded = gaussian<T, D, W, Distance::expanded>(base, m, n);
  all[expanded.name]  = expanded;
  if constexpr (std::is_same_v<T, float> && D > 8) {
    const Case matrix = gaussian<T, D, W, Distance::matrix>(base, m, n);
    all[matrix.name]  = matrix;
  }
}

Case& get_case(const std::string& name) {
  auto& all = cases();
  if (!all.count(name)) {
    const std::string base = direct_name(name).empty() ? name : direct_name(name);
    if (base == "gauss_d3_1e6") add_gaussian<float, 3, 1>(all, base, size(1e6), size(1e6));
    if (base == "gauss_d3_1e4") add_gaussian<float, 3, 1>(all, base, size(1e4, 10), size(1e4, 10));
    if (base == "gauss_d16_w3_1e6")
      add_gaussian<float, 16, 3>(all, base, size(1e6, 300), size(1e6, 300));
    if (base == "argkmin_k10_d3_1e6") all[name] = arg_k_min(name, size(1e6), size(1e6));
    if (base == "gauss_2d_m1e3_n1e7") add_gaussian<float, 3, 1>(all, base, 1000, size(1e7, 1000));
    if (base == "gauss_d3_double_1e6")
      add_gaussian<double, 3, 1>(all, base, size(1e6, 300), size(1e6, 300));
    if (base == "clustered_dense" || base == "block_sparse_10pct") {
      for (Case& c : block_sparse<Distance::direct>(size(1e6, 50)))
        all[c.name] = c;
      for (Case& c : block_sparse<Distance::expanded>(size(1e6, 50)))
        all[c.name] = c;
    }
  }
  Kokkos::fence();
  return all.at(name);
}

/// Seconds per call of (case, path) measured so far in this process.
std::map<std::string, double>& seconds_of() {
  static std::map<std::string, double> s;
  return s;
}

/// Runs perf/torch_reference.py; returns its pairs per second (0 when it cannot run).
double torch_pairs_per_s(const std::string& args) {
  const char* script    = std::getenv("TESSERA_TORCH_REFERENCE");
  const std::string cmd = std::string("python3 ") + (script ? script : "perf/torch_reference.py") +
                          " " + args + " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return 0;
  double rate = 0;
  if (std::fscanf(pipe, "pairs_per_s %lf", &rate) != 1) rate = 0;
  pclose(pipe);
  return rate;
}

void run_case(benchmark::State& state, const std::string& name, Path path) {
  Case& c = get_case(name);
  if (path == Path::torch) {
    const double rate = torch_pairs_per_s(c.torch_args);
    if (rate <= 0) {
      state.SkipWithError("PyTorch (with CUDA) is not available");
      return;
    }
    for (auto _ : state)
      state.SetIterationTime(c.pairs / rate);
    seconds_of()[name + "/torch"] = c.pairs / rate;
    state.counters["pairs_per_s"] = rate;
    return;
  }
  const auto call = [&] {
    if (path == Path::naive) {
      c.naive_call();
    } else {
      c.tessera_call(path == Path::cuda ? tessera::Implementation::cuda
                                        : tessera::Implementation::portable);
    }
  };
  call();  // warm-up: first launch, allocations
  Kokkos::fence();
  double total = 0;
  for (auto _ : state) {
    Kokkos::Timer timer;
    call();
    Kokkos::fence();
    const double t = timer.seconds();
    state.SetIterationTime(t);
    total += t;
  }
  const double seconds          = total / static_cast<double>(state.iterations());
  const std::string key         = name + "/" + path_name(path);
  seconds_of()[key]             = seconds;
  state.counters["pairs_per_s"] = c.pairs / seconds;
  for (Path other : {Path::naive, Path::portable, Path::torch}) {
    // the naive and PyTorch rows of an expanded case are its direct twin's
    const std::string& owner =
        other != Path::portable && !c.direct_case.empty() ? c.direct_case : name;
    const auto it = seconds_of().find(owner + "/" + path_name(other));
    if (other != path && it != seconds_of().end()) {
      state.counters[std::string("x_") + path_name(other)] = it->second / seconds;
    }
  }
  if (c.rel_err) {
    state.counters["rel_err"] = c.rel_err(path == Path::cuda ? tessera::Implementation::cuda
                                                             : tessera::Implementation::portable);
  }
  if (!c.dense_case.empty()) {
    const auto it = seconds_of().find(c.dense_case + "/" + path_name(path));
    if (it != seconds_of().end()) {
      const double dense_rate   = get_case(c.dense_case).pairs / it->second;
      state.counters["x_dense"] = (c.pairs / seconds) / dense_rate;
    }
  }
}

const bool registered = [] {
  for (const std::string& name : case_names) {
    for (Path path : {Path::naive, Path::torch, Path::portable, Path::cuda}) {
      const bool sparse_case =
          name.rfind("clustered_dense", 0) == 0 || name.rfind("block_sparse_10pct", 0) == 0;
      const bool own_baselines = !sparse_case && direct_name(name).empty();
      if (!own_baselines && (path == Path::naive || path == Path::torch)) continue;
      if (path == Path::cuda &&
          tessera::Impl::GenredBackend<Space>::implementation != tessera::Implementation::cuda)
        continue;
      if (path == Path::torch && !on_device) continue;
      benchmark::RegisterBenchmark((name + "/" + path_name(path)).c_str(),
                                   [name, path](benchmark::State& s) { run_case(s, name, path); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond);
    }
  }
  return true;
}();

}  // namespace
