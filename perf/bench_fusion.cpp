// The benchmark of the fused sequences (issue 22), every row in one run: each vector sequence,
// float and double, as
//   <seq>_<T>/kokkosblas   the same sequence as separate Kokkos Kernels calls (with
//                          TESSERA_ENABLE_KOKKOSKERNELS): the library-call baseline
//   <seq>_<T>/cublas       the same as separate cuBLAS calls (CUDA builds)
//   <seq>_<T>/unfused      fusion::run with PlanChoice::unfused (one kernel per step)
//   <seq>_<T>/fused        fusion::run with the model's plan (the default)
//   <seq>_<T>/tuned        fusion::run with a Tuner (timed once before the row)
// and copy_<T>, a deep_copy of one vector (the bandwidth roofline). Sequences:
//   axpydot  z = w - alpha v, r = z . u     minimal bytes 4 n s (w, v, u read, z written)
//   waxpby   w = alpha x + beta y           3 n s
//   vadd     x = w + y + z                  4 n s
//   sscal    x = alpha x                    2 n s (alpha = -1, so that repeated calls keep values)
// Counters: GB_per_s on the sequence's minimal bytes (copy: 2 n s); on the fused and tuned rows,
// x_<baseline> = the baseline's time over the row's (measured earlier in the same run) and
// x_copy = the row's GB/s over copy's. n = 2^26 on GPUs, 2^24 on host backends (vectors of 64 MB
// in float: past the caches).
#include "ratio_reporter.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#if defined(TESSERA_BENCH_KOKKOSBLAS)
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas1_update.hpp>
#endif
#if defined(TESSERA_BENCH_CUBLAS)
#include <cublas_v2.h>
#endif

#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace fusion = tessera::fusion;
using Space      = Kokkos::DefaultExecutionSpace;
using Mem        = Space::memory_space;

constexpr bool on_device = tessera::Impl::is_device_space<Space>;
const std::size_t n      = on_device ? std::size_t(1) << 26 : std::size_t(1) << 24;
const double alpha = 0.75, beta = -0.5;

/// The vectors of one value type (filled with 1, so that no row meets NaNs or denormals).
template <class T>
struct Vectors {
  Kokkos::View<T*, Mem> a{"a", n}, b{"b", n}, c{"c", n}, d{"d", n};
  Kokkos::View<T, Mem> r{"r"};
  Vectors() {
    for (auto* v : {&a, &b, &c, &d})
      Kokkos::deep_copy(*v, T(1));
  }
};

template <class T>
Vectors<T>& vectors() {
  static Vectors<T>* v = [] {
    auto* made = new Vectors<T>();
    Kokkos::push_finalize_hook([made] { delete made; });
    return made;
  }();
  return *v;
}

#if defined(TESSERA_BENCH_CUBLAS)
cublasHandle_t cublas() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    cublasCreate(&h);
    cublasSetStream(h, Space().cuda_stream());
    cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);
    Kokkos::push_finalize_hook([h] { cublasDestroy(h); });
    return h;
  }();
  return handle;
}
template <class T, class F, class D>
auto pick(F f, D d) {
  if constexpr (std::is_same_v<T, float>) {
    return f;
  } else {
    return d;
  }
}
#endif

enum class Way { kokkosblas, cublas, unfused, fused, tuned };

/// One call of sequence `seq` the given way (asynchronous).
template <class T>
void call(const std::string& seq, Way way, fusion::Tuner* tuner) {
  auto& v = vectors<T>();
  fusion::FusionOptions o;
  if (way == Way::unfused) o.choice = fusion::PlanChoice::unfused;
  if (way == Way::tuned) o.tuner = tuner;
  if (way == Way::unfused || way == Way::fused || way == Way::tuned) {
    if (seq == "axpydot") fusion::axpydot(Space(), alpha, v.a, v.b, v.c, v.d, v.r, o);
    if (seq == "waxpby") fusion::waxpby(Space(), alpha, v.a, beta, v.b, v.c, o);
    if (seq == "vadd") fusion::vadd(Space(), v.a, v.b, v.c, v.d, o);
    if (seq == "sscal") fusion::sscal(Space(), -1.0, v.a, o);  // -1: values keep their size
    return;
  }
#if defined(TESSERA_BENCH_KOKKOSBLAS)
  if (way == Way::kokkosblas) {
    if (seq == "axpydot") {
      KokkosBlas::update(T(1), v.a, T(-alpha), v.b, T(0), v.d);
      KokkosBlas::dot(v.r, v.d, v.c);
    }
    if (seq == "waxpby") KokkosBlas::update(T(alpha), v.a, T(beta), v.b, T(0), v.c);
    if (seq == "vadd") {
      KokkosBlas::update(T(1), v.a, T(1), v.b, T(0), v.d);
      KokkosBlas::axpy(T(1), v.c, v.d);
    }
    if (seq == "sscal") KokkosBlas::scal(v.a, T(-1), v.a);
    return;
  }
#endif
#if defined(TESSERA_BENCH_CUBLAS)
  if (way == Way::cublas) {
    const int m = int(n);
    const T a = T(alpha), minus_a = T(-alpha), b = T(beta), one = T(1), minus_one = T(-1);
    auto copy = pick<T>(cublasScopy, cublasDcopy);
    auto axpy = pick<T>(cublasSaxpy, cublasDaxpy);
    auto scal = pick<T>(cublasSscal, cublasDscal);
    auto dot  = pick<T>(cublasSdot, cublasDdot);
    cublasSetPointerMode(cublas(), CUBLAS_POINTER_MODE_HOST);
    if (seq == "axpydot") {  // z = w; z += -alpha v; r = z . u
      copy(cublas(), m, v.a.data(), 1, v.d.data(), 1);
      axpy(cublas(), m, &minus_a, v.b.data(), 1, v.d.data(), 1);
      cublasSetPointerMode(cublas(), CUBLAS_POINTER_MODE_DEVICE);
      dot(cublas(), m, v.d.data(), 1, v.c.data(), 1, v.r.data());
    }
    if (seq == "waxpby") {  // w = y; w *= beta; w += alpha x
      copy(cublas(), m, v.b.data(), 1, v.c.data(), 1);
      scal(cublas(), m, &b, v.c.data(), 1);
      axpy(cublas(), m, &a, v.a.data(), 1, v.c.data(), 1);
    }
    if (seq == "vadd") {  // x = w; x += y; x += z
      copy(cublas(), m, v.a.data(), 1, v.d.data(), 1);
      axpy(cublas(), m, &one, v.b.data(), 1, v.d.data(), 1);
      axpy(cublas(), m, &one, v.c.data(), 1, v.d.data(), 1);
    }
    if (seq == "sscal") scal(cublas(), m, &minus_one, v.a.data(), 1);
  }
#endif
}

double minimal_values(const std::string& seq) {
  return seq == "waxpby" ? 3 : seq == "sscal" ? 2 : 4;
}

void row(const std::string& name, std::function<void(benchmark::State&)> body) {
  benchmark::RegisterBenchmark(name.c_str(), body)->UseRealTime()->Unit(benchmark::kMicrosecond);
}

/// Adds the x_<baseline> and x_copy counters to fused and tuned rows (registration order puts
/// the baselines first).
class FusionRatios : public tessera_bench::RatioReporter {
  void add_ratios(Run& r, const std::string& name) override {
    if (r.counters.count("GB_per_s")) rates_[name] = double(r.counters["GB_per_s"]);
    const auto slash       = name.find('/');
    const std::string base = name.substr(0, slash), way = name.substr(slash + 1);
    if (slash == std::string::npos || (way != "fused" && way != "tuned")) return;
    for (const char* baseline : {"kokkosblas", "cublas", "unfused"}) {
      const double t = time(base + "/" + baseline);
      if (t > 0) r.counters[std::string("x_") + baseline] = t / time(name);
    }
    const std::string copy =
        base.find("_float") != std::string::npos ? "copy_float" : "copy_double";
    if (rates_.count(copy)) r.counters["x_copy"] = rates_[name] / rates_[copy];
  }
  std::map<std::string, double> rates_;
};

template <class T>
void register_rows(const char* type) {
  const std::string t = type;
  row("copy_" + t, [](benchmark::State& state) {
    auto& v = vectors<T>();
    for (auto _ : state) {
      Kokkos::deep_copy(Space(), v.d, v.a);
      Space().fence();
    }
    state.counters["GB_per_s"] =
        benchmark::Counter(2.0 * n * sizeof(T), benchmark::Counter::kIsIterationInvariantRate);
  });
  for (const std::string seq : {"axpydot", "waxpby", "vadd", "sscal"}) {
    std::vector<std::pair<Way, const char*>> ways;
#if defined(TESSERA_BENCH_KOKKOSBLAS)
    ways.push_back({Way::kokkosblas, "kokkosblas"});
#endif
#if defined(TESSERA_BENCH_CUBLAS)
    ways.push_back({Way::cublas, "cublas"});
#endif
    ways.push_back({Way::unfused, "unfused"});
    ways.push_back({Way::fused, "fused"});
    ways.push_back({Way::tuned, "tuned"});
    for (const auto& [way, label] : ways) {
      const Way w = way;
      row(seq + "_" + t + "/" + label, [seq, w](benchmark::State& state) {
        fusion::Tuner tuner;  // in memory; times the candidates on the first call
        call<T>(seq, w, &tuner);
        Space().fence();
        for (auto _ : state) {
          call<T>(seq, w, &tuner);
          Space().fence();
        }
        state.counters["GB_per_s"] = benchmark::Counter(
            minimal_values(seq) * n * sizeof(T), benchmark::Counter::kIsIterationInvariantRate);
      });
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_rows<float>("float");
  register_rows<double>("double");
  FusionRatios reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
