// The pipeline's planning helpers: chunks of a block's rows, staging size and block order; and
// the compile-time checks of the BlockOp and Writer concepts (impl/concept_checks.hpp).
#include <tessera/pairwise/impl/block_pipeline.hpp>
#include <tessera/pairwise/pairwise.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <vector>

namespace {

using tessera::Band;
using tessera::BlockInfo;
using tessera::BlockStorage;
using tessera::MatrixLayout;
using tessera::Impl::chunk_end;

// ---- the concepts, checked at compile time: the library's own ops and writers model them, a
// type without one member does not.
using Space = Kokkos::DefaultExecutionSpace;
using tessera::Impl::is_block_op;
using tessera::Impl::is_result_writer;

using HostPcfOp = tessera::PcfBlockOp<Space, tessera::PcfL1, double, double, Kokkos::HostSpace>;
using HostPointOp =
    tessera::PointBlockOp<Space, tessera::EuclideanDistance<3>, float, Kokkos::HostSpace>;
using DevicePointOp =
    tessera::PointBlockOp<Space, tessera::GaussianKernel<2>, double, Space::memory_space>;
static_assert(is_block_op<HostPcfOp, Space>::value, "PcfBlockOp is a BlockOp");
static_assert(is_block_op<HostPointOp, Space>::value, "PointBlockOp is a BlockOp");
static_assert(is_block_op<DevicePointOp, Space>::value, "PointBlockOp is a BlockOp");

static_assert(
    is_result_writer<tessera::ArrayWriter<double, Kokkos::HostSpace>, double, Space>::value,
    "a host ArrayWriter is a Writer");
static_assert(
    is_result_writer<tessera::ArrayWriter<float, Space::memory_space>, float, Space>::value,
    "an ArrayWriter in the space's memory is a Writer");
static_assert(is_result_writer<tessera::NpyWriter<double>, double, Space>::value,
              "NpyWriter is a Writer");
static_assert(!is_result_writer<tessera::NpyWriter<double>, float, Space>::value,
              "a writer of double values does not take float blocks");

/// Every BlockOp member but launch (declared only: the traits never call them).
struct OpWithoutLaunch {
  using value_type = double;
  std::size_t rows() const;
  std::size_t cols() const;
  std::size_t block_data_bytes(const BlockInfo&) const;
  void reserve(const Space&, const tessera::BlockScheduler&, std::size_t);
  void upload(const Space&, const BlockInfo&);
};
/// OpWithoutLaunch with launch: a BlockOp.
struct OpWithLaunch : OpWithoutLaunch {
  void launch(const Space&, const BlockInfo&, tessera::TriangleSkipMode, const BlockStorage&,
              double* out) const;
};
/// A BlockOp without value_type.
struct OpWithoutValueType {
  std::size_t rows() const;
  std::size_t cols() const;
  std::size_t block_data_bytes(const BlockInfo&) const;
  void reserve(const Space&, const tessera::BlockScheduler&, std::size_t);
  void upload(const Space&, const BlockInfo&);
  void launch(const Space&, const BlockInfo&, tessera::TriangleSkipMode, const BlockStorage&,
              double* out) const;
};
static_assert(!is_block_op<OpWithoutLaunch, Space>::value, "launch is missing");
static_assert(!tessera::Impl::BlockOpMembers<OpWithoutLaunch, Space>::launch, "launch is named");
static_assert(tessera::Impl::BlockOpMembers<OpWithoutLaunch, Space>::rows, "rows is there");
static_assert(is_block_op<OpWithLaunch, Space>::value, "every member is there");
static_assert(!is_block_op<OpWithoutValueType, Space>::value, "value_type is missing");
static_assert(!is_block_op<int, Space>::value, "an int is no BlockOp");

/// A host writer without finish(); with it, a Writer that needs no write_device (on the host).
struct HostWriterWithoutFinish {
  static constexpr bool on_host = true;
  MatrixLayout layout() const;
  void write_host(const BlockInfo&, const BlockStorage&, std::size_t, std::size_t,
                  const double*) const;
};
struct HostWriterWithFinish : HostWriterWithoutFinish {
  void finish();
};
/// A device writer (on_host false) without write_device.
struct DeviceWriterWithoutWriteDevice {
  static constexpr bool on_host = false;
  MatrixLayout layout() const;
  void finish();
};
static_assert(!is_result_writer<HostWriterWithoutFinish, double, Space>::value,
              "finish is missing");
static_assert(is_result_writer<HostWriterWithFinish, double, Space>::value,
              "a host writer needs no write_device");
static_assert(!is_result_writer<DeviceWriterWithoutWriteDevice, double, Space>::value,
              "write_device is missing");
static_assert(
    !tessera::Impl::WriterMembers<DeviceWriterWithoutWriteDevice, double, Space>::write_device,
    "write_device is named");

TEST(BlockPipeline, ConceptTraitsTellOpsAndWritersApart) {
  // The static_asserts above decide at compile time; this test records them in the test log.
  EXPECT_TRUE((is_block_op<HostPcfOp, Space>::value));
  EXPECT_FALSE((is_block_op<OpWithoutLaunch, Space>::value));
  EXPECT_TRUE((is_result_writer<tessera::NpyWriter<float>, float, Space>::value));
  EXPECT_FALSE((is_result_writer<HostWriterWithoutFinish, double, Space>::value));
}

TEST(BlockPipeline, ChunksCoverTheRowsWithTheMostThatFitTheStaging) {
  std::mt19937 gen(5);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + gen() % 60, staging = gen() % 200;
    const MatrixLayout layout =
        trial % 3 == 0 ? MatrixLayout::dense
                       : (trial % 3 == 1 ? MatrixLayout::condensed : MatrixLayout::symmetric);
    const BlockStorage s = BlockStorage::of(BlockInfo{Band{0, n - 1}, Band{0, n - 1}}, layout);
    std::size_t r = 0, chunks = 0;
    while (r < n) {
      const std::size_t e = chunk_end(s, r, n, staging);
      ASSERT_GT(e, r);
      ASSERT_LE(e, n);
      const std::size_t values = s.row_start(e) - s.row_start(r);
      // Within the staging buffer, or a single row; and one more row would not fit.
      EXPECT_TRUE(values <= staging || e == r + 1) << n << " " << staging << " " << r;
      if (e < n) EXPECT_GT(s.row_start(e + 1) - s.row_start(r), staging);
      EXPECT_LE(values, tessera::Impl::staging_elements({BlockInfo{Band{0, n - 1}, Band{0, n - 1}}},
                                                        staging));
      r = e;
      ++chunks;
    }
    EXPECT_EQ(r, n);
    if (staging >= s.size(n)) EXPECT_EQ(chunks, 1u);
  }
}

TEST(BlockPipeline, RunsTheSmallestBlockFirstThenTheOthersInOrder) {
  using tessera::Impl::pipeline_order;
  EXPECT_TRUE(pipeline_order({}).empty());
  const std::vector<BlockInfo> blocks(4);
  EXPECT_EQ(pipeline_order({blocks[0]}), (std::vector<std::size_t>{0}));
  EXPECT_EQ(pipeline_order(blocks), (std::vector<std::size_t>{3, 0, 1, 2}));
}

}  // namespace
