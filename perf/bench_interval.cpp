// Benchmarks of the interval primitives on 2^27 int32 items (2^22 on host backends), for
// counts uniform in [0, 2m] with mean m = 4, 32, 256, 4096 and power-law counts (Pareto,
// exponent 1.5, mean about 32, capped at 2^20). The moves permute the intervals: input and
// output both hold them packed, each in its own random order (gather and scatter are the two
// packings), so that every interval is read from and written to an unrelated place.
// Rows (all in one process, on the same data):
//   <case>/device_copy            Kokkos::deep_copy of the same 2^27 items (the bandwidth ceiling)
//   <case>/interval_move          tessera::interval_move, IntervalOptions::check off, with a
//                                 tessera::Workspace (as cub's temporary storage, allocated
//                                 outside the timing; so are those of gather and expand), the
//                                 default IntervalOrder (automatic: on GPUs by destination
//                                 for the cases of mean 32, 256 and the power law)
//   <case>/interval_move_given    the same with IntervalOrder::given (intervals in index order)
//   <case>/interval_move_by_destination
//                                 the same with IntervalOrder::by_destination
//   <case>/interval_move_checked  the plain call: default checks (one pass over the intervals
//                                 and a fence) and no workspace (its memory allocated and freed
//                                 in the call)
//   <case>/interval_gather        tessera::interval_gather of the same sources, packed in order
//                                 into the output (random reads, sequential writes), check off
//   <case>/interval_scatter       tessera::interval_scatter of the items packed in order in the
//                                 input to the moves' destinations (sequential reads, random
//                                 writes), check off
//   <case>/cub_batched_copy       cub::DeviceCopy::Batched on the same moves (CUDA builds only;
//                                 pointer and size arrays built outside the timing)
//   <case>/naive_move             a Kokkos RangePolicy kernel, one thread per item, binary
//                                 search of all offsets in global memory
//   <case>/team_per_interval      one 32-thread team per interval copying it (no search; what
//                                 the memory system gives for this access pattern when the
//                                 counts are similar, unbalanced otherwise)
//   <case>/block_permutation      the same 2^27 items moved as aligned blocks of the case's
//                                 mean count (4 items at mean 4, 32 for the power law), each
//                                 from a pseudo-random block to another, with 16-byte loads and
//                                 stores and no metadata: what the memory system gives for
//                                 pieces of this size between unrelated places, without search,
//                                 variable sizes or misaligned ends (a bound for the moves)
//   <case>/block_permutation_misaligned
//                                 the same blocks 1 item later at the source and 2 at the
//                                 destination, 4 bytes per thread: their ends cut 32-byte
//                                 sectors, as the intervals' do
//   <case>/block_permutation_misaligned_wide
//                                 the misaligned blocks with 16-byte stores on the
//                                 destination's grid, each from two aligned 16-byte loads
//   <case>/interval_expand        tessera::interval_expand of n int32 values, check off
//   <case>/naive_expand           the same with the naive search
//   <case>/interval_move/tile_TxE, <case>/interval_expand/tile_TxE
//                                 the same two rows with IntervalOptions::tile = {T, E} (T
//                                 threads per team, E merge-path entries per team)
// Counters: GB_per_s = (items read + items written) * 4 bytes / s, the data only, as for the
// device copy; GB_per_s_all adds the interval metadata the call must read (offsets, gather,
// scatter or values: 4 bytes each per interval); x_copy, x_cub, x_naive, x_blocks: this row's
// time ratios against those rows of the same case (> 1: this row is faster).
#include <tessera.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
#include <cub/device/device_copy.cuh>
#define TESSERA_BENCH_CUB 1
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using Space   = Kokkos::DefaultExecutionSpace;
using Mem     = Space::memory_space;
using Indices = Kokkos::View<int*, Mem>;

constexpr bool on_device = tessera::Impl::is_device_space<Space>;
const int items          = on_device ? 1 << 27 : 1 << 22;
/// Tiles (IntervalOptions::tile) measured besides the default, for interval_move and
/// interval_expand.
const std::vector<tessera::IntervalTile> other_tiles =
    on_device
        ? std::vector<tessera::IntervalTile>{{128, 1024}, {128, 2048}, {256, 1024}, {512, 2048}}
        : std::vector<tessera::IntervalTile>{{1, 1024}, {1, 16384}};
const std::vector<std::string> case_names = {"uniform_mean4", "uniform_mean32", "uniform_mean256",
                                             "uniform_mean4096", "power_law_mean32"};

/// Counts of the named distribution summing to exactly `items`.
std::vector<int> make_counts(const std::string& name) {
  std::mt19937_64 gen(2026);
  std::vector<int> counts;
  std::int64_t sum = 0;
  const bool power = name.rfind("power_law", 0) == 0;
  const int mean   = power ? 32 : std::stoi(name.substr(name.find("mean") + 4));
  std::uniform_real_distribution<double> unit(1e-12, 1.0);
  while (sum < items) {
    // Pareto with exponent 1.5 has mean 3 * x_min: x_min = mean / 3
    int c = power ? static_cast<int>(
                        std::min(std::pow(2.0, 20), (mean / 3.0) * std::pow(unit(gen), -1 / 1.5)))
                  : std::uniform_int_distribution<int>(0, 2 * mean)(gen);
    c     = static_cast<int>(std::min<std::int64_t>(c, items - sum));
    counts.push_back(c);
    sum += c;
  }
  return counts;
}

Indices to_device(const char* label, const std::vector<int>& host) {
  Indices v(std::string(label), host.size());
  Kokkos::deep_copy(v, Kokkos::View<const int*, Kokkos::HostSpace>(host.data(), host.size()));
  return v;
}

/// The starts of the intervals packed in a random order.
std::vector<int> shuffled_packing(const std::vector<int>& counts, unsigned seed) {
  std::vector<int> order(counts.size()), start(counts.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  int pos = 0;
  for (const int k : order) {
    start[k] = pos;
    pos += counts[k];
  }
  return start;
}

struct Case {
  std::int64_t n = 0, total = 0;
  Indices offsets, gather, scatter, input, output;
};

/// The workspace of the tessera rows (like cub's temporary storage, allocated outside the
/// timing); first called inside the Kokkos scope, which releases it.
tessera::Workspace& workspace() {
  static auto* w = [] {
    auto* p = new tessera::Workspace();
    Kokkos::push_finalize_hook([p] { p->release(); });
    return p;
  }();
  return *w;
}

/// The resident case; first called inside the Kokkos scope, which releases it.
std::map<std::string, Case>& cases() {
  static std::map<std::string, Case>* all = [] {
    auto* m = new std::map<std::string, Case>();
    Kokkos::push_finalize_hook([m] { m->clear(); });
    return m;
  }();
  return *all;
}

Case& get_case(const std::string& name) {
  auto it = cases().find(name);
  if (it != cases().end()) return it->second;
  cases().clear();  // one case resident at a time
  const std::vector<int> counts = make_counts(name);
  Case c;
  c.n       = static_cast<std::int64_t>(counts.size());
  c.offsets = Indices("offsets", c.n);
  c.total   = tessera::exclusive_scan(Space(), to_device("counts", counts), c.offsets);
  c.gather  = to_device("gather", shuffled_packing(counts, 1));
  c.scatter = to_device("scatter", shuffled_packing(counts, 2));
  c.input   = Indices("input", c.total);
  c.output  = Indices("output", c.total);
  Kokkos::parallel_for(
      "bench::fill_input", Kokkos::RangePolicy<Space>(0, c.total),
      KOKKOS_LAMBDA(int i) { c.input(i) = static_cast<int>(i * 2654435761u); });
  Kokkos::fence();
  return cases()[name] = c;
}

// ---------------------------------------------------------------- baselines
/// The owner of item i by a binary search of all offsets (global memory).
KOKKOS_INLINE_FUNCTION int naive_owner(const Indices& offsets, int i) {
  return tessera::Impl::upper_bound(offsets.data(), static_cast<int>(offsets.extent(0)), i) - 1;
}

void naive_move(const Case& c) {
  const Case d = c;
  Kokkos::parallel_for(
      "bench::naive_move", Kokkos::RangePolicy<Space>(0, d.total), KOKKOS_LAMBDA(int i) {
        const int k                               = naive_owner(d.offsets, i);
        d.output(d.scatter(k) + i - d.offsets(k)) = d.input(d.gather(k) + i - d.offsets(k));
      });
}

/// One 32-thread team per interval (one thread on host backends): every interval a run of
/// coalesced loads and stores, no search at all. Balanced only when the counts are similar; for
/// those it shows what the memory system gives for this access pattern.
void team_per_interval(const Case& c) {
  const Case d = c;
  using Policy = Kokkos::TeamPolicy<Space>;
  Kokkos::parallel_for(
      "bench::team_per_interval", Policy(static_cast<int>(d.n), on_device ? 32 : 1),
      KOKKOS_LAMBDA(const Policy::member_type& team) {
        const int k = team.league_rank();
        const int count =
            (k + 1 < d.n ? d.offsets(k + 1) : static_cast<int>(d.total)) - d.offsets(k);
        const int* src = d.input.data() + d.gather(k);
        int* dst       = d.output.data() + d.scatter(k);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, count), [&](int r) { dst[r] = src[r]; });
      });
}

/// log2 of the items per block of block_permutation: the case's mean count rounded to a power
/// of two, at least 4 (one 16-byte vector).
int block_log2(const Case& c) {
  int lb = 2;
  while ((2 << lb) <= static_cast<double>(c.total) / static_cast<double>(c.n) * 1.5)
    ++lb;
  return lb;
}

/// The block that block j of a permutation of 2^k blocks (mask = 2^k - 1) moves from or to:
/// an odd multiplier scatters neighbours.
KOKKOS_INLINE_FUNCTION unsigned source_block(unsigned j, unsigned mask) {
  return (j * 0x9E3779B1u) & mask;
}
KOKKOS_INLINE_FUNCTION unsigned destination_block(unsigned j, unsigned mask) {
  return (j * 0x85EBCA77u + 1) & mask;
}

/// How block_permutation lays its blocks out and moves them.
enum class Blocks {
  aligned,          ///< blocks on the 16-byte grid, 16-byte loads and stores
  misaligned,       ///< each block 1 item later at the source and 2 at the destination, 4-byte
                    ///< loads and stores
  misaligned_wide,  ///< the same blocks, 16-byte stores on the destination's grid, each from two
                    ///< aligned 16-byte loads (items at the blocks' ends one by one)
};

/// Moves the total / B blocks of B = 2^block_log2 items of the input to the output, block j
/// from source_block(j) to destination_block(j) (total is a power of two; misaligned blocks
/// that pass the end wrap to the start). Misaligned blocks cut 32-byte sectors at both ends, as
/// the intervals do.
void block_permutation(const Case& c, Blocks layout) {
  using tessera::Impl::Bytes16;
  const int lb        = block_log2(c);
  const auto items    = static_cast<unsigned>(c.total);
  const unsigned all  = items - 1;
  const unsigned mask = (items >> lb) - 1;
  const Indices input = c.input, output = c.output;
  const Bytes16* source = reinterpret_cast<const Bytes16*>(c.input.data());
  Bytes16* destination  = reinterpret_cast<Bytes16*>(c.output.data());
  if (layout == Blocks::misaligned) {  // one item per thread
    const unsigned in_block = (1u << lb) - 1;
    Kokkos::parallel_for(
        "bench::block_permutation_misaligned", Kokkos::RangePolicy<Space>(0, items),
        KOKKOS_LAMBDA(int i) {
          const unsigned j = static_cast<unsigned>(i) >> lb, r = i & in_block;
          output(((destination_block(j, mask) << lb) + r + 2) & all) =
              input(((source_block(j, mask) << lb) + r + 1) & all);
        });
  } else if (layout == Blocks::aligned) {  // one vector per thread, blocks of 2^(lb - 2)
    const int lv            = lb - 2;
    const unsigned in_block = (1u << lv) - 1;
    Kokkos::parallel_for(
        "bench::block_permutation", Kokkos::RangePolicy<Space>(0, items / 4), KOKKOS_LAMBDA(int v) {
          const unsigned j = static_cast<unsigned>(v) >> lv, r = v & in_block;
          destination[(destination_block(j, mask) << lv) | r] =
              source[(source_block(j, mask) << lv) | r];
        });
  } else {  // one output vector per thread: B / 4 + 1 per block, the first and last partial
    const unsigned per = (1u << (lb - 2)) + 1, size = 1u << lb;
    Kokkos::parallel_for(
        "bench::block_permutation_misaligned_wide",
        Kokkos::RangePolicy<Space>(0, (items >> lb) * per), KOKKOS_LAMBDA(int t) {
          const unsigned j = static_cast<unsigned>(t) / per, k = static_cast<unsigned>(t) % per;
          const unsigned to   = (destination_block(j, mask) << lb) + 2;
          const unsigned from = (source_block(j, mask) << lb) + 1;
          const unsigned e0   = (to / 4 + k) * 4;      // the vector's first output item
          const unsigned f    = (e0 - to + from) / 4;  // its first source item is 4 f + 3
          if (k > 0 && k + 1 < per && 4 * f + 8 <= items) {
            std::uint32_t a[4], b[4];
            const Bytes16 va = source[f], vb = source[f + 1];
            std::memcpy(a, &va, 16);
            std::memcpy(b, &vb, 16);
            const std::uint32_t w[4] = {a[3], b[0], b[1], b[2]};
            Bytes16 x;
            std::memcpy(&x, w, 16);
            tessera::Impl::store_bytes16(destination + e0 / 4, x);
            return;
          }
          for (unsigned e = e0; e < e0 + 4; ++e) {
            if (e - to < size) output(e & all) = input((e - to + from) & all);
          }
        });
  }
}

void naive_expand(const Case& c) {
  const Case d = c;
  Kokkos::parallel_for(
      "bench::naive_expand", Kokkos::RangePolicy<Space>(0, d.total),
      KOKKOS_LAMBDA(int i) { d.output(i) = d.gather(naive_owner(d.offsets, i)); });
}

#ifdef TESSERA_BENCH_CUB
/// cub::DeviceCopy::Batched's arguments for one case: source and destination pointers, sizes.
struct CubState {
  Kokkos::View<std::uintptr_t*, Mem> sources, destinations;
  Kokkos::View<int*, Mem> sizes;
  Kokkos::View<char*, Mem> temp;
};

CubState& cub_state(const std::string& name, const Case& c) {
  static std::map<std::string, CubState>* all = [] {
    auto* m = new std::map<std::string, CubState>();
    Kokkos::push_finalize_hook([m] { m->clear(); });
    return m;
  }();
  auto it = all->find(name);
  if (it != all->end()) return it->second;
  all->clear();
  CubState s;
  s.sources        = Kokkos::View<std::uintptr_t*, Mem>("sources", c.n);
  s.destinations   = Kokkos::View<std::uintptr_t*, Mem>("destinations", c.n);
  s.sizes          = Kokkos::View<int*, Mem>("sizes", c.n);
  const CubState d = s;
  const Case cc    = c;
  Kokkos::parallel_for(
      "bench::cub_arguments", Kokkos::RangePolicy<Space>(0, c.n), KOKKOS_LAMBDA(int k) {
        d.sources(k)      = reinterpret_cast<std::uintptr_t>(cc.input.data() + cc.gather(k));
        d.destinations(k) = reinterpret_cast<std::uintptr_t>(cc.output.data() + cc.scatter(k));
        d.sizes(k) =
            (k + 1 < cc.n ? cc.offsets(k + 1) : static_cast<int>(cc.total)) - cc.offsets(k);
      });
  std::size_t bytes = 0;
  cub::DeviceCopy::Batched(nullptr, bytes, reinterpret_cast<const int* const*>(s.sources.data()),
                           reinterpret_cast<int* const*>(s.destinations.data()), s.sizes.data(),
                           static_cast<int>(c.n));
  s.temp = Kokkos::View<char*, Mem>("cub_temp", bytes);
  Kokkos::fence();
  return (*all)[name] = s;
}

void cub_batched(const std::string& name, const Case& c) {
  CubState& s       = cub_state(name, c);
  std::size_t bytes = s.temp.extent(0);
  cub::DeviceCopy::Batched(s.temp.data(), bytes,
                           reinterpret_cast<const int* const*>(s.sources.data()),
                           reinterpret_cast<int* const*>(s.destinations.data()), s.sizes.data(),
                           static_cast<int>(c.n), Space().cuda_stream());
}
#endif

// ---------------------------------------------------------------- rows
enum class Row {
  device_copy,
  interval_move,
  interval_move_given,
  interval_move_by_destination,
  interval_move_checked,
  interval_gather,
  interval_scatter,
  team_per_interval,
  block_permutation,
  block_permutation_misaligned,
  block_permutation_misaligned_wide,
  cub_batched_copy,
  naive_move,
  interval_expand,
  naive_expand
};

const char* row_name(Row r) {
  switch (r) {
    case Row::device_copy:
      return "device_copy";
    case Row::interval_move:
      return "interval_move";
    case Row::interval_move_given:
      return "interval_move_given";
    case Row::interval_move_by_destination:
      return "interval_move_by_destination";
    case Row::interval_move_checked:
      return "interval_move_checked";
    case Row::interval_gather:
      return "interval_gather";
    case Row::interval_scatter:
      return "interval_scatter";
    case Row::cub_batched_copy:
      return "cub_batched_copy";
    case Row::naive_move:
      return "naive_move";
    case Row::team_per_interval:
      return "team_per_interval";
    case Row::block_permutation:
      return "block_permutation";
    case Row::block_permutation_misaligned:
      return "block_permutation_misaligned";
    case Row::block_permutation_misaligned_wide:
      return "block_permutation_misaligned_wide";
    case Row::interval_expand:
      return "interval_expand";
    case Row::naive_expand:
      return "naive_expand";
  }
  return "";
}

void call(Row row, const std::string& name, const Case& c, const tessera::IntervalTile& tile) {
  tessera::IntervalOptions unchecked;
  unchecked.check                  = false;
  unchecked.tile                   = tile;
  unchecked.workspace              = &workspace();
  tessera::IntervalOptions ordered = unchecked;  // the two orders of the moves' kernel
  switch (row) {
    case Row::device_copy:
      Kokkos::deep_copy(Space(), c.output, c.input);
      break;
    case Row::interval_move:
      tessera::interval_move(Space(), c.total, c.gather, c.scatter, c.offsets, c.input, c.output,
                             unchecked);
      break;
    case Row::interval_move_given:
    case Row::interval_move_by_destination:
      ordered.order = row == Row::interval_move_given ? tessera::IntervalOrder::given
                                                      : tessera::IntervalOrder::by_destination;
      tessera::interval_move(Space(), c.total, c.gather, c.scatter, c.offsets, c.input, c.output,
                             ordered);
      break;
    case Row::interval_move_checked:
      tessera::interval_move(Space(), c.total, c.gather, c.scatter, c.offsets, c.input, c.output);
      break;
    case Row::interval_gather:
      tessera::interval_gather(Space(), c.total, c.gather, c.offsets, c.input, c.output, unchecked);
      break;
    case Row::interval_scatter:
      tessera::interval_scatter(Space(), c.total, c.scatter, c.offsets, c.input, c.output,
                                unchecked);
      break;
    case Row::cub_batched_copy:
#ifdef TESSERA_BENCH_CUB
      cub_batched(name, c);
#endif
      break;
    case Row::naive_move:
      naive_move(c);
      break;
    case Row::team_per_interval:
      team_per_interval(c);
      break;
    case Row::block_permutation:
      block_permutation(c, Blocks::aligned);
      break;
    case Row::block_permutation_misaligned:
      block_permutation(c, Blocks::misaligned);
      break;
    case Row::block_permutation_misaligned_wide:
      block_permutation(c, Blocks::misaligned_wide);
      break;
    case Row::interval_expand:
      tessera::interval_expand(Space(), c.total, c.offsets, c.gather, c.output, unchecked);
      break;
    case Row::naive_expand:
      naive_expand(c);
      break;
  }
}

std::map<std::string, double>& seconds_of() {
  static std::map<std::string, double> s;
  return s;
}

/// The row's name: the row, and the tile unless it is the default.
std::string row_label(Row row, const tessera::IntervalTile& tile) {
  if (tile.team_size == 0 && tile.items_per_team == 0) return row_name(row);
  return std::string(row_name(row)) + "/tile_" + std::to_string(tile.team_size) + "x" +
         std::to_string(tile.items_per_team);
}

void run(benchmark::State& state, const std::string& name, Row row,
         const tessera::IntervalTile& tile) {
  const Case& c = get_case(name);
  call(row, name, c, tile);  // warm-up
  Kokkos::fence();
  double sum = 0;
  for (auto _ : state) {
    Kokkos::Timer timer;
    call(row, name, c, tile);
    Kokkos::fence();
    const double t = timer.seconds();
    state.SetIterationTime(t);
    sum += t;
  }
  const double seconds                            = sum / static_cast<double>(state.iterations());
  seconds_of()[name + "/" + row_label(row, tile)] = seconds;
  const bool expand              = row == Row::interval_expand || row == Row::naive_expand;
  const double data              = expand ? 4.0 * (c.total + c.n) : 8.0 * c.total;
  const double metadata          = row == Row::device_copy ? 0 : (expand ? 4.0 : 12.0) * c.n;
  state.counters["GB_per_s"]     = data / seconds * 1e-9;
  state.counters["GB_per_s_all"] = (data + metadata) / seconds * 1e-9;
  state.counters["mean_count"]   = static_cast<double>(c.total) / static_cast<double>(c.n);
  for (Row other : {Row::device_copy, Row::cub_batched_copy, Row::naive_move,
                    Row::block_permutation, Row::naive_expand}) {
    const bool same_kind = (other == Row::naive_expand) == expand;  // moves vs expansions
    const auto it        = seconds_of().find(name + "/" + row_name(other));
    if (other != row && same_kind && it != seconds_of().end()) {
      const char* key     = other == Row::device_copy         ? "x_copy"
                            : other == Row::cub_batched_copy  ? "x_cub"
                            : other == Row::block_permutation ? "x_blocks"
                                                              : "x_naive";
      state.counters[key] = it->second / seconds;
    }
  }
}

const bool registered = [] {
  for (const std::string& name : case_names) {
    for (Row row :
         {Row::device_copy, Row::cub_batched_copy, Row::block_permutation,
          Row::block_permutation_misaligned, Row::block_permutation_misaligned_wide,
          Row::naive_move, Row::team_per_interval, Row::interval_move, Row::interval_move_given,
          Row::interval_move_by_destination, Row::interval_move_checked, Row::interval_gather,
          Row::interval_scatter, Row::naive_expand, Row::interval_expand}) {
#ifndef TESSERA_BENCH_CUB
      if (row == Row::cub_batched_copy) continue;
#endif
      benchmark::RegisterBenchmark((name + "/" + row_name(row)).c_str(),
                                   [name, row](benchmark::State& s) { run(s, name, row, {}); })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
    for (const tessera::IntervalTile& tile : other_tiles) {
      for (Row row : {Row::interval_move, Row::interval_expand}) {
        benchmark::RegisterBenchmark(
            (name + "/" + row_label(row, tile)).c_str(),
            [name, row, tile](benchmark::State& s) { run(s, name, row, tile); })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
  return true;
}();

}  // namespace
