// Impl::ProfilingRegion: one Kokkos Tools region per object, named by its parts, popped on every
// path out of its scope (exceptions included).
#include <tessera/core/impl/profiling_region.hpp>

#include "profiling_regions.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using tessera_test::RegionRecording;

TEST(ProfilingRegion, PushesItsNameAndPopsAtTheEndOfItsScope) {
  RegionRecording recording;
  {
    const tessera::Impl::ProfilingRegion outer("tessera::", "pairwise::", "pdist");
    EXPECT_EQ(RegionRecording::pushed().size(), 1u);
    EXPECT_EQ(RegionRecording::popped(), 0);
    {
      const tessera::Impl::ProfilingRegion inner("tessera::genred");
      EXPECT_EQ(RegionRecording::popped(), 0);
    }
    EXPECT_EQ(RegionRecording::popped(), 1);
  }
  ASSERT_EQ(RegionRecording::pushed().size(), 2u);
  EXPECT_EQ(RegionRecording::pushed()[0], "tessera::pairwise::pdist");
  EXPECT_EQ(RegionRecording::pushed()[1], "tessera::genred");
  EXPECT_TRUE(RegionRecording::balanced());
}

TEST(ProfilingRegion, IsPoppedWhenTheCallThrows) {
  RegionRecording recording;
  EXPECT_THROW(
      {
        const tessera::Impl::ProfilingRegion region("tessera::cluster::grid_cluster");
        throw std::invalid_argument("bad argument");
      },
      std::invalid_argument);
  EXPECT_EQ(RegionRecording::count("tessera::cluster::grid_cluster"), 1);
  EXPECT_TRUE(RegionRecording::balanced());
}

}  // namespace
