// Distributed pdist into one .npy file: tessera::mpi::pdist (L1, float) of n
// random PCFs of 100 breakpoints (TESSERA_BENCH_PCFS, 4000 by default), the condensed matrix
// (n (n - 1) / 2 floats) written with MPI-IO into a file in TESSERA_BENCH_DIR (/tmp by
// default), removed after each iteration. Every rank holds every function (same seed), in host
// memory. Run under mpirun:
//
//   mpirun -np 2 build/perf/bench_mpi_pdist
//
// Rows, named pdist/n:<n>/ranks:<P>/<row> (every rank takes part in every row; an iteration's
// time is the slowest rank's):
//   - one_rank: rank 0 alone (tessera::mpi::pdist on MPI_COMM_SELF) while the others wait;
//   - distributed: tessera::mpi::pdist on MPI_COMM_WORLD (blocks dealt over the ranks);
//   - write_only: what the file system takes: every rank writes its share of the matrix's bytes
//     (1/P) from host memory into one file, in 64 MiB MPI_File_write_at calls;
//   - download_only: what the GPUs' links take: every rank copies its share of the bytes from
//     device memory into pinned host memory, in 64 MiB copies (absent on host backends);
//   - weak_distributed: weak scaling, n sqrt(P) functions on P ranks (each rank's share of the
//     pairs that of one_rank), one iteration.
// Counters: pairs_per_s, GB_per_s (bytes of the matrix moved per second); x_one_rank and
// efficiency (distributed: x_one_rank / P; weak: x_one_rank); on the pdist rows, from the
// slowest rank's PairwiseReport: kernel_s, download_s, write_s (sums over its blocks) and x_max
// (wall time over the largest of the three: 1 when the call is limited by that stage alone);
// x_bound on the distributed rows: their time over that of write_only or download_only,
// whichever is longer (1: as fast as the file system or the links allow). After the rows, rank
// 0 compares the files of the last one_rank and distributed iterations at 16 places.
#include "mpi_bench_support.hpp"
#include "random_pcfs.hpp"

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/mpi/gpu_aware.hpp>
#include <tessera/mpi/pairwise.hpp>
#include <tessera/pairwise/pcf_operations.hpp>

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using tessera_bench::timed;
using Space                       = Kokkos::DefaultExecutionSpace;
constexpr std::size_t chunk_bytes = std::size_t{64} << 20;

struct Problem {
  std::size_t n, n_weak;
  int rank, size;
  tessera::PcfCollection<float> X, X_weak;
  std::string dir;

  Problem(std::size_t n_, int rank_, int size_)
      : n(n_),
        n_weak(static_cast<std::size_t>(std::llround(double(n_) * std::sqrt(double(size_))))),
        rank(rank_),
        size(size_),
        X(tessera_bench::random_pcfs<float>(n, 1)),
        X_weak(size_ > 1 ? tessera_bench::random_pcfs<float>(n_weak, 2) : X),
        dir(std::getenv("TESSERA_BENCH_DIR") ? std::getenv("TESSERA_BENCH_DIR") : "/tmp") {}

  static double pairs(std::size_t count) { return double(count) * double(count - 1) / 2; }
  double bytes(std::size_t count) const { return pairs(count) * sizeof(float); }

  /// A file name every rank agrees on (rank 0's process id).
  std::string path(const char* what) const {
    long id = static_cast<long>(::getpid());
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    return dir + "/tessera_bench_" + what + "_" + std::to_string(id) + ".npy";
  }
};

/// Removes a file (rank 0) once every rank is done with it.
void remove_file(const std::string& path) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) std::remove(path.c_str());
  MPI_Barrier(MPI_COMM_WORLD);
}

void count(benchmark::State& state, double pairs) {
  state.counters["pairs_per_s"] =
      benchmark::Counter(pairs * state.iterations(), benchmark::Counter::kIsRate);
  state.counters["GB_per_s"] = benchmark::Counter(pairs * sizeof(float) * 1e-9 * state.iterations(),
                                                  benchmark::Counter::kIsRate);
}

/// The slowest rank's report counters, averaged over the iterations.
struct Stages {
  double kernel = 0, download = 0, write = 0, x_max = 0;
  void add(const tessera::PairwiseReport& r) {
    double v[4] = {
        r.kernel_seconds, r.download_seconds, r.write_seconds,
        r.seconds / std::max({r.kernel_seconds, r.download_seconds, r.write_seconds, 1e-30})};
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    kernel += v[0];
    download += v[1];
    write += v[2];
    x_max += v[3];
  }
  void report(benchmark::State& state) const {
    const double it              = static_cast<double>(state.iterations());
    state.counters["kernel_s"]   = kernel / it;
    state.counters["download_s"] = download / it;
    state.counters["write_s"]    = write / it;
    state.counters["x_max"]      = x_max / it;
  }
};

/// The files of the last one_rank and distributed iterations, kept for check_files().
std::string kept_one_rank, kept_distributed;

void one_rank(benchmark::State& state, const Problem& p) {
  const std::string path = p.path("one_rank");
  Stages stages;
  for (auto _ : state) {
    remove_file(kept_one_rank);
    tessera::PairwiseReport report;
    state.SetIterationTime(tessera_bench::timed_on_every_rank([&] {
      if (p.rank == 0) {
        report = tessera::mpi::pdist(MPI_COMM_SELF, Space(), tessera::PcfL1{}, p.X,
                                     tessera::NpyFile{path});
      }
      tessera_bench::wait_quietly();
    }));
    stages.add(report);
    kept_one_rank = path;
  }
  stages.report(state);
  count(state, Problem::pairs(p.n));
}

void distributed(benchmark::State& state, const Problem& p, bool weak) {
  const std::string path = p.path(weak ? "weak" : "distributed");
  const auto& X          = weak ? p.X_weak : p.X;
  Stages stages;
  for (auto _ : state) {
    if (!weak) remove_file(kept_distributed);
    tessera::PairwiseReport report;
    state.SetIterationTime(tessera_bench::timed_on_every_rank([&] {
      report =
          tessera::mpi::pdist(MPI_COMM_WORLD, Space(), tessera::PcfL1{}, X, tessera::NpyFile{path});
    }));
    stages.add(report);
    if (weak) {
      remove_file(path);
    } else {
      kept_distributed = path;
    }
  }
  stages.report(state);
  count(state, Problem::pairs(weak ? p.n_weak : p.n));
}

/// Compares the files of the last one_rank and distributed iterations at 16 places spread over
/// the matrix (4 MiB each, or a 16th of the matrix if smaller), prints the outcome (rank 0) and
/// removes both files.
void check_files(const Problem& p) {
  if (!kept_one_rank.empty() && !kept_distributed.empty() && p.rank == 0) {
    std::FILE* a            = std::fopen(kept_one_rank.c_str(), "rb");
    std::FILE* b            = std::fopen(kept_distributed.c_str(), "rb");
    const std::size_t total = static_cast<std::size_t>(p.bytes(p.n));
    const std::size_t piece =
        std::min<std::size_t>(std::max<std::size_t>(total / 16, 1), std::size_t{4} << 20);
    std::vector<char> x(piece), y(piece);
    std::size_t compared = 0, differing = 0;
    for (int k = 0; k < 16 && a && b; ++k) {
      // header of 128 bytes or less on both (same shape, same writer): compare from the end
      const long offset = -static_cast<long>(total - (total - piece) / 15 * k);
      std::fseek(a, offset, SEEK_END);
      std::fseek(b, offset, SEEK_END);
      const std::size_t got = std::fread(x.data(), 1, piece, a);
      if (std::fread(y.data(), 1, piece, b) != got) ++differing;
      for (std::size_t e = 0; e < got; ++e)
        differing += x[e] != y[e] ? 1 : 0;
      compared += got;
    }
    if (a) std::fclose(a);
    if (b) std::fclose(b);
    std::printf("check pdist n=%zu on %d ranks against one rank: %zu bytes compared, %zu differ\n",
                p.n, p.size, compared, differing);
  }
  remove_file(kept_one_rank);
  remove_file(kept_distributed);
}

/// This rank's share of the matrix's bytes, and where it starts.
std::pair<std::size_t, std::size_t> share(const Problem& p) {
  const auto total        = static_cast<std::size_t>(p.bytes(p.n));
  const std::size_t first = total / p.size * p.rank;
  return {first, p.rank + 1 == p.size ? total - first : total / p.size};
}

void write_only(benchmark::State& state, const Problem& p) {
  const std::string path    = p.path("write_only");
  const auto [first, bytes] = share(p);
  std::vector<char> buffer(std::min(chunk_bytes, std::max<std::size_t>(bytes, 1)), 1);
  for (auto _ : state) {
    state.SetIterationTime(tessera_bench::timed_on_every_rank([&] {
      MPI_File file;
      MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                    &file);
      for (std::size_t done = 0; done < bytes; done += buffer.size()) {
        const int count = static_cast<int>(std::min(buffer.size(), bytes - done));
        MPI_File_write_at(file, static_cast<MPI_Offset>(first + done), buffer.data(), count,
                          MPI_BYTE, MPI_STATUS_IGNORE);
      }
      MPI_File_close(&file);
    }));
    remove_file(path);
  }
  count(state, Problem::pairs(p.n));
}

void download_only(benchmark::State& state, const Problem& p) {
  const std::size_t bytes = share(p).second;
  const std::size_t chunk = std::min(chunk_bytes, std::max<std::size_t>(bytes, 1));
  Kokkos::View<char*, Space::memory_space> device("device", chunk);
  Kokkos::View<char*, tessera::Impl::PinnedHostSpace> pinned("pinned", chunk);
  timed(state, [&] {
    for (std::size_t done = 0; done < bytes; done += chunk) {
      const std::size_t count = std::min(chunk, bytes - done);
      Kokkos::deep_copy(Space(), Kokkos::subview(pinned, std::make_pair(std::size_t{0}, count)),
                        Kokkos::subview(device, std::make_pair(std::size_t{0}, count)));
    }
  });
  count(state, Problem::pairs(p.n));
}

class PdistRatios : public tessera_bench::ScalingRatios {
 public:
  using ScalingRatios::ScalingRatios;

 private:
  void add_scaling(Run& r, const std::string& prefix, const std::string& way) override {
    if (way != "distributed" && way != "weak_distributed") return;
    add_efficiency(r, prefix, way, way == "weak_distributed");
    if (way == "distributed") {
      const double bound = std::max(time(prefix + "/write_only"), time(prefix + "/download_only"));
      r.counters["x_bound"] = time(prefix + "/" + way) / bound;
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  return tessera_bench::mpi_bench_main<PdistRatios>(argc, argv, [](int rank, int size, auto run) {
    benchmark::AddCustomContext("gpu_aware_mpi", tessera::mpi::gpu_aware_mpi() ? "yes" : "no");
    const Problem p(static_cast<std::size_t>(tessera_bench::env_long("TESSERA_BENCH_PCFS", 4000)),
                    rank, size);
    const std::string at =
        "pdist/n:" + std::to_string(p.n) + "/ranks:" + std::to_string(size) + "/";
    const Problem* q = &p;
    // the bounds first: the distributed rows' counters read them
    tessera_bench::add_row(at + "write_only", [q](benchmark::State& s) { write_only(s, *q); });
    if (tessera::Impl::is_device_space<Space>) {
      tessera_bench::add_row(at + "download_only",
                             [q](benchmark::State& s) { download_only(s, *q); });
    }
    tessera_bench::add_row(at + "one_rank", [q](benchmark::State& s) { one_rank(s, *q); });
    tessera_bench::add_row(at + "distributed",
                           [q](benchmark::State& s) { distributed(s, *q, false); });
    tessera_bench::add_row(
        at + "weak_distributed", [q](benchmark::State& s) { distributed(s, *q, true); }, 1);
    run();
    check_files(p);
  });
}
