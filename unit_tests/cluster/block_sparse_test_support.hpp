// Host-side block-sparsity patterns for the tests: built segment by segment, turned into a
// device BlockSparseRanges, and queried pair by pair (the obviously-correct reference).
#pragma once

#include <tessera/cluster/block_sparse_ranges.hpp>
#include <tessera/genred/options.hpp>  // Axis: which direction of a pattern a reduction walks

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

namespace tessera_test {

struct HostPattern {
  int m = 0, n = 0;
  std::vector<int> segments;  // (Q, 2) row-major
  std::vector<int> slices;    // (Q)
  std::vector<int> ranges;    // (P, 2) row-major

  HostPattern(int m_, int n_) : m(m_), n(n_) {}

  /// Appends the segment [previous end, end) reducing over `inner` (sorted, disjoint).
  void add_segment(int end, const std::vector<std::pair<int, int>>& inner) {
    segments.push_back(segments.empty() ? 0 : segments.back());
    segments.push_back(end);
    for (const auto& r : inner) {
      ranges.push_back(r.first);
      ranges.push_back(r.second);
    }
    slices.push_back(static_cast<int>(ranges.size() / 2));
  }
  int segment_count() const { return static_cast<int>(slices.size()); }

  /// Whether the pattern keeps (i, j): a direct search, independent of the library.
  bool keeps(int i, int j) const {
    for (int q = 0; q < segment_count(); ++q) {
      if (i < segments[2 * q] || i >= segments[2 * q + 1]) continue;
      for (int l = q == 0 ? 0 : slices[q - 1]; l < slices[q]; ++l) {
        if (j >= ranges[2 * l] && j < ranges[2 * l + 1]) return true;
      }
    }
    return false;
  }

  /// Device Views of the triple: (Q, 2) ranges_i, (Q) slices_i, (P, 2) redranges_j.
  template <class Space>
  auto device_views() const {
    using Mem = typename Space::memory_space;
    Kokkos::View<int**, Kokkos::LayoutRight, Mem> ri("ranges_i", segment_count(), 2);
    Kokkos::View<int*, Mem> si("slices_i", segment_count());
    Kokkos::View<int**, Kokkos::LayoutRight, Mem> rj("redranges_j", ranges.size() / 2, 2);
    copy(segments, ri);
    copy(slices, si);
    copy(ranges, rj);
    return std::make_tuple(ri, si, rj);
  }

  template <class Space>
  tessera::BlockSparseRanges<typename Space::memory_space> to_device() const {
    const auto [ri, si, rj] = device_views<Space>();
    return tessera::make_block_sparse_ranges(Space(), m, n, ri, si, rj);
  }

 private:
  template <class View>
  static void copy(const std::vector<int>& data, const View& v) {
    auto h = Kokkos::create_mirror_view(v);
    for (std::size_t e = 0; e < data.size(); ++e)
      h.data()[e] = data[e];
    Kokkos::deep_copy(v, h);
  }
};

/// One direction of a device pattern on the host: the triple (Axis::j) or its transpose
/// (Axis::i, a pattern over the N-by-M plane).
template <class Ranges>
HostPattern host_pattern(const Ranges& r, tessera::Axis axis) {
  auto ints = [](const auto& v) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    return std::vector<int>(h.data(), h.data() + h.size());
  };
  const bool rows = axis == tessera::Axis::j;
  HostPattern p(rows ? r.m() : r.n(), rows ? r.n() : r.m());
  p.segments = ints(rows ? r.ranges_i() : r.ranges_j());
  p.slices   = ints(rows ? r.slices_i() : r.slices_j());
  p.ranges   = ints(rows ? r.redranges_j() : r.redranges_i());
  return p;
}

/// A random pattern with about `segments` segments (some empty), each with 0 to 4 ranges
/// (some empty, some touching), starting and ending anywhere.
inline HostPattern random_pattern(int m, int n, int segments, unsigned seed) {
  std::mt19937 gen(seed);
  HostPattern p(m, n);
  std::vector<int> cuts;
  std::uniform_int_distribution<int> row(0, m);
  for (int s = 1; s < segments; ++s)
    cuts.push_back(row(gen));  // duplicates give empty segments
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(m);
  std::uniform_int_distribution<int> count(0, 4), col(0, n);
  for (int end : cuts) {
    std::vector<int> points(2 * count(gen));
    for (int& x : points)
      x = col(gen);
    std::sort(points.begin(), points.end());
    std::vector<std::pair<int, int>> inner;
    for (std::size_t t = 0; t + 1 < points.size(); t += 2)
      inner.push_back({points[t], points[t + 1]});
    p.add_segment(end, inner);
  }
  return p;
}

}  // namespace tessera_test
