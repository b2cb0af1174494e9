// Genred demo: a Gaussian kernel density estimate of a 2-D point cloud (a spiral galaxy) on an
// image grid, written as a PNG, then the k nearest neighbours of every point (ArgKMin) and the
// cloud's log-likelihood under its own estimate (LogSumExp). Each step is timed and checked on a
// sample of rows against a direct computation in double.
//
//   genred_demo [--width W] [--height H] [--n N] [--sigma S] [--k K] [--out PATH]
//
// (--help lists them; a bad option or value exits with status 2: example_options.hpp.)
//
// Defaults: 256 x 256 pixels and 20,000 points on a host execution space (about 20 s on a
// 2-core CPU with Serial Kokkos), 1024 x 1024 and 10^6 points when the default execution space is a
// device; sigma = 0.02 (N / 20000)^(-1/6), the rate of Silverman's rule in 2-D, so that the
// picture sharpens as points are added; k = 10; PATH = genred_demo.png.
//
// The image shows y in [-1, 1] and x in [-W/H, W/H] (square pixels, row 0 at the top); the
// galaxy's core, where the density has its maximum, is centred at (0.15, 0.1): CTest checks that
// the brightest pixel of a small run lies there. Built without libpng, the demo writes no image.
#include "example_options.hpp"

#include <tessera.hpp>

#include <Kokkos_Core.hpp>

#ifdef TESSERA_DEMO_WITH_PNG
#include <png.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Space  = Kokkos::DefaultExecutionSpace;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, Space::memory_space>;

constexpr bool on_host  = std::is_same_v<Space, Kokkos::DefaultHostExecutionSpace>;
constexpr double pi     = 3.14159265358979323846;
constexpr double core_x = 0.15, core_y = 0.1;
constexpr int checked_rows = 16;

struct Args {
  int width       = on_host ? 256 : 1024;
  int height      = on_host ? 256 : 1024;
  int n           = on_host ? 20000 : 1000000;
  double sigma    = 0;  // 0 unless given: its default depends on n
  int k           = 10;
  std::string out = "genred_demo.png";
};

/// Declares the options that set `a`.
void declare_options(examples::CommandLine& command_line, Args& a) {
  // Each image side is bounded so that the pixel count stays an int.
  command_line.count("--width", "W", a.width, 1, 16384, "image width in pixels");
  command_line.count("--height", "H", a.height, 1, 16384, "image height in pixels");
  command_line.count("--n", "N", a.n, 2, 1000000000, "number of points");
  command_line.positive_real("--sigma", "S", a.sigma, "the Gaussian kernel's standard deviation",
                             "0.02 (N / 20000)^(-1/6)");
  command_line.count("--k", "K", a.k, 1, 999999999, "neighbours per point, less than N");
  command_line.text("--out", "PATH", a.out, "the density image written (PNG)");
  // The k-NN step asks for k + 1 neighbours: the point itself comes first.
  command_line.check([&a] {
    if (a.k >= a.n)
      throw examples::UsageError("--k must be less than --n (got k = " + std::to_string(a.k) +
                                 ", n = " + std::to_string(a.n) + ")");
  });
}

/// Uniform and normal variates computed from mt19937_64's exactly specified output (the standard
/// distributions are implementation-defined), so that every platform draws the same cloud.
struct Random {
  std::mt19937_64 gen;
  explicit Random(std::uint64_t seed) : gen(seed) {}
  double uniform() { return (double(gen() >> 11) + 0.5) * 0x1p-53; }  // in (0, 1)
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(2 * pi * uniform()); }
};

/// n points (x, y) of a spiral galaxy: a core around (core_x, core_y) holding about a fifth of
/// them, a bulge, two logarithmic arms with knots, a satellite and a faint uniform background.
/// The core is the densest part by a factor of several (the knots and the satellite come next),
/// so the density's maximum lies at its centre.
std::vector<float> make_galaxy(int n) {
  Random rng(2024);
  std::vector<float> p(2 * static_cast<std::size_t>(n));
  // Arm `arm` (0 or 1) at s in [0, 1]: a logarithmic spiral from radius r0 to r1.
  const double turns = 2.6 * pi, r0 = 0.07, r1 = 0.75, growth = std::log(r1 / r0) / turns;
  auto arm_point = [&](double s, int arm, double& x, double& y) {
    const double theta = s * turns + arm * pi, r = r0 * std::exp(growth * s * turns);
    x = core_x + r * std::cos(theta);
    y = core_y + r * std::sin(theta);
  };
  for (int i = 0; i < n; ++i) {
    const double u = rng.uniform();
    double x, y;
    if (u < 0.22) {  // core
      x = core_x + 0.05 * rng.normal();
      y = core_y + 0.05 * rng.normal();
    } else if (u < 0.32) {  // bulge
      x = core_x + 0.16 * rng.normal();
      y = core_y + 0.12 * rng.normal();
    } else if (u < 0.86) {  // arms, wider further out
      const double s = rng.uniform();
      arm_point(s, static_cast<int>(rng.gen() & 1), x, y);
      x += (0.015 + 0.045 * s) * rng.normal();
      y += (0.015 + 0.045 * s) * rng.normal();
    } else if (u < 0.92) {  // knots: 12 small clusters at fixed places along the arms
      const int knot = static_cast<int>(rng.gen() % 12);
      arm_point(0.2 + 0.06 * knot, knot & 1, x, y);
      x += 0.012 * rng.normal();
      y += 0.012 * rng.normal();
    } else if (u < 0.98) {  // satellite
      x = -0.75 + 0.05 * rng.normal();
      y = -0.6 + 0.04 * rng.normal();
    } else {  // background: scattered over the square [-1, 1]^2
      x = 2 * rng.uniform() - 1;
      y = 2 * rng.uniform() - 1;
    }
    p[2 * i]     = static_cast<float>(x);
    p[2 * i + 1] = static_cast<float>(y);
  }
  return p;
}

Points upload(const char* label, const std::vector<float>& host) {
  Points v(std::string(label), host.size() / 2, 2);
  auto h = Kokkos::create_mirror_view(v);
  std::copy(host.begin(), host.end(), h.data());
  Kokkos::deep_copy(v, h);
  return v;
}

/// Matplotlib's magma colour map at 9 evenly spaced stops: black through purple and red to pale
/// yellow, its luminance increasing throughout (the image test relies on that).
constexpr unsigned char magma_stops[9][3] = {{0, 0, 4},      {28, 16, 68},    {79, 18, 123},
                                             {129, 37, 129}, {181, 54, 122},  {229, 80, 100},
                                             {251, 135, 97}, {254, 194, 135}, {252, 253, 191}};

/// The colour of t in [0, 1] (clamped): magma_stops interpolated linearly.
void magma(double t, unsigned char* rgb) {
  const double s = std::clamp(t, 0.0, 1.0) * 8;
  const int k    = std::min(static_cast<int>(s), 7);
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<unsigned char>(
        std::lround(magma_stops[k][c] + (s - k) * (magma_stops[k + 1][c] - magma_stops[k][c])));
}

/// Writes 8-bit RGB rows; returns false (and says why) when it cannot.
bool write_png(const std::string& path, int width, int height,
               const std::vector<unsigned char>& rgb) {
#ifdef TESSERA_DEMO_WITH_PNG
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width   = width;
  image.height  = height;
  image.format  = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&image, path.c_str(), 0, rgb.data(), 0, nullptr)) {
    std::fprintf(stderr, "genred_demo: cannot write %s: %s\n", path.c_str(), image.message);
    return false;
  }
  std::printf("wrote %s (%d x %d)\n", path.c_str(), width, height);
#else
  (void)rgb;
  std::printf("not writing %s (%d x %d): genred_demo was built without libpng\n", path.c_str(),
              width, height);
#endif
  return true;
}

/// A bar on stderr, redrawn in place once the work has taken more than a second (shorter runs
/// stay quiet, CTest logs included).
struct Progress {
  Kokkos::Timer timer;
  bool shown = false;
  void update(int done, int total) {
    if (!shown && timer.seconds() < 1.0) return;
    shown            = true;
    const int filled = 40 * done / total;
    std::fprintf(stderr, "\r[%.*s%.*s] %3d%%", filled, "########################################",
                 40 - filled, "........................................", 100 * done / total);
    if (done == total) std::fprintf(stderr, "\n");
  }
};

/// One line of the timing table.
struct Step {
  std::string name;
  long m, n;
  double ms;
  std::string checked;
  double max_error;
  bool ok;
};

double squared_distance(const std::vector<float>& a, int i, const std::vector<float>& b, int j) {
  const double dx = double(a[2 * i]) - b[2 * j], dy = double(a[2 * i + 1]) - b[2 * j + 1];
  return dx * dx + dy * dy;
}

/// F(x_i, y_j) = -|x_i - y_j|^2 / (2 sigma^2), the log of the Gaussian kernel: its LogSumExp
/// is the log of the kernel sum, finite even where the sum itself underflows.
struct GaussianExponent {
  using param_dims             = tessera::Dims<>;
  using i_dims                 = tessera::Dims<2>;
  using j_dims                 = tessera::Dims<2>;
  static constexpr int out_dim = 1;
  float scale;  ///< 1 / (2 sigma^2).
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(tessera::In<T, 2> x, tessera::In<T, 2> y,
                                         tessera::Out<T, 1> out) const {
    out[0] = -T(scale) * tessera::squared_distance(x, y);
  }
};

/// The demo of the file comment; returns the exit status.
int run(const Args& args) {
  const int w = args.width, h = args.height, n = args.n, k = args.k;
  const int m         = w * h;
  const double sigma  = args.sigma > 0 ? args.sigma : 0.02 * std::pow(n / 20000.0, -1.0 / 6.0);
  const double norm   = 1.0 / (n * 2 * pi * sigma * sigma);  // turns kernel sums into densities
  const double pixel  = 2.0 / h;                             // side of a pixel
  const double x_left = -double(w) / h;
  tessera::print_configuration(std::cout);
  std::printf("Gaussian KDE of %d points (sigma %.4g) on %d x %d pixels; k-NN with k = %d\n", n,
              sigma, w, h, k);
  std::fflush(stdout);

  const std::vector<float> hy = make_galaxy(n);
  std::vector<float> hx(2 * static_cast<std::size_t>(m));
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) {
      hx[2 * (r * w + c)]     = static_cast<float>(x_left + (c + 0.5) * pixel);
      hx[2 * (r * w + c) + 1] = static_cast<float>(1.0 - (r + 0.5) * pixel);
    }
  const Points y = upload("points", hy), x = upload("pixels", hx);
  std::vector<Step> steps;

  // 1. density(x_i) = norm * sum_j exp(-|x_i - y_j|^2 / (2 sigma^2)), in bands of image rows:
  //    one genred call per band, so that the progress bar moves on long runs.
  Points sums("sums", m, 1);
  {
    const int bands = std::min(h, 32);
    Progress progress;
    Kokkos::Timer timer;
    for (int b = 0; b < bands; ++b) {
      const auto rows = std::make_pair(h * b / bands * w, h * (b + 1) / bands * w);
      tessera::genred(Space(), tessera::Sum{}, tessera::GaussianKernel<2>(sigma),
                      tessera::i_vars(Kokkos::subview(x, rows, Kokkos::ALL)), tessera::j_vars(y),
                      Kokkos::subview(sums, rows, Kokkos::ALL));
      Space().fence();
      progress.update(b + 1, bands);
    }
    steps.push_back({"Gaussian KDE (Sum, " + std::to_string(bands) + " bands)", m, n,
                     timer.seconds() * 1e3, "", 0, true});
  }
  const auto h_sums = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
  int peak          = 0;
  for (int i = 1; i < m; ++i)
    if (h_sums(i, 0) > h_sums(peak, 0)) peak = i;
  const double peak_density = norm * h_sums(peak, 0);
  std::printf(
      "density maximum %.4g at pixel (column %d, row %d) = (%.3f, %.3f); the core is at "
      "(%.3f, %.3f)\n",
      peak_density, peak % w, peak / w, hx[2 * peak], hx[2 * peak + 1], core_x, core_y);

  // The image: a log scale over four decades below the maximum, so that arms, knots and the
  // faint background show beside the core.
  {
    constexpr double decades = 4;
    std::vector<unsigned char> rgb(3 * static_cast<std::size_t>(m));
    for (int i = 0; i < m; ++i) {
      const double ratio = h_sums(i, 0) / h_sums(peak, 0);
      magma(ratio > 0 ? 1 + std::log10(ratio) / decades : 0, &rgb[3 * i]);
    }
    if (!write_png(args.out, w, h, rgb)) return 1;
  }

  // Check: the peak pixel and the pixels under 15 points spread through the cloud (where the
  // density is far from underflow) against a direct sum in double.
  {
    std::vector<int> sample = {peak};
    for (int s = 0; s < checked_rows - 1; ++s) {
      const int j = static_cast<int>(static_cast<long>(n - 1) * s / (checked_rows - 2));
      const int c = static_cast<int>(std::floor((hy[2 * j] - x_left) / pixel));
      const int r = static_cast<int>(std::floor((1.0 - hy[2 * j + 1]) / pixel));
      if (c >= 0 && c < w && r >= 0 && r < h) sample.push_back(r * w + c);
    }
    Step& step = steps.back();
    for (int i : sample) {
      double ref = 0;
      for (int j = 0; j < n; ++j)
        ref += std::exp(-squared_distance(hx, i, hy, j) / (2 * sigma * sigma));
      step.max_error =
          std::max(step.max_error, std::fabs(h_sums(i, 0) - ref) / std::max(ref, 1e-30));
    }
    step.checked = std::to_string(sample.size()) + " pixels";
    step.ok      = step.max_error < 1e-4;  // float sums of positive terms: ~1e-6 expected
  }

  // 2. The k nearest neighbours of every point among the others: ArgKMin{k + 1} of the squared
  //    distance lists the point itself (distance 0) first, so column k holds the k-th neighbour.
  Kokkos::View<int**, Space::memory_space> nn("nn", n, k + 1);
  {
    Kokkos::Timer timer;
    tessera::genred(Space(), tessera::ArgKMin{k + 1}, tessera::SquaredDistance<2>{},
                    tessera::i_vars(y), tessera::j_vars(y), nn);
    Space().fence();
    steps.push_back({"k-NN (ArgKMin, k = " + std::to_string(k) + ")", n, n, timer.seconds() * 1e3,
                     std::to_string(checked_rows) + " points", 0, true});
  }
  const auto h_nn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nn);
  {
    Step& step = steps.back();
    std::vector<double> d(n);
    for (int s = 0; s < checked_rows; ++s) {
      const int i = static_cast<int>(static_cast<long>(n - 1) * s / (checked_rows - 1));
      for (int j = 0; j < n; ++j)
        d[j] = squared_distance(hy, i, hy, j);
      std::vector<double> sorted = d;
      std::nth_element(sorted.begin(), sorted.begin() + k, sorted.end());
      std::sort(sorted.begin(), sorted.begin() + k + 1);
      for (int t = 0; t <= k; ++t) {
        const int j = h_nn(i, t);
        if (j < 0 || j >= n) {
          step.ok = false;
          continue;
        }
        // A neighbour is right if its exact distance is the t-th smallest, up to the float
        // rounding of the distances (near-ties may swap).
        step.max_error =
            std::max(step.max_error, std::fabs(d[j] - sorted[t]) / std::max(sorted[t], 1e-12));
        step.ok = step.ok && std::fabs(d[j] - sorted[t]) <= 1e-5 * (1 + sorted[t]);
      }
    }
  }
  {
    std::vector<double> kth(n);
    for (int i = 0; i < n; ++i)
      kth[i] = std::sqrt(squared_distance(hy, i, hy, std::clamp(h_nn(i, k), 0, n - 1)));
    std::sort(kth.begin(), kth.end());
    std::printf(
        "distance to the k-th nearest neighbour (k = %d): median %.4f, largest %.4f "
        "(sigma %.4f)\n",
        k, kth[n / 2], kth[n - 1], sigma);
  }

  // 3. The log-likelihood of the cloud under its estimate,
  //    log density(y_i) = log sum_j exp(-|y_i - y_j|^2 / (2 sigma^2)) + log(norm).
  Points lse("lse", n, 1);
  {
    Kokkos::Timer timer;
    tessera::genred(Space(), tessera::LogSumExp{},
                    GaussianExponent{static_cast<float>(1 / (2 * sigma * sigma))},
                    tessera::i_vars(y), tessera::j_vars(y), lse);
    Space().fence();
    steps.push_back({"log-likelihood (LogSumExp)", n, n, timer.seconds() * 1e3,
                     std::to_string(checked_rows) + " points", 0, true});
  }
  const auto h_lse = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lse);
  {
    Step& step = steps.back();
    std::vector<double> f(n);
    for (int s = 0; s < checked_rows; ++s) {
      const int i = static_cast<int>(static_cast<long>(n - 1) * s / (checked_rows - 1));
      for (int j = 0; j < n; ++j)
        f[j] = -squared_distance(hy, i, hy, j) / (2 * sigma * sigma);
      const double top = *std::max_element(f.begin(), f.end());
      double sum       = 0;
      for (double v : f)
        sum += std::exp(v - top);
      const double ref = top + std::log(sum);
      // Relative to 1 + |ref|: the value is a logarithm, near 0 for some rows.
      step.max_error =
          std::max(step.max_error, std::fabs(h_lse(i, 0) - ref) / (1 + std::fabs(ref)));
    }
    step.ok     = step.max_error < 1e-4;
    double mean = 0;
    for (int i = 0; i < n; ++i)
      mean += h_lse(i, 0);
    std::printf("mean log-density of the points under their estimate: %.4f\n",
                mean / n + std::log(norm));
  }

  std::printf("\n%-30s %8s   %-8s %12s %10s %10s %9s\n", "step", "M", "N", "time", "pairs/s",
              "checked", "max error");
  bool ok = true;
  for (const Step& s : steps) {
    std::printf("%-30s %8ld x %-8ld %9.1f ms %10.3e %10s %9.2e  %s\n", s.name.c_str(), s.m, s.n,
                s.ms, double(s.m) * s.n / (s.ms * 1e-3), s.checked.c_str(), s.max_error,
                s.ok ? "ok" : "FAILED");
    ok = ok && s.ok;
  }
  std::printf("%s\n", ok ? "all checked rows match the direct computation in double"
                         : "MISMATCH against the direct computation");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) {
  Args args;
  examples::CommandLine command_line(
      "genred_demo",
      "A Gaussian kernel density estimate of a 2-D point cloud (a spiral galaxy) on an\n"
      "image grid, written as a PNG; then the k nearest neighbours of every point (ArgKMin)\n"
      "and the cloud's log-likelihood under its own estimate (LogSumExp), each timed and\n"
      "checked against a direct computation in double. Defaults are this build's (1024 x 1024\n"
      "pixels and 10^6 points when the default execution space is a device).\n");
  declare_options(command_line, args);
  return examples::run_example(command_line, argc, argv, [&args] { return run(args); });
}
