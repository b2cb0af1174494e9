// Links the installed Tessera, runs one Gaussian kernel sum, checks it against a direct loop.
#include <tessera.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  constexpr int M = 5, N = 7;
  Kokkos::View<double**> x("x", M, 3), y("y", N, 3), a("a", M, 1);
  auto hx = Kokkos::create_mirror_view(x);
  auto hy = Kokkos::create_mirror_view(y);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < 3; ++k)
      hx(i, k) = 0.1 * i + 0.05 * k;
  for (int j = 0; j < N; ++j)
    for (int k = 0; k < 3; ++k)
      hy(j, k) = 0.07 * j - 0.02 * k;
  Kokkos::deep_copy(x, hx);
  Kokkos::deep_copy(y, hy);

  tessera::genred(tessera::Sum{}, tessera::GaussianKernel<3>(1.0), tessera::i_vars(x),
                  tessera::j_vars(y), a);
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);

  int failures = 0;
  for (int i = 0; i < M; ++i) {
    double expected = 0;
    for (int j = 0; j < N; ++j) {
      double r2 = 0;
      for (int k = 0; k < 3; ++k)
        r2 += (hx(i, k) - hy(j, k)) * (hx(i, k) - hy(j, k));
      expected += std::exp(-r2 / 2.0);
    }
    if (std::fabs(ha(i, 0) - expected) > 1e-12 * expected) ++failures;
  }
  std::printf("Tessera %s consumer: %s\n", tessera::version().c_str(),
              failures ? "MISMATCH" : "ok");
  return failures ? 1 : 0;
}
