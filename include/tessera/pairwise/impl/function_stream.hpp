// Function data per block: the rows (or columns) of a block as the kernels read them, in one of
// three modes:
//   resident  the execution space reads the caller's Views: nothing moves;
//   whole     host data that fits the budget's data share: uploaded once, at reserve() (once
//             for both sides when they are the same functions, as in pdist);
//   streamed  host data larger than that: each block uploads its band into device arrays sized
//             once for the largest band (masspcf's OffsetDataManager: only the functions a block
//             needs move, so inputs larger than device memory work).
// Uploads are queued on the compute instance, behind the previous block's kernel.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/pcf_collection.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace tessera {
namespace Impl {

/// One side (rows or columns) of PCF data for the kernels.
template <class ExecSpace, class T, class MemorySpace>
class PcfStream {
 public:
  using device_memory = typename ExecSpace::memory_space;
  /// True when the kernels read the caller's Views directly.
  static constexpr bool resident = Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible;
  static_assert(resident || Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible,
                "tessera::pairwise: PCFs must be in host memory or in memory the execution "
                "space can read");

  /// What the kernel needs of a band of functions.
  struct Band {
    const std::size_t* offsets;  // first function's offset, then one per function
    std::size_t base;            // subtracted from the offsets
    const PcfPoint<T>* points;
  };

  explicit PcfStream(const PcfCollection<T, MemorySpace>& pcfs) : pcfs_(pcfs) {}

  /// Device bytes a band's data takes when streamed (0 when resident).
  std::size_t bytes(const tessera::Band& band) const {
    if constexpr (resident) {
      return 0;
    } else {
      return sizeof(std::size_t) * (band.size() + 1) + sizeof(PcfPoint<T>) * points_in(band);
    }
  }
  /// Device bytes of all the functions (0 when resident).
  std::size_t total_bytes() const {
    return pcfs_.size() == 0 ? 0 : bytes(tessera::Band{0, pcfs_.size() - 1});
  }

  /// True when `other` streams the same functions (the same Views).
  bool same_source(const PcfStream& other) const {
    return pcfs_.offsets() == other.pcfs_.offsets() &&
           pcfs_.breakpoints() == other.pcfs_.breakpoints();
  }

  /// Prepares the device arrays: all functions (whole = true, uploaded now on `space`) or the
  /// largest band among `bands` (streamed data only).
  template <class Bands>
  void reserve(const ExecSpace& space, const Bands& bands, bool whole) {
    if constexpr (!resident) {
      whole_                = whole && pcfs_.size() > 0;
      std::size_t functions = 0, points = 0;
      for (const tessera::Band& b : bands) {
        functions = std::max(functions, b.size());
        points    = std::max(points, points_in(b));
      }
      if (whole_) {
        functions = pcfs_.size();
        points    = pcfs_.breakpoints().extent(0);
      }
      offsets_ = Kokkos::View<std::size_t*, device_memory>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pairwise::offsets"),
          functions + 1);
      points_ = Kokkos::View<T* [2], Kokkos::LayoutRight, device_memory>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pairwise::points"), points);
      if (whole_) copy_band(space, tessera::Band{0, pcfs_.size() - 1});
    }
  }

  /// The band's data on `space`: uploads it (asynchronously, on `space`) when streamed.
  Band upload(const ExecSpace& space, const tessera::Band& band) {
    if constexpr (resident) {
      return {pcfs_.offsets().data() + band.first, 0,
              reinterpret_cast<const PcfPoint<T>*>(pcfs_.breakpoints().data())};
    } else {
      if (whole_) {
        return {offsets_.data() + band.first, 0,
                reinterpret_cast<const PcfPoint<T>*>(points_.data())};
      }
      copy_band(space, band);
      return {offsets_.data(), pcfs_.offsets()(band.first),
              reinterpret_cast<const PcfPoint<T>*>(points_.data())};
    }
  }

 private:
  std::size_t points_in(const tessera::Band& b) const {
    return pcfs_.offsets()(b.last + 1) - pcfs_.offsets()(b.first);
  }

  /// Queues the copy of the band's offsets and breakpoints to the start of the device arrays.
  void copy_band(const ExecSpace& space, const tessera::Band& band) {
    const auto& off         = pcfs_.offsets();
    const auto& bp          = pcfs_.breakpoints();
    const std::size_t first = off(band.first), last = off(band.last + 1);
    Kokkos::deep_copy(space,
                      Kokkos::subview(offsets_, std::make_pair(std::size_t(0), band.size() + 1)),
                      Kokkos::subview(off, std::make_pair(band.first, band.last + 2)));
    Kokkos::deep_copy(
        space, Kokkos::subview(points_, std::make_pair(std::size_t(0), last - first), Kokkos::ALL),
        Kokkos::subview(bp, std::make_pair(first, last), Kokkos::ALL));
  }

  PcfCollection<T, MemorySpace> pcfs_;
  bool whole_ = false;
  Kokkos::View<std::size_t*, device_memory> offsets_;
  Kokkos::View<T* [2], Kokkos::LayoutRight, device_memory> points_;
};

/// One side of point-vector data (an n x D row-major View) for the kernels.
template <class ExecSpace, class T, class MemorySpace>
class PointStream {
 public:
  using device_memory            = typename ExecSpace::memory_space;
  using points_view              = Kokkos::View<const T**, Kokkos::LayoutRight, MemorySpace>;
  static constexpr bool resident = Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible;
  static_assert(resident || Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible,
                "tessera::pairwise: points must be in host memory or in memory the execution "
                "space can read");

  explicit PointStream(const points_view& points) : points_(points) {}

  /// Device bytes a band's rows take when streamed (0 when resident).
  std::size_t bytes(const tessera::Band& band) const {
    if constexpr (resident) {
      return 0;
    } else {
      return sizeof(T) * band.size() * points_.extent(1);
    }
  }
  /// Device bytes of all rows (0 when resident).
  std::size_t total_bytes() const {
    return points_.extent(0) == 0 ? 0 : bytes(tessera::Band{0, points_.extent(0) - 1});
  }

  /// True when `other` streams the same rows (the same View).
  bool same_source(const PointStream& other) const { return points_ == other.points_; }

  /// Prepares the device array: all rows (whole = true, uploaded now on `space`) or the largest
  /// band among `bands` (streamed data only).
  template <class Bands>
  void reserve(const ExecSpace& space, const Bands& bands, bool whole) {
    if constexpr (!resident) {
      whole_           = whole && points_.extent(0) > 0;
      std::size_t rows = 0;
      for (const tessera::Band& b : bands)
        rows = std::max(rows, b.size());
      if (whole_) rows = points_.extent(0);
      staged_ = Kokkos::View<T**, Kokkos::LayoutRight, device_memory>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::pairwise::points"), rows,
          points_.extent(1));
      if (whole_) copy_band(space, tessera::Band{0, points_.extent(0) - 1});
    }
  }

  /// Pointer to the band's first row on `space` (rows D apart); uploads it when streamed.
  const T* upload(const ExecSpace& space, const tessera::Band& band) {
    if constexpr (resident) {
      return points_.data() + band.first * points_.extent(1);
    } else {
      if (whole_) return staged_.data() + band.first * points_.extent(1);
      copy_band(space, band);
      return staged_.data();
    }
  }

 private:
  /// Queues the copy of the band's rows to the start of the device array.
  void copy_band(const ExecSpace& space, const tessera::Band& band) {
    Kokkos::deep_copy(
        space, Kokkos::subview(staged_, std::make_pair(std::size_t(0), band.size()), Kokkos::ALL),
        Kokkos::subview(points_, std::make_pair(band.first, band.last + 1), Kokkos::ALL));
  }

  points_view points_;
  bool whole_ = false;
  Kokkos::View<T**, Kokkos::LayoutRight, device_memory> staged_;
};

/// Prepares the two sides of a block op for `schedule` within data_bytes of device memory: when
/// both sides stream the same functions and these fit, one upload of them that both sides read;
/// else all functions of each side when both fit; else each side's largest band.
template <class ExecSpace, class Rows, class Cols>
void reserve_sides(const ExecSpace& space, const BlockScheduler& schedule, std::size_t data_bytes,
                   Rows& rows, Cols& cols) {
  if constexpr (std::is_same_v<Rows, Cols>) {
    if (rows.same_source(cols) && rows.total_bytes() <= data_bytes) {
      rows.reserve(space, schedule.row_bands(), true);
      cols = rows;
      return;
    }
  }
  const bool whole = rows.total_bytes() + cols.total_bytes() <= data_bytes;
  rows.reserve(space, schedule.row_bands(), whole);
  cols.reserve(space, schedule.col_bands(), whole);
}

}  // namespace Impl
}  // namespace tessera
