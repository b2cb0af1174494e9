// tessera::mpi::genred rejects bad input on every rank with the same exception, before any
// exchange, and never hangs: a rank with a bad View, ranks that disagree on a dimension or an
// option, an option out of range, a null communicator, k beyond the whole reduced range, index
// types too small for the global indices. Also the whole reduced range empty.
#include "mpi/distributed_test_support.hpp"
#include "profiling_regions.hpp"

#include <tessera/genred/builtin_formulas.hpp>

#include <cstdint>
#include <stdexcept>

namespace {

using namespace tessera_test;
using Space  = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;
using View2  = Kokkos::View<float**, Kokkos::LayoutRight, Memory>;

/// Random points, rows x dim.
View2 points(const std::string& label, int rows, int dim, unsigned seed) {
  View2 v(label, rows, dim);
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < dim; ++c)
      h(r, c) = unit(gen);
  Kokkos::deep_copy(v, h);
  return v;
}

TEST(DistributedGenredValidation, RankWithABadViewMakesEveryRankThrow) {
  const int size = mpi_size(), rank = mpi_rank();
  const int bad = size - 1;  // the last rank passes y with 2 columns to a 3-D formula
  const View2 x = points("x", 5, 3, 1), y = points("y", 7, rank == bad ? 2 : 3, 2);
  View2 out("out", 5, 1);
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                             tessera::i_vars(x), tessera::j_vars(y), out);
      },
      {"tessera::mpi::genred: rank " + std::to_string(bad) + " of " + std::to_string(size),
       "j_vars[0] dimension (got 2, expected 3"});
  // a bad output on rank 0 only
  View2 wrong("wrong", rank == 0 ? 4 : 5, 1);
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                             tessera::i_vars(x), tessera::j_vars(points("y3", 7, 3, 3)), wrong);
      },
      {"rank 0 of", "out rows (got 4, expected 5 = M)"});
}

TEST(DistributedGenredValidation, RanksThatDisagreeOnADimensionAllThrow) {
  const int size = mpi_size(), rank = mpi_rank();
  if (size == 1) GTEST_SKIP() << "needs two ranks";
  // Run-time dimensions: each rank's call is valid on its own, 4-D on the last rank.
  const int dim = rank == size - 1 ? 4 : 3;
  const View2 x = points("x", 5, dim, 1), y = points("y", 7, dim, 2);
  View2 out("out", 5, 1);
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{},
                             tessera::SquaredDistance<tessera::dynamic_extent>{},
                             tessera::i_vars(x), tessera::j_vars(y), out);
      },
      {"tessera::mpi::genred: the ranks disagree on i_vars[0] dimension (rank 0: 3, rank " +
       std::to_string(size - 1) + ": 4)"});
}

TEST(DistributedGenredValidation, RanksThatDisagreeOnAnOptionAllThrow) {
  const int size = mpi_size(), rank = mpi_rank();
  if (size == 1) GTEST_SKIP() << "needs two ranks";
  const View2 x = points("x", 5, 3, 1), y = points("y", 7, 3, 2);
  View2 out("out", 5, 1);
  tessera::mpi::DistributedOptions options;
  if (rank == size - 1) options.genred.summation = tessera::Summation::kahan;
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                             tessera::i_vars(x), tessera::j_vars(y), out, options);
      },
      {"the ranks disagree on options.genred.summation"});
  options = {};
  if (rank == 0) options.schedule = static_cast<tessera::mpi::Schedule>(7);
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                             tessera::i_vars(x), tessera::j_vars(y), out, options);
      },
      {"rank 0 of", "options.schedule is not a Schedule (got 7)"});
}

// An option out of range on one rank, and a null communicator (on every rank: each finds it on
// its own, with no one to agree with).
TEST(DistributedGenredValidation, OptionsOutOfRangeAndANullCommunicator) {
  const int size = mpi_size(), rank = mpi_rank();
  const View2 x = points("x", 5, 3, 1), y = points("y", 7, 3, 2);
  View2 out("out", 5, 1);
  tessera::mpi::DistributedOptions options;
  if (rank == size - 1) options.gpu_aware = static_cast<tessera::mpi::GpuAwareMpi>(9);
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                             tessera::i_vars(x), tessera::j_vars(y), out, options);
      },
      {"rank " + std::to_string(size - 1) + " of",
       "options.gpu_aware is not a GpuAwareMpi (got 9)"});
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::genred(MPI_COMM_NULL, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                             tessera::i_vars(x), tessera::j_vars(y), out);
      },
      {"tessera::mpi::genred: comm is MPI_COMM_NULL"});
}

// k is checked against the whole reduced range (the sum over ranks), on every rank alike; so is
// the index type's capacity.
TEST(DistributedGenredValidation, GlobalExtentsAreCheckedOnEveryRank) {
  const int size = mpi_size(), rank = mpi_rank();
  const View2 x = points("x", 3, 3, 1), y = points("y", 4, 3, 2 + rank);
  const int whole = 4 * size;
  View2 values("values", 3, whole + 1);
  Kokkos::View<int**, Kokkos::LayoutRight, Memory> indices("indices", 3, whole + 1);
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::KMinArgKMin{whole + 1},
                             tessera::SquaredDistance<3>{}, tessera::i_vars(x), tessera::j_vars(y),
                             tessera::outputs(values, indices));
      },
      {"k (got " + std::to_string(whole + 1) + ") must be in [1, " + std::to_string(whole) + "]"});
  // 40 rows per rank: int8_t holds every rank's own indices but not the global ones from 3 ranks.
  const View2 many = points("many", 40, 3, 5 + rank);
  Kokkos::View<std::int8_t**, Kokkos::LayoutRight, Memory> small("small", 3, 1);
  const auto call = [&] {
    tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::ArgMin{}, tessera::SquaredDistance<3>{},
                         tessera::i_vars(x), tessera::j_vars(many), small);
  };
  if (40 * size - 1 > 127) {
    expect_rejected_everywhere<std::length_error>(call, {"out cannot hold the reduced indices"});
  } else {
    call();
  }
}

// An error that only a kernel launch finds (Implementation::host forced on a formula of run-time
// dimensions, which the host kernel does not take) on the ranks that launch, while rank 1, with
// no output rows, launches nothing: every rank still throws the same error, after the exchanges.
TEST(DistributedGenredValidation, LaunchErrorsReachEveryRank) {
  if (tessera::Impl::GenredBackend<Space>::implementation != tessera::Implementation::host) {
    GTEST_SKIP() << "Implementation::host needs a host execution space";
  }
  const int size = mpi_size(), rank = mpi_rank();
  const int rows = size > 1 && rank == 1 ? 0 : 4;
  const View2 x = points("x", rows, 3, 1), y = points("y", 6, 3, 2 + rank);
  View2 out("out", rows, 1);
  for (auto schedule : {tessera::mpi::Schedule::ring, tessera::mpi::Schedule::all_gather}) {
    tessera::mpi::DistributedOptions options;
    options.schedule              = schedule;
    options.genred.implementation = tessera::Implementation::host;
    expect_rejected_everywhere<std::invalid_argument>(
        [&] {
          tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{},
                               tessera::SquaredDistance<tessera::dynamic_extent>{},
                               tessera::i_vars(x), tessera::j_vars(y), out, options);
        },
        {"tessera::mpi::genred: rank 0 of", "Implementation::host: the host kernel takes"});
  }
}

// The report: Schedule::automatic takes the all-gather below the threshold and the ring above
// it; each receives every other rank's rows once.
TEST(DistributedGenredValidation, ReportTellsTheScheduleAndTheBytes) {
  const int size = mpi_size(), rank = mpi_rank();
  const View2 x = points("x", 5, 3, 1), y = points("y", 3 + rank, 3, 2 + rank);
  View2 out("out", 5, 1);
  const std::size_t others = sizeof(float) * 3 * (3 * size + size * (size - 1) / 2 - (3 + rank));
  tessera::mpi::DistributedOptions options;
  for (std::size_t threshold : {std::size_t{0}, std::size_t{1}}) {
    options.all_gather_bytes = threshold;  // 0: the 4 MiB default; 1 byte: always the ring
    const auto report =
        tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                             tessera::i_vars(x), tessera::j_vars(y), out, options);
    const bool ring = size > 1 && threshold == 1;
    EXPECT_EQ(report.schedule,
              ring ? tessera::mpi::Schedule::ring : tessera::mpi::Schedule::all_gather);
    EXPECT_EQ(report.steps, ring ? size : 1);
    EXPECT_EQ(report.bytes_received, others);
    constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Memory>::accessible;
    if (host_memory) EXPECT_FALSE(report.staged);
    EXPECT_GT(report.seconds, 0.0);
    EXPECT_GE(report.exposed_exchange_seconds, 0.0);
  }
}

// A profiler sees a distributed call (its exchanges and its steps' kernels) as one Kokkos Tools
// region tessera::mpi::genred holding them, on every rank and schedule.
TEST(DistributedGenredValidation, EachCallIsOneToolsRegion) {
  const int rank = mpi_rank();
  const View2 x = points("x", 7, 3, 1), y = points("y", 2 + rank, 3, 2 + rank);
  View2 out("out", 7, 1);
  for (auto schedule : {tessera::mpi::Schedule::ring, tessera::mpi::Schedule::all_gather}) {
    tessera::mpi::DistributedOptions options;
    options.schedule = schedule;
    Kokkos::fence();
    RegionRecording recording;
    tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                         tessera::i_vars(x), tessera::j_vars(y), out, options);
    const auto& pushed = RegionRecording::pushed();
    ASSERT_FALSE(pushed.empty());
    EXPECT_EQ(pushed.front(), "tessera::mpi::genred");
    EXPECT_EQ(RegionRecording::count("tessera::mpi::genred"), 1);
    EXPECT_TRUE(RegionRecording::balanced());
  }
}

// Every rank's reduced slice empty: the empty-range values on every rank, on both schedules.
TEST(DistributedGenredValidation, EmptyReducedRange) {
  const View2 x = points("x", 6, 3, 1), y = points("y", 0, 3, 2);
  for (auto schedule : {tessera::mpi::Schedule::ring, tessera::mpi::Schedule::all_gather}) {
    tessera::mpi::DistributedOptions options;
    options.schedule = schedule;
    View2 sums("sums", 6, 1), mins("mins", 6, 1);
    Kokkos::deep_copy(sums, 5.f);
    tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, tessera::SquaredDistance<3>{},
                         tessera::i_vars(x), tessera::j_vars(y), sums, options);
    tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Min{}, tessera::SquaredDistance<3>{},
                         tessera::i_vars(x), tessera::j_vars(y), mins, options);
    const auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
    const auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mins);
    for (int r = 0; r < 6; ++r) {
      EXPECT_EQ(s(r, 0), 0.f);
      EXPECT_EQ(m(r, 0), std::numeric_limits<float>::infinity());
    }
  }
}

}  // namespace
