// The merge-path points that cut an interval call's items and offsets into the pieces teams take
// (load_balance.hpp), and the View the calls keep them in.
#pragma once

#include <Kokkos_Core.hpp>

namespace tessera {
namespace Impl {

/// A point of the merge path of output items and interval offsets (load_balance.hpp): its
/// first `items` items and first `offsets` offsets come before it. Consecutive points cut the
/// path into the pieces that teams take.
struct MergePoint {
  int items, offsets;
};

/// The merge-path points of a call on ExecSpace, in memory the call takes (CallMemory).
template <class ExecSpace>
using MergePoints = Kokkos::View<MergePoint*, typename ExecSpace::memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

}  // namespace Impl
}  // namespace tessera
