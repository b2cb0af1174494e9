// tessera::genred across dimensions: D = 16, 64, 128, 512, 1024, M = N = 1e5 (TESSERA_BENCH_N
// sets both; 1000 by default on host backends), float points uniform in [0, 1)^D, sigma =
// sqrt(D) / 4 (so that exp(-|x - y|^2 / 2 sigma^2) is about exp(-4/3) for a typical pair at
// every D), beside PyTorch and KeOps run on the same data. Rows, d<D>/<case>/<path>:
//   cases   sum_w1, sum_w64: Gaussian convolution with 1 and 64 weights per point
//           (GaussianKernel<D, W, Distance>); argkmin_k10: ArgKMin K = 10 of SquaredDistance<D>
//   paths   tessera_matrix_split, tessera_matrix_fast: Distance::matrix with
//           GenredOptions::matrix_precision split (the default) and fast;
//           tessera_direct: Distance::direct (the SIMT kernel); for argkmin: tessera_split and
//           tessera_fast (the nearest-neighbour selection's matrix_precision);
//           tessera_bhalf_*: the same with Kokkos::Experimental::bhalf_t points and weights
//           (float output), compiled where Kokkos has bhalf_t (TESSERA_HAS_BHALF_T): the
//           distances' product is one BF16 product whatever matrix_precision, which chooses the
//           parts of the weights' product (tessera_bhalf_matrix_fast: one); skipped if genred
//           rejects them;
//           torch, torch_compile: perf/torch_dims_reference.py (chunked matrix products with
//           TF32 on), eager and under torch.compile; torch_fp32, torch_bf16: eager, products in
//           float (TF32 off: the accuracy of the split rows) and in bfloat16 from points and
//           weights rounded to it (the bhalf rows' peers); keops, keops_f16:
//           perf/keops_reference.py (pykeops LazyTensor) in float32 and float16. A baseline whose
//           Python, torch or pykeops is missing is skipped with the script's message.
// Counters:
//   pairs_per_s   M * N per second
//   x_<baseline>  Tessera rows: this row's pairs/s over the baseline's, same case, same run
//   rel_err       Sum rows: max |a - a_ref| / max |a_ref| over 256 sampled output rows, a_ref
//                 computed in double on the host from the row's own inputs (for bhalf rows:
//                 the rounded points and weights)
//   idx_match     ArgKMin rows: the fraction of the sampled rows whose K indices equal (in
//                 order) those of a direct double-precision search on the host
// The Python scripts regenerate the points from the same counter-based hash (unit_value below,
// points() in perf/torch_dims_reference.py), so nothing is written to disk. TESSERA_PYTHON names
// the interpreter (python3 by default). On host backends the baselines run on the CPU.
//
// This file holds the data, the references and the baselines; bench_genred_dims_rows.cpp the
// Tessera rows of each dimension (bench_genred_dims.hpp: what they share).
#include "bench_genred_dims.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#ifndef TESSERA_PERF_DIR
#define TESSERA_PERF_DIR "perf"
#endif

namespace tessera_bench_dims {
namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

/// A value uniform in [0, 1) (24 random bits) for (stream, index): a 32-bit integer hash that
/// perf/torch_dims_reference.py computes identically (its points()).
float unit_value(std::uint32_t stream, std::uint64_t index) {
  std::uint32_t h = static_cast<std::uint32_t>(index + stream * std::uint64_t(0x9E3779B9u));
  h ^= h >> 16;
  h *= 0x7feb352du;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 16;
  return static_cast<float>(h >> 8) * 0x1p-24f;
}

/// rows x cols values of a stream, row-major (value (r, c) = unit_value(stream, r * cols + c)).
std::vector<float> stream_values(std::uint32_t stream, int rows, int cols) {
  std::vector<float> v(static_cast<std::size_t>(rows) * cols);
  Kokkos::parallel_for("bench::stream_values", Kokkos::RangePolicy<Host>(0, rows), [&](int r) {
    for (int c = 0; c < cols; ++c) {
      const std::size_t e = static_cast<std::size_t>(r) * cols + c;
      v[e]                = unit_value(stream, e);
    }
  });
  return v;
}

/// M = N: TESSERA_BENCH_N, else 1e5 on devices and 1000 on host backends; 0 if the variable
/// is not a positive integer.
int problem_size() {
  const char* env = std::getenv("TESSERA_BENCH_N");
  if (!env) return on_device ? 100000 : 1000;
  char* end         = nullptr;
  const long long n = std::strtoll(env, &end, 10);
  return *end == '\0' && n >= 1 && n <= (1LL << 30) ? static_cast<int>(n) : 0;
}

/// The Reference of the sampled `rows` from host data (x: M x d, y: n x d, b: n x max_w).
Reference reference(const std::vector<float>& x, const std::vector<float>& y,
                    const std::vector<float>& b, int d, int n, const std::vector<int>& rows) {
  Reference ref{std::vector<double>(rows.size() * max_w), std::vector<int>(rows.size() * K, -1)};
  const double gamma = 1 / (2 * sigma_of(d) * sigma_of(d));
  const int kept     = std::min(K, n);
  Kokkos::parallel_for(
      "bench::reference", Kokkos::RangePolicy<Host>(0, static_cast<int>(rows.size())), [&](int s) {
        const float* xi = &x[static_cast<std::size_t>(rows[s]) * d];
        double* sum     = &ref.sums[static_cast<std::size_t>(s) * max_w];
        std::vector<double> r2(n);
        for (int j = 0; j < n; ++j) {
          const float* yj = &y[static_cast<std::size_t>(j) * d];
          for (int c = 0; c < d; ++c)
            r2[j] += (double(xi[c]) - yj[c]) * (double(xi[c]) - yj[c]);
          const double kv = std::exp(-gamma * r2[j]);
          for (int w = 0; w < max_w; ++w)
            sum[w] += kv * b[static_cast<std::size_t>(j) * max_w + w];
        }
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::partial_sort(order.begin(), order.begin() + kept, order.end(),
                          [&](int i, int j) { return r2[i] < r2[j] || (r2[i] == r2[j] && i < j); });
        std::copy(order.begin(), order.begin() + kept,
                  &ref.nearest[static_cast<std::size_t>(s) * K]);
      });
  return ref;
}

/// rows x cols host values as a device View of T.
template <class T>
Rows<T> upload(const char* label, const std::vector<float>& v, int rows, int cols) {
  const Rows<T> dev(std::string(label), rows, cols);
  const auto host = Kokkos::create_mirror_view(dev);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      const float value = v[static_cast<std::size_t>(r) * cols + c];
      if constexpr (std::is_same_v<T, float>) {
        host(r, c) = value;
      } else {
        host(r, c) = to_bhalf(value);
      }
    }
  Kokkos::deep_copy(dev, host);
  return dev;
}

/// Runs a reference script; returns its exit status and everything it printed.
std::pair<int, std::string> run_script(const std::string& args) {
  const char* python    = std::getenv("TESSERA_PYTHON");
  const std::string cmd = std::string(python ? python : "python3") + " " + args + " 2>&1";
  FILE* pipe            = popen(cmd.c_str(), "r");
  if (!pipe) return {-1, "could not start: " + cmd};
  std::string output;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe))
    output += buffer;
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

/// A baseline row: runs `script args` once and reports the pairs per second it printed
/// ("pairs_per_s <rate> M <m> N <n>"); exit status 77 (or any failure) skips the row with the
/// script's last line (a failure other than 77 also prints the whole output to stderr).
void baseline_row(benchmark::State& state, const std::string& key, const std::string& script,
                  const std::string& args) {
  const int size = problem_size();
  if (size == 0) {
    state.SkipWithError("TESSERA_BENCH_N must be a positive integer");
    return;
  }
  std::ostringstream command;
  command << "'" << TESSERA_PERF_DIR << "/" << script << "' " << args << " --size " << size << " "
          << size << " --device " << (on_device ? "cuda" : "cpu");
  const auto [status, output] = run_script(command.str());
  double rate = 0, m = 0, n = 0;
  std::istringstream lines(output);
  std::string line, last;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    last = line;
    std::sscanf(line.c_str(), "pairs_per_s %lf M %lf N %lf", &rate, &m, &n);
  }
  if (status != 0 || rate <= 0) {
    if (status != 77)
      std::fprintf(stderr, "%s: %s (exit %d):\n%s", key.c_str(), command.str().c_str(), status,
                   output.c_str());
    state.SkipWithError(((status == 77 ? "skipped: " : "failed: ") + last).c_str());
    return;
  }
  for (auto _ : state)
    state.SetIterationTime(m * n / rate);
  baseline_rates()[key]         = rate;
  state.counters["pairs_per_s"] = rate;
}

}  // namespace

Problem::Problem(int d_, int size) : d(d_), m(size), n(size) {
  const int count = m < sampled ? m : sampled;
  for (int s = 0; s < count; ++s)
    rows.push_back(static_cast<int>(static_cast<long long>(s) * m / count));
  std::vector<float> x = stream_values(1, m, d), y = stream_values(2, n, d),
                     b64 = stream_values(3, n, max_w), b1(n);
  for (int j = 0; j < n; ++j)
    b1[j] = b64[static_cast<std::size_t>(j) * max_w];
  f = {upload<float>("x", x, m, d), upload<float>("y", y, n, d), upload<float>("b1", b1, n, 1),
       upload<float>("b64", b64, n, max_w), reference(x, y, b64, d, n, rows)};
  if constexpr (has_bhalf) {
    h = {upload<BHalf>("x_bhalf", x, m, d),
         upload<BHalf>("y_bhalf", y, n, d),
         upload<BHalf>("b1_bhalf", b1, n, 1),
         upload<BHalf>("b64_bhalf", b64, n, max_w),
         {}};
    for (std::vector<float>* v : {&x, &y, &b64})
      for (float& e : *v)
        e = from_bhalf(to_bhalf(e));
    h.ref = reference(x, y, b64, d, n, rows);
  }
}

const Problem* problem(int d, benchmark::State& state) {
  static std::unique_ptr<Problem> current;
  static const bool hooked = (Kokkos::push_finalize_hook([] { current.reset(); }), true);
  (void)hooked;
  const int size = problem_size();
  if (size == 0) {
    state.SkipWithError("TESSERA_BENCH_N must be a positive integer");
    return nullptr;
  }
  if (!current || current->d != d) {
    current.reset();
    current = std::make_unique<Problem>(d, size);
  }
  return current.get();
}

std::map<std::string, double>& baseline_rates() {
  static std::map<std::string, double> rates;
  return rates;
}

void add_baselines(const std::string& key, const std::string& kind, int d, int w) {
  for (const char* b : baselines) {
    const bool keops         = std::string(b).rfind("keops", 0) == 0;
    const std::string script = keops ? "keops_reference.py" : "torch_dims_reference.py";
    std::ostringstream extra;
    extra.precision(17);
    extra << kind << " --dim " << d << " --width " << w << " --sigma " << sigma_of(d);
    if (std::string(b) == "torch_compile") extra << " --compile";
    if (std::string(b) == "torch_fp32") extra << " --precision fp32";
    if (std::string(b) == "torch_bf16") extra << " --precision bf16";
    if (keops) extra << " --dtype " << (std::string(b) == "keops_f16" ? "float16" : "float32");
    const std::string row = key + "/" + b;
    add(row, [row, script, args = extra.str()](benchmark::State& s) {
      baseline_row(s, row, script, args);
    });
  }
}

namespace {

// The dimensions in order; perf/CMakeLists.txt compiles bench_genred_dims_rows.cpp for each.
const bool registered = (add_dimension<16>(), add_dimension<64>(), add_dimension<128>(),
                         add_dimension<512>(), add_dimension<1024>(), true);

}  // namespace
}  // namespace tessera_bench_dims
