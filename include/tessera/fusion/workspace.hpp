// Memory that fused runs reuse between calls for their temporary buffers.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <typeindex>
#include <typeinfo>

namespace tessera {
namespace fusion {

/// A buffer that fused runs (FusionOptions::workspace) keep their temporary data in: the
/// partial sums of matrix groups, teams x columns values. Without one, such a run allocates
/// the buffer and frees it before returning, which waits for the device; with one, it
/// allocates only when it needs more than the workspace holds (or memory of another space), so
/// that repeated calls stay asynchronous. The caller's object (no global state): one workspace
/// per stream of calls (runs queued on different execution space instances must not share
/// one), destroyed before Kokkos::finalize.
class Workspace {
 public:
  /// At least `bytes` bytes of MemorySpace memory (aligned for any value type), valid until the
  /// next reserve(); reallocates (waiting for the device to free the old buffer) when smaller
  /// or in another space.
  template <class MemorySpace>
  void* reserve(std::size_t bytes) {
    if (!holder_ || space_ != std::type_index(typeid(MemorySpace)) || bytes_ < bytes) {
      holder_.reset();
      auto view = std::make_shared<Kokkos::View<unsigned char*, MemorySpace>>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::fusion::workspace"), bytes);
      data_   = view->data();
      holder_ = view;
      bytes_  = bytes;
      space_  = std::type_index(typeid(MemorySpace));
    }
    return data_;
  }

  /// The bytes held now.
  std::size_t bytes() const { return holder_ ? bytes_ : 0; }

 private:
  std::shared_ptr<void> holder_;
  void* data_            = nullptr;
  std::size_t bytes_     = 0;
  std::type_index space_ = std::type_index(typeid(void));
};

}  // namespace fusion
}  // namespace tessera
