// tessera::Workspace and the calls' side of it (Impl::CallMemory): a call takes its buffers from
// the workspace, growing it only when it holds less; a size query records what a call needs and
// hands out nothing; reserve(query) then holds it, so that the call allocates nothing; without a
// workspace a call owns its memory.
#include <tessera/core/impl/call_memory.hpp>
#include <tessera/core/workspace.hpp>

#include "execution_spaces.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>

namespace {

template <class Space>
struct WorkspaceTest : ::testing::Test {};
TYPED_TEST_SUITE(WorkspaceTest, tessera_test::ExecutionSpaces);

/// A call's buffers in Mem: 3 floats, 1000 doubles, 5 ints.
template <class Mem>
tessera::Impl::CallMemory<Mem> three_buffers() {
  tessera::Impl::CallMemory<Mem> memory;
  memory.template add<float>(3);
  memory.template add<double>(1000);
  memory.template add<int>(5);
  return memory;
}

TYPED_TEST(WorkspaceTest, BuffersAreAlignedAndApart) {
  using Mem   = typename TypeParam::memory_space;
  auto memory = three_buffers<Mem>();
  EXPECT_EQ(memory.bytes(), 64u + 8000u + 64u);  // each rounded up to 64 bytes
  ASSERT_TRUE(memory.take(nullptr, "test"));     // no workspace: its own allocation
  const auto a  = memory.template view<float>(0, 3);
  const auto b  = memory.template view<double>(1, 1000);
  const auto c  = memory.template view<int>(2, 5);
  const auto at = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
  EXPECT_EQ(at(b.data()) - at(a.data()), 64u);
  EXPECT_EQ(at(c.data()) - at(b.data()), 8000u);
  EXPECT_EQ(at(a.data()) % 64, 0u) << "Kokkos allocations are 64-byte aligned on every backend";
  // the buffers are usable memory of Mem
  Kokkos::deep_copy(TypeParam(), b, 2.5);
  Kokkos::deep_copy(TypeParam(), c, 7);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  EXPECT_EQ(hb(999), 2.5);
  EXPECT_EQ(hc(4), 7);
}

TYPED_TEST(WorkspaceTest, CallsReuseTheWorkspaceAndGrowItOnlyWhenSmaller) {
  using Mem = typename TypeParam::memory_space;
  tessera::Workspace workspace;
  EXPECT_EQ(workspace.bytes<Mem>(), 0u);
  auto first = three_buffers<Mem>();
  ASSERT_TRUE(first.take(&workspace, "test"));
  EXPECT_EQ(workspace.bytes<Mem>(), first.bytes());
  EXPECT_EQ(workspace.required_bytes<Mem>(), first.bytes());
  const void* held = first.template view<float>(0, 3).data();

  tessera::Impl::CallMemory<Mem> smaller;
  smaller.template add<char>(100);
  ASSERT_TRUE(smaller.take(&workspace, "test"));
  EXPECT_EQ(smaller.template view<char>(0, 100).data(), held) << "no new allocation";
  EXPECT_EQ(workspace.bytes<Mem>(), first.bytes());

  tessera::Impl::CallMemory<Mem> larger;
  larger.template add<double>(5000);
  ASSERT_TRUE(larger.take(&workspace, "test"));
  EXPECT_EQ(workspace.bytes<Mem>(), 40000u);
  EXPECT_EQ(workspace.required_bytes<Mem>(), 40000u);
  constexpr bool host_memory = std::is_same<Mem, Kokkos::HostSpace>::value;
  EXPECT_EQ(workspace.bytes<Kokkos::HostSpace>() == 0, !host_memory) << "memory of one space only";

  workspace.release();
  EXPECT_EQ(workspace.bytes<Mem>(), 0u);
  EXPECT_EQ(workspace.required_bytes<Mem>(), 40000u) << "release keeps the requirements";
}

TYPED_TEST(WorkspaceTest, ASizeQueryRecordsAndHandsOutNothing) {
  using Mem  = typename TypeParam::memory_space;
  auto query = tessera::Workspace::size_query();
  EXPECT_TRUE(query.is_size_query());
  EXPECT_TRUE(tessera::Impl::measures_only(&query));
  EXPECT_FALSE(tessera::Impl::measures_only(nullptr));
  auto call = three_buffers<Mem>();
  EXPECT_FALSE(call.take(&query, "test")) << "a size query runs nothing";
  tessera::Impl::CallMemory<Mem> other;
  other.template add<int>(10);
  EXPECT_FALSE(other.take(&query, "test"));
  EXPECT_EQ(query.required_bytes<Mem>(), call.bytes()) << "the largest call's need";
  EXPECT_EQ(query.bytes<Mem>(), 0u) << "a query allocates nothing";

  tessera::Workspace workspace;
  workspace.reserve(query);
  EXPECT_EQ(workspace.bytes<Mem>(), call.bytes());
  EXPECT_FALSE(workspace.is_size_query());
  auto again = three_buffers<Mem>();
  ASSERT_TRUE(again.take(&workspace, "test"));
  EXPECT_EQ(workspace.bytes<Mem>(), call.bytes()) << "reserved up front: no growth";

  tessera::Workspace direct;
  direct.reserve<Mem>(1 << 20);
  EXPECT_EQ(direct.bytes<Mem>(), std::size_t{1} << 20);
  direct.reserve<Mem>(10);
  EXPECT_EQ(direct.bytes<Mem>(), std::size_t{1} << 20) << "reserve never shrinks";
}

}  // namespace
