// The ready functions of blas1.hpp and blas2.hpp as a user calls them: a wrong extent is reported
// by the function's own name and argument names, the sequences bind the Views in the functions'
// argument order, and the overloads without an execution space run on the default one.
#include <tessera/fusion/blas1.hpp>
#include <tessera/fusion/blas2.hpp>
#include <tessera/fusion/run.hpp>

#include "expect_rejected.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace {

namespace fusion = tessera::fusion;
using tessera_test::expect_rejected;
using Host   = Kokkos::DefaultHostExecutionSpace;
using Vector = Kokkos::View<double*, Kokkos::HostSpace>;
using Matrix = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace>;

TEST(FusionReadyFunctions, Blas1WrongArgumentsAreNamedByTheFunction) {
  Vector w("w", 8), v("v", 8), u("u", 8), z("z", 8), seven("seven", 7);
  Kokkos::View<double, Kokkos::HostSpace> r("r");
  expect_rejected<std::invalid_argument>(
      [&] { fusion::axpydot(Host{}, 1.0, w, seven, u, z, r); },
      {"tessera::fusion::axpydot: v has 7 elements, expected 8 (the length of w)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::waxpby(Host{}, 1.0, w, 1.0, v, seven); },
      {"tessera::fusion::waxpby: w has 7 elements, expected 8 (the length of x)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::vadd(Host{}, w, v, seven, z); },
      {"tessera::fusion::vadd: z has 7 elements, expected 8 (the length of w)"});
  // sscal has one vector: its one argument check is contiguity.
  const Kokkos::View<double*, Kokkos::LayoutStride, Kokkos::HostSpace> strided =
      Kokkos::subview(Matrix("m", 8, 2), Kokkos::ALL, 0);
  expect_rejected<std::invalid_argument>([&] { fusion::sscal(Host{}, 2.0, strided); },
                                         {"tessera::fusion::sscal: x is not contiguous"});
  // A sequence run directly names its Views by their symbols.
  expect_rejected<std::invalid_argument>(
      [&] { fusion::run(Host{}, fusion::waxpby_sequence(1.0, 1.0), fusion::bind(w, seven, z)); },
      {"tessera::fusion::run: vector 1 has 7 elements, expected 8 (the length of vector 0)"});
}

TEST(FusionReadyFunctions, Blas2WrongArgumentsAreNamedByTheFunction) {
  // A is m x n = 6 x 4: the vectors multiplied by A have 4 elements, the others 6.
  Matrix A("A", 6, 4), B("B", 6, 4), wide("wide", 6, 5), short_("short", 5, 4);
  Vector n4("n4", 4), m6("m6", 6), out_n("out_n", 4), out_m("out_m", 6), out_m2("out_m2", 6);
  Vector four("four", 4), six("six", 6);
  expect_rejected<std::invalid_argument>(
      [&] { fusion::atax(Host{}, A, n4, four, out_n); },
      {"tessera::fusion::atax: tmp has 4 elements, expected 6 (the rows of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::bicgk(Host{}, A, n4, four, out_m, out_n); },
      {"tessera::fusion::bicgk: r has 4 elements, expected 6 (the rows of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::sgemv(Host{}, 1.0, A, n4, 1.0, m6, four); },
      {"tessera::fusion::sgemv: z has 4 elements, expected 6 (the rows of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::sgemvt(Host{}, 1.0, 1.0, A, m6, n4, out_n, four); },
      {"tessera::fusion::sgemvt: w has 4 elements, expected 6 (the rows of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::gemver(Host{}, 1.0, 1.0, A, m6, n4, m6, six, m6, n4, B, out_n, out_m); },
      {"tessera::fusion::gemver: v2 has 6 elements, expected 4 (the columns of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::gemver(Host{}, 1.0, 1.0, A, m6, n4, m6, n4, m6, n4, wide, out_n, out_m); },
      {"tessera::fusion::gemver: B is 6 x 5, expected 6 x 4 (the shape of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::gesummv(Host{}, 1.0, A, 1.0, B, n4, four); },
      {"tessera::fusion::gesummv: y has 4 elements, expected 6 (the rows of A)"});
  expect_rejected<std::invalid_argument>(
      [&] { fusion::madd(Host{}, A, B, short_); },
      {"tessera::fusion::madd: C is 5 x 4, expected 6 x 4 (the shape of A)"});
}

template <class View>
double first(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, v).data()[0];
}

/// Expects every value of a View (in any memory) to be `value`.
template <class View>
void expect_all(const View& v, double value, const std::string& what) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace{}, v);
  for (std::size_t k = 0; k < h.size(); ++k)
    ASSERT_EQ(h.data()[k], value) << what << ", value " << k;
}

TEST(FusionReadyFunctions, DefaultExecutionSpaceOverloads) {
  using Space = Kokkos::DefaultExecutionSpace::memory_space;
  using Vec   = Kokkos::View<double*, Space>;
  using Mat   = Kokkos::View<double**, Kokkos::LayoutRight, Space>;
  auto filled = [](const std::string& name, std::size_t n, double value) {
    Vec v(name, n);
    Kokkos::deep_copy(v, value);
    return v;
  };
  // Vectors of 9: every result is exact in double.
  const Vec w = filled("w", 9, 3), v = filled("v", 9, 1), u = filled("u", 9, 2);
  Vec z("z", 9), x("x", 9);
  Kokkos::View<double, Space> r("r");
  fusion::axpydot(2.0, w, v, u, z, r);  // z = 3 - 2 = 1, r = 9 * 2
  expect_all(z, 1.0, "axpydot z");
  EXPECT_EQ(first(r), 18.0);
  fusion::waxpby(2.0, v, 3.0, u, z);  // 2 + 6
  expect_all(z, 8.0, "waxpby");
  fusion::vadd(w, v, u, x);  // 3 + 1 + 2
  expect_all(x, 6.0, "vadd");
  fusion::sscal(-2.0, x);
  expect_all(x, -12.0, "sscal");

  // A = B = ones, 6 x 4.
  Mat A("A", 6, 4), B("B", 6, 4), C("C", 6, 4), G("G", 6, 4);
  Kokkos::deep_copy(A, 1.0);
  Kokkos::deep_copy(B, 1.0);
  const Vec n1 = filled("n1", 4, 1), m1 = filled("m1", 6, 1), n0 = filled("n0", 4, 0);
  Vec tmp("tmp", 6), yn("yn", 4), q("q", 6), s("s", 4), zm("zm", 6), xn("xn", 4), wm("wm", 6);
  fusion::atax(A, n1, tmp, yn);  // tmp = 4, y = 6 * 4
  expect_all(tmp, 4.0, "atax tmp");
  expect_all(yn, 24.0, "atax y");
  fusion::bicgk(A, n1, m1, q, s);  // q = 4, s = 6
  expect_all(q, 4.0, "bicgk q");
  expect_all(s, 6.0, "bicgk s");
  fusion::sgemv(2.0, A, n1, 3.0, m1, zm);  // 2 * 4 + 3
  expect_all(zm, 11.0, "sgemv");
  fusion::sgemvt(2.0, 3.0, A, m1, n1, xn, wm);  // x = 3 * 6 + 1, w = 2 * 4 * 19
  expect_all(xn, 19.0, "sgemvt x");
  expect_all(wm, 152.0, "sgemvt w");
  fusion::gemver(1.0, 1.0, A, m1, n1, m1, n1, m1, n0, G, xn, wm);  // G = 3, x = 18, w = 4 * 54
  expect_all(G, 3.0, "gemver B");
  expect_all(xn, 18.0, "gemver x");
  expect_all(wm, 216.0, "gemver w");
  fusion::gesummv(2.0, A, 3.0, B, n1, zm);  // 2 * 4 + 3 * 4
  expect_all(zm, 20.0, "gesummv");
  fusion::madd(A, B, C);
  expect_all(C, 2.0, "madd");
}

}  // namespace
