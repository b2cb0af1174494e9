// Genred demo: Gaussian kernel sums, k-nearest neighbours (ArgKMin) and a LogSumExp on two
// generated 3-D point clouds, each checked on a sample of rows against a direct computation.
//
//   genred_demo [--m M] [--n N] [--k K]     (defaults: 100000 points each, k = 10)
#include <tessera.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using Space  = Kokkos::DefaultExecutionSpace;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Space::memory_space>;

constexpr float sigma = 0.05f;

/// F = -|x - y|^2 / (2 sigma^2): the log of the Gaussian kernel, for the LogSumExp.
struct GaussianLogKernel {
  using param_dims             = tessera::Dims<>;
  using i_dims                 = tessera::Dims<3>;
  using j_dims                 = tessera::Dims<3>;
  static constexpr int out_dim = 1;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(tessera::In<T, 3> x, tessera::In<T, 3> y,
                                         tessera::Out<T, 1> out) const {
    out[0] = -tessera::squared_distance(x, y) / T(2 * sigma * sigma);
  }
};

/// Points of a clustered cloud: a few Gaussian blobs in the unit cube.
Points make_cloud(const char* label, int n, unsigned seed, std::vector<float>& host) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  std::normal_distribution<float> blob(0.f, 0.08f);
  std::vector<float> centres(8 * 3);
  for (float& c : centres)
    c = unit(gen);
  host.resize(static_cast<std::size_t>(n) * 3);
  for (int i = 0; i < n; ++i) {
    const int c = static_cast<int>(gen() % 8);
    for (int k = 0; k < 3; ++k)
      host[i * 3 + k] = centres[c * 3 + k] + blob(gen);
  }
  Points v(std::string(label), n, 3);
  auto h = Kokkos::create_mirror_view(v);
  std::copy(host.begin(), host.end(), h.data());
  Kokkos::deep_copy(v, h);
  return v;
}

double squared_distance(const std::vector<float>& x, int i, const std::vector<float>& y, int j) {
  double r2 = 0;
  for (int k = 0; k < 3; ++k)
    r2 += (double(x[i * 3 + k]) - y[j * 3 + k]) * (double(x[i * 3 + k]) - y[j * 3 + k]);
  return r2;
}

/// Runs `op` once to warm up (on devices: module load, first allocations), then once timed; prints
/// a table row; returns whether the sampled rows passed `check_row` (which returns the row's error
/// and whether it passed).
bool run(const char* name, int m, int n, const std::function<void()>& op,
         const std::function<bool(int row, double& error)>& check_row) {
  if (tessera::Impl::is_device_space<Space>) {
    op();
    Kokkos::fence();
  }
  Kokkos::Timer timer;
  op();
  Kokkos::fence();
  const double seconds = timer.seconds();
  bool ok              = true;
  double max_error     = 0;
  for (int s = 0; s < 16; ++s) {
    const int row = static_cast<int>((static_cast<long>(m) - 1) * s / 15);
    double error  = 0;
    ok            = check_row(row, error) && ok;
    max_error     = std::max(max_error, error);
  }
  std::printf("%-22s %9d x %-9d %10.3f ms %12.3e pairs/s  max rel. error %.2e  %s\n", name, m, n,
              seconds * 1e3, double(m) * n / seconds, max_error, ok ? "ok" : "FAILED");
  std::fflush(stdout);
  return ok;
}

}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  int m = 100000, n = 100000, k = 10;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!std::strcmp(argv[a], "--m")) m = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--n")) n = std::atoi(argv[a + 1]);
    if (!std::strcmp(argv[a], "--k")) k = std::atoi(argv[a + 1]);
  }
  if (m < 1 || n < 1 || k < 1 || k > n) {
    std::fprintf(stderr, "genred_demo: need m, n >= 1 and 1 <= k <= n\n");
    return 2;
  }
  tessera::print_configuration(std::cout);

  std::vector<float> hx, hy, hb(n);
  const Points x = make_cloud("x", m, 1, hx);
  const Points y = make_cloud("y", n, 2, hy);
  Points b("b", n, 1);
  {
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> w(0.5f, 1.5f);
    auto h = Kokkos::create_mirror_view(b);
    for (int j = 0; j < n; ++j)
      h(j, 0) = hb[j] = w(gen);
    Kokkos::deep_copy(b, h);
  }
  bool ok = true;

  // 1. Gaussian kernel sum a_i = sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j.
  Points sums("sums", m, 1);
  auto h_sums = Kokkos::create_mirror_view(sums);
  ok          = run(
                    "Gaussian kernel sum", m, n,
                    [&] {
             tessera::genred(Space(), tessera::Sum{}, tessera::GaussianKernel<3, 1>(sigma),
                                      tessera::i_vars(x), tessera::j_vars(y, b), sums);
             Kokkos::deep_copy(h_sums, sums);
           },
                    [&](int i, double& error) {
             double ref = 0, abs = 0;
             for (int j = 0; j < n; ++j) {
               const double t =
                   std::exp(-squared_distance(hx, i, hy, j) / (2.0 * sigma * sigma)) * hb[j];
               ref += t;
               abs += std::fabs(t);
             }
             error = std::fabs(h_sums(i, 0) - ref) / std::max(abs, 1e-30);
             return error < 1e-4;  // float sums of positive terms: ~1e-6 expected
           }) &&
       ok;

  // 2. k nearest neighbours: ArgKMin of the squared distance.
  Kokkos::View<int**, Space::memory_space> nn("nn", m, k);
  auto h_nn = Kokkos::create_mirror_view(nn);
  ok        = run(
                  "k-NN (ArgKMin)", m, n,
                  [&] {
             tessera::genred(Space(), tessera::ArgKMin{k}, tessera::SquaredDistance<3>{},
                                    tessera::i_vars(x), tessera::j_vars(y), nn);
             Kokkos::deep_copy(h_nn, nn);
           },
                  [&](int i, double& error) {
             std::vector<double> d(n);
             for (int j = 0; j < n; ++j)
               d[j] = squared_distance(hx, i, hy, j);
             std::vector<double> sorted = d;
             std::nth_element(sorted.begin(), sorted.begin() + (k - 1), sorted.end());
             std::sort(sorted.begin(), sorted.begin() + k);
             bool row_ok = true;
             error       = 0;
             for (int t = 0; t < k; ++t) {
               const int j = h_nn(i, t);
               if (j < 0 || j >= n) return false;
               // A neighbour is right if its exact distance is the t-th smallest, up to the
               // float rounding of the distances (near-ties may swap).
               const double e = std::fabs(d[j] - sorted[t]) / std::max(sorted[t], 1e-12);
               error          = std::max(error, e);
               row_ok         = row_ok && std::fabs(d[j] - sorted[t]) <= 1e-5 * (1 + sorted[t]);
             }
             return row_ok;
           }) &&
       ok;

  // 3. LogSumExp of the log-kernel: log sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)).
  Points lse("lse", m, 1);
  auto h_lse = Kokkos::create_mirror_view(lse);
  ok         = run(
                   "LogSumExp", m, n,
                   [&] {
             tessera::genred(Space(), tessera::LogSumExp{}, GaussianLogKernel{}, tessera::i_vars(x),
                                     tessera::j_vars(y), lse);
             Kokkos::deep_copy(h_lse, lse);
           },
                   [&](int i, double& error) {
             std::vector<double> f(n);
             for (int j = 0; j < n; ++j)
               f[j] = -squared_distance(hx, i, hy, j) / (2.0 * sigma * sigma);
             const double mx = *std::max_element(f.begin(), f.end());
             double s        = 0;
             for (double v : f)
               s += std::exp(v - mx);
             const double ref = mx + std::log(s);
             error            = std::fabs(h_lse(i, 0) - ref) / (1 + std::fabs(ref));
             return error < 1e-4;
           }) &&
       ok;

  std::printf("%s\n", ok ? "all sampled rows match the direct computation" : "MISMATCH");
  return ok ? 0 : 1;
}
