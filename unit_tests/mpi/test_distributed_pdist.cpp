// tessera::mpi::pdist, cdist and l2_kernel: every rank runs its share of the blocks and writes it
// into one .npy file with MPI-IO; the file equals, value for value, the single-rank call's output
// on the same functions (the same kernels compute the same blocks, whichever rank runs them), for
// PCFs and point vectors, with budgets small enough for many blocks, and holds the direct values
// in scipy's condensed order (np.triu_indices order for l2_kernel). Bad input on one rank, ranks
// that disagree, an empty path and a file that cannot be made throw the same error on every
// rank; a null communicator throws on each.
#include "mpi/distributed_test_support.hpp"
#include "reference/pairwise_order.hpp"
#include "reference/pcf_reference.hpp"

#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/mpi/pairwise.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace {

using namespace tessera_test;
using Space = Kokkos::DefaultExecutionSpace;

// The distributed writer models the pipeline's Writer concept (impl/concept_checks.hpp).
static_assert(
    tessera::Impl::is_result_writer<tessera::mpi::Impl::MpiNpyWriter<double>, double, Space>::value,
    "MpiNpyWriter is a result writer");

/// A file name every rank agrees on (rank 0's process id), in the temporary directory.
std::string shared_path(const std::string& name) {
  long id = static_cast<long>(::getpid());
  MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return "/tmp/tessera_mpi_" + name + "_" + std::to_string(id) + ".npy";
}

/// Expects the .npy file at path to hold exactly `expected` (a host View), then removes it.
template <class T, class View>
void expect_file_equals(const std::string& path, const View& expected, const std::string& what) {
  const tessera::NpyArray<T> got = tessera::read_npy<T>(path);
  ASSERT_EQ(got.values.size(), expected.size()) << what;
  std::size_t differing = 0;
  for (std::size_t e = 0; e < got.values.size(); ++e)
    differing += got.values[e] != expected.data()[e];
  EXPECT_EQ(differing, 0u) << what << ": " << differing << " of " << got.values.size()
                           << " values differ from the single-rank call's";
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has read the file
  if (mpi_rank() == 0) std::remove(path.c_str());
}

/// Options that cut a rows x cols output into blocks of about side x side (several per rank),
/// with room for the blocks' functions on devices.
tessera::PairwiseOptions small_blocks(std::size_t side, std::size_t rows, std::size_t cols) {
  tessera::PairwiseOptions options;
  options.min_block_side = 0;
  options.budget_bytes   = std::size_t{1} << 24;
  options.n_splits_hint  = std::max<std::size_t>(rows * cols / (side * side), 1);
  return options;
}

template <class T>
class DistributedPdist : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DistributedPdist, Scalars);

TYPED_TEST(DistributedPdist, PcfsEqualTheSingleRankCall) {
  using T      = TypeParam;
  const auto f = random_pcfs(37, 7, 1, 30);
  const auto X = to_collection<T>(f);
  for (std::size_t side : {5, 64}) {  // many blocks, or one block for some rank and none for others
    const auto options = small_blocks(side, 37, 37);
    Kokkos::View<T*, Kokkos::HostSpace> condensed("condensed", 37 * 36 / 2),
        packed("packed", 37 * 38 / 2);
    const auto single = tessera::pdist(Space(), tessera::PcfL1{}, X, condensed, options);
    tessera::l2_kernel(Space(), X, packed, options);
    const std::string path = shared_path("pdist");
    const auto report      = tessera::mpi::pdist(MPI_COMM_WORLD, Space(), tessera::PcfL1{}, X,
                                                 tessera::NpyFile{path}, options);
    expect_file_equals<T>(path, condensed, "pdist, block side " + std::to_string(side));
    // the ranks' shares add up to the single-rank schedule
    unsigned long blocks = report.blocks;
    MPI_Allreduce(MPI_IN_PLACE, &blocks, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(blocks, single.blocks);
    if (side == 5) EXPECT_GE(single.blocks, 4u * static_cast<std::size_t>(mpi_size()));
    tessera::mpi::l2_kernel(MPI_COMM_WORLD, Space(), X, tessera::NpyFile{path}, options);
    expect_file_equals<T>(path, packed, "l2_kernel, block side " + std::to_string(side));
  }
}

TYPED_TEST(DistributedPdist, CdistOfPcfsAndPointsEqualTheSingleRankCall) {
  using T            = TypeParam;
  const auto X       = to_collection<T>(random_pcfs(23, 8, 1, 20));
  const auto Y       = to_collection<T>(random_pcfs(31, 9, 1, 20));
  const auto options = small_blocks(6, 23, 31);
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> dense("dense", 23, 31);
  tessera::cdist(Space(), tessera::PcfL2{}, X, Y, dense, options);
  const std::string path = shared_path("cdist");
  tessera::mpi::cdist(MPI_COMM_WORLD, Space(), tessera::PcfL2{}, X, Y, tessera::NpyFile{path},
                      options);
  expect_file_equals<T>(path, dense, "cdist of PCFs");

  // point vectors, in the execution space's memory
  Kokkos::View<T**, Kokkos::LayoutRight, Space::memory_space> points("points", 41, 3);
  auto h = Kokkos::create_mirror_view(points);
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> unit(0, 1);
  for (std::size_t e = 0; e < h.size(); ++e)
    h.data()[e] = static_cast<T>(unit(gen));
  Kokkos::deep_copy(points, h);
  Kokkos::View<T*, Kokkos::HostSpace> condensed("condensed", 41 * 40 / 2);
  tessera::pdist(Space(), tessera::EuclideanDistance<3>{}, points, condensed, options);
  tessera::mpi::pdist(MPI_COMM_WORLD, Space(), tessera::EuclideanDistance<3>{}, points,
                      tessera::NpyFile{path}, options);
  expect_file_equals<T>(path, condensed, "pdist of points");
}

/// Expects the .npy file at path to hold ref(i, j) at position(n, i, j) for every pair i < j
/// (i <= j with the diagonal) of n, then removes it.
template <class T, class Ref, class Position>
void expect_file_in_order(const std::string& path, std::size_t n, bool diagonal, const Ref& ref,
                          const Position& position, const std::string& what) {
  const double tol = std::is_same_v<T, float> ? 2e-4 : 1e-11;  // float sums of ~20 rectangles
  const tessera::NpyArray<T> got = tessera::read_npy<T>(path);
  EXPECT_EQ(got.shape, std::vector<std::size_t>{diagonal ? n * (n + 1) / 2 : n * (n - 1) / 2})
      << what;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + !diagonal; j < n; ++j) {
      const double want = ref(i, j);
      wrong += !(std::abs(got.values(position(n, i, j)) - want) <= tol * (1 + std::abs(want)));
    }
  }
  EXPECT_EQ(wrong, 0u) << what << ": " << wrong << " pairs off their direct value";
  MPI_Barrier(MPI_COMM_WORLD);  // every rank has read the file
  if (mpi_rank() == 0) std::remove(path.c_str());
}

TYPED_TEST(DistributedPdist, FileHoldsTheDirectValuesInScipysOrder) {
  using T                = TypeParam;
  const std::size_t n    = 37;
  const auto f           = random_pcfs(n, 17, 1, 12);
  const auto X           = to_collection<T>(f);
  const auto options     = small_blocks(5, n, n);
  const double end       = options.end_time;
  const std::string path = shared_path("order");
  tessera::mpi::pdist(MPI_COMM_WORLD, Space(), tessera::PcfL1{}, X, tessera::NpyFile{path},
                      options);
  expect_file_in_order<T>(
      path, n, false, [&](std::size_t i, std::size_t j) { return lp_distance(f[i], f[j], 1, end); },
      scipy_index, "pdist of PCFs");
  tessera::mpi::l2_kernel(MPI_COMM_WORLD, Space(), X, tessera::NpyFile{path}, options);
  expect_file_in_order<T>(
      path, n, true,
      [&](std::size_t i, std::size_t j) { return l2_inner_product(f[i], f[j], end); }, triu_index,
      "l2_kernel");
  // F(X_i, X_j) for i < j, as scipy.spatial.distance.pdist(X, F) evaluates it
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> x("x", n, 2);
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> xd("xd", n, 2);
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> unit(-1, 1);
  for (std::size_t e = 0; e < x.size(); ++e)
    xd.data()[e] = x.data()[e] = static_cast<T>(unit(gen));
  tessera::mpi::pdist(MPI_COMM_WORLD, Space(), Asymmetric{}, x, tessera::NpyFile{path}, options);
  expect_file_in_order<T>(
      path, n, false,
      [&](std::size_t i, std::size_t j) { return Asymmetric::reference(&xd(i, 0), &xd(j, 0)); },
      scipy_index, "pdist of points, an asymmetric formula");
}

TEST(DistributedPdistValidation, BadInputOnOneRankMakesEveryRankThrow) {
  const int size = mpi_size(), rank = mpi_rank();
  const auto X           = to_collection<float>(random_pcfs(11, 1, 1, 10));
  const std::string path = shared_path("bad");
  // a bad metric on the last rank only: it fails the single-rank checks
  const tessera::PcfLp metric{rank == size - 1 ? -1.0 : 1.0};
  try {
    tessera::mpi::pdist(MPI_COMM_WORLD, Space(), metric, X, tessera::NpyFile{path});
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string expected = "tessera::mpi::pdist: rank " + std::to_string(size - 1) + " of " +
                                 std::to_string(size) + ": tessera::pdist: ";
    EXPECT_EQ(std::string(e.what()).rfind(expected, 0), 0u) << e.what();
  }
  if (size > 1) {
    // ranks that disagree on the functions: 11 on every rank but the last, 12 there
    const auto Y = to_collection<float>(random_pcfs(rank == size - 1 ? 12 : 11, 1, 1, 10));
    try {
      tessera::mpi::pdist(MPI_COMM_WORLD, Space(), tessera::PcfL1{}, Y, tessera::NpyFile{path});
      ADD_FAILURE() << "no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("the ranks disagree on the functions on the rows side "
                                           "(rank 0: 11, rank " +
                                           std::to_string(size - 1) + ": 12)"),
                std::string::npos)
          << e.what();
    }
  }
  // an empty path on every rank; a null communicator
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::pdist(MPI_COMM_WORLD, Space(), tessera::PcfL1{}, X, tessera::NpyFile{});
      },
      {"tessera::mpi::pdist: out path is empty"});
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::pdist(MPI_COMM_NULL, Space(), tessera::PcfL1{}, X, tessera::NpyFile{path});
      },
      {"tessera::mpi::pdist: comm is MPI_COMM_NULL"});
  // a file no rank can create
  try {
    tessera::mpi::pdist(MPI_COMM_WORLD, Space(), tessera::PcfL1{}, X,
                        tessera::NpyFile{"/nonexistent-directory/d.npy"});
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot create '/nonexistent-directory/d.npy'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
