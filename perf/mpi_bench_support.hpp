// What the MPI benchmarks share: an iteration timed on every rank (the slowest rank's time), a
// quiet wait for the ranks that sit out a row, a reporter for the ranks other than 0, and a
// main() that runs the registered rows under MPI and Kokkos.
#pragma once

#include "ratio_reporter.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace tessera_bench {

/// An integer from the environment, or `fallback`.
inline long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v ? std::atol(v) : fallback;
}

/// Iterations per row: TESSERA_BENCH_ITERATIONS, else 3.
inline int bench_iterations() {
  return static_cast<int>(env_long("TESSERA_BENCH_ITERATIONS", 3));
}

/// Runs work() on every rank between a barrier and a fence; returns the slowest rank's seconds.
template <class Work>
double timed_on_every_rank(Work&& work) {
  MPI_Barrier(MPI_COMM_WORLD);
  const auto t0 = std::chrono::steady_clock::now();
  work();
  Kokkos::fence();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return seconds;
}

/// Times every iteration of a row with timed_on_every_rank (manual time).
template <class Work>
void timed(benchmark::State& state, Work&& work) {
  for (auto _ : state)
    state.SetIterationTime(timed_on_every_rank(work));
}

/// Waits for the other ranks without spinning a core (idle ranks must not slow rank 0's work
/// on a machine whose cores share a physical core).
inline void wait_quietly() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  int done = 0;
  while (!done) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

/// Reports nothing (ranks other than 0).
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

/// The ratios of a scaling run on `size` ranks, for rows named <prefix>/<way> whose baseline is
/// <prefix>/one_rank (reported earlier): add_scaling() says which counters a row gets.
class ScalingRatios : public RatioReporter {
 public:
  explicit ScalingRatios(int size) : size_(size) {}

 protected:
  /// Adds counters to row r, <prefix>/<way>.
  virtual void add_scaling(Run& r, const std::string& prefix, const std::string& way) = 0;
  /// x_one_rank (the baseline's time over the row's) and efficiency: x_one_rank / P for a row
  /// of strong scaling (the baseline's problem on P ranks), x_one_rank for weak scaling (P times
  /// the baseline's problem on P ranks).
  void add_efficiency(Run& r, const std::string& prefix, const std::string& way, bool weak) {
    const double x           = time(prefix + "/one_rank") / time(prefix + "/" + way);
    r.counters["x_one_rank"] = x;
    r.counters["efficiency"] = weak ? x : x / size_;
  }

 private:
  void add_ratios(Run& r, const std::string& name) override {
    add_scaling(r, name.substr(0, name.rfind('/')), name.substr(name.rfind('/') + 1));
  }
  int size_;
};

/// Registers a row timed by hand, in milliseconds, run `iterations` times.
template <class Body>
void add_row(const std::string& name, Body&& body, int iterations = bench_iterations()) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<Body>(body))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(iterations);
}

/// main() of an MPI benchmark: MPI and Kokkos set up, then
/// run(rank, size) registers the rows, runs them (rank 0 reports with `Reporter`, built from
/// size) and may check results after them. Every rank runs every row.
template <class Reporter, class Run>
int mpi_bench_main(int argc, char** argv, Run&& run) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    Kokkos::ScopeGuard guard(argc, argv);
    benchmark::Initialize(&argc, argv);
    const auto run_rows = [&] {
      if (rank == 0) {
        Reporter reporter(size);
        benchmark::RunSpecifiedBenchmarks(&reporter);
      } else {
        Silent silent;
        benchmark::RunSpecifiedBenchmarks(&silent);
      }
    };
    run(rank, size, run_rows);
    benchmark::Shutdown();
  }
  MPI_Finalize();
  return 0;
}

}  // namespace tessera_bench
