// tessera::Workspace: caller-owned memory that every module's calls reuse for their temporary
// buffers, passed the same way everywhere (the `workspace` field of the call's options) and
// sized by a query, as CUB's two-phase calls size their temporary storage.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <vector>

namespace tessera {

namespace Impl {
struct WorkspaceAccess;
}

/// Memory that calls reuse for their temporary buffers (partial sums, block buffers, host
/// staging, merge-path partitions) instead of allocating and freeing their own each time: a
/// free waits for the device, and pinning host memory costs milliseconds.
///
/// Pass its address in a call's options (`options.workspace = &workspace`). The call takes what
/// it needs in each memory space from it, growing it where it holds less: the first call
/// allocates, later calls of the same or smaller sizes allocate nothing and wait for nothing.
/// To allocate up front, make the call once with a size query (Workspace::size_query(): the
/// call checks its arguments, records what it needs and runs nothing), then reserve(query).
///
/// The caller's object: no global state. Calls that share a workspace must be ordered (queued
/// on one execution space instance, or fenced in between), since a call's buffers are in use
/// until its kernels end; a workspace is not thread-safe. Destroy it before Kokkos::finalize.
class Workspace {
 public:
  Workspace() = default;

  /// A workspace that only measures: a call given it checks its arguments, records the bytes it
  /// needs in each memory space (required_bytes) and runs nothing: no kernel, no output written,
  /// no file opened; calls that return a report return an empty one.
  static Workspace size_query() {
    Workspace query;
    query.query_ = true;
    return query;
  }

  /// Whether this workspace is a size query.
  bool is_size_query() const { return query_; }

  /// The most bytes of MemorySpace memory one call given this workspace needed (0 if none did).
  template <class MemorySpace>
  std::size_t required_bytes() const {
    const Buffer* b = find(typeid(MemorySpace));
    return b ? b->required : 0;
  }

  /// The bytes of MemorySpace memory held.
  template <class MemorySpace>
  std::size_t bytes() const {
    const Buffer* b = find(typeid(MemorySpace));
    return b ? b->bytes : 0;
  }

  /// Holds at least `bytes` bytes of MemorySpace memory from now on, allocating now where it
  /// holds less (the memory held before is freed first, which waits for the device).
  template <class MemorySpace>
  void reserve(std::size_t bytes) {
    grow(buffer<MemorySpace>(), bytes);
  }

  /// Holds, in every memory space, at least what the calls given `query` needed.
  void reserve(const Workspace& query) {
    for (const Buffer& q : query.buffers_) {
      Buffer& b = buffer(q);
      grow(b, q.required);
    }
  }

  /// Frees the memory held in every space (waiting for the device); the requirements recorded
  /// stay.
  void release() {
    for (Buffer& b : buffers_) {
      b.holder.reset();
      b.data  = nullptr;
      b.bytes = 0;
    }
  }

 private:
  friend struct Impl::WorkspaceAccess;

  /// The memory of one space: the View holding it (type-erased), its start and size, the most a
  /// call needed, and how to allocate more of it.
  struct Buffer {
    std::type_index space;
    std::shared_ptr<void> holder;
    void* data           = nullptr;
    std::size_t bytes    = 0;
    std::size_t required = 0;
    void (*allocate)(Buffer&, std::size_t);
  };

  template <class MemorySpace>
  static void allocate(Buffer& b, std::size_t bytes) {
    using Bytes = Kokkos::View<unsigned char*, MemorySpace>;
    b.holder.reset();  // the old memory goes first: the new may need the room
    b.data    = nullptr;
    b.bytes   = 0;
    auto view = std::make_shared<Bytes>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("tessera::workspace")), bytes);
    b.data   = view->data();
    b.bytes  = bytes;
    b.holder = std::move(view);
  }

  static void grow(Buffer& b, std::size_t bytes) {
    if (b.bytes < bytes) b.allocate(b, bytes);
  }

  const Buffer* find(const std::type_info& space) const {
    for (const Buffer& b : buffers_)
      if (b.space == std::type_index(space)) return &b;
    return nullptr;
  }

  /// The buffer of MemorySpace, made (empty) if there is none.
  template <class MemorySpace>
  Buffer& buffer() {
    return buffer(Buffer{std::type_index(typeid(MemorySpace)),
                         {},
                         nullptr,
                         0,
                         0,
                         &Workspace::allocate<MemorySpace>});
  }

  /// The buffer of `like`'s space, made (empty, allocated as `like`) if there is none.
  Buffer& buffer(const Buffer& like) {
    for (Buffer& b : buffers_)
      if (b.space == like.space) return b;
    buffers_.push_back(Buffer{like.space, {}, nullptr, 0, 0, like.allocate});
    return buffers_.back();
  }

  std::vector<Buffer> buffers_;
  bool query_ = false;
};

}  // namespace tessera
