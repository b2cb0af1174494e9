// stream_copy against std::memcpy on every head alignment and on lengths around the
// non-temporal threshold and the 64-byte step, into a guarded buffer.
#include <tessera/pairwise/impl/host_stream_copy.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

TEST(StreamCopy, MatchesMemcpyForEveryAlignmentAndLength) {
  const std::size_t threshold      = tessera::Impl::TuningBase::pairwise_stream_copy_min_bytes;
  std::vector<std::size_t> lengths = {0, 1, 15, 16, 17, 63, 64, 65, 1000};
  for (std::size_t b : {threshold - 1, threshold, threshold + 1, threshold + 63, 3 * threshold + 5})
    lengths.push_back(b);
  std::vector<unsigned char> src(4 * threshold + 64), dst(4 * threshold + 128);
  for (std::size_t k = 0; k < src.size(); ++k)
    src[k] = static_cast<unsigned char>(k * 131 + 7);
  for (std::size_t bytes : lengths) {
    for (std::size_t d_off = 0; d_off < 17; ++d_off) {
      for (std::size_t s_off : {std::size_t(0), std::size_t(3)}) {
        std::fill(dst.begin(), dst.end(), 0xAB);
        tessera::Impl::stream_copy(dst.data() + 32 + d_off, src.data() + s_off, bytes);
        for (std::size_t k = 0; k < dst.size(); ++k) {
          const bool inside        = k >= 32 + d_off && k < 32 + d_off + bytes;
          const unsigned char want = inside ? src[k - 32 - d_off + s_off] : 0xAB;
          ASSERT_EQ(dst[k], want) << "bytes " << bytes << ", dst offset " << d_off
                                  << ", src offset " << s_off << ", at " << k;
        }
      }
    }
  }
}

}  // namespace
