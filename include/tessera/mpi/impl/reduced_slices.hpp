// The reduced rows of a distributed Genred call as they travel between ranks: a rank's slice of
// every reduced variable packed into one buffer, row after row (row, batch entry, the variables'
// components side by side), so that a slice is one MPI message of whole rows and the slices of
// all ranks, concatenated in rank order, are the whole reduced range.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/genred/impl/var_group.hpp>
#include <tessera/mpi/impl/agreement.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {
namespace mpi {
namespace Impl {

/// The MPI datatype of a float or double.
template <class T>
MPI_Datatype mpi_scalar() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "tessera::mpi: variables are float or double");
  return std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE;
}

/// One packed row (its batch entries and components) as an MPI datatype, freed with the object,
/// so that counts are rows (below 2^31) whatever the width of a row.
class PackedRowType {
 public:
  PackedRowType(MPI_Datatype scalar, int elements) {
    check_mpi(MPI_Type_contiguous(elements, scalar, &type_), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&type_), "MPI_Type_commit");
  }
  PackedRowType(const PackedRowType&)            = delete;
  PackedRowType& operator=(const PackedRowType&) = delete;
  ~PackedRowType() { MPI_Type_free(&type_); }
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// Allocates `view` as `n` uninitialised elements labelled `label`.
template <class View>
void allocate_uninitialized(View& view, const char* label, std::size_t n) {
  view = View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), n);
}

/// Packs rows of a variable group of `batch` entries into `dst`: packed row r is the group's
/// row r, or row list[r] when a list is given; element (r, b, w) at (r * batch + b) * width + w,
/// w running over the group's packed row (VarGroup offsets).
template <class T, class Group>
struct PackRows {
  Group group;
  T* dst;
  int batch;
  int width;
  const int* list;  ///< nullptr: rows in order

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    const std::int64_t r   = p / batch;
    const int b            = static_cast<int>(p - r * batch);
    const std::int64_t row = list != nullptr ? list[r] : r;
    T* out                 = dst + p * width;
    for (int v = 0; v < Group::count; ++v) {
      const auto& var = group.vars[v];
      const T* in     = var.data + b * var.sb + row * var.sr;
      for (int c = 0; c < var.dim; ++c)
        out[group.offsets[v] + c] = in[c * var.sc];
    }
  }
};

/// Queues the packing of `rows` rows of the group (its first ones, or those of `list`) into dst
/// (PackRows) on `space`.
template <class ExecSpace, class T, class Group>
void pack_rows(const ExecSpace& space, const Group& group, int rows, int batch, T* dst,
               const int* list = nullptr) {
  if (rows == 0 || batch == 0) return;
  Kokkos::parallel_for("tessera::mpi::pack_reduced_rows",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                           space, 0, static_cast<std::int64_t>(rows) * batch),
                       PackRows<T, Group>{group, dst, batch, group.runtime_width, list});
}

/// The group reading packed rows at `data` (PackRows' layout) instead of the caller's Views.
template <class Group, class T>
Group packed_group(Group group, const T* data, int batch) {
  const int width = group.runtime_width;
  for (int v = 0; v < Group::count; ++v) {
    group.vars[v].data = data + group.offsets[v];
    group.vars[v].sb   = width;
    group.vars[v].sr   = static_cast<std::int64_t>(batch) * width;
    group.vars[v].sc   = 1;
  }
  return group;
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
