// Links the installed Tessera's MPI layer, runs one distributed Gaussian kernel sum (each rank
// holding some of the points) and checks its rows against a direct loop over all points.
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/mpi/genred.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, failures = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    Kokkos::ScopeGuard guard(argc, argv);
    constexpr int per_rank = 5;
    const auto xi          = [](int i, int k) { return 0.1 * i + 0.05 * k; };  // global row i
    const auto yj          = [](int j, int k) { return 0.07 * j - 0.02 * k; };
    Kokkos::View<double**> x("x", per_rank, 3), y("y", per_rank, 3), a("a", per_rank, 1);
    auto hx = Kokkos::create_mirror_view(x);
    auto hy = Kokkos::create_mirror_view(y);
    for (int r = 0; r < per_rank; ++r)
      for (int k = 0; k < 3; ++k) {
        hx(r, k) = xi(rank * per_rank + r, k);
        hy(r, k) = yj(rank * per_rank + r, k);
      }
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y, hy);
    tessera::mpi::genred(MPI_COMM_WORLD, Kokkos::DefaultExecutionSpace(), tessera::Sum{},
                         tessera::GaussianKernel<3>(1.0), tessera::i_vars(x), tessera::j_vars(y),
                         a);
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
    for (int r = 0; r < per_rank; ++r) {
      double expected = 0;
      for (int j = 0; j < per_rank * size; ++j) {
        double r2 = 0;
        for (int k = 0; k < 3; ++k)
          r2 += (xi(rank * per_rank + r, k) - yj(j, k)) * (xi(rank * per_rank + r, k) - yj(j, k));
        expected += std::exp(-r2 / 2);
      }
      if (std::fabs(ha(r, 0) - expected) > 1e-12 * expected) {
        std::printf("rank %d row %d: got %.17g, expected %.17g\n", rank, r, ha(r, 0), expected);
        ++failures;
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("tessera_mpi_consumer: %s\n", failures ? "FAILED" : "ok");
  MPI_Finalize();
  return failures ? 1 : 0;
}
