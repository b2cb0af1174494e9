// The temporary memory of one call in one memory space: its buffers laid out one after another
// and taken at once, from the caller's tessera::Workspace (core/workspace.hpp) or, without one,
// from an allocation the call holds until it returns (the behaviour of calls without a
// workspace).
#pragma once

#include <tessera/core/workspace.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace tessera {
namespace Impl {

/// What the modules' calls do with a Workspace (its memory is theirs only through this).
struct WorkspaceAccess {
  /// Records that a call needs `bytes` of MemorySpace memory, then returns the workspace's
  /// memory, grown to at least that, or nullptr for a size query.
  template <class MemorySpace>
  static void* take(Workspace& workspace, std::size_t bytes) {
    Workspace::Buffer& b = workspace.buffer<MemorySpace>();
    b.required           = std::max(b.required, bytes);
    if (workspace.query_) return nullptr;
    Workspace::grow(b, bytes);
    return b.data;
  }
};

/// Whether a call given `workspace` (nullptr: none) only measures what it needs (a size query,
/// Workspace::size_query()): it then runs nothing after its checks and CallMemory::take.
inline bool measures_only(const Workspace* workspace) {
  return workspace != nullptr && workspace->is_size_query();
}

/// The buffers of a call in MemorySpace: add() each, then take() the memory once, then view()
/// each buffer. Buffers start at multiples of `alignment` bytes from the memory's start, which
/// Kokkos aligns to at least that (Kokkos::Impl::MEMORY_ALIGNMENT, 64 bytes: a cache line, and
/// enough for any vector load).
template <class MemorySpace>
class CallMemory {
 public:
  static constexpr std::size_t alignment = 64;

  /// Adds a buffer of `count` values of T; returns its index for view().
  template <class T>
  std::size_t add(std::size_t count) {
    offsets_.push_back(bytes_);
    bytes_ += (count * sizeof(T) + alignment - 1) / alignment * alignment;
    return offsets_.size() - 1;
  }

  /// The bytes of all buffers added so far.
  std::size_t bytes() const { return bytes_; }

  /// Takes the memory of the buffers: `workspace`'s (grown when it holds less), or without one
  /// an allocation named `label` held by this object. Returns false, having taken nothing, when
  /// `workspace` is a size query (it has recorded the bytes): the call then runs nothing.
  bool take(Workspace* workspace, const char* label) {
    if (workspace) {
      base_ = static_cast<unsigned char*>(WorkspaceAccess::take<MemorySpace>(*workspace, bytes_));
      return !workspace->is_size_query();
    }
    own_ = Kokkos::View<unsigned char*, MemorySpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), bytes_);
    base_ = own_.data();
    return true;
  }

  /// Buffer `index` (from add) as `count` values of T: a View that does not own its memory.
  template <class T>
  Kokkos::View<T*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> view(
      std::size_t index, std::size_t count) const {
    using Unmanaged = Kokkos::View<T*, MemorySpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    return Unmanaged(reinterpret_cast<T*>(base_ + offsets_[index]), count);
  }

 private:
  std::vector<std::size_t> offsets_;
  std::size_t bytes_ = 0;
  Kokkos::View<unsigned char*, MemorySpace> own_;
  unsigned char* base_ = nullptr;
};

}  // namespace Impl
}  // namespace tessera
