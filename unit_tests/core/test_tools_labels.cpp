// The kernels of a Genred call and of an interval call are named tessera::<module>::<kernel> for
// Kokkos Tools (profilers, Kokkos' kernel logger): callbacks registered as a tool would register
// them record every parallel_for, parallel_reduce and parallel_scan the calls begin, on every
// execution space the suite runs (the hand-written CUDA kernels included, through
// core/impl/tools_labels.hpp); each call is one Kokkos Tools region holding its kernels.
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>
#include <tessera/interval/interval_expand.hpp>

#include "execution_spaces.hpp"
#include "profiling_regions.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

std::vector<std::string>* recorded = nullptr;

void record(const char* name, std::uint32_t, std::uint64_t* id) {
  if (recorded) recorded->push_back(name);
  *id = 0;
}

/// While alive: the names of the kernels begun, through the Kokkos Tools callbacks.
struct Recording {
  std::vector<std::string> names;
  Recording() {
    recorded = &names;
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(record);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(record);
    Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(record);
  }
  ~Recording() {
    Kokkos::Tools::Experimental::set_begin_parallel_for_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_reduce_callback(nullptr);
    Kokkos::Tools::Experimental::set_begin_parallel_scan_callback(nullptr);
    recorded = nullptr;
  }
};

/// Every name begins with prefix, and there is at least one. Kokkos' own bookkeeping of the
/// Views a call allocates (kernels named Kokkos::View::..., which Kokkos 3.4 reports even for
/// Views of trivial types) is Kokkos', not Tessera's.
void expect_all_named(const std::vector<std::string>& names, const std::string& prefix) {
  int tessera_kernels = 0;
  for (const std::string& name : names) {
    if (name.rfind("Kokkos::View::", 0) == 0) continue;
    EXPECT_EQ(name.rfind(prefix, 0), 0u) << "kernel '" << name << "' is not named " << prefix;
    ++tessera_kernels;
  }
  EXPECT_GT(tessera_kernels, 0) << "no kernel was reported to the tool callbacks";
}

template <class Space>
struct ToolsLabels : ::testing::Test {};
TYPED_TEST_SUITE(ToolsLabels, tessera_test::ExecutionSpaces);

TYPED_TEST(ToolsLabels, GenredKernelsAreNamedByModule) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  const int m = 37, n = 53;
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> x("x", m, 3), y("y", n, 3);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> out("out", m, 1);
  Kokkos::deep_copy(x, 0.5f);
  Kokkos::deep_copy(y, 0.25f);
  for (const tessera::Scheme scheme : {tessera::Scheme::tiled_1d, tessera::Scheme::tiled_2d}) {
    tessera::GenredOptions options;
    options.scheme = scheme;
    Kokkos::fence();
    Recording recording;
    tessera_test::RegionRecording regions;
    tessera::genred(Space(), tessera::Sum{}, tessera::SquaredDistance<3>{}, tessera::i_vars(x),
                    tessera::j_vars(y), out, options);
    Kokkos::fence();
    expect_all_named(recording.names, "tessera::genred::");
    // the call's kernels (two in the 2D scheme) in one region
    EXPECT_EQ(tessera_test::RegionRecording::pushed(), std::vector<std::string>{"tessera::genred"});
    EXPECT_TRUE(tessera_test::RegionRecording::balanced());
  }
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  EXPECT_FLOAT_EQ(host(0, 0), float(n) * 3.0f * 0.0625f);  // the calls ran
}

TYPED_TEST(ToolsLabels, IntervalKernelsAreNamedByModule) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  Kokkos::View<std::int64_t*, Mem> offsets("offsets", 3);
  Kokkos::View<int*, Mem> values("values", 3), out("out", 6);
  auto offsets_host = Kokkos::create_mirror_view(offsets);
  offsets_host(0)   = 0;
  offsets_host(1)   = 1;
  offsets_host(2)   = 4;
  Kokkos::deep_copy(offsets, offsets_host);
  Kokkos::deep_copy(values, 7);
  Kokkos::fence();
  {
    Recording recording;
    tessera_test::RegionRecording regions;
    tessera::interval_expand(Space(), 6, offsets, values, out);
    Kokkos::fence();
    expect_all_named(recording.names, "tessera::interval::");
    EXPECT_EQ(tessera_test::RegionRecording::pushed(),
              std::vector<std::string>{"tessera::interval::interval_expand"});
    EXPECT_TRUE(tessera_test::RegionRecording::balanced());
  }
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  EXPECT_EQ(host(5), 7);
}

}  // namespace
