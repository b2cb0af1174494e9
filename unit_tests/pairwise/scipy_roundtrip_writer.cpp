// Writes the .npy files that scipy_roundtrip.py checks with numpy, scipy and masspcf: pdist,
// l2_kernel and cdist of two PCF collections (functions that start at t = 0, masspcf's
// convention, and functions with free starting times), pdist of point vectors under scipy's
// metrics and under a formula that is not symmetric, and the inputs themselves. Every call runs in
// many blocks, diagonal ones among them. Built twice: with tessera's calls, and with
// TESSERA_ROUNDTRIP_MPI defined, with tessera::mpi's over MPI_COMM_WORLD (run under mpirun).
//
// Usage: tessera_scipy_roundtrip_writer DIRECTORY
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/pairwise/pairwise.hpp>
#ifdef TESSERA_ROUNDTRIP_MPI
#include <tessera/mpi/pairwise.hpp>
#endif

#include "reference/pairwise_order.hpp"
#include "reference/pcf_reference.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;

/// Blocks of side about n / 10 (pairs of 10 x 10 bands).
tessera::PairwiseOptions many_blocks() {
  tessera::PairwiseOptions options;
  options.min_block_side = 0;
  options.n_splits_hint  = 100;
  return options;
}

#ifdef TESSERA_ROUNDTRIP_MPI
bool writes_inputs() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank == 0;
}
template <class... Args>
void pdist(const std::string& path, const Args&... args) {
  tessera::mpi::pdist(MPI_COMM_WORLD, Space{}, args..., tessera::NpyFile{path}, many_blocks());
}
template <class... Args>
void cdist(const std::string& path, const Args&... args) {
  tessera::mpi::cdist(MPI_COMM_WORLD, Space{}, args..., tessera::NpyFile{path}, many_blocks());
}
template <class... Args>
void l2_kernel(const std::string& path, const Args&... args) {
  tessera::mpi::l2_kernel(MPI_COMM_WORLD, Space{}, args..., tessera::NpyFile{path}, many_blocks());
}
#else
bool writes_inputs() {
  return true;
}
template <class... Args>
void pdist(const std::string& path, const Args&... args) {
  tessera::pdist(Space{}, args..., tessera::NpyFile{path}, many_blocks());
}
template <class... Args>
void cdist(const std::string& path, const Args&... args) {
  tessera::cdist(Space{}, args..., tessera::NpyFile{path}, many_blocks());
}
template <class... Args>
void l2_kernel(const std::string& path, const Args&... args) {
  tessera::l2_kernel(Space{}, args..., tessera::NpyFile{path}, many_blocks());
}
#endif

/// Writes `values` (count of them, host memory) as a float64 .npy array of `shape`.
template <class T>
void write_input(const std::string& path, const std::vector<std::size_t>& shape, const T* values,
                 std::size_t count) {
  if (!writes_inputs()) return;
  std::vector<double> v(values, values + count);
  tessera::Impl::NpyFileWriter<double> file(path, shape);
  if (!file.write(v.data(), 0, count)) file.fail("cannot write to");
  file.close();
}

/// The PCF files of one collection: its inputs and the outputs of every PCF call.
void write_pcfs(const std::string& dir, const std::string& name,
                const std::vector<tessera_test::HostPcf>& f) {
  const std::string at = dir + "/" + name + "_";
  const auto X         = tessera_test::to_collection<double>(f);
  const auto Xf        = tessera_test::to_collection<float>(f);
  write_input(at + "offsets.npy", {X.size() + 1}, X.offsets().data(), X.size() + 1);
  write_input(at + "breakpoints.npy", {X.breakpoints().extent(0), 2}, X.breakpoints().data(),
              X.breakpoints().size());
  pdist(at + "pdist_l1.npy", tessera::PcfL1{}, X);
  pdist(at + "pdist_l1_f32.npy", tessera::PcfL1{}, Xf);
  pdist(at + "pdist_l2.npy", tessera::PcfL2{}, X);
  pdist(at + "pdist_l3.npy", tessera::PcfLp{3}, X);
  l2_kernel(at + "l2_kernel.npy", X);
  // functions 0..35 as a 4 x 9 batch against functions 32..36: shape (4, 9, 5)
  const std::vector<tessera_test::HostPcf> head(f.begin(), f.begin() + 36),
      tail(f.end() - 5, f.end());
  cdist(at + "cdist_l1.npy", tessera::PcfL1{},
        tessera_test::to_collection<double>(head).reshaped({4, 9}),
        tessera_test::to_collection<double>(tail));
}

/// n random points of dimension D, coordinates in [-1, 1].
template <int D>
Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> random_points(std::size_t n,
                                                                             unsigned seed) {
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> x("points", n, D);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (std::size_t e = 0; e < x.size(); ++e)
    x.data()[e] = unit(gen);
  return x;
}

void write_all(const std::string& dir) {
  auto free_start = tessera_test::random_pcfs(37, 41, 1, 12);
  auto zero_start = tessera_test::random_pcfs(37, 43, 1, 12);
  for (auto& p : zero_start)
    p.t.front() = 0;  // times stay increasing: the later ones are positive
  write_pcfs(dir, "free_start", free_start);
  write_pcfs(dir, "zero_start", zero_start);

  const auto x3 = random_points<3>(41, 7);
  write_input(dir + "/points3.npy", {41, 3}, x3.data(), x3.size());
  pdist(dir + "/points3_euclidean.npy", tessera::EuclideanDistance<3>{}, x3);
  pdist(dir + "/points3_sqeuclidean.npy", tessera::SquaredDistance<3>{}, x3);
  pdist(dir + "/points3_cosine.npy", tessera::CosineDistance<3>{}, x3);
  const auto x2 = random_points<2>(41, 8);
  write_input(dir + "/points2.npy", {41, 2}, x2.data(), x2.size());
  pdist(dir + "/points2_asymmetric.npy", tessera_test::Asymmetric{}, x2);
}

}  // namespace

int main(int argc, char** argv) {
#ifdef TESSERA_ROUNDTRIP_MPI
  MPI_Init(&argc, &argv);
#endif
  int status = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    if (argc != 2) {
      std::fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
      status = 2;
    } else {
      try {
        write_all(argv[1]);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        status = 1;
      }
    }
  }
#ifdef TESSERA_ROUNDTRIP_MPI
  MPI_Finalize();
#endif
  return status;
}
