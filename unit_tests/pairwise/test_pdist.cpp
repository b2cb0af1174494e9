// pdist and l2_kernel of PCFs against direct host integration in double, on every execution
// space: metrics, function shapes, budgets, input and output memory, .npy streaming; the order of
// the outputs (scipy's condensed order, np.triu_indices order) at odd sizes in many blocks,
// through every writer.
#include <tessera/pairwise/pairwise.hpp>

#include "execution_spaces.hpp"
#include "profiling_regions.hpp"
#include "reference/pairwise_order.hpp"
#include "reference/pcf_reference.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using tessera_test::HostPcf;
using tessera_test::PcfTimes;
using tessera_test::scipy_index;
using tessera_test::triu_index;

template <class ExecSpace>
class Pdist : public ::testing::Test {};
TYPED_TEST_SUITE(Pdist, tessera_test::ExecutionSpaces);

/// Relative tolerance of a result: float sums of ~100 rectangles of O(1) values lose ~1e-6
/// each; double sums agree with the reference to rounding.
template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-4 : 1e-11;
}

template <class T, class View>
void expect_condensed(const View& out, const std::vector<HostPcf>& f, double p, double end,
                      const char* what) {
  auto h              = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, out);
  const std::size_t n = f.size();
  ASSERT_EQ(h.extent(0), n * (n - (n > 0)) / 2);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const double ref = tessera_test::lp_distance(f[i], f[j], p, end);
      ASSERT_NEAR(h(scipy_index(n, i, j)), ref, tolerance<T>() * (1 + std::abs(ref)))
          << what << ": pair (" << i << ", " << j << ")";
    }
  }
}

template <class ExecSpace, class T, class Metric>
void check_pdist(const std::vector<HostPcf>& f, const Metric& metric, double p,
                 tessera::PairwiseOptions options = {}) {
  const auto X        = tessera_test::to_collection<T>(f);
  const std::size_t n = f.size();
  Kokkos::View<T*, Kokkos::HostSpace> out("out", n * (n - (n > 0)) / 2);
  tessera::pdist(ExecSpace{}, metric, X, out, options);
  expect_condensed<T>(out, f, p, options.end_time, "pdist");
}

TYPED_TEST(Pdist, L1OfRandomFunctionsOfUnequalLengths) {
  const auto f = tessera_test::random_pcfs(37, 1, 1, 40);
  check_pdist<TypeParam, float>(f, tessera::PcfL1{}, 1);
  check_pdist<TypeParam, double>(f, tessera::PcfL1{}, 1);
}

// A profiler sees a call (its blocks' kernels and writes) as one Kokkos Tools region named for
// the call, closed when it returns.
TYPED_TEST(Pdist, EachCallIsOneToolsRegion) {
  const auto f = tessera_test::random_pcfs(11, 1, 1, 9);
  const auto X = tessera_test::to_collection<float>(f);
  Kokkos::View<float*, Kokkos::HostSpace> condensed("condensed", 11 * 10 / 2);
  Kokkos::View<float**, Kokkos::HostSpace> dense("dense", 11, 11);
  tessera_test::RegionRecording recording;
  tessera::pdist(TypeParam{}, tessera::PcfL1{}, X, condensed);
  tessera::cdist(TypeParam{}, tessera::PcfL1{}, X, X, dense);
  const std::vector<std::string> expected{"tessera::pairwise::pdist", "tessera::pairwise::cdist"};
  EXPECT_EQ(tessera_test::RegionRecording::pushed(), expected);
  EXPECT_TRUE(tessera_test::RegionRecording::balanced());
}

TYPED_TEST(Pdist, LpForSeveralP) {
  const auto f = tessera_test::random_pcfs(23, 2, 1, 25);
  for (double p : {2.0, 3.0, 0.5, 1.0}) {
    check_pdist<TypeParam, double>(f, tessera::PcfLp{p}, p);
    check_pdist<TypeParam, float>(f, tessera::PcfLp{p}, p);
  }
}

TYPED_TEST(Pdist, SharedAndInterleavedBreakpoints) {
  check_pdist<TypeParam, double>(tessera_test::random_pcfs(19, 3, 1, 30, PcfTimes::shared),
                                 tessera::PcfL1{}, 1);
  check_pdist<TypeParam, double>(tessera_test::random_pcfs(20, 4, 1, 30, PcfTimes::interleaved),
                                 tessera::PcfL1{}, 1);
}

TYPED_TEST(Pdist, ConstantAndSingleBreakpointFunctionsWithAFiniteEnd) {
  // One breakpoint each, non-zero tails: integrals are finite only up to end_time; starting
  // times differ, so the zero before each function's first breakpoint counts.
  tessera::PairwiseOptions options;
  options.end_time = 7.5;
  const auto f     = tessera_test::random_pcfs(17, 5, 1, 1, PcfTimes::random, true);
  check_pdist<TypeParam, double>(f, tessera::PcfL1{}, 1, options);
  check_pdist<TypeParam, float>(f, tessera::PcfLp{2}, 2, options);
  // Breakpoints on both sides of the end: the ones after it are ignored.
  options.end_time = 4;
  check_pdist<TypeParam, double>(tessera_test::random_pcfs(29, 6, 1, 30, PcfTimes::random, true),
                                 tessera::PcfL1{}, 1, options);
}

TYPED_TEST(Pdist, DoubleAccumulationOfFloatFunctions) {
  const auto f = tessera_test::random_pcfs(31, 7, 50, 120);
  tessera::PairwiseOptions options;
  options.accumulation = tessera::Accumulation::double_;
  check_pdist<TypeParam, float>(f, tessera::PcfL1{}, 1, options);
}

TYPED_TEST(Pdist, LongFunctionsBeyondTheScratchTile) {
  // 300 to 400 breakpoints: more than a GPU team's scratch holds, the kernel reads global memory.
  check_pdist<TypeParam, float>(tessera_test::random_pcfs(9, 8, 300, 400), tessera::PcfL1{}, 1);
}

TYPED_TEST(Pdist, EmptyAndTinyCollections) {
  for (std::size_t n : {0, 1, 2}) {
    check_pdist<TypeParam, float>(tessera_test::random_pcfs(n, 9, 1, 5), tessera::PcfL1{}, 1);
  }
}

TYPED_TEST(Pdist, ManySmallBlocksGiveTheOneBlockResult) {
  using T      = float;
  const auto f = tessera_test::random_pcfs(61, 10, 1, 60);
  // Resident inputs: the whole budget goes to the block buffers.
  const auto X =
      tessera_test::copy_to<typename TypeParam::memory_space>(tessera_test::to_collection<T>(f));
  const std::size_t m = 61 * 60 / 2;
  Kokkos::View<T*, Kokkos::HostSpace> one("one", m), many("many", m);
  tessera::PairwiseOptions options;
  options.n_splits_hint  = 1;
  options.min_block_side = 0;
  const auto r1          = tessera::pdist(TypeParam{}, X, one, options);
  EXPECT_EQ(r1.blocks, 1u);
  options.budget_bytes       = 2 * 2 * 7 * 7 * sizeof(T);  // 7 x 7 blocks, 9 bands
  options.check_skipped_zero = true;
  std::size_t calls = 0, last_bytes = 0;
  options.progress = [&](const tessera::PairwiseProgress& p) {
    ++calls;
    EXPECT_EQ(p.blocks_done, calls);
    EXPECT_GE(p.bytes_written, last_bytes);
    last_bytes = p.bytes_written;
    EXPECT_EQ(p.bytes_total, m * sizeof(T));
  };
  const auto r2 = tessera::pdist(TypeParam{}, X, many, options);
  EXPECT_EQ(r2.block_side, 7u);
  EXPECT_EQ(r2.blocks, 9u * 10u / 2u);
  EXPECT_EQ(calls, r2.blocks);
  EXPECT_EQ(last_bytes, m * sizeof(T));
  EXPECT_EQ(r2.bytes_written, m * sizeof(T));
  for (std::size_t k = 0; k < m; ++k)
    ASSERT_EQ(one(k), many(k)) << k;  // same arithmetic per pair
}

TYPED_TEST(Pdist, BlocksLargerThanAStagingBufferDownloadInChunks) {
  // On GPUs host outputs arrive through 8 MiB staging buffers: one diagonal block of 2100 x 2100
  // pairs, packed to its 2100 * 2099 / 2 floats (8.8 MB), is two chunks; with the budget below,
  // three blocks of one chunk each, so the chunk stream crosses block boundaries. The device
  // output is copied into place without a download: the same values bit for bit.
  using T             = float;
  const std::size_t n = 2100, m = n * (n - 1) / 2;
  const auto f = tessera_test::random_pcfs(n, 12, 1, 8);
  const auto X = tessera_test::to_collection<T>(f);
  tessera::PairwiseOptions options;
  options.min_block_side = 0;
  options.n_splits_hint  = 1;
  Kokkos::View<T*, typename TypeParam::memory_space> on_device("on_device", m);
  tessera::pdist(TypeParam{}, X, on_device, options);
  const auto reference = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, on_device);
  for (const std::size_t budget : {std::size_t{0}, 4 * 1500 * 1500 * sizeof(T)}) {
    options.budget_bytes = budget;
    Kokkos::View<T*, Kokkos::HostSpace> out("out", m);
    const auto r = tessera::pdist(TypeParam{}, X, out, options);
    EXPECT_EQ(r.blocks, budget == 0 ? 1u : 3u);
    for (std::size_t k = 0; k < m; ++k)
      ASSERT_EQ(out(k), reference(k)) << "budget " << budget << ", position " << k;
  }
  for (const auto& [i, j] : {std::pair<std::size_t, std::size_t>{0, 1},
                             {0, 1499},
                             {1499, 1500},
                             {0, n - 1},
                             {n - 2, n - 1}}) {
    const double ref = tessera_test::lp_distance(f[i], f[j], 1, options.end_time);
    EXPECT_NEAR(reference(scipy_index(n, i, j)), ref, tolerance<T>() * (1 + std::abs(ref)));
  }
}

TYPED_TEST(Pdist, InputsAndOutputInTheExecutionSpaceMemory) {
  using T        = double;
  using DevSpace = typename TypeParam::memory_space;
  const auto f   = tessera_test::random_pcfs(45, 11, 1, 50);
  const auto X   = tessera_test::to_collection<T>(f);
  const auto Xd  = tessera_test::copy_to<DevSpace>(X);
  tessera::PairwiseOptions options;
  options.budget_bytes   = 4 * 12 * 12 * sizeof(T);  // several blocks
  options.min_block_side = 0;
  Kokkos::View<T*, DevSpace> out("out", 45 * 44 / 2);
  tessera::pdist(TypeParam{}, tessera::PcfL1{}, Xd, out, options);
  expect_condensed<T>(out, f, 1, options.end_time, "resident inputs, device output");
  Kokkos::View<T*, DevSpace> out2("out2", 45 * 44 / 2);
  tessera::pdist(TypeParam{}, tessera::PcfL1{}, X, out2, options);
  expect_condensed<T>(out2, f, 1, options.end_time, "streamed inputs, device output");
}

TYPED_TEST(Pdist, OutputLargerThanTheBudgetStreamedToNpy) {
  using T      = float;
  const auto f = tessera_test::random_pcfs(83, 12, 1, 40);
  const auto X = tessera_test::to_collection<T>(f);
  const std::string path =
      ::testing::TempDir() + "tessera_pdist_" + std::to_string(std::rand()) + ".npy";
  tessera::PairwiseOptions options;
  options.budget_bytes   = 83 * 82 / 2 * sizeof(T) / 4;  // the output is 4 budgets
  options.min_block_side = 0;
  options.n_splits_hint  = 1;
  const auto report      = tessera::pdist(TypeParam{}, X, tessera::NpyFile{path}, options);
  EXPECT_GT(report.blocks, 4u);
  const auto a = tessera::read_npy<T>(path);
  ASSERT_EQ(a.shape, std::vector<std::size_t>{83 * 82 / 2});
  expect_condensed<T>(a.values, f, 1, options.end_time, "npy");
  std::remove(path.c_str());
}

TYPED_TEST(Pdist, L2KernelIsThePackedInnerProductMatrix) {
  for (unsigned seed : {13u, 14u}) {
    const auto f        = tessera_test::random_pcfs(seed == 13 ? 27 : 1, seed, 1, 35);
    const auto X        = tessera_test::to_collection<double>(f);
    const std::size_t n = f.size();
    Kokkos::View<double*, Kokkos::HostSpace> out("out", n * (n + 1) / 2);
    tessera::PairwiseOptions options;
    options.check_skipped_zero = true;
    tessera::l2_kernel(TypeParam{}, X, out, options);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i; j < n; ++j) {
        const double ref = tessera_test::l2_inner_product(f[i], f[j], options.end_time);
        ASSERT_NEAR(out(triu_index(n, i, j)), ref, 1e-11 * (1 + std::abs(ref))) << i << ", " << j;
      }
    }
  }
}

TYPED_TEST(Pdist, PointVectorsCondensed) {
  using T     = double;
  const int n = 41;
  Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> x("x", n, 3);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k)
      x(i, k) = std::sin(1.7 * i + k) + 0.1 * k;
  Kokkos::View<T*, Kokkos::HostSpace> out("out", n * (n - 1) / 2);
  tessera::pdist(TypeParam{}, tessera::EuclideanDistance<3>{}, x, out);
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      double r2 = 0;
      for (int k = 0; k < 3; ++k)
        r2 += (x(i, k) - x(j, k)) * (x(i, k) - x(j, k));
      ASSERT_NEAR(out(scipy_index(n, i, j)), std::sqrt(r2), 1e-13) << i << ", " << j;
    }
  }
}

/// An output target (Impl::is_pairwise_target, impl/pairwise_dispatch.hpp) that runs the engine
/// with ArrayWriter's device path, write_device, whatever the space: host spaces otherwise fill
/// every View with write_host, so this is how their tests reach the device writer's copy kernel.
template <class T, class MemorySpace>
struct DeviceWriterTarget {
  static constexpr bool pairwise_target = true;
  Kokkos::View<T*, MemorySpace> out;

  /// ArrayWriter, declared not on the host: the pipeline calls write_device.
  struct Writer : tessera::ArrayWriter<T, MemorySpace> {
    static constexpr bool on_host = false;
    using tessera::ArrayWriter<T, MemorySpace>::ArrayWriter;
  };

  template <class ExecSpace, class BlockOp>
  tessera::PairwiseReport run(const char* caller, const ExecSpace& space, BlockOp& op,
                              tessera::BlockTriangleMode mode, tessera::MatrixLayout layout,
                              tessera::TriangleSkipMode skip, const std::vector<std::size_t>&,
                              const tessera::Impl::BlockLimits& limits,
                              const tessera::PairwiseOptions& options) const {
    const tessera::Impl::BlockPlan plan =
        tessera::Impl::plan_blocks(op, mode, limits, options, caller);
    Writer writer(out.data(), layout, op.cols());
    return tessera::Impl::run_block_pipeline(space, op, writer, plan.scheduler, plan.data_bytes,
                                             skip, options);
  }
};

/// Options that cut an n x n matrix into blocks of side about n / 10 (side 1 below n = 10): many
/// blocks, the diagonal ones among them.
tessera::PairwiseOptions many_blocks() {
  tessera::PairwiseOptions options;
  options.min_block_side = 0;
  options.n_splits_hint  = 100;
  return options;
}

/// Runs call(out) into each output a pairwise call takes (a host View, a View in the space's
/// memory, that View through the device writer, a .npy file) and checks each against
/// ref(i, j) at position(i, j) for every pair i < j (i <= j with the diagonal).
template <class ExecSpace, class T, class Call, class Ref, class Position>
void expect_every_output(std::size_t n, bool diagonal, const Call& call, const Ref& ref,
                         const Position& position, double tol) {
  using DevSpace         = typename ExecSpace::memory_space;
  const std::size_t size = diagonal ? n * (n + 1) / 2 : n * (n - (n > 0)) / 2;
  std::vector<double> expected(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + !diagonal; j < n; ++j)
      expected[i * n + j] = ref(i, j);
  auto expect = [&](const Kokkos::View<T*, Kokkos::HostSpace>& got, const std::string& what) {
    ASSERT_EQ(got.extent(0), size) << what;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = i + !diagonal; j < n; ++j) {
        const double want = expected[i * n + j];
        ASSERT_NEAR(got(position(n, i, j)), want, tol * (1 + std::abs(want)))
            << what << ", n " << n << ": pair (" << i << ", " << j << ")";
      }
    }
  };
  Kokkos::View<T*, Kokkos::HostSpace> host("host", size);
  const tessera::PairwiseReport r = call(host);
  if (n >= 10) EXPECT_GE(r.blocks, 10u * 11u / 2u) << "n " << n;
  expect(host, "host View");
  Kokkos::View<T*, DevSpace> dev("dev", size), forced("forced", size);
  call(dev);
  expect(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, dev), "execution-space View");
  call(DeviceWriterTarget<T, DevSpace>{forced});
  expect(Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, forced), "device writer");
  const std::string path = ::testing::TempDir() + "tessera_order_" + std::to_string(n) + "_" +
                           std::to_string(std::rand()) + ".npy";
  call(tessera::NpyFile{path});
  const auto file = tessera::read_npy<T>(path);
  EXPECT_EQ(file.shape, std::vector<std::size_t>{size});
  expect(file.values, ".npy file");
  std::remove(path.c_str());
}

TYPED_TEST(Pdist, PcfsInScipysCondensedOrderAtOddSizesInManyBlocks) {
  for (std::size_t n : {0, 1, 2, 3, 37, 1001}) {
    const auto f = tessera_test::random_pcfs(n, 20 + unsigned(n), 1, 8);
    auto run     = [&](auto scalar) {
      using T      = decltype(scalar);
      const auto X = tessera_test::to_collection<T>(f);
      expect_every_output<TypeParam, T>(
          n, false,
          [&](const auto& out) {
            return tessera::pdist(TypeParam{}, tessera::PcfL1{}, X, out, many_blocks());
          },
          [&](std::size_t i, std::size_t j) {
            return tessera_test::lp_distance(f[i], f[j], 1, tessera::math::infinity<double>());
          },
          scipy_index, tolerance<T>());
    };
    run(double{});
    if (n <= 37) run(float{});
  }
}

TYPED_TEST(Pdist, L2KernelInTriuIndicesOrderAtOddSizesInManyBlocks) {
  for (std::size_t n : {1, 2, 3, 37, 1001}) {
    const auto f = tessera_test::random_pcfs(n, 30 + unsigned(n), 1, 8);
    const auto X = tessera_test::to_collection<double>(f);
    expect_every_output<TypeParam, double>(
        n, true,
        [&](const auto& out) { return tessera::l2_kernel(TypeParam{}, X, out, many_blocks()); },
        [&](std::size_t i, std::size_t j) {
          return tessera_test::l2_inner_product(f[i], f[j], tessera::math::infinity<double>());
        },
        triu_index, 1e-11);
  }
}

TYPED_TEST(Pdist, PointsInScipysOrderWithFOfXiXjForIBelowJ) {
  // scipy.spatial.distance.pdist(X, F) evaluates F(X[i], X[j]) for i < j: so does pdist, for a
  // formula whose value changes with the argument order as for symmetric ones.
  using T = double;
  for (std::size_t n : {1, 2, 3, 37, 1001}) {
    Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace> x("x", n, 2);
    std::mt19937 gen{static_cast<unsigned>(n)};
    std::uniform_real_distribution<double> unit(-1, 1);
    for (std::size_t e = 0; e < x.size(); ++e)
      x.data()[e] = unit(gen);
    expect_every_output<TypeParam, T>(
        n, false,
        [&](const auto& out) {
          return tessera::pdist(TypeParam{}, tessera_test::Asymmetric{}, x, out, many_blocks());
        },
        [&](std::size_t i, std::size_t j) {
          return tessera_test::Asymmetric::reference(&x(i, 0), &x(j, 0));
        },
        scipy_index, 1e-14);
    expect_every_output<TypeParam, T>(
        n, false,
        [&](const auto& out) {
          return tessera::pdist(TypeParam{}, tessera::EuclideanDistance<2>{}, x, out,
                                many_blocks());
        },
        [&](std::size_t i, std::size_t j) {
          return std::hypot(x(i, 0) - x(j, 0), x(i, 1) - x(j, 1));
        },
        scipy_index, 1e-14);
  }
}

}  // namespace
