// Distributed Genred (issue 24's targets): a Gaussian convolution a_i = sum_j exp(-|x_i - y_j|^2 /
// (2 sigma^2)) b_j, D = 3, float, M = N (40000 by default; TESSERA_BENCH_N overrides), the rows
// dealt evenly over the ranks, on Kokkos::DefaultExecutionSpace. Run under mpirun:
//
//   mpirun -np 2 build/perf/bench_mpi_genred
//
// Rows (every rank takes part in every row; an iteration's time is the slowest rank's):
//   - one_rank: rank 0 alone runs the whole problem (tessera::mpi::genred on MPI_COMM_SELF, the
//     single-rank call) while the other ranks wait without spinning: the baseline;
//   - ring, all_gather: tessera::mpi::genred on MPI_COMM_WORLD with that schedule;
//   - compute_only: each rank's share of the kernels alone (its rows against all N rows, one
//     tessera::genred call on data it already holds: no message, no merge);
//   - exchange_only: the ring's messages alone (P - 1 steps of sending the slice held to the
//     previous rank and receiving the next, the same bytes from the same kind of memory: the
//     space's, or pinned host memory where the ring stages device memory; no kernel, no copy).
// Counters: x_one_rank (the one_rank time over the row's), efficiency (x_one_rank / P, the
// parallel efficiency); on the distributed rows exposed_ms (the slowest rank's
// DistributedReport::exposed_exchange_seconds: waits for messages with no kernel running) and
// hidden (1 - exposed_ms / exchange_only's time, clamped to [0, 1]: the share of the messages'
// time hidden behind the kernels; a lower bound, as exposed_ms is an upper bound).
#include "ratio_reporter.hpp"

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/mpi/genred.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Space  = Kokkos::DefaultExecutionSpace;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Space::memory_space>;

constexpr double sigma = 0.1;
const tessera::GaussianKernel<3, 1> kernel(sigma);

int problem_size() {
  const char* n = std::getenv("TESSERA_BENCH_N");
  return n ? std::atoi(n) : 40000;
}

struct Problem {
  int n, rank, size;
  int first, rows;  // this rank's slice of the i-rows and of the j-rows (the same deal)
  Points x, y, b;   // the whole problem, on every rank
  Points x_mine, y_mine, b_mine, out_mine, out_all;
  Problem(int n_, int rank_, int size_) : n(n_), rank(rank_), size(size_) {
    first   = static_cast<int>(static_cast<long>(n) * rank / size);
    rows    = static_cast<int>(static_cast<long>(n) * (rank + 1) / size) - first;
    x       = Points("x", n, 3);
    y       = Points("y", n, 3);
    b       = Points("b", n, 1);
    auto hx = Kokkos::create_mirror_view(x), hy = Kokkos::create_mirror_view(y),
         hb = Kokkos::create_mirror_view(b);
    std::mt19937 rng(12345);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) {
        hx(i, k) = u(rng);
        hy(i, k) = u(rng);
      }
      hb(i, 0) = u(rng);
    }
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(y, hy);
    Kokkos::deep_copy(b, hb);
    const auto mine = std::make_pair(first, first + rows);
    x_mine          = Points("x_mine", rows, 3);
    y_mine          = Points("y_mine", rows, 3);
    b_mine          = Points("b_mine", rows, 1);
    out_mine        = Points("out_mine", rows, 1);
    out_all         = Points("out_all", n, 1);
    Kokkos::deep_copy(x_mine, Kokkos::subview(x, mine, Kokkos::ALL()));
    Kokkos::deep_copy(y_mine, Kokkos::subview(y, mine, Kokkos::ALL()));
    Kokkos::deep_copy(b_mine, Kokkos::subview(b, mine, Kokkos::ALL()));
  }
};

Problem* shared = nullptr;  // owned by main(), destroyed before Kokkos finalizes

/// Runs work() on every rank between barriers; the iteration's time is the slowest rank's.
template <class Work>
void timed(benchmark::State& state, Work&& work) {
  for (auto _ : state) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    work();
    Kokkos::fence();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    state.SetIterationTime(seconds);
  }
  state.counters["pairs_per_s"] = benchmark::Counter(
      static_cast<double>(shared->n) * shared->n * state.iterations(), benchmark::Counter::kIsRate);
}

/// Waits for the other ranks without spinning a core (idle ranks must not slow rank 0's work
/// on a machine whose cores share a physical core).
void wait_quietly() {
  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  int done = 0;
  while (!done) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
}

void one_rank(benchmark::State& state) {
  Problem& p = *shared;
  timed(state, [&] {
    if (p.rank == 0) {
      tessera::mpi::genred(MPI_COMM_SELF, Space(), tessera::Sum{}, kernel, tessera::i_vars(p.x),
                           tessera::j_vars(p.y, p.b), p.out_all);
      Kokkos::fence();
    }
    wait_quietly();
  });
}

void distributed(benchmark::State& state, tessera::mpi::Schedule schedule) {
  Problem& p = *shared;
  tessera::mpi::DistributedOptions options;
  options.schedule = schedule;
  double exposed   = 0;  // the slowest rank's exposed waits, summed over the iterations
  timed(state, [&] {
    const tessera::mpi::DistributedReport report = tessera::mpi::genred(
        MPI_COMM_WORLD, Space(), tessera::Sum{}, kernel, tessera::i_vars(p.x_mine),
        tessera::j_vars(p.y_mine, p.b_mine), p.out_mine, options);
    double e = report.exposed_exchange_seconds;
    MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    exposed += e;
  });
  state.counters["exposed_ms"] = 1e3 * exposed / static_cast<double>(state.iterations());
}

void compute_only(benchmark::State& state) {
  Problem& p = *shared;
  timed(state, [&] {
    tessera::genred(Space(), tessera::Sum{}, kernel, tessera::i_vars(p.x_mine),
                    tessera::j_vars(p.y, p.b), p.out_mine);
  });
}

void exchange_only(benchmark::State& state) {
  Problem& p = *shared;
  // The ring's slices: rows x (3 + 1) floats, in the memory the ring hands to MPI (the space's,
  // or pinned host memory when device memory is staged).
  const int most          = (p.n + p.size - 1) / p.size;
  const std::size_t count = std::size_t(most) * 4;
  using Device            = Kokkos::View<float*, Space::memory_space>;
  using Pinned            = Kokkos::View<float*, tessera::Impl::PinnedHostSpace>;
  const bool staged =
      !Kokkos::SpaceAccessibility<Kokkos::HostSpace, Space::memory_space>::accessible &&
      !tessera::mpi::gpu_aware_mpi();
  Device device[2];
  Pinned pinned[2];
  float* slice[2];
  for (int b = 0; b < 2; ++b) {
    if (staged) {
      pinned[b] = Pinned("slice", count);
      slice[b]  = pinned[b].data();
    } else {
      device[b] = Device("slice", count);
      slice[b]  = device[b].data();
    }
  }
  timed(state, [&] {
    for (int s = 0; s + 1 < p.size; ++s) {
      MPI_Request requests[2];
      MPI_Irecv(slice[(s + 1) % 2], most * 4, MPI_FLOAT, (p.rank + 1) % p.size, 1, MPI_COMM_WORLD,
                &requests[0]);
      MPI_Isend(slice[s % 2], most * 4, MPI_FLOAT, (p.rank + p.size - 1) % p.size, 1,
                MPI_COMM_WORLD, &requests[1]);
      MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    }
  });
}

class MpiRatios : public tessera_bench::RatioReporter {
 public:
  explicit MpiRatios(int size) : size_(size) {}

 private:
  void add_ratios(Run& r, const std::string& name) override {
    const std::string prefix = name.substr(0, name.rfind('/'));
    const std::string way    = name.substr(name.rfind('/') + 1);
    const double t           = time(name);
    const double x           = time(prefix + "/one_rank") / t;
    if (way == "one_rank" || way == "exchange_only") return;
    r.counters["x_one_rank"] = x;
    r.counters["efficiency"] = x / size_;
    if (way == "ring" || way == "all_gather") {
      const double exchange = time(prefix + "/exchange_only");  // ms
      r.counters["hidden"]  = std::clamp(1.0 - r.counters["exposed_ms"] / exchange, 0.0, 1.0);
    }
  }
  int size_;
};

/// Reports nothing (ranks other than 0).
class Silent : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  {
    Kokkos::ScopeGuard guard(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::AddCustomContext("gpu_aware_mpi", tessera::mpi::gpu_aware_mpi() ? "yes" : "no");
    Problem data(problem_size(), rank, size);
    shared = &data;
    const std::string at =
        "gaussian/n:" + std::to_string(data.n) + "/ranks:" + std::to_string(size) + "/";
    const auto add = [&](const std::string& way, auto body) {
      benchmark::RegisterBenchmark((at + way).c_str(), body)
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(3);
    };
    // exchange_only and compute_only before ring, whose counters read them
    add("one_rank", one_rank);
    add("exchange_only", exchange_only);
    add("compute_only", compute_only);
    add("ring", [](benchmark::State& s) { distributed(s, tessera::mpi::Schedule::ring); });
    add("all_gather",
        [](benchmark::State& s) { distributed(s, tessera::mpi::Schedule::all_gather); });
    if (rank == 0) {
      MpiRatios reporter(size);
      benchmark::RunSpecifiedBenchmarks(&reporter);
    } else {
      Silent silent;
      benchmark::RunSpecifiedBenchmarks(&silent);
    }
    benchmark::Shutdown();
  }
  MPI_Finalize();
  return 0;
}
