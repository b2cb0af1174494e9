// The benchmark of the fused sequences, every row in one run: each vector and matrix
// sequence, float and double (matrix sequences: LayoutRight and LayoutLeft), as
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
// and the matrix sequences over n x n matrices (minimal bytes: each input matrix read once, each
// output matrix written once, vectors once):
//   atax     tmp = A x, y = A^T tmp                        n^2 + 3 n values
//   bicgk    q = A p, s = A^T r                            n^2 + 4 n
//   sgemv    z = alpha A x + beta y                        n^2 + 3 n
//   sgemvt   x = beta A^T y + z, w = alpha A x             n^2 + 4 n
//   gemver   B = A + u1 v1^T + u2 v2^T, x = beta B^T y + z, w = alpha B x     2 n^2 + 8 n
//   gesummv  y = alpha A x + beta B x                      2 n^2 + 2 n
//   madd     C = A + B                                     3 n^2
// with copy_matrix_<T>, a deep_copy of one matrix, as their roofline. The Kokkos Kernels chains
// are gemv calls (deep_copy where BLAS would copy, ger or a rank-1 gemm for GEMVER's updates,
// update for MADD); the cuBLAS chains are the BLAS calls (copy, gemv, ger, geam), on the
// transposed problem for LayoutRight matrices.
// Counters: GB_per_s on the sequence's minimal bytes (copy: 2 n s); on the fused and tuned rows,
// x_<baseline> = the baseline's time over the row's (measured earlier in the same run) and
// x_copy = the row's GB/s over copy's. n = 2^26 on GPUs, 2^24 on host backends (vectors of 64 MB
// in float: past the caches); matrices 16384 x 16384 on GPUs (1 GiB in float), 4096 x 4096 on
// host backends.
#include "ratio_reporter.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#if defined(TESSERA_BENCH_KOKKOSBLAS)
#include <KokkosBlas1_axpby.hpp>
#include <KokkosBlas1_dot.hpp>
#include <KokkosBlas1_scal.hpp>
#include <KokkosBlas1_update.hpp>
#include <KokkosBlas2_gemv.hpp>
#if __has_include(<KokkosBlas2_ger.hpp>)
#include <KokkosBlas2_ger.hpp>
#define TESSERA_BENCH_KOKKOSBLAS_GER
#else
#include <KokkosBlas3_gemm.hpp>
#endif
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

/// One call of sequence `seq` the given way (asynchronous); the report of fusion::run's ways.
template <class T>
fusion::FusionReport call(const std::string& seq, Way way, fusion::Tuner* tuner) {
  auto& v = vectors<T>();
  fusion::FusionOptions o;
  if (way == Way::unfused) o.choice = fusion::PlanChoice::unfused;
  if (way == Way::tuned) o.tuner = tuner;
  if (way == Way::unfused || way == Way::fused || way == Way::tuned) {
    if (seq == "axpydot") return fusion::axpydot(Space(), alpha, v.a, v.b, v.c, v.d, v.r, o);
    if (seq == "waxpby") return fusion::waxpby(Space(), alpha, v.a, beta, v.b, v.c, o);
    if (seq == "vadd") return fusion::vadd(Space(), v.a, v.b, v.c, v.d, o);
    return fusion::sscal(Space(), -1.0, v.a, o);  // -1: values keep their size
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
  return {};
}

// ---- Matrix sequences

const std::size_t nm = on_device ? 16384 : 4096;

/// The matrices and vectors of one value type and layout (values of order 1, rows of A summing
/// to about 1, so that repeated calls keep every value finite and normal).
template <class T, class Layout>
struct Matrices {
  using Matrix = Kokkos::View<T**, Layout, Mem>;
  using Vector = Kokkos::View<T*, Mem>;
  Matrix A{"A", nm, nm}, B{"B", nm, nm}, C{"C", nm, nm};
  Vector x{"x", nm}, y{"y", nm}, z{"z", nm}, u1{"u1", nm}, u2{"u2", nm}, v1{"v1", nm}, v2{"v2", nm},
      tmp{"tmp", nm}, out{"out", nm}, out2{"out2", nm};
  Matrices() {
    Kokkos::deep_copy(A, T(1.0 / double(nm)));
    Kokkos::deep_copy(B, T(0.5 / double(nm)));
    for (auto* v : {&x, &y, &z, &u1, &u2, &v1, &v2})
      Kokkos::deep_copy(*v, T(0.5));
  }
};

template <class T, class Layout>
Matrices<T, Layout>& matrices() {
  static Matrices<T, Layout>* m = [] {
    auto* made = new Matrices<T, Layout>();
    Kokkos::push_finalize_hook([made] { delete made; });
    return made;
  }();
  return *m;
}

#if defined(TESSERA_BENCH_CUBLAS)
/// y = alpha op(A) x + beta y with op(A) = A (transposed = false) or A^T, for an n x n matrix A
/// of the given layout (cuBLAS sees a LayoutRight matrix as its transpose).
template <class T, class Layout>
void cublas_gemv(bool transposed, T alpha, const T* A, const T* x, T beta, T* y) {
  const bool right           = std::is_same_v<Layout, Kokkos::LayoutRight>;
  const cublasOperation_t op = (transposed != right) ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int n                = int(nm);
  pick<T>(cublasSgemv, cublasDgemv)(cublas(), op, n, n, &alpha, A, n, x, 1, &beta, y, 1);
}
/// A += u v^T for an n x n matrix A of the given layout.
template <class T, class Layout>
void cublas_ger(const T* u, const T* v, T* A) {
  const T one = T(1);
  const int n = int(nm);
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutRight>) {
    pick<T>(cublasSger, cublasDger)(cublas(), n, n, &one, v, 1, u, 1, A, n);
  } else {
    pick<T>(cublasSger, cublasDger)(cublas(), n, n, &one, u, 1, v, 1, A, n);
  }
}
#endif

#if defined(TESSERA_BENCH_KOKKOSBLAS)
/// A += u v^T with Kokkos Kernels (ger where the version has it, else a rank-1 gemm).
template <class Matrix, class Vector>
void kokkosblas_ger(const Vector& u, const Vector& v, const Matrix& A) {
  using T = typename Matrix::value_type;
#if defined(TESSERA_BENCH_KOKKOSBLAS_GER)
  KokkosBlas::ger("T", T(1), u, v, A);
#else
  using Column = Kokkos::View<T**, Kokkos::LayoutLeft, Mem, Kokkos::MemoryUnmanaged>;
  KokkosBlas::gemm("N", "T", T(1), Column(u.data(), u.extent(0), 1),
                   Column(v.data(), v.extent(0), 1), T(1), A);
#endif
}
#endif

/// The workspace the matrix rows keep their partial sums in (freed before Kokkos::finalize).
tessera::Workspace& workspace() {
  static tessera::Workspace* w = [] {
    auto* made = new tessera::Workspace();
    Kokkos::push_finalize_hook([made] { delete made; });
    return made;
  }();
  return *w;
}

/// One call of matrix sequence `seq` the given way (asynchronous: the partial sums go to
/// workspace()); the report of fusion::run's ways.
template <class T, class Layout>
fusion::FusionReport call_matrix(const std::string& seq, Way way, fusion::Tuner* tuner) {
  auto& d = matrices<T, Layout>();
  fusion::FusionOptions o;
  if (way == Way::unfused) o.choice = fusion::PlanChoice::unfused;
  if (way == Way::tuned) o.tuner = tuner;
  o.workspace = &workspace();
  const Space s;
  if (way == Way::unfused || way == Way::fused || way == Way::tuned) {
    if (seq == "atax") return fusion::atax(s, d.A, d.x, d.tmp, d.out, o);
    if (seq == "bicgk") return fusion::bicgk(s, d.A, d.x, d.y, d.out, d.out2, o);
    if (seq == "sgemv") return fusion::sgemv(s, alpha, d.A, d.x, beta, d.y, d.out, o);
    if (seq == "sgemvt") return fusion::sgemvt(s, alpha, beta, d.A, d.y, d.z, d.out, d.out2, o);
    if (seq == "gemver") {
      return fusion::gemver(s, alpha, beta, d.A, d.u1, d.v1, d.u2, d.v2, d.y, d.z, d.B, d.out,
                            d.out2, o);
    }
    if (seq == "gesummv") return fusion::gesummv(s, alpha, d.A, beta, d.B, d.x, d.out, o);
    return fusion::madd(s, d.A, d.B, d.C, o);
  }
#if defined(TESSERA_BENCH_KOKKOSBLAS)
  if (way == Way::kokkosblas) {
    const T a = T(alpha), b = T(beta);
    if (seq == "atax") {
      KokkosBlas::gemv("N", T(1), d.A, d.x, T(0), d.tmp);
      KokkosBlas::gemv("T", T(1), d.A, d.tmp, T(0), d.out);
    }
    if (seq == "bicgk") {
      KokkosBlas::gemv("N", T(1), d.A, d.x, T(0), d.out);
      KokkosBlas::gemv("T", T(1), d.A, d.y, T(0), d.out2);
    }
    if (seq == "sgemv") {
      Kokkos::deep_copy(s, d.out, d.y);
      KokkosBlas::gemv("N", a, d.A, d.x, b, d.out);
    }
    if (seq == "sgemvt") {
      Kokkos::deep_copy(s, d.out, d.z);
      KokkosBlas::gemv("T", b, d.A, d.y, T(1), d.out);
      KokkosBlas::gemv("N", a, d.A, d.out, T(0), d.out2);
    }
    if (seq == "gemver") {
      Kokkos::deep_copy(s, d.B, d.A);
      kokkosblas_ger(d.u1, d.v1, d.B);
      kokkosblas_ger(d.u2, d.v2, d.B);
      Kokkos::deep_copy(s, d.out, d.z);
      KokkosBlas::gemv("T", b, d.B, d.y, T(1), d.out);
      KokkosBlas::gemv("N", a, d.B, d.out, T(0), d.out2);
    }
    if (seq == "gesummv") {
      KokkosBlas::gemv("N", a, d.A, d.x, T(0), d.out);
      KokkosBlas::gemv("N", b, d.B, d.x, T(1), d.out);
    }
    if (seq == "madd") KokkosBlas::update(T(1), d.A, T(1), d.B, T(0), d.C);
  }
#endif
#if defined(TESSERA_BENCH_CUBLAS)
  if (way == Way::cublas) {
    cublasSetPointerMode(cublas(), CUBLAS_POINTER_MODE_HOST);
    const T a = T(alpha), b = T(beta), one = T(1), zero = T(0);
    const int n = int(nm);
    auto copy   = pick<T>(cublasScopy, cublasDcopy);
    auto gemv   = [](bool t, T al, const auto& M, const auto& v, T be, const auto& out) {
      cublas_gemv<T, Layout>(t, al, M.data(), v.data(), be, out.data());
    };
    if (seq == "atax") {
      gemv(false, one, d.A, d.x, zero, d.tmp);
      gemv(true, one, d.A, d.tmp, zero, d.out);
    }
    if (seq == "bicgk") {
      gemv(false, one, d.A, d.x, zero, d.out);
      gemv(true, one, d.A, d.y, zero, d.out2);
    }
    if (seq == "sgemv") {
      copy(cublas(), n, d.y.data(), 1, d.out.data(), 1);
      gemv(false, a, d.A, d.x, b, d.out);
    }
    if (seq == "sgemvt") {
      copy(cublas(), n, d.z.data(), 1, d.out.data(), 1);
      gemv(true, b, d.A, d.y, one, d.out);
      gemv(false, a, d.A, d.out, zero, d.out2);
    }
    if (seq == "gemver") {
      cudaMemcpyAsync(d.B.data(), d.A.data(), nm * nm * sizeof(T), cudaMemcpyDeviceToDevice,
                      s.cuda_stream());
      cublas_ger<T, Layout>(d.u1.data(), d.v1.data(), d.B.data());
      cublas_ger<T, Layout>(d.u2.data(), d.v2.data(), d.B.data());
      copy(cublas(), n, d.z.data(), 1, d.out.data(), 1);
      gemv(true, b, d.B, d.y, one, d.out);
      gemv(false, a, d.B, d.out, zero, d.out2);
    }
    if (seq == "gesummv") {
      gemv(false, a, d.A, d.x, zero, d.out);
      gemv(false, b, d.B, d.x, one, d.out);
    }
    if (seq == "madd") {
      pick<T>(cublasSgeam, cublasDgeam)(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, &one, d.A.data(),
                                        n, &one, d.B.data(), n, d.C.data(), n);
    }
  }
#endif
  return {};
}

/// The minimal values a matrix sequence moves (see the file comment).
double minimal_matrix_values(const std::string& seq) {
  const double n2 = double(nm) * double(nm), n = double(nm);
  if (seq == "gemver") return 2 * n2 + 8 * n;
  if (seq == "gesummv") return 2 * n2 + 2 * n;
  if (seq == "madd") return 3 * n2;
  return n2 + (seq == "bicgk" || seq == "sgemvt" ? 4 : 3) * n;
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
    const bool matrix =
        base.find("_right") != std::string::npos || base.find("_left") != std::string::npos;
    const std::string copy = std::string(matrix ? "copy_matrix_" : "copy_") +
                             (base.find("_float") != std::string::npos ? "float" : "double");
    if (rates_.count(copy)) r.counters["x_copy"] = rates_[name] / rates_[copy];
  }
  std::map<std::string, double> rates_;
};

/// The ways each sequence runs, baselines first.
std::vector<std::pair<Way, const char*>> ways() {
  std::vector<std::pair<Way, const char*>> w;
#if defined(TESSERA_BENCH_KOKKOSBLAS)
  w.push_back({Way::kokkosblas, "kokkosblas"});
#endif
#if defined(TESSERA_BENCH_CUBLAS)
  w.push_back({Way::cublas, "cublas"});
#endif
  w.push_back({Way::unfused, "unfused"});
  w.push_back({Way::fused, "fused"});
  w.push_back({Way::tuned, "tuned"});
  return w;
}

/// The rows of a sequence: one per way, each call followed by a fence. The fusion rows report
/// the plan and launch shape they ran (counters cuts, team, per).
void register_sequence(const std::string& name, double bytes,
                       std::function<fusion::FusionReport(Way, fusion::Tuner*)> call_once) {
  for (const auto& [way, label] : ways()) {
    const Way w = way;
    row(name + "/" + label, [w, bytes, call_once](benchmark::State& state) {
      fusion::Tuner tuner;  // in memory; times the candidates on the first call
      const fusion::FusionReport report = call_once(w, &tuner);
      Space().fence();
      if (report.kernels > 0) {
        state.counters["cuts"] = report.cuts;
        state.counters["team"] = report.team_size;
        state.counters["per"]  = report.per_thread;
      }
      for (auto _ : state) {
        call_once(w, &tuner);
        Space().fence();
      }
      state.counters["GB_per_s"] =
          benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
    });
  }
}

template <class T, class Layout>
void register_matrix_rows(const std::string& type, const char* layout) {
  if (std::string(layout) == "right") {
    row("copy_matrix_" + type, [](benchmark::State& state) {
      auto& d = matrices<T, Layout>();
      for (auto _ : state) {
        Kokkos::deep_copy(Space(), d.C, d.A);
        Space().fence();
      }
      state.counters["GB_per_s"] = benchmark::Counter(
          2.0 * nm * nm * sizeof(T), benchmark::Counter::kIsIterationInvariantRate);
    });
  }
  for (const std::string seq : {"atax", "bicgk", "sgemv", "sgemvt", "gemver", "gesummv", "madd"}) {
    register_sequence(seq + "_" + type + "_" + layout, minimal_matrix_values(seq) * sizeof(T),
                      [seq](Way w, fusion::Tuner* t) { return call_matrix<T, Layout>(seq, w, t); });
  }
}

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
    register_sequence(seq + "_" + t, minimal_values(seq) * n * sizeof(T),
                      [seq](Way w, fusion::Tuner* tuner) { return call<T>(seq, w, tuner); });
  }
  register_matrix_rows<T, Kokkos::LayoutRight>(t, "right");
  register_matrix_rows<T, Kokkos::LayoutLeft>(t, "left");
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
