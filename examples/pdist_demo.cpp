// pdist of random piecewise constant functions, streamed to a condensed .npy file, with a
// progress bar and a timing summary:
//
//   pdist_demo [--n N] [--points K] [--budget-mb MB] [--out PATH]
//
// N functions (default 1000) of K/2 to K breakpoints (default 100) at exponentially spaced
// times, values in [-1, 1), each ending at 0; their L1 distances go to PATH (default
// pdist.npy), n (n - 1) / 2 float32 values that numpy.load reads and
// scipy.spatial.distance.squareform expands. --budget-mb limits the engine's device memory
// (smaller: more, smaller blocks). The demo then reads the file back and checks its first rows
// against a cdist of those functions computed into memory. The default takes about a second on
// a 2-core CPU; on a GPU try --n 100000 (5e9 distances, 20 GB). --help lists the options; a bad
// option or value exits with status 2 (example_options.hpp).
#include "example_options.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>

namespace {

struct Args {
  std::size_t n = 1000, points = 100, budget_mb = 0;
  std::string out = "pdist.npy";
};

/// n random PCFs in host memory (see the file comment).
tessera::PcfCollection<float> random_functions(std::size_t n, std::size_t max_points) {
  std::mt19937_64 gen(2024);
  std::uniform_int_distribution<std::size_t> length(max_points / 2, max_points);
  std::exponential_distribution<double> gap(1.0);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Kokkos::View<std::size_t*, Kokkos::HostSpace> offsets("offsets", n + 1);
  for (std::size_t f = 0; f < n; ++f)
    offsets(f + 1) = offsets(f) + length(gen);
  Kokkos::View<float* [2], Kokkos::LayoutRight, Kokkos::HostSpace> bp("breakpoints", offsets(n));
  for (std::size_t f = 0; f < n; ++f) {
    double t = 0;
    for (std::size_t k = offsets(f); k < offsets(f + 1); ++k) {
      bp(k, 0) = static_cast<float>(t);
      bp(k, 1) = k + 1 < offsets(f + 1) ? static_cast<float>(value(gen)) : 0.0f;
      t += 0.01 + gap(gen);  // distinct float times
    }
  }
  return {offsets, bp};
}

/// A 50-character bar on stderr, redrawn in place.
void draw_progress(const tessera::PairwiseProgress& p) {
  const double done = p.blocks_total ? double(p.blocks_done) / double(p.blocks_total) : 1.0;
  const int filled  = static_cast<int>(50 * done);
  std::fprintf(stderr, "\r[%.*s%*s] %3d%%  block %zu/%zu  %.1f/%.1f MB", filled,
               "##################################################", 50 - filled, "",
               static_cast<int>(100 * done), p.blocks_done, p.blocks_total, p.bytes_written / 1e6,
               p.bytes_total / 1e6);
  if (p.blocks_done == p.blocks_total) std::fprintf(stderr, "\n");
}

/// Rows [0, rows) of the condensed file (scipy's order: pair i < j at n i - i (i + 1) / 2 +
/// j - i - 1) against cdist(X[0, rows), X) in memory; returns the number of values off by more
/// than float rounding.
std::size_t check_file(const tessera::PcfCollection<float>& X, const std::string& path,
                       std::size_t rows) {
  const auto file     = tessera::read_npy<float>(path);
  const std::size_t n = X.size();
  if (file.shape.size() != 1 || file.shape[0] != n * (n - (n > 0)) / 2) {
    std::fprintf(stderr, "%s has the wrong shape\n", path.c_str());
    return 1;
  }
  const std::size_t head_points = X.offsets()(rows);
  const tessera::PcfCollection<float> head(
      Kokkos::subview(X.offsets(), std::make_pair(std::size_t(0), rows + 1)),
      Kokkos::subview(X.breakpoints(), std::make_pair(std::size_t(0), head_points), Kokkos::ALL));
  Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> direct("direct", rows, n);
  tessera::cdist(tessera::PcfL1{}, head, X, direct);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = i + 1; j < n; ++j) {
      const float got = file.values(n * i - i * (i + 1) / 2 + j - i - 1), want = direct(i, j);
      if (!(std::abs(got - want) <= 1e-5f * (1 + std::abs(want)))) ++bad;
    }
  }
  return bad;
}

/// The demo of the file comment; returns the exit status.
int run(const Args& args) {
  const auto X = random_functions(args.n, args.points);
  std::printf("pdist of %zu PCFs (%zu breakpoints) on %s -> %s\n", args.n,
              static_cast<std::size_t>(X.breakpoints().extent(0)),
              Kokkos::DefaultExecutionSpace::name(), args.out.c_str());

  tessera::PairwiseOptions options;
  options.budget_bytes = args.budget_mb << 20;
  options.progress     = draw_progress;
  const tessera::PairwiseReport r =
      tessera::pdist(tessera::PcfL1{}, X, tessera::NpyFile{args.out}, options);

  std::printf("%zu distances in %zu blocks of side %zu: %.3f s, %.3g pairs/s\n", r.pairs, r.blocks,
              r.block_side, r.seconds, r.seconds > 0 ? r.pairs / r.seconds : 0.0);
  std::printf("  kernels %.3f s, uploads %.3f s, downloads %.3f s, file writes %.3f s%s\n",
              r.kernel_seconds, r.upload_seconds, r.download_seconds, r.write_seconds,
              r.timings_measured ? "" : " (device timers not available)");
  std::printf("  overlap %.2f (sum of the parts over the wall time; 1: none)\n", r.overlap());

  const std::size_t bad = check_file(X, args.out, std::min<std::size_t>(args.n, 64));
  std::printf("read back %s: %s\n", args.out.c_str(), bad == 0 ? "ok" : "MISMATCH");
  return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  examples::CommandLine command_line(
      "pdist_demo",
      "The L1 distances of N random piecewise constant functions, streamed to a condensed\n"
      ".npy file (N (N - 1) / 2 float32 values) with a progress bar and a timing summary;\n"
      "the file is then read back and its first rows checked against a cdist in memory.\n");
  // The bounds keep every size in 64 bits (N (N - 1) / 2 distances, N K breakpoints, MB << 20)
  // and the breakpoint times distinct in float (below 2^17, where floats are 2^-7 apart).
  command_line.count("--n", "N", args.n, 1, 1000000000, "number of functions");
  command_line.count("--points", "K", args.points, 2, 100000,
                     "most breakpoints per function (each has K/2 to K)");
  command_line.count("--budget-mb", "MB", args.budget_mb, 0, 1000000000,
                     "the engine's device memory budget in MiB (0: its own choice)");
  command_line.text("--out", "PATH", args.out, "the .npy file written");
  return examples::run_example(command_line, argc, argv, [&args] { return run(args); });
}
