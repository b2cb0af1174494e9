// The kernels of grid_cluster (clustering.hpp): the bounding box of the points, the linear id of
// each point's voxel, the distinct occupied voxels (a scan over the sorted ids) and each point's
// rank among them, its cluster label.
#pragma once

#include <tessera/core/impl/sorted_search.hpp>
#include <tessera/core/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {
namespace Impl {

/// Smallest and largest coordinate along one dimension.
template <class Points, class T>
struct CoordinateBounds {
  Points points;
  int c;
  KOKKOS_FUNCTION void operator()(int i, Kokkos::MinMaxScalar<T>& b) const {
    const T x = points(i, c);
    if (x < b.min_val) b.min_val = x;
    if (x > b.max_val) b.max_val = x;
  }
};

/// Linear voxel id of each point (row-major over the grid: first dimension most significant).
template <class Points, class MemorySpace>
struct VoxelIds {
  Points points;
  Kokkos::View<const double*, MemorySpace> origin;        // per-dimension minimum
  Kokkos::View<const std::int64_t*, MemorySpace> cells;   // voxels per dimension
  Kokkos::View<const std::int64_t*, MemorySpace> stride;  // id step per dimension
  Kokkos::View<std::int64_t*, MemorySpace> ids;
  double voxel_size;
  int dim;
  KOKKOS_FUNCTION void operator()(int i) const {
    std::int64_t id = 0;
    for (int c = 0; c < dim; ++c) {
      const double q    = math::floor((static_cast<double>(points(i, c)) - origin(c)) / voxel_size);
      std::int64_t cell = static_cast<std::int64_t>(q);
      cell = cell < 0 ? 0 : (cell >= cells(c) ? cells(c) - 1 : cell);  // guard only: q is in range
      id += cell * stride(c);
    }
    ids(i) = id;
  }
};

/// Writes each distinct value of a sorted array once, in order; the scan total is their number.
template <class MemorySpace>
struct UniqueSorted {
  using value_type = int;
  Kokkos::View<const std::int64_t*, MemorySpace> sorted;
  Kokkos::View<std::int64_t*, MemorySpace> unique;
  KOKKOS_FUNCTION void operator()(int t, int& position, bool final) const {
    if (t == 0 || sorted(t) != sorted(t - 1)) {
      if (final) unique(position) = sorted(t);
      ++position;
    }
  }
};

/// labels(i) = rank of ids(i) among the sorted distinct ids.
template <class MemorySpace>
struct RankOfIds {
  Kokkos::View<const std::int64_t*, MemorySpace> ids;
  Kokkos::View<const std::int64_t*, MemorySpace> unique;
  Kokkos::View<int*, MemorySpace> labels;
  int count;
  KOKKOS_FUNCTION void operator()(int i) const {
    labels(i) = lower_bound(unique.data(), count, ids(i));
  }
};

}  // namespace Impl
}  // namespace tessera
