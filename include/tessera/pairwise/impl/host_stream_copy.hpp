// stream_copy: memcpy for host outputs that are written once and not read back soon (the
// pairwise engine's scatter of downloaded blocks into outputs of gigabytes). On x86 with SSE2
// the destination is written with non-temporal stores, which skip the read-for-ownership of
// every destination line: two memory passes (read the source, write the destination) instead
// of three. Elsewhere it is std::memcpy.
#pragma once

#include <tessera/core/impl/streaming_access.hpp>
#include <tessera/core/impl/tiling.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tessera {
namespace Impl {

/// Copies `bytes` from src to dst (not overlapping); on SSE2 hosts, copies of at least
/// TuningBase::pairwise_stream_copy_min_bytes with streaming stores followed by a store fence,
/// so that the data are visible to other threads on return (shorter ones would leave partly
/// written lines in the write-combining buffers).
inline void stream_copy(void* dst, const void* src, std::size_t bytes) {
  if (!has_streaming_stores || bytes < TuningBase::pairwise_stream_copy_min_bytes) {
    std::memcpy(dst, src, bytes);
    return;
  }
  auto* d       = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  // Up to the first 16-byte boundary of the destination with an ordinary copy.
  const std::size_t head =
      std::min<std::size_t>((16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16, bytes);
  std::memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  for (; bytes >= 64; bytes -= 64, d += 64, s += 64)
    stream_store<64>(d, s);
  std::memcpy(d, s, bytes);
  streaming_store_fence();
}

}  // namespace Impl
}  // namespace tessera
