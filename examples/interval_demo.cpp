// The interval primitives on moderngpu's two demonstrations (tests/demo.cu), printed in its
// format: IntervalExpand of 20 Fibonacci values, and IntervalMove of 20 variable-length copies
// out of a counting sequence; also the scan and the load-balancing search behind them. It takes
// no options but --help and Kokkos' (example_options.hpp).
#include "example_options.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Ints  = Kokkos::View<int*, Space::memory_space>;

/// moderngpu's PrintArray: rows of 10 values, each row led by its first index.
void print_array(const char* title, const Ints& device) {
  const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), device);
  std::printf("%s:\n", title);
  for (std::size_t i = 0; i < host.extent(0); ++i) {
    if (i % 10 == 0) std::printf("%s%5d: ", i == 0 ? "" : "\n", static_cast<int>(i));
    std::printf(" %4d", host(i));
  }
  std::printf("\n\n");
}

Ints to_device(const std::vector<int>& host) {
  Ints v("v", host.size());
  Kokkos::deep_copy(v, Kokkos::View<const int*, Kokkos::HostSpace>(host.data(), host.size()));
  return v;
}

void demo_interval_expand() {
  std::printf("INTERVAL-EXPAND DEMONSTRATION:\n\n");
  const Ints counts = to_device({2, 5, 7, 16, 0, 1, 0, 0, 14, 10, 3, 14, 2, 1, 11, 2, 1, 0, 5, 6});
  const Ints values = to_device(
      {1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597, 2584, 4181, 6765});
  print_array("Expand counts", counts);
  print_array("Expand values", values);
  const Space space;
  Ints offsets("offsets", counts.extent(0));
  const std::int64_t total = tessera::exclusive_scan(space, counts, offsets);
  print_array("Scan of expand counts", offsets);
  Ints data("data", total), owner("owner", total);
  tessera::load_balancing_search(space, total, offsets, owner);
  print_array("Load-balancing search", owner);
  tessera::interval_expand(space, total, offsets, values, data);
  print_array("Expanded data", data);
}

void demo_interval_move() {
  std::printf("INTERVAL-MOVE DEMONSTRATION:\n\n");
  const Ints counts = to_device({3, 9, 1, 9, 8, 5, 10, 2, 5, 2, 8, 6, 5, 2, 4, 0, 8, 2, 5, 6});
  const Ints gather =
      to_device({75, 86, 17, 2, 67, 24, 37, 11, 95, 35, 52, 18, 47, 0, 13, 75, 78, 60, 62, 29});
  const Ints scatter =
      to_device({10, 80, 99, 27, 41, 71, 15, 0, 36, 13, 89, 49, 66, 97, 76, 76, 2, 25, 61, 55});
  print_array("Interval counts", counts);
  print_array("Interval gather", gather);
  print_array("Interval scatter", scatter);
  const Space space;
  Ints offsets("offsets", counts.extent(0));
  const std::int64_t total = tessera::exclusive_scan(space, counts, offsets);
  Ints data("data", total);
  tessera::IntervalOptions options;
  options.check_overlap = true;  // 20 intervals: the sort costs nothing here
  tessera::interval_move(space, total, gather, scatter, offsets, tessera::counting_sequence(0),
                         data, options);
  print_array("Moved data", data);
}

}  // namespace

int main(int argc, char** argv) {
  examples::CommandLine command_line(
      "interval_demo",
      "moderngpu's IntervalExpand and IntervalMove demonstrations (20 intervals each), printed\n"
      "in its format with the scan and the load-balancing search behind them.\n");
  return examples::run_example(command_line, argc, argv, [] {
    demo_interval_expand();
    demo_interval_move();
    return 0;
  });
}
