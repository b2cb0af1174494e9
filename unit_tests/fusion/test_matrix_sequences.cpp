// Fused matrix sequences: the seven BLAS-2 ready functions against host computations in double,
// float and double, LayoutRight and LayoutLeft, square and non-square shapes (0, 1, 33, 1000,
// 4099), under every candidate the tuner can pick on every execution space; plan validity by
// layout; argument checks.
#include <tessera/fusion/blas2.hpp>
#include <tessera/fusion/plan.hpp>
#include <tessera/fusion/run.hpp>

#include "every_candidate.hpp"
#include "execution_spaces.hpp"
#include "expect_rejected.hpp"
#include "kernel_names.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fusion = tessera::fusion;
using tessera_test::expect_rejected;
using tessera_test::KernelNames;

/// (rows, columns) of the tested matrices.
const std::pair<std::size_t, std::size_t> shapes[] = {{0, 0},     {0, 5},    {5, 0},  {1, 1},
                                                      {33, 33},   {1, 33},   {33, 1}, {1000, 1000},
                                                      {4099, 33}, {33, 4099}};

/// Values with a bound on their rounding error: the exact value and the sum of the magnitudes of
/// the terms that made it (the computed value is within a few roundings of that sum).
struct Ref {
  std::vector<double> val, mag;
};

Ref exact(const std::vector<double>& v) {
  Ref r{v, v};
  for (double& m : r.mag)
    m = std::abs(m);
  return r;
}

/// A row-major host matrix with its magnitudes.
struct HostMatrix {
  std::size_t m, n;
  Ref a;
  double val(std::size_t i, std::size_t j) const { return a.val[i * n + j]; }
  double mag(std::size_t i, std::size_t j) const { return a.mag[i * n + j]; }
};

/// A x and A^T y, and alpha x + beta y, with their magnitudes.
Ref mv(const HostMatrix& A, const Ref& x) {
  Ref r{std::vector<double>(A.m), std::vector<double>(A.m)};
  for (std::size_t i = 0; i < A.m; ++i)
    for (std::size_t j = 0; j < A.n; ++j) {
      r.val[i] += A.val(i, j) * x.val[j];
      r.mag[i] += A.mag(i, j) * x.mag[j];
    }
  return r;
}
Ref mvt(const HostMatrix& A, const Ref& y) {
  Ref r{std::vector<double>(A.n), std::vector<double>(A.n)};
  for (std::size_t i = 0; i < A.m; ++i)
    for (std::size_t j = 0; j < A.n; ++j) {
      r.val[j] += A.val(i, j) * y.val[i];
      r.mag[j] += A.mag(i, j) * y.mag[i];
    }
  return r;
}
Ref axpby(double alpha, const Ref& x, double beta, const Ref& y) {
  Ref r = x;
  for (std::size_t i = 0; i < r.val.size(); ++i) {
    r.val[i] = alpha * x.val[i] + beta * y.val[i];
    r.mag[i] = std::abs(alpha) * x.mag[i] + std::abs(beta) * y.mag[i];
  }
  return r;
}

Ref scale(double alpha, Ref x) {
  for (std::size_t i = 0; i < x.val.size(); ++i) {
    x.val[i] *= alpha;
    x.mag[i] *= std::abs(alpha);
  }
  return x;
}

template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-13;  // relative to the magnitudes
}

/// The Views of a test in the space's memory, random in [-1, 1), with their host values.
template <class T, class Layout, class ExecSpace>
struct Data {
  using Mem    = typename ExecSpace::memory_space;
  using Matrix = Kokkos::View<T**, Layout, Mem>;
  using Vector = Kokkos::View<T*, Mem>;
  std::mt19937 gen;
  explicit Data(unsigned seed) : gen(seed) {}

  double random() { return double(T(std::uniform_real_distribution<double>(-1, 1)(gen))); }
  std::pair<Matrix, HostMatrix> matrix(std::size_t m, std::size_t n) {
    Matrix view("A", m, n);
    auto h = Kokkos::create_mirror_view(view);
    std::vector<double> v(m * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        h(i, j) = T(v[i * n + j] = random());
    Kokkos::deep_copy(view, h);
    return {view, HostMatrix{m, n, exact(v)}};
  }
  std::pair<Vector, Ref> vector(std::size_t n) {
    Vector view("v", n);
    auto h = Kokkos::create_mirror_view(view);
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i)
      h(i) = T(v[i] = random());
    Kokkos::deep_copy(view, h);
    return {view, exact(v)};
  }
};

/// |got - ref| within tol x magnitude, element by element.
template <class View>
void expect_ref(const View& got, const Ref& ref, double tol, const char* what) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, got);
  ASSERT_EQ(h.size(), ref.val.size()) << what;
  const auto* p = h.data();
  for (std::size_t i = 0; i < ref.val.size(); ++i)
    ASSERT_LE(std::abs(double(p[i]) - ref.val[i]), tol * ref.mag[i])
        << what << ", element " << i << ": got " << double(p[i]) << ", expected " << ref.val[i];
}
/// The same for a matrix, whose reference is row-major.
template <class View>
void expect_matrix(const View& got, const HostMatrix& ref, double tol, const char* what) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, got);
  for (std::size_t i = 0; i < ref.m; ++i)
    for (std::size_t j = 0; j < ref.n; ++j)
      ASSERT_LE(std::abs(double(h(i, j)) - ref.val(i, j)), tol * ref.mag(i, j))
          << what << "(" << i << ", " << j << ")";
}

/// Runs call(options) under every candidate the tuner can pick for seq over the bound Views on
/// ExecSpace, plus the model's choice, the unfused plan and a one-line, 32-thread shape with a
/// workspace.
template <class ExecSpace, class Seq, class Bound, class Call, class Reset, class Check>
void for_every_plan(const Seq& seq, const Bound& bound, const Call& call, const Reset& reset,
                    const Check& check) {
  using Tuning = tessera::Impl::Tuning<ExecSpace>;
  tessera::Workspace workspace;  // the partial sums in the caller's buffer
  fusion::FusionOptions narrow;
  narrow.per_thread = 1;
  narrow.team_size  = Tuning::fusion_max_team_size < 32 ? Tuning::fusion_max_team_size : 32;
  narrow.workspace  = &workspace;
  tessera_test::for_every_candidate(fusion::tuner_candidates(ExecSpace{}, seq, bound), narrow, call,
                                    reset, check);
}

template <class Layout>
std::string layout_name() {
  return std::is_same_v<Layout, Kokkos::LayoutLeft> ? "LayoutLeft" : "LayoutRight";
}

/// Every sequence on each (m, n) of `sizes`, with the matrix outputs `offset` elements into
/// their allocations (1: their lines are not 16-byte aligned).
template <class ExecSpace, class T, class Layout, class Shapes>
void check_all(const Shapes& sizes, std::size_t offset = 0) {
  using D            = Data<T, Layout, ExecSpace>;
  using Vector       = typename D::Vector;
  using Output       = Kokkos::View<T**, Layout, typename D::Mem, Kokkos::MemoryUnmanaged>;
  const double e     = tolerance<T>();
  const double alpha = double(T(0.75)), beta = double(T(-1.25));
  const ExecSpace space;
  for (const auto& [m, n] : sizes) {
    SCOPED_TRACE(layout_name<Layout>() + ", m = " + std::to_string(m) +
                 ", n = " + std::to_string(n) + ", outputs at element " + std::to_string(offset));
    Vector out_buffer("out_buffer", m * n + offset);
    const Output out_matrix(out_buffer.data() + offset, m, n);
    D data(unsigned(m * 31 + n));
    const auto A_made  = data.matrix(m, n);
    const auto& A      = A_made.first;
    const auto& Ah     = A_made.second;
    const auto B_made  = data.matrix(m, n);
    const auto& B      = B_made.first;
    const auto& Bh     = B_made.second;
    const auto xn_made = data.vector(n);
    const auto& xn     = xn_made.first;
    const auto& xr     = xn_made.second;  // n elements (multiplied by A)
    const auto ym_made = data.vector(m);
    const auto& ym     = ym_made.first;
    const auto& yr     = ym_made.second;  // m elements (multiplied by A^T)
    const auto zn_made = data.vector(n);
    const auto& zn     = zn_made.first;
    const auto& zr     = zn_made.second;
    Vector out_m("out_m", m), out_m2("out_m2", m), out_n("out_n", n);
    auto reset = [&] {
      Kokkos::deep_copy(out_m, T(7));
      Kokkos::deep_copy(out_m2, T(7));
      Kokkos::deep_copy(out_n, T(7));
    };
    {
      SCOPED_TRACE("ATAX");
      const Ref tmp = mv(Ah, xr), y = mvt(Ah, tmp);
      for_every_plan<ExecSpace>(
          fusion::atax_sequence(), fusion::bind(A, xn, out_m, out_n),
          [&](const fusion::FusionOptions& o) {
            return fusion::atax(space, A, xn, out_m, out_n, o);
          },
          reset,
          [&](const fusion::FusionReport&) {
            expect_ref(out_m, tmp, e, "tmp");
            expect_ref(out_n, y, e, "y");
          });
    }
    {
      SCOPED_TRACE("BiCGK");
      const Ref q = mv(Ah, xr), s = mvt(Ah, yr);
      for_every_plan<ExecSpace>(
          fusion::bicgk_sequence(), fusion::bind(A, xn, ym, out_m, out_n),
          [&](const fusion::FusionOptions& o) {
            return fusion::bicgk(space, A, xn, ym, out_m, out_n, o);
          },
          reset,
          [&](const fusion::FusionReport&) {
            expect_ref(out_m, q, e, "q");
            expect_ref(out_n, s, e, "s");
          });
    }
    {
      SCOPED_TRACE("SGEMV");
      const Ref z = axpby(alpha, mv(Ah, xr), beta, yr);
      for_every_plan<ExecSpace>(
          fusion::sgemv_sequence(alpha, beta), fusion::bind(A, xn, ym, out_m),
          [&](const fusion::FusionOptions& o) {
            return fusion::sgemv(space, alpha, A, xn, beta, ym, out_m, o);
          },
          reset, [&](const fusion::FusionReport&) { expect_ref(out_m, z, e, "z"); });
    }
    {
      SCOPED_TRACE("SGEMVT");
      const Ref x = axpby(beta, mvt(Ah, yr), 1, zr), w = scale(alpha, mv(Ah, x));
      for_every_plan<ExecSpace>(
          fusion::sgemvt_sequence(alpha, beta), fusion::bind(A, ym, zn, out_n, out_m),
          [&](const fusion::FusionOptions& o) {
            return fusion::sgemvt(space, alpha, beta, A, ym, zn, out_n, out_m, o);
          },
          reset,
          [&](const fusion::FusionReport&) {
            expect_ref(out_n, x, e, "x");
            expect_ref(out_m, w, e, "w");
          });
    }
    {
      SCOPED_TRACE("GEMVER");
      const auto u1_made = data.vector(m);
      const auto& u1     = u1_made.first;
      const auto& u1r    = u1_made.second;
      const auto u2_made = data.vector(m);
      const auto& u2     = u2_made.first;
      const auto& u2r    = u2_made.second;
      const auto w1_made = data.vector(n);
      const auto& w1     = w1_made.first;
      const auto& w1r    = w1_made.second;
      const auto w2_made = data.vector(n);
      const auto& w2     = w2_made.first;
      const auto& w2r    = w2_made.second;
      HostMatrix Bref    = Ah;
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          Bref.a.val[i * n + j] += u1r.val[i] * w1r.val[j] + u2r.val[i] * w2r.val[j];
          Bref.a.mag[i * n + j] +=
              std::abs(u1r.val[i] * w1r.val[j]) + std::abs(u2r.val[i] * w2r.val[j]);
        }
      const Ref x = axpby(beta, mvt(Bref, yr), 1, zr), w = scale(alpha, mv(Bref, x));
      const Output& Bout = out_matrix;
      for_every_plan<ExecSpace>(
          fusion::gemver_sequence(alpha, beta),
          fusion::bind(A, u1, w1, u2, w2, ym, zn, Bout, out_n, out_m),
          [&](const fusion::FusionOptions& o) {
            return fusion::gemver(space, alpha, beta, A, u1, w1, u2, w2, ym, zn, Bout, out_n, out_m,
                                  o);
          },
          [&] {
            reset();
            Kokkos::deep_copy(Bout, T(7));
          },
          [&](const fusion::FusionReport&) {
            expect_matrix(Bout, Bref, e, "B");
            expect_ref(out_n, x, e, "x");
            expect_ref(out_m, w, e, "w");
          });
    }
    {
      SCOPED_TRACE("GESUMMV");
      const Ref y = axpby(alpha, mv(Ah, xr), beta, mv(Bh, xr));
      for_every_plan<ExecSpace>(
          fusion::gesummv_sequence(alpha, beta), fusion::bind(A, B, xn, out_m),
          [&](const fusion::FusionOptions& o) {
            return fusion::gesummv(space, alpha, A, beta, B, xn, out_m, o);
          },
          reset, [&](const fusion::FusionReport&) { expect_ref(out_m, y, e, "y"); });
    }
    {
      SCOPED_TRACE("MADD");
      HostMatrix C = Ah;
      for (std::size_t k = 0; k < m * n; ++k) {
        C.a.val[k] += Bh.a.val[k];
        C.a.mag[k] += Bh.a.mag[k];
      }
      const Output& Cout = out_matrix;
      for_every_plan<ExecSpace>(
          fusion::madd_sequence(), fusion::bind(A, B, Cout),
          [&](const fusion::FusionOptions& o) { return fusion::madd(space, A, B, Cout, o); },
          [&] { Kokkos::deep_copy(Cout, T(7)); },
          [&](const fusion::FusionReport& r) {
            EXPECT_EQ(r.kernels, 1);
            expect_matrix(Cout, C, e, "C");
          });
    }
  }
}

template <class ExecSpace>
class FusionMatrices : public ::testing::Test {};
TYPED_TEST_SUITE(FusionMatrices, tessera_test::ExecutionSpaces);

TYPED_TEST(FusionMatrices, FloatLayoutRight) {
  check_all<TypeParam, float, Kokkos::LayoutRight>(shapes);
}
TYPED_TEST(FusionMatrices, FloatLayoutLeft) {
  check_all<TypeParam, float, Kokkos::LayoutLeft>(shapes);
}
TYPED_TEST(FusionMatrices, DoubleLayoutRight) {
  check_all<TypeParam, double, Kokkos::LayoutRight>(shapes);
}
TYPED_TEST(FusionMatrices, DoubleLayoutLeft) {
  check_all<TypeParam, double, Kokkos::LayoutLeft>(shapes);
}

// Matrices too large for the caches: host backends write the outputs of one-sweep groups with
// streaming stores (matrix_kernel.hpp), ordinary stores where a line is not 16-byte aligned and
// for its last elements. Two matrices (GEMVER's A and B) outgrow the streaming bound; lines of
// neither extent are a multiple of the lanes.
template <class ExecSpace, class T, class Layout>
void check_streamed() {
  const std::size_t bound = tessera::Impl::Tuning<ExecSpace>::fusion_streaming_min_bytes;
  const std::size_t m = 1037, n = bound / (2 * m * sizeof(T)) + 2;
  ASSERT_GE(2 * m * n * sizeof(T), bound);
  const std::pair<std::size_t, std::size_t> streamed[] = {{m, n}};
  check_all<ExecSpace, T, Layout>(streamed, 0);
  check_all<ExecSpace, T, Layout>(streamed, 1);
}

TYPED_TEST(FusionMatrices, MatricesOutgrowingTheCachesAreStreamed) {
  if (tessera::Impl::is_device_space<TypeParam>) GTEST_SKIP() << "GPUs never stream";
  check_streamed<TypeParam, float, Kokkos::LayoutRight>();
  check_streamed<TypeParam, float, Kokkos::LayoutLeft>();
  check_streamed<TypeParam, double, Kokkos::LayoutRight>();
  check_streamed<TypeParam, double, Kokkos::LayoutLeft>();
}

// ATAX with rows owned and SGEMVT with columns owned, fused under a tile shape: their lines are
// held in registers (each read once) up to the backend's capacity (and from its least share),
// and swept twice otherwise.
template <class ExecSpace, class T>
void check_held_lines() {
  using Tuning          = tessera::Impl::Tuning<ExecSpace>;
  const std::size_t cap = std::size_t(Tuning::fusion_held_team_size) *
                          std::size_t(tessera::fusion::Impl::held_elements<ExecSpace, T>);
  const ExecSpace space;
  const double e     = tolerance<T>();
  const double alpha = double(T(0.5)), beta = double(T(-2));
  fusion::FusionOptions tiles;
  tiles.cuts       = 0;
  tiles.per_thread = fusion::tile_lines;
  // The symbols of the made-up sequences below.
  constexpr fusion::Mat<0> a;
  constexpr fusion::Vec<1> xs;
  constexpr fusion::Vec<2> ts;
  constexpr fusion::Vec<3> us;
  constexpr fusion::Vec<4> ys;
  constexpr fusion::Vec<5> zs;
  for (const std::size_t ns : {std::size_t(1), std::size_t(33), cap - 1, cap, cap + 1}) {
    // 300 lines: more than a GPU's league, so that teams take several lines each.
    for (const std::size_t no : {std::size_t(1), std::size_t(7), std::size_t(300)}) {
      SCOPED_TRACE("lines of " + std::to_string(ns) + ", " + std::to_string(no) + " lines");
      const bool held = tessera::fusion::Impl::held_fits<ExecSpace, T>(ns);
      if (ns == cap) EXPECT_TRUE(held) << "full lines are held";
      if (ns > cap) EXPECT_FALSE(held) << "longer lines are not held";
      {
        using D = Data<T, Kokkos::LayoutRight, ExecSpace>;
        D data(unsigned(ns + no));
        const auto [A, Ah] = data.matrix(no, ns);
        const auto [x, xr] = data.vector(ns);
        typename D::Vector tmp("tmp", no), y("y", ns);
        KernelNames kernels;
        fusion::atax(space, A, x, tmp, y, tiles);
        EXPECT_EQ(kernels.launched("tessera::fusion::matrix_held"), held) << "ATAX";
        const Ref t = mv(Ah, xr);
        expect_ref(tmp, t, e, "ATAX tmp");
        expect_ref(y, mvt(Ah, t), e, "ATAX y");
      }
      {
        using D = Data<T, Kokkos::LayoutLeft, ExecSpace>;
        D data(unsigned(ns * 3 + no));
        const auto [A, Ah] = data.matrix(ns, no);
        const auto [y, yr] = data.vector(ns);
        const auto [z, zr] = data.vector(no);
        typename D::Vector x("x", no), w("w", ns);
        KernelNames kernels;
        fusion::sgemvt(space, alpha, beta, A, y, z, x, w, tiles);
        EXPECT_EQ(kernels.launched("tessera::fusion::matrix_held"), held) << "SGEMVT";
        const Ref xref = axpby(beta, mvt(Ah, yr), 1, zr);
        expect_ref(x, xref, e, "SGEMVT x");
        expect_ref(w, scale(alpha, mv(Ah, xref)), e, "SGEMVT w");
      }
      {
        // Later sweeps reading a line's result from memory, not registers (a team barrier
        // first): in a complete step's outer expression, and inside by_row(2 * u).
        const auto seq =
            fusion::sequence(fusion::assign(ts, fusion::row_sum(a * fusion::by_col(xs))),
                             fusion::assign(us, fusion::row_sum(a * fusion::by_col(xs)) + 3 * ts),
                             fusion::assign(ys, fusion::col_sum(a * fusion::by_row(2 * us))));
        using D = Data<T, Kokkos::LayoutRight, ExecSpace>;
        D data(unsigned(ns * 5 + no));
        const auto [A, Ah] = data.matrix(no, ns);
        const auto [x, xr] = data.vector(ns);
        typename D::Vector t("t", no), u("u", no), y("y", ns);
        KernelNames kernels;
        fusion::run(space, seq, fusion::bind(A, x, t, u, y), tiles);
        EXPECT_EQ(kernels.launched("tessera::fusion::matrix_held"), held) << "composed";
        const Ref tr = mv(Ah, xr), ur = axpby(1, tr, 3, tr);
        expect_ref(t, tr, e, "composed t");
        expect_ref(u, ur, e, "composed u");
        expect_ref(y, mvt(Ah, scale(2, ur)), e, "composed y");
      }
      {
        // A sum's outer expression reading its own target, and one reading the target of a
        // later sum of the same sweep: every lane reads the old values before they are stored.
        const auto own =
            fusion::sequence(fusion::assign(ts, ts + fusion::row_sum(a * fusion::by_col(xs))),
                             fusion::assign(ys, fusion::col_sum(a * fusion::by_row(ts))));
        const auto later =
            fusion::sequence(fusion::assign(ts, fusion::row_sum(a * fusion::by_col(xs)) + us),
                             fusion::assign(us, fusion::row_sum(a * fusion::by_col(zs))),
                             fusion::assign(ys, fusion::col_sum(a * fusion::by_row(ts))));
        using D = Data<T, Kokkos::LayoutRight, ExecSpace>;
        D data(unsigned(ns * 7 + no));
        const auto [A, Ah]   = data.matrix(no, ns);
        const auto [x, xr]   = data.vector(ns);
        const auto [z, zr]   = data.vector(ns);
        const auto [t0, t0r] = data.vector(no);
        const auto [b0, b0r] = data.vector(no);
        typename D::Vector t("t", no), b("b", no), y("y", ns);
        Kokkos::deep_copy(t, t0);
        KernelNames kernels;
        fusion::run(space, own, fusion::bind(A, x, t, b, y, z), tiles);
        EXPECT_EQ(kernels.launched("tessera::fusion::matrix_held"), held) << "own target";
        const Ref town = axpby(1, t0r, 1, mv(Ah, xr));
        expect_ref(t, town, e, "own target t");
        expect_ref(y, mvt(Ah, town), e, "own target y");
        Kokkos::deep_copy(b, b0);
        fusion::run(space, later, fusion::bind(A, x, t, b, y, z), tiles);
        const Ref tlater = axpby(1, mv(Ah, xr), 1, b0r);
        expect_ref(t, tlater, e, "later target t");
        expect_ref(b, mv(Ah, zr), e, "later target b");
        expect_ref(y, mvt(Ah, tlater), e, "later target y");
      }
    }
  }
}

TYPED_TEST(FusionMatrices, HeldLinesAreReadOnceUpToTheirCapacity) {
  check_held_lines<TypeParam, float>();
  check_held_lines<TypeParam, double>();
}

}  // namespace

namespace {

TEST(FusionMatrixPlans, TheOwnedAxisDecidesWhichSequencesReadTheMatrixOnce) {
  using Right = Kokkos::LayoutRight;
  using Left  = Kokkos::LayoutLeft;
  using Plans = std::vector<std::uint32_t>;
  // Rows owned: A x completes in a team, so ATAX reads A once; SGEMVT's A^T y does not, and
  // A x needs all of it. Columns owned: the other way round. BiCGK fuses either way.
  using Atax   = decltype(fusion::atax_sequence());
  using Sgemvt = decltype(fusion::sgemvt_sequence(1, 1));
  using Bicgk  = decltype(fusion::bicgk_sequence());
  using Gemver = decltype(fusion::gemver_sequence(1, 1));
  EXPECT_EQ((fusion::candidate_plans<Atax, Right>()), (Plans{0, 1}));
  EXPECT_EQ((fusion::candidate_plans<Atax, Left>()), (Plans{1}));
  EXPECT_EQ((fusion::candidate_plans<Sgemvt, Right>()), (Plans{1}));
  EXPECT_EQ((fusion::candidate_plans<Sgemvt, Left>()), (Plans{0, 1}));
  EXPECT_EQ((fusion::candidate_plans<Bicgk, Right>()), (Plans{0, 1}));
  EXPECT_EQ((fusion::candidate_plans<Bicgk, Left>()), (Plans{0, 1}));
  // GEMVER: B with x = B^T y (x partial when rows are owned, then w = B x needs all of x).
  EXPECT_EQ((fusion::candidate_plans<Gemver, Right>()), (Plans{2, 3}));
  EXPECT_EQ((fusion::candidate_plans<Gemver, Left>()), (Plans{0, 1, 2, 3}));
  // The model: ATAX fused reads A (m n) and x (n), stores tmp (m) and y (n): 4 bytes each, plus
  // a launch for the kernel and one for adding the partial sums.
  namespace Impl = tessera::fusion::Impl;
  EXPECT_EQ((*Impl::plan_bytes<Atax, true>(0, 10, 20, 4, 1000)), 4.0 * (200 + 20 + 10 + 20) + 2000);
  EXPECT_EQ((*Impl::plan_bytes<Atax, true>(1, 10, 20, 4, 1000)),
            4.0 * (200 + 20 + 10) + 1000 + 4.0 * (200 + 10 + 20) + 2000);
  // Charged for reading A again in the second sweep (GPU backends), the model cuts ATAX.
  EXPECT_GT((*Impl::plan_bytes<Atax, true>(0, 1000, 1000, 4, 0, 1.25)),
            (*Impl::plan_bytes<Atax, true>(1, 1000, 1000, 4, 0, 1.25)));
  // As tiles, each of its steps reads A once and has its sums added by a second launch; fused,
  // it sweeps lines (y reads tmp), whether tiles are asked for or not.
  EXPECT_EQ((*Impl::plan_bytes<Atax, true>(1, 10, 20, 4, 1000, 1.25, true)),
            4.0 * (200 + 20 + 10) + 2000 + 4.0 * (200 + 10 + 20) + 2000);
  EXPECT_EQ((*Impl::plan_bytes<Atax, true>(0, 10, 20, 4, 1000, 1.25, true)),
            (*Impl::plan_bytes<Atax, true>(0, 10, 20, 4, 1000, 1.25, false)));
  // Its lines held in registers (they fit), fused ATAX reads A once: no re-read charged.
  EXPECT_EQ((*Impl::plan_bytes<Atax, true>(0, 10, 20, 4, 1000, 1.25, true, true)),
            (*Impl::plan_bytes<Atax, true>(0, 10, 20, 4, 1000, 0, true)));
  // BiCGK as tiles with columns owned too: one read of A, either layout.
  EXPECT_EQ((*Impl::plan_bytes<Bicgk, false>(0, 10, 20, 4, 0, 1.25, true)),
            4.0 * (200 + 20 + 10 + 10 + 20));
  const Kokkos::DefaultHostExecutionSpace host;
  Kokkos::View<double**, Right, Kokkos::HostSpace> A("A", 10, 20);
  Kokkos::View<double**, Left, Kokkos::HostSpace> AL("AL", 10, 20);
  Kokkos::View<double*, Kokkos::HostSpace> x("x", 20), t("t", 10), y("y", 20);
  EXPECT_EQ(fusion::atax(host, A, x, t, y).cuts, 0u);
  EXPECT_EQ(fusion::atax(host, AL, x, t, y).cuts, 1u);
}

TEST(FusionMatrixPlans, AWorkspaceIsReusedAndGrowsWhenItMustNot) {
  using Host   = Kokkos::DefaultHostExecutionSpace;
  using Memory = Host::memory_space;
  using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using Vector = Kokkos::View<double*, Kokkos::HostSpace>;
  tessera::Workspace workspace;
  fusion::FusionOptions options;
  options.workspace = &workspace;
  EXPECT_EQ(workspace.bytes<Memory>(), 0u);
  for (const std::size_t n : {std::size_t(40), std::size_t(20), std::size_t(90)}) {
    Matrix A("A", 7, n);
    Vector p("p", n), r("r", 7), q("q", 7), s("s", n);
    Kokkos::deep_copy(A, 1.0);
    Kokkos::deep_copy(p, 2.0);
    Kokkos::deep_copy(r, 3.0);
    const std::size_t before = workspace.bytes<Memory>();
    fusion::bicgk(Host{}, A, p, r, q, s, options);
    // s = A^T r: a partial sum per team and column, kept in the workspace.
    EXPECT_GE(workspace.bytes<Memory>(), n * sizeof(double));
    if (n < 40) EXPECT_EQ(workspace.bytes<Memory>(), before) << "a smaller run reallocated";
    for (std::size_t j = 0; j < n; ++j)
      ASSERT_EQ(s(j), 21.0) << "n = " << n << ", s(" << j << ")";
    EXPECT_EQ(q(6), 2.0 * double(n));
  }
}

// A size query records the partial sums the model's plan needs and launches nothing; reserved
// from it, a workspace serves the call without growing.
TEST(FusionMatrixPlans, ASizeQueryLaunchesNothingAndSizesTheWorkspace) {
  using Host          = Kokkos::DefaultHostExecutionSpace;
  using Memory        = Host::memory_space;
  using Matrix        = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using Vector        = Kokkos::View<double*, Kokkos::HostSpace>;
  const std::size_t n = 333;
  Matrix A("A", 7, n);
  Vector p("p", n), r("r", 7), q("q", 7), s("s", n);
  Kokkos::deep_copy(A, 1.0);
  Kokkos::deep_copy(p, 2.0);
  Kokkos::deep_copy(r, 3.0);
  Kokkos::deep_copy(s, -1.0);
  auto query = tessera::Workspace::size_query();
  fusion::FusionOptions options;
  options.workspace = &query;
  EXPECT_EQ(fusion::bicgk(Host{}, A, p, r, q, s, options).kernels, 0);
  EXPECT_EQ(s(0), -1.0) << "a size query writes nothing";
  const std::size_t required = query.required_bytes<Memory>();
  EXPECT_GE(required, n * sizeof(double));
  tessera::Workspace workspace;
  workspace.reserve(query);
  options.workspace = &workspace;
  EXPECT_GT(fusion::bicgk(Host{}, A, p, r, q, s, options).kernels, 0);
  EXPECT_EQ(workspace.bytes<Memory>(), required) << "the query's size was enough";
  EXPECT_EQ(s(n - 1), 21.0);
  // bad arguments are still rejected by a size query
  Vector short_s("short_s", n - 1);
  options.workspace = &query;
  EXPECT_THROW(fusion::bicgk(Host{}, A, p, r, q, short_s, options), std::invalid_argument);
}

TEST(FusionMatrixPlans, BadArgumentsAreRejectedBeforeAnyKernel) {
  using Host   = Kokkos::DefaultHostExecutionSpace;
  using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  using Vector = Kokkos::View<double*, Kokkos::HostSpace>;
  Matrix A("A", 6, 4), B("B", 6, 5), big("big", 6, 8);
  Vector x4("x4", 4), x6("x6", 6), y6("y6", 6), out("out", 6);
  Kokkos::deep_copy(out, 2.0);
  expect_rejected<std::invalid_argument>(
      [&] { fusion::sgemv(Host{}, 1.0, A, x6, 1.0, y6, out); },
      {"tessera::fusion::sgemv: x has 6 elements, expected 4 (the columns of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::sgemv(Host{}, 1.0, A, x4, 1.0, x4, out); },
      {"tessera::fusion::sgemv: y has 4 elements, expected 6 (the rows of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::gesummv(Host{}, 1.0, A, 1.0, B, x4, out); },
      {"tessera::fusion::gesummv: B is 6 x 5, expected 6 x 4 (the shape of A)"});
  const auto cols = Kokkos::subview(big, Kokkos::ALL, std::make_pair(0, 4));
  expect_rejected<std::invalid_argument>(
      [&] { fusion::sgemv(Host{}, 1.0, cols, x4, 1.0, y6, out); },
      {"tessera::fusion::sgemv: A is not contiguous"});
  // An output on an input: a matrix sequence reads vectors at other indices than it writes.
  expect_rejected<std::invalid_argument>(
      [&] { fusion::sgemv(Host{}, 1.0, A, x4, 1.0, out, out); },
      {"tessera::fusion::sgemv: z (written) shares memory with y", "may not share memory"});
  // y = A y with rows owned, teams sweeping whole lines: each team would sum its rows into y
  // while other teams read all of y. No plan is valid, so every choice is rejected; as tiles
  // (y written after the kernel) and with LayoutLeft matrices (the sums partial, written after
  // the kernel) the step is fine.
  {
    constexpr fusion::Mat<0> a;
    constexpr fusion::Vec<1> y;
    const auto in_place =
        fusion::sequence(fusion::assign(y, fusion::row_sum(a * fusion::by_col(y))));
    using InPlace = std::decay_t<decltype(in_place)>;
    EXPECT_TRUE((fusion::candidate_plans<InPlace, Kokkos::LayoutRight>(false).empty()));
    EXPECT_EQ((fusion::candidate_plans<InPlace, Kokkos::LayoutRight>(true)),
              (std::vector<std::uint32_t>{0}));
    Matrix square("square", 6, 6);
    Kokkos::deep_copy(square, 1.0);
    fusion::FusionOptions lines, unfused_lines;
    lines.per_thread         = 4;
    unfused_lines.per_thread = 4;
    unfused_lines.choice     = fusion::PlanChoice::unfused;
    for (const auto& options : {lines, unfused_lines}) {
      expect_rejected<std::invalid_argument>(
          [&] { fusion::run(Host{}, in_place, fusion::bind(square, y6), options); },
          {"tessera::fusion::run", "no valid plan with 4 lines", "by_col with LayoutRight",
           "as tiles"});
    }
    Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> left("left", 6, 6);
    Kokkos::deep_copy(left, 1.0);
    Kokkos::deep_copy(y6, 2.0);
    fusion::run(Host{}, in_place, fusion::bind(left, y6), lines);
    EXPECT_EQ(y6(5), 12.0);
    for (int i = 0; i < 6; ++i)
      square(i, i) = 2.0;  // y_i = sum_j y_j + y_i
    fusion::FusionOptions tiles;
    tiles.per_thread = fusion::tile_lines;
    const fusion::FusionReport report =
        fusion::run(Host{}, in_place, fusion::bind(square, y6), tiles);
    EXPECT_EQ(report.kernels, 2);  // the tiles, then the sums added into y
    for (int i = 0; i < 6; ++i)
      ASSERT_EQ(y6(i), 84.0) << "y(" << i << ")";
    // A tuner times tile shapes too, whatever the options' own shape.
    fusion::Tuner tuner("");
    fusion::FusionOptions tuned = lines;
    tuned.tuner                 = &tuner;
    fusion::run(Host{}, in_place, fusion::bind(square, y6), tuned);
    for (int i = 0; i < 6; ++i)
      ASSERT_EQ(y6(i), 588.0) << "tuned: y(" << i << ")";
  }
  // As tiles, a nested sum's outer expression is evaluated after the kernel: it may not read a
  // vector that a later step of the group writes (x = A v + w, then w = A^T u); as lines with
  // rows owned, x completes in the team and is stored before w is summed, and w (partial) is
  // written after the kernel.
  {
    constexpr fusion::Mat<0> a;
    constexpr fusion::Vec<1> v;
    constexpr fusion::Vec<2> w;
    constexpr fusion::Vec<3> x;
    constexpr fusion::Vec<4> u;
    using Later =
        decltype(fusion::sequence(fusion::assign(x, fusion::row_sum(a * fusion::by_col(v)) + w),
                                  fusion::assign(w, fusion::col_sum(a * fusion::by_row(u)))));
    EXPECT_FALSE((tessera::fusion::Impl::tile_group<Later>(0, 2)));
    EXPECT_TRUE((tessera::fusion::Impl::tile_group<Later>(0, 1)));
    EXPECT_EQ((fusion::candidate_plans<Later, Kokkos::LayoutRight>(true)),
              (std::vector<std::uint32_t>{0, 1}));
    EXPECT_EQ((fusion::candidate_plans<Later, Kokkos::LayoutLeft>(true)),
              (std::vector<std::uint32_t>{1}));
  }
  fusion::FusionOptions bad;
  bad.cuts = 0;  // SGEMVT with rows owned: w = A x would read x before every team summed it
  Vector z4("z4", 4), w6("w6", 6);
  expect_rejected<std::invalid_argument>(
      [&] { fusion::sgemvt(Host{}, 1.0, 1.0, A, y6, z4, x4, w6, bad); },
      {"options.cuts 0 groups steps the fusion rules keep apart"});
  bad.cuts       = std::nullopt;
  bad.per_thread = 3;
  expect_rejected<std::invalid_argument>(
      [&] { fusion::sgemv(Host{}, 1.0, A, x4, 1.0, y6, out, bad); },
      {"options.per_thread is 3", "0, 1, 4, 16, 32, or at least fusion::tile_lines"});
  for (int i = 0; i < 6; ++i)
    ASSERT_EQ(out(i), 2.0) << "out(" << i << ") was written";
}

TEST(FusionPlans, AnInPlaceVectorIsNotReadAfterTheStepThatOverwritesIt) {
  // z = w - v with z and w one View, then r = w . u: r would read the new z, not w.
  using Host = Kokkos::DefaultHostExecutionSpace;
  Kokkos::View<double*, Kokkos::HostSpace> w("w", 8), v("v", 8), u("u", 8);
  Kokkos::View<double, Kokkos::HostSpace> r("r");
  constexpr fusion::Vec<0> z_;
  constexpr fusion::Vec<1> w_;
  constexpr fusion::Vec<2> v_;
  constexpr fusion::Vec<3> u_;
  constexpr fusion::Scalar<4> r_;
  const auto late = fusion::sequence(fusion::assign(z_, w_ - v_), fusion::assign(r_, dot(w_, u_)));
  expect_rejected<std::invalid_argument>(
      [&] { fusion::run(Host{}, late, fusion::bind(w, w, v, u, r)); },
      {"symbol 0 (written) shares memory with symbol 1", "only read up to the first step"});
  const auto early = fusion::sequence(fusion::assign(r_, dot(w_, u_)), fusion::assign(z_, w_ - v_));
  Kokkos::deep_copy(w, 3.0);
  Kokkos::deep_copy(v, 1.0);
  Kokkos::deep_copy(u, 1.0);
  fusion::run(Host{}, early, fusion::bind(w, w, v, u, r));
  EXPECT_EQ(r(), 24.0);
  EXPECT_EQ(w(7), 2.0);
}

}  // namespace
