// Distance::automatic, the radial kernels' default (builtin_formulas.hpp), and its rules
// (impl/distance_rule.hpp; impl/cuda/cuda_distance_rule.hpp for Tessera's CUDA kernels):
//  - the rules themselves, at compile time: what resolved_distance gives for several D, W,
//    scalar types, reductions, axes and sparsities on the host (direct everywhere), under a test
//    policy that expands from D = 20 (the portable rule follows Tuning::
//    genred_automatic_expanded_min_dim; run-time D or W stay direct) and, in builds with the CUDA
//    kernels, on Kokkos::Cuda (matrix for D >= 9 where a tensor-core kernel takes the call;
//    direct in the portable kernel);
//  - on host spaces, through every implementation and both axes: default-constructed kernels at
//    D = 3, 17, 64 and 129 (sizes 0, 1 and primes; W = 0, 1 and 3) on points far from the origin
//    stay within the direct distance's error bound of a double reference, which the expanded
//    distance's cancellation exceeds on the same data (checked, so the bound tells the two
//    apart), and equal the explicit Distance::direct call bit for bit; so does a run-time D;
//  - on Kokkos::Cuda with the CUDA kernels: the default kernel equals the explicit
//    Distance::matrix call bit for bit at D = 17 and 64 and the explicit direct call at D = 3,
//    and with Implementation::portable the explicit direct call at every D.
#include <tessera/genred/builtin_formulas.hpp>
#include <tessera/genred/genred.hpp>

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using tessera::Distance;
using tessera::dynamic_extent;
using tessera::Summation;

/// The evaluation Distance::automatic gives Formula under Rule: a Reduction in T over j (or i),
/// dense (or block-sparse), with every View holding T (or not).
template <class Rule, class Formula, class T = float, class Reduction = tessera::Sum,
          bool OuterIsI = true, bool Sparse = false, bool Uniform = true>
constexpr Distance rule = tessera::Impl::resolved_distance<
    Rule, T, Formula, tessera::Impl::Reducer<Reduction, T, Formula::out_dim, Summation::block_sum>,
    OuterIsI, Sparse, Uniform>;

using Host         = Kokkos::DefaultHostExecutionSpace;
using HostKernels  = tessera::Impl::DistanceRule<Host>;
using HostPortable = tessera::Impl::PortableDistanceRule<Host>;
template <int D, int W, Distance Dist = Distance::automatic>
using Gaussian = tessera::GaussianKernel<D, W, Dist>;

// ---- on host spaces: direct at every dimension (HostTuning's measurement)
static_assert(std::is_same_v<tessera::GaussianKernel<3>, Gaussian<3, 0, Distance::automatic>>,
              "Distance::automatic is the radial kernels' default");
static_assert(rule<HostKernels, Gaussian<3, 1>> == Distance::direct);
static_assert(rule<HostKernels, Gaussian<17, 0>> == Distance::direct);
static_assert(rule<HostKernels, Gaussian<64, 1>> == Distance::direct);
static_assert(rule<HostKernels, tessera::Matern32Kernel<129, 3>> == Distance::direct);
static_assert(rule<HostKernels, Gaussian<512, 1>, double> == Distance::direct);
static_assert(rule<HostKernels, Gaussian<dynamic_extent, 1>> == Distance::direct);
static_assert(rule<HostPortable, Gaussian<64, 1>> == Distance::direct);
// an explicit evaluation is kept
static_assert(rule<HostKernels, Gaussian<64, 1, Distance::expanded>> == Distance::expanded);
static_assert(rule<HostKernels, Gaussian<64, 1, Distance::matrix>> == Distance::matrix);
static_assert(rule<HostPortable, Gaussian<64, 1, Distance::matrix>> == Distance::matrix);

// ---- the rules follow the policy: a host space whose policy expands from D = 20
struct ExpandingHost : Host {};
struct ExpandingHostTuning : tessera::Impl::HostTuning {
  static constexpr int genred_automatic_expanded_min_dim = 20;
};
}  // namespace
template <>
struct tessera::Impl::TuningPolicy<ExpandingHost> {
  using type = ExpandingHostTuning;
};
namespace {
using Expanding = tessera::Impl::DistanceRule<ExpandingHost>;
static_assert(rule<Expanding, Gaussian<19, 1>> == Distance::direct);
static_assert(rule<Expanding, Gaussian<20, 1>> == Distance::expanded);
static_assert(rule<Expanding, tessera::CauchyKernel<129, 0>, double> == Distance::expanded);
static_assert(rule<tessera::Impl::PortableDistanceRule<ExpandingHost>, Gaussian<20, 1>> ==
              Distance::expanded);
static_assert(rule<Expanding, Gaussian<20, 1, Distance::direct>> == Distance::direct);
static_assert(rule<Expanding, Gaussian<dynamic_extent, 1>> == Distance::direct);
static_assert(rule<Expanding, Gaussian<64, dynamic_extent>> == Distance::direct);

#if defined(TESSERA_ENABLE_CUDA_KERNELS)
// ---- on Kokkos::Cuda: matrix from D = 9 where a tensor-core kernel takes the call
using Cuda = tessera::Impl::DistanceRule<Kokkos::Cuda>;
static_assert(rule<Cuda, Gaussian<3, 1>> == Distance::direct);
static_assert(rule<Cuda, Gaussian<8, 1>> == Distance::direct);
static_assert(rule<Cuda, Gaussian<9, 1>> == Distance::matrix);
static_assert(rule<Cuda, Gaussian<16, 8>> == Distance::matrix);  // register kernel: any W
static_assert(rule<Cuda, tessera::LaplaceKernel<32, 3>> == Distance::matrix);
static_assert(rule<Cuda, Gaussian<64, 1>> == Distance::matrix);
static_assert(rule<Cuda, Gaussian<129, 0>> == Distance::matrix);
static_assert(rule<Cuda, Gaussian<64, 8>> == Distance::direct);   // 4 < W < 16 beyond D = 32
static_assert(rule<Cuda, Gaussian<64, 16>> == Distance::matrix);  // wide weights
static_assert(rule<Cuda, Gaussian<64, 1>, double> == Distance::direct);
static_assert(rule<Cuda, Gaussian<64, 1>, float, tessera::Min> == Distance::direct);
static_assert(rule<Cuda, Gaussian<64, 1>, float, tessera::Sum, false> == Distance::direct);
static_assert(rule<Cuda, Gaussian<64, 1>, float, tessera::Sum, true, true> == Distance::direct);
// points stored in 16 bits (Views not all of the compute type): the streamed kernel at any D
static_assert(rule<Cuda, Gaussian<12, 1>, float, tessera::Sum, true, false, false> ==
              Distance::matrix);
static_assert(rule<Cuda, Gaussian<5, 1>, float, tessera::Sum, true, false, false> ==
              Distance::direct);
static_assert(rule<Cuda, Gaussian<dynamic_extent, 1>> == Distance::direct);
static_assert(rule<Cuda, Gaussian<64, 1, Distance::expanded>> == Distance::expanded);
// the portable kernel on Kokkos::Cuda: direct
static_assert(rule<tessera::Impl::PortableDistanceRule<Kokkos::Cuda>, Gaussian<64, 1>> ==
              Distance::direct);
#endif

constexpr double float_eps = 0x1p-24;  // unit roundoff of float

using HostMat = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// rows x dim floats uniform in [lo, lo + 1).
HostMat random_rows(int rows, int dim, float lo, std::mt19937& gen) {
  std::uniform_real_distribution<float> u(lo, lo + 1.0f);
  HostMat v("v", rows, dim);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < dim; ++k)
      v(r, k) = u(gen);
  return v;
}

/// The sums of one call of `kernel` over the axis (m x FD, or n x FD over i) on the host space
/// with implementation `impl`.
template <class Kernel>
HostMat sums(const Kernel& kernel, const HostMat& x, const HostMat& y, const HostMat& b,
             tessera::Axis axis, tessera::Implementation impl) {
  tessera::GenredOptions options;
  options.axis           = axis;
  options.implementation = impl;
  const int rows         = static_cast<int>(axis == tessera::Axis::j ? x.extent(0) : y.extent(0));
  HostMat out("out", rows, static_cast<int>(b.extent(1)));
  if constexpr (Kernel::weight_dim == 0) {
    tessera::genred(Host{}, tessera::Sum{}, kernel, tessera::i_vars(x), tessera::j_vars(y), out,
                    options);
  } else {
    tessera::genred(Host{}, tessera::Sum{}, kernel, tessera::i_vars(x), tessera::j_vars(y, b), out,
                    options);
  }
  return out;
}

/// Sum_j k(|x_i - y_j|^2) b_j with the default RadialKernel<Profile, D, W> (D static, or
/// dynamic_extent with run-time dimension d) on points uniform in [8, 9)^d, far from the origin
/// on the scale of sigma = sqrt(d / 12). The reference is the direct loop in double, with the
/// profile's shape and scale evaluated in double. The direct distance's bound: s r^2 is off by
/// at most delta = (d + 5) eps s r^2 (the differences, squares and sum of d terms, then the
/// float scale and its product: relative, since every term is positive), so a term by
/// e_ij = max |k(s r^2 +- delta) - k(s r^2)| |b_j|, plus the rounding of the terms and their sum,
/// (N + 8) eps sum |k b| (8 covers exp2's 2^-22 and the product with b). The expanded distance
/// errs by up to (d + 3) eps s (|x| + |y|)^2 instead, about 4 (8.5 sqrt(d))^2 / r^2 times more
/// here: it must break the bound on the largest size, or the bound would not tell them apart.
template <class Profile, int D, int W>
void check_default_kernel(int d, unsigned seed) {
  SCOPED_TRACE("d = " + std::to_string(d) + ", W = " + std::to_string(W));
  constexpr int FD   = W == 0 ? 1 : W;
  const double sigma = std::sqrt(d / 12.0);
  const tessera::RadialKernel<Profile, D, W> kernel(sigma);
  const tessera::RadialKernel<Profile, D, W, Distance::direct> direct(sigma);
  std::mt19937 gen(seed);
  const std::pair<int, int> sizes[] = {{0, 5}, {1, 1}, {5, 0}, {2, 13}, {61, 53}};
  for (const auto& [m, n] : sizes) {
    const HostMat x = random_rows(m, d, 8.0f, gen), y = random_rows(n, d, 8.0f, gen);
    const HostMat b = random_rows(n, FD, -0.5f, gen);
    for (const tessera::Axis axis : {tessera::Axis::j, tessera::Axis::i}) {
      const bool over_j = axis == tessera::Axis::j;
      const int rows = over_j ? m : n, inner = over_j ? n : m;
      std::vector<double> ref(static_cast<std::size_t>(rows) * FD, 0.0), bound(ref.size(), 0.0);
      for (int o = 0; o < rows; ++o) {
        for (int q = 0; q < inner; ++q) {
          const int i = over_j ? o : q, j = over_j ? q : o;
          double r2 = 0;
          for (int k = 0; k < d; ++k)
            r2 += std::pow(double(x(i, k)) - double(y(j, k)), 2);
          const double u = kernel.profile.scale * r2, delta = (d + 5) * float_eps * u;
          const double k = kernel.profile.shape(u);
          const double e = std::max(std::fabs(kernel.profile.shape(u + delta) - k),
                                    std::fabs(kernel.profile.shape(u - delta) - k));
          for (int c = 0; c < FD; ++c) {
            const double bc = W == 0 ? 1.0 : double(b(j, c));
            ref[o * FD + c] += k * bc;
            bound[o * FD + c] += e * std::fabs(bc) + (inner + 8) * float_eps * std::fabs(k * bc);
          }
        }
      }
      const auto worst_excess = [&](const HostMat& out) {
        double worst = -1;
        for (int o = 0; o < rows; ++o)
          for (int c = 0; c < FD; ++c)
            worst = std::max(worst, std::fabs(out(o, c) - ref[o * FD + c]) - bound[o * FD + c]);
        return worst;
      };
      for (const auto impl : {tessera::Implementation::automatic, tessera::Implementation::host,
                              tessera::Implementation::portable}) {
        if (D == dynamic_extent && impl == tessera::Implementation::host) continue;
        SCOPED_TRACE("M = " + std::to_string(m) + ", N = " + std::to_string(n) +
                     (over_j ? ", Axis::j" : ", Axis::i") + ", implementation " +
                     std::to_string(static_cast<int>(impl)));
        const HostMat out = sums(kernel, x, y, b, axis, impl);
        EXPECT_LE(worst_excess(out), 0.0) << "outside the direct distance's bound";
        const HostMat want = sums(direct, x, y, b, axis, impl);
        for (int o = 0; o < rows; ++o)
          for (int c = 0; c < FD; ++c)
            ASSERT_EQ(out(o, c), want(o, c)) << "row " << o << ", column " << c;
        if constexpr (D != dynamic_extent) {
          if (m == 61) {
            const tessera::RadialKernel<Profile, D, W, Distance::expanded> expanded(sigma);
            EXPECT_GT(worst_excess(sums(expanded, x, y, b, axis, impl)), 0.0)
                << "the expanded distance met the direct distance's bound";
          }
        }
      }
    }
  }
}

TEST(GenredAutomatic, DefaultRadialKernelsRunTheDirectDistanceOnHostSpaces) {
  check_default_kernel<tessera::GaussianProfile, 3, 1>(3, 1);
  check_default_kernel<tessera::GaussianProfile, 17, 0>(17, 2);
  check_default_kernel<tessera::LaplaceProfile, 17, 3>(17, 3);
  check_default_kernel<tessera::GaussianProfile, 64, 1>(64, 4);
  check_default_kernel<tessera::Matern32Profile, 129, 3>(129, 5);
  check_default_kernel<tessera::CauchyProfile, dynamic_extent, 1>(64, 6);
}

#if defined(TESSERA_ENABLE_CUDA_KERNELS)
using CudaMat = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::CudaSpace>;

/// The Gaussian sums (W = 1) of RadialKernel<GaussianProfile, D, 1, Dist> on Kokkos::Cuda with
/// implementation `impl`, copied to the host.
template <int D, Distance Dist>
HostMat cuda_sums(const CudaMat& x, const CudaMat& y, const CudaMat& b,
                  tessera::Implementation impl) {
  tessera::GenredOptions options;
  options.implementation = impl;
  CudaMat out("out", x.extent(0), 1);
  tessera::genred(Kokkos::Cuda{}, tessera::Sum{}, Gaussian<D, 1, Dist>(std::sqrt(D / 12.0)),
                  tessera::i_vars(x), tessera::j_vars(y, b), out, options);
  HostMat h("h", x.extent(0), 1);
  Kokkos::deep_copy(h, out);
  return h;
}

/// The default Gaussian at dimension D on Kokkos::Cuda equals the explicit Want call bit for bit
/// (the direct call with Implementation::portable) and differs from the Other call (the
/// expanded one with Implementation::portable), so that the comparison tells them apart.
template <int D, Distance Want, Distance Other>
void check_cuda_default(unsigned seed) {
  std::mt19937 gen(seed);
  const int m = 257, n = 1031;  // primes, more than one tile of every kernel
  const auto device = [](const HostMat& h) {
    CudaMat d("d", h.extent(0), h.extent(1));
    Kokkos::deep_copy(d, h);
    return d;
  };
  const CudaMat x = device(random_rows(m, D, -0.5f, gen));
  const CudaMat y = device(random_rows(n, D, -0.5f, gen));
  const CudaMat b = device(random_rows(n, 1, -0.5f, gen));
  for (const auto impl : {tessera::Implementation::automatic, tessera::Implementation::portable}) {
    const bool portable = impl == tessera::Implementation::portable;
    SCOPED_TRACE("D = " + std::to_string(D) + (portable ? ", portable" : ", automatic"));
    const HostMat out   = cuda_sums<D, Distance::automatic>(x, y, b, impl);
    const HostMat want  = portable ? cuda_sums<D, Distance::direct>(x, y, b, impl)
                                   : cuda_sums<D, Want>(x, y, b, impl);
    const HostMat other = portable ? cuda_sums<D, Distance::expanded>(x, y, b, impl)
                                   : cuda_sums<D, Other>(x, y, b, impl);
    int differ          = 0;
    for (int i = 0; i < m; ++i) {
      ASSERT_EQ(out(i, 0), want(i, 0)) << "row " << i;
      differ += out(i, 0) != other(i, 0);
    }
    EXPECT_GT(differ, 0) << "the two evaluations agree bit for bit: the check cannot fail";
  }
}

TEST(GenredAutomatic, DefaultRadialKernelsTakeTheTensorCoresOnCuda) {
  check_cuda_default<3, Distance::direct, Distance::expanded>(11);
  check_cuda_default<17, Distance::matrix, Distance::direct>(12);
  check_cuda_default<64, Distance::matrix, Distance::direct>(13);
}
#endif

}  // namespace
