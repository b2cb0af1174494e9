// Distributed Genred, strong and weak scaling over the ranks, float, points
// uniform in the unit cube, on Kokkos::DefaultExecutionSpace (one rank per GPU in production):
//   - gaussian: a_i = sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j, D = 3, M = N = n (40000 by
//     default; TESSERA_BENCH_N overrides);
//   - argkmin_k10: the 10 nearest j of each i (ArgKMin, K = 10, of |x_i - y_j|^2), D = 3,
//     M = N = n / 2.
// Run under mpirun:
//
//   mpirun -np 2 build/perf/bench_mpi_genred
//
// Rows, for each case, named <case>/n:<n>/ranks:<P>/<row> (every rank takes part in every row; an
// iteration's time is the slowest rank's; TESSERA_BENCH_ITERATIONS iterations, 3 by default):
//   - one_rank: rank 0 alone runs the whole problem (tessera::mpi::genred on MPI_COMM_SELF, the
//     single-rank call) while the other ranks wait without spinning: the baseline;
//   - ring, all_gather: strong scaling, tessera::mpi::genred on MPI_COMM_WORLD with that
//     schedule, the i- and j-rows dealt evenly over the ranks;
//   - compute_only: each rank's share of the kernels alone (its rows against all N rows, one
//     tessera::genred call on data it already holds: no message, no merge);
//   - exchange_only: the ring's messages alone (P - 1 steps of sending the slice held to the
//     previous rank and receiving the next, the same bytes from the same kind of memory: the
//     space's, or pinned host memory where the ring stages device memory; no kernel, no copy);
//   - weak_ring, weak_compute_only: weak scaling, each rank's problem that of one_rank (n i-rows
//     of its own against the whole n j-rows, dealt as above): M = P n, N = n.
// Counters: pairs_per_s; x_one_rank (the one_rank time over the row's) and efficiency (strong
// rows: x_one_rank / P; weak rows: x_one_rank, the one-rank time over the time of P times the
// work on P ranks); on the distributed rows exposed_ms (the slowest rank's
// DistributedReport::exposed_exchange_seconds: waits for messages with no kernel running) and
// hidden (1 - exposed_ms / exchange_only's time, clamped to [0, 1]: the share of the messages'
// time hidden behind the kernels; a lower bound, as exposed_ms is an upper bound).
//
// After the rows, every rank compares its rows of the ring's strong call with the same rows of
// the one-rank call (all of its rows; printed by rank 0): the largest relative difference of the
// Gaussian sums, and the indices of the 10 nearest that differ.
#include "mpi_bench_support.hpp"

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/mpi/genred.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using tessera_bench::timed;
using Space  = Kokkos::DefaultExecutionSpace;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Space::memory_space>;

/// The Gaussian convolution: weighted sums.
struct Gaussian {
  static constexpr const char* name = "gaussian";
  using Out                         = Points;
  static constexpr int cols         = 1;
  tessera::Sum reduction;
  tessera::GaussianKernel<3, 1> formula{0.1};
  auto j_vars(const Points& y, const Points& b) const { return tessera::j_vars(y, b); }
};

/// The 10 nearest neighbours: selections with indices.
struct Nearest {
  static constexpr const char* name = "argkmin_k10";
  using Out                         = Kokkos::View<int**, Kokkos::LayoutRight, Space::memory_space>;
  static constexpr int cols         = 10;
  tessera::ArgKMin reduction{cols};
  tessera::SquaredDistance<3> formula;
  auto j_vars(const Points& y, const Points&) const { return tessera::j_vars(y); }
};

/// `rows` random points of dim columns in the unit cube.
Points random_points(const char* label, int rows, int dim, unsigned seed) {
  Points v(std::string(label), rows, dim);
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (std::size_t e = 0; e < h.size(); ++e)
    h.data()[e] = u(rng);
  Kokkos::deep_copy(v, h);
  return v;
}

/// One case's problem on this rank: the whole problem (every rank builds it), its slices, and
/// the rank's own i-rows of the weak-scaling problem.
template <class Case>
struct Problem {
  Case c;
  int n, rank, size;
  int first, rows;  // this rank's slice of the i-rows and of the j-rows (the same deal)
  Points x, y, b;   // the whole problem
  Points x_mine, y_mine, b_mine, x_weak;
  typename Case::Out out_all, out_mine, out_weak;
  bool one_rank_ran = false, distributed_ran = false;

  Problem(int n_, int rank_, int size_) : n(n_), rank(rank_), size(size_) {
    first           = static_cast<int>(static_cast<long>(n) * rank / size);
    rows            = static_cast<int>(static_cast<long>(n) * (rank + 1) / size) - first;
    x               = random_points("x", n, 3, 1);
    y               = random_points("y", n, 3, 2);
    b               = random_points("b", n, 1, 3);
    x_weak          = random_points("x_weak", n, 3, 100 + rank);
    out_all         = typename Case::Out("out_all", rank == 0 ? n : 0, Case::cols);
    out_mine        = typename Case::Out("out_mine", rows, Case::cols);
    out_weak        = typename Case::Out("out_weak", n, Case::cols);
    const auto mine = std::make_pair(first, first + rows);
    x_mine          = Kokkos::subview(x, mine, Kokkos::ALL());
    y_mine          = Kokkos::subview(y, mine, Kokkos::ALL());
    b_mine          = Kokkos::subview(b, mine, Kokkos::ALL());
  }

  /// Pairs per iteration of a row.
  double pairs(bool weak) const { return double(n) * n * (weak ? size : 1); }
};

template <class Case>
void count_pairs(benchmark::State& state, const Problem<Case>& p, bool weak) {
  state.counters["pairs_per_s"] =
      benchmark::Counter(p.pairs(weak) * state.iterations(), benchmark::Counter::kIsRate);
}

template <class Case>
void one_rank(benchmark::State& state, Problem<Case>& p) {
  timed(state, [&] {
    if (p.rank == 0) {
      tessera::mpi::genred(MPI_COMM_SELF, Space(), p.c.reduction, p.c.formula, tessera::i_vars(p.x),
                           p.c.j_vars(p.y, p.b), p.out_all);
      Kokkos::fence();
    }
    tessera_bench::wait_quietly();
  });
  p.one_rank_ran = true;
  count_pairs(state, p, false);
}

template <class Case>
void distributed(benchmark::State& state, Problem<Case>& p, tessera::mpi::Schedule schedule,
                 bool weak) {
  tessera::mpi::DistributedOptions options;
  options.schedule = schedule;
  double exposed   = 0;  // the slowest rank's exposed waits, summed over the iterations
  timed(state, [&] {
    const tessera::mpi::DistributedReport report = tessera::mpi::genred(
        MPI_COMM_WORLD, Space(), p.c.reduction, p.c.formula,
        tessera::i_vars(weak ? p.x_weak : p.x_mine), p.c.j_vars(p.y_mine, p.b_mine),
        weak ? p.out_weak : p.out_mine, options);
    double e = report.exposed_exchange_seconds;
    MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    exposed += e;
  });
  if (!weak) p.distributed_ran = true;
  state.counters["exposed_ms"] = 1e3 * exposed / static_cast<double>(state.iterations());
  count_pairs(state, p, weak);
}

template <class Case>
void compute_only(benchmark::State& state, Problem<Case>& p, bool weak) {
  timed(state, [&] {
    tessera::genred(Space(), p.c.reduction, p.c.formula,
                    tessera::i_vars(weak ? p.x_weak : p.x_mine), p.c.j_vars(p.y, p.b),
                    weak ? p.out_weak : p.out_mine);
  });
  count_pairs(state, p, weak);
}

template <class Case>
void exchange_only(benchmark::State& state, Problem<Case>& p) {
  // The ring's slices: rows x (the j-variables' width) floats, in the memory the ring hands to
  // MPI (the space's, or pinned host memory when device memory is staged).
  const int width         = std::is_same_v<Case, Gaussian> ? 4 : 3;
  const int most          = (p.n + p.size - 1) / p.size;
  const std::size_t count = std::size_t(most) * width;
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
      MPI_Irecv(slice[(s + 1) % 2], static_cast<int>(count), MPI_FLOAT, (p.rank + 1) % p.size, 1,
                MPI_COMM_WORLD, &requests[0]);
      MPI_Isend(slice[s % 2], static_cast<int>(count), MPI_FLOAT, (p.rank + p.size - 1) % p.size, 1,
                MPI_COMM_WORLD, &requests[1]);
      MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    }
  });
}

/// Registers a case's rows: exchange_only and compute_only before the rows whose counters read
/// them, the ring after the all-gather (check_rows reads the last strong call's rows).
template <class Case>
void register_rows(Problem<Case>& p) {
  using tessera::mpi::Schedule;
  const std::string at = std::string(Case::name) + "/n:" + std::to_string(p.n) +
                         "/ranks:" + std::to_string(p.size) + "/";
  Problem<Case>* q = &p;
  tessera_bench::add_row(at + "one_rank", [q](benchmark::State& s) { one_rank(s, *q); });
  tessera_bench::add_row(at + "exchange_only", [q](benchmark::State& s) { exchange_only(s, *q); });
  tessera_bench::add_row(at + "compute_only",
                         [q](benchmark::State& s) { compute_only(s, *q, false); });
  tessera_bench::add_row(at + "all_gather", [q](benchmark::State& s) {
    distributed(s, *q, Schedule::all_gather, false);
  });
  tessera_bench::add_row(at + "ring",
                         [q](benchmark::State& s) { distributed(s, *q, Schedule::ring, false); });
  tessera_bench::add_row(at + "weak_compute_only",
                         [q](benchmark::State& s) { compute_only(s, *q, true); });
  tessera_bench::add_row(at + "weak_ring",
                         [q](benchmark::State& s) { distributed(s, *q, Schedule::ring, true); });
}

/// Compares every rank's rows of the last strong distributed call with the one-rank call's
/// (rank 0 broadcasts them) and prints, on rank 0, the largest relative difference (values) or
/// the count of differing indices.
template <class Case>
void check_rows(const Problem<Case>& p) {
  if (!p.one_rank_ran || !p.distributed_ran) return;
  using Value     = typename Case::Out::non_const_value_type;
  const auto all  = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.out_all);
  const auto mine = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.out_mine);
  std::vector<Value> whole(static_cast<std::size_t>(p.n) * Case::cols);
  if (p.rank == 0) std::copy(all.data(), all.data() + whole.size(), whole.begin());
  MPI_Bcast(whole.data(), static_cast<int>(whole.size()),
            std::is_same_v<Value, int> ? MPI_INT : MPI_FLOAT, 0, MPI_COMM_WORLD);
  double worst = 0;  // largest relative difference, or differing indices
  for (std::size_t e = 0; e < mine.size(); ++e) {
    const double got  = mine.data()[e],
                 want = whole[static_cast<std::size_t>(p.first) * Case::cols + e];
    if constexpr (std::is_same_v<Value, int>) {
      worst += got != want ? 1 : 0;
    } else {
      worst = std::max(worst, std::fabs(got - want) / std::max(std::fabs(want), 1e-30));
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, std::is_same_v<Value, int> ? MPI_SUM : MPI_MAX,
                MPI_COMM_WORLD);
  if (p.rank == 0) {
    std::printf("check %s n=%d on %d ranks against one rank, all %d rows: %s %g\n", Case::name, p.n,
                p.size, p.n,
                std::is_same_v<Value, int> ? "differing indices" : "largest relative difference",
                worst);
  }
}

class MpiRatios : public tessera_bench::ScalingRatios {
 public:
  using ScalingRatios::ScalingRatios;

 private:
  void add_scaling(Run& r, const std::string& prefix, const std::string& way) override {
    if (way == "one_rank" || way == "exchange_only") return;
    add_efficiency(r, prefix, way, way.rfind("weak_", 0) == 0);
    if (r.counters.count("exposed_ms")) {
      const double exchange = time(prefix + "/exchange_only");  // ms
      r.counters["hidden"]  = std::clamp(1.0 - r.counters["exposed_ms"] / exchange, 0.0, 1.0);
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  return tessera_bench::mpi_bench_main<MpiRatios>(argc, argv, [](int rank, int size, auto run) {
    benchmark::AddCustomContext("gpu_aware_mpi", tessera::mpi::gpu_aware_mpi() ? "yes" : "no");
    const int n = static_cast<int>(tessera_bench::env_long("TESSERA_BENCH_N", 40000));
    Problem<Gaussian> gaussian(n, rank, size);
    Problem<Nearest> nearest(n / 2, rank, size);
    register_rows(gaussian);
    register_rows(nearest);
    run();
    check_rows(gaussian);
    check_rows(nearest);
  });
}
