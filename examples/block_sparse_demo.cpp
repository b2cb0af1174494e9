// Block-sparse demo (the figure of KeOps' block-sparse reductions): targets x_i on a 2-D spiral,
// sources y_j in a Gaussian cloud, and the Gaussian convolution
//     a_i = sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j
// computed densely and block-sparsely. The sparse pattern comes from one call: both clouds are
// binned into square voxels and sorted by voxel, and a pair of clusters is kept when their
// bounding balls come within the cutoff (5 sigma), so every dropped term is below
// exp(-12.5) b_j. The program prints the pattern's size, both times, and the largest
// difference between the two results relative to the largest a_i; it fails if that exceeds the
// truncation bound.
//
//   block_sparse_demo [--m M] [--n N]   (defaults: 1e6 points each on GPUs, 2e4 on CPUs)
//
// (--help lists them; a bad option or value exits with status 2: example_options.hpp.)
#include "example_options.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using Space  = Kokkos::DefaultExecutionSpace;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Space::memory_space>;

constexpr double sigma  = 0.02;
constexpr double cutoff = 5 * sigma;
constexpr double voxel  = 0.1;

Points to_device(const char* label, const std::vector<float>& host, int rows, int dim) {
  Points v(std::string(label), rows, dim);
  auto h = Kokkos::create_mirror_view(v);
  std::copy(host.begin(), host.end(), h.data());
  Kokkos::deep_copy(v, h);
  return v;
}

/// m points along a three-turn spiral of radius up to 1, with a little noise.
std::vector<float> spiral(int m, std::mt19937& gen) {
  std::uniform_real_distribution<double> t(0, 1);
  std::normal_distribution<double> noise(0, 0.01);
  std::vector<float> p(2 * static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) {
    const double s = t(gen), angle = 6 * 3.14159265358979323846 * s;
    p[2 * i]     = static_cast<float>(s * std::cos(angle) + noise(gen));
    p[2 * i + 1] = static_cast<float>(s * std::sin(angle) + noise(gen));
  }
  return p;
}

/// n points of a centred Gaussian cloud with standard deviation 0.3.
std::vector<float> gaussian_cloud(int n, std::mt19937& gen) {
  std::normal_distribution<double> g(0, 0.3);
  std::vector<float> p(2 * static_cast<std::size_t>(n));
  for (float& c : p)
    c = static_cast<float>(g(gen));
  return p;
}

double seconds_of(const std::function<void()>& op) {
  op();  // warm-up (module load, first allocations)
  Kokkos::fence();
  Kokkos::Timer timer;
  op();
  Kokkos::fence();
  return timer.seconds();
}

struct Args {
  int m = tessera::Impl::is_device_space<Space> ? 1000000 : 20000;
  int n = m;
};

/// The demo of the file comment; returns the exit status.
int run(const Args& args) {
  const int m = args.m, n = args.n;
  std::mt19937 gen(42);
  const auto hx = spiral(m, gen);
  const auto hy = gaussian_cloud(n, gen);
  std::vector<float> hb(n);
  std::uniform_real_distribution<float> weight(0.5f, 1.5f);
  for (float& w : hb)
    w = weight(gen);

  // Dense reference on the original order.
  const Points x = to_device("x", hx, m, 2), y = to_device("y", hy, n, 2);
  const Points b    = to_device("b", hb, n, 1);
  const auto kernel = tessera::GaussianKernel<2, 1>(sigma);
  Points dense("dense", m, 1);
  const double dense_s = seconds_of([&] {
    tessera::genred(Space(), tessera::Sum{}, kernel, tessera::i_vars(x), tessera::j_vars(y, b),
                    dense);
  });

  // Block-sparse: sort copies of the clouds by voxel, build the pattern, sort b the same way.
  Points xs("x_sorted", m, 2), ys("y_sorted", n, 2), bs("b_sorted", n, 1);
  Kokkos::deep_copy(xs, x);
  Kokkos::deep_copy(ys, y);
  Kokkos::deep_copy(bs, b);
  Kokkos::fence();
  Kokkos::Timer build_timer;
  const auto sparsity = tessera::block_sparse_from_cutoff(Space(), xs, ys, voxel, cutoff);
  tessera::permute_rows(Space(), sparsity.perm_y, bs);
  Kokkos::fence();
  const double build_s = build_timer.seconds();
  Points sorted_out("sorted_out", m, 1), sparse("sparse", m, 1);
  const double sparse_s = seconds_of([&] {
    tessera::genred(Space(), tessera::Sum{}, kernel, tessera::i_vars(xs), tessera::j_vars(ys, bs),
                    sorted_out, sparsity.ranges);
  });
  tessera::unpermute_rows(Space(), sparsity.perm_x, sorted_out, sparse);

  // Compare.
  const auto hd  = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dense);
  const auto hs  = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sparse);
  double largest = 0, diff = 0;
  for (int i = 0; i < m; ++i) {
    largest = std::max(largest, static_cast<double>(hd(i, 0)));
    diff    = std::max(diff, std::fabs(static_cast<double>(hd(i, 0)) - hs(i, 0)));
  }
  const double kept  = static_cast<double>(sparsity.ranges.kept_pairs());
  const double total = static_cast<double>(m) * n;
  // dropped terms: each below exp(-cutoff^2 / 2 sigma^2) * 1.5; plus float rounding of the sums
  const double bound = n * 1.5 * std::exp(-cutoff * cutoff / (2 * sigma * sigma)) + 1e-5 * largest;

  std::printf("spiral (M = %d) x Gaussian cloud (N = %d), sigma = %g, cutoff = %g, voxel = %g\n", m,
              n, sigma, cutoff, voxel);
  std::printf("%-34s %12s\n", "", "value");
  std::printf("%-34s %12d\n", "i-segments", static_cast<int>(sparsity.ranges.ranges_i().extent(0)));
  std::printf("%-34s %12d\n", "j-ranges",
              static_cast<int>(sparsity.ranges.redranges_j().extent(0)));
  std::printf("%-34s %12.4f\n", "kept pairs / M N", kept / total);
  std::printf("%-34s %12.4f\n", "pattern build (s)", build_s);
  std::printf("%-34s %12.4f\n", "dense genred (s)", dense_s);
  std::printf("%-34s %12.4f\n", "block-sparse genred (s)", sparse_s);
  std::printf("%-34s %12.2f\n", "speed-up", dense_s / sparse_s);
  std::printf("%-34s %12.3e\n", "dense pairs/s", total / dense_s);
  std::printf("%-34s %12.3e\n", "block-sparse kept pairs/s", kept / sparse_s);
  std::printf("%-34s %12.3e\n", "max |sparse - dense| / max a_i", diff / largest);
  std::printf("%-34s %12.3e\n", "bound", bound / largest);
  const bool ok = diff <= bound;
  std::printf("%s\n", ok ? "OK: block-sparse equals dense within the truncation bound"
                         : "FAILED: the difference exceeds the truncation bound");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  examples::CommandLine command_line(
      "block_sparse_demo",
      "The Gaussian convolution a_i = sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)) b_j of M targets\n"
      "on a 2-D spiral and N sources in a Gaussian cloud, computed densely and block-sparsely\n"
      "(pairs of voxel clusters kept within 5 sigma); prints the pattern's size and both times,\n"
      "and fails (exit status 1) if the results differ by more than the truncation bound.\n"
      "Defaults are this build's (10^6 points each when the default execution space is a\n"
      "device).\n");
  // 2 m and 2 n index the coordinate arrays as ints.
  command_line.count("--m", "M", args.m, 1, 1000000000, "number of targets x_i (the spiral)");
  command_line.count("--n", "N", args.n, 1, 1000000000, "number of sources y_j (the cloud)");
  return examples::run_example(command_line, argc, argv, [&args] { return run(args); });
}
