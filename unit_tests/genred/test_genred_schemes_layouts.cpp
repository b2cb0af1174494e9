// How genred reads and writes its Views (schemes_test_support.hpp's (c)): LayoutLeft,
// LayoutRight and LayoutStride inputs and outputs, batched or not, give identical results.
#include "genred/schemes_test_support.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace tessera_test::schemes;

// ---------------------------------------------------------------- (c) layouts

struct Right {};
struct Left {};
struct Strided {};  // columns 2 apart: a subview of a (rows, cols, 2) View

/// A rank-2 device View of the given layout holding row-major host data; fill is written to
/// the elements a strided View skips.
template <class Kind, class T, class Space>
auto layout_view(const std::string& label, const std::vector<double>& data, int rows, int cols,
                 T fill) {
  using Mem = typename Space::memory_space;
  auto src  = tessera_test::to_view2<T, Space>(label, data, rows, cols);
  if constexpr (std::is_same_v<Kind, Strided>) {
    Kokkos::View<T***, Kokkos::LayoutRight, Mem> backing(label + " backing", rows, cols, 2);
    Kokkos::deep_copy(backing, fill);
    Kokkos::View<T**, Kokkos::LayoutStride, Mem> v =
        Kokkos::subview(backing, Kokkos::ALL, Kokkos::ALL, 1);
    Kokkos::deep_copy(v, src);
    return v;
  } else {
    using Layout =
        std::conditional_t<std::is_same_v<Kind, Left>, Kokkos::LayoutLeft, Kokkos::LayoutRight>;
    Kokkos::View<T**, Layout, Mem> v(label, rows, cols);
    Kokkos::deep_copy(v, src);
    return v;
  }
}

template <class Space, class T, class Reduction, class KP, class KX, class KY, class KB, class KV,
          class KI>
std::pair<std::vector<double>, std::vector<double>> run_layouts(const Reduction& reduction,
                                                                const tessera_test::ProblemData& d,
                                                                int cols) {
  auto p  = layout_view<KP, T, Space>("p", d.p, 1, 1, T(-1));
  auto x  = layout_view<KX, T, Space>("x", d.x, d.m, 3, T(-1));
  auto y  = layout_view<KY, T, Space>("y", d.y, d.n, 3, T(-1));
  auto b  = layout_view<KB, T, Space>("b", d.b, d.n, 2, T(-1));
  auto vv = layout_view<KV, T, Space>(
      "values", std::vector<double>(static_cast<std::size_t>(d.m) * cols, std::nan("")), d.m, cols,
      std::numeric_limits<T>::quiet_NaN());
  auto iv = layout_view<KI, int, Space>(
      "indices", std::vector<double>(static_cast<std::size_t>(d.m) * cols, -7.0), d.m, cols, -7);
  tessera::GenredOptions opt = tessera_test::test_options();
  opt.tile_j                 = 64;  // several tiles over N = 300
  tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                  tessera::j_vars(y, b), output_of<Reduction>(vv, iv), opt);
  return {tessera_test::host_rows(vv), tessera_test::host_rows(iv)};
}

template <class Space, class T, class Reduction>
void check_layouts(const Reduction& reduction) {
  const tessera_test::ProblemData d = tessera_test::make_problem<T>(0, 37, 300, 17);
  const auto ref   = tessera_ref::reduce(reduction, 1, d.m, d.n, MixedFormula::out_dim,
                                         tessera_test::reference_formula(d, tessera::Axis::j));
  const int k      = tessera::Impl::reduction_k(reduction);
  const auto right = run_layouts<Space, T, Reduction, Right, Right, Right, Right, Right, Right>(
      reduction, d, ref.cols);
  tessera_test::expect_matches(reduction, ref, right.first, right.second, MixedFormula::out_dim, k,
                               tessera_test::tolerance<T>(), "LayoutRight");
  const auto left =
      run_layouts<Space, T, Reduction, Left, Left, Left, Left, Left, Left>(reduction, d, ref.cols);
  const auto strided =
      run_layouts<Space, T, Reduction, Strided, Strided, Strided, Strided, Strided, Strided>(
          reduction, d, ref.cols);
  const auto mixed = run_layouts<Space, T, Reduction, Right, Left, Strided, Left, Strided, Left>(
      reduction, d, ref.cols);
  // The arithmetic does not depend on the layout: results are bitwise identical (NaN == NaN
  // for the output a reduction does not write is checked as "still poisoned").
  auto same = [](const std::vector<double>& a, const std::vector<double>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    for (std::size_t e = 0; e < a.size(); ++e) {
      if (std::isnan(b[e])) {
        ASSERT_TRUE(std::isnan(a[e])) << what << " entry " << e;
      } else {
        ASSERT_EQ(a[e], b[e]) << what << " entry " << e;
      }
    }
  };
  same(left.first, right.first, "LayoutLeft values");
  same(left.second, right.second, "LayoutLeft indices");
  same(strided.first, right.first, "LayoutStride values");
  same(strided.second, right.second, "LayoutStride indices");
  same(mixed.first, right.first, "mixed layouts values");
  same(mixed.second, right.second, "mixed layouts indices");
}

/// Batched (rank-3) LayoutLeft Views against the LayoutRight ones of tessera_test::to_view.
template <class Space, class T, class Reduction>
void check_batched_layout_left(const Reduction& reduction) {
  using Mem                         = typename Space::memory_space;
  const tessera_test::ProblemData d = tessera_test::make_problem<T>(2, 23, 100, 19);
  const auto ref = tessera_ref::reduce(reduction, 2, d.m, d.n, MixedFormula::out_dim,
                                       tessera_test::reference_formula(d, tessera::Axis::j));
  auto p         = tessera_test::to_view<T, Space>("p", d.p, 2, 1, 1);
  auto x         = tessera_test::to_view<T, Space>("x", d.x, 2, d.m, 3);
  auto y         = tessera_test::to_view<T, Space>("y", d.y, 2, d.n, 3);
  auto b         = tessera_test::to_view<T, Space>("b", d.b, 2, d.n, 2);
  auto left      = [](const auto& v) {
    Kokkos::View<T***, Kokkos::LayoutLeft, Mem> l("left", v.extent(0), v.extent(1), v.extent(2));
    Kokkos::deep_copy(l, v);
    return l;
  };
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> out_r("out", 2, d.m, ref.cols);
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> out_l("out", 2, d.m, ref.cols);
  tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(p), tessera::i_vars(x),
                  tessera::j_vars(y, b), out_r, tessera_test::test_options());
  tessera::genred(Space(), reduction, MixedFormula{}, tessera::params(left(p)),
                  tessera::i_vars(left(x)), tessera::j_vars(left(y), left(b)), out_l,
                  tessera_test::test_options());
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> out_l_as_r("out", 2, d.m, ref.cols);
  Kokkos::deep_copy(out_l_as_r, out_l);
  const auto hr = tessera_test::host_values(out_r), hl = tessera_test::host_values(out_l_as_r);
  tessera_test::expect_matches(reduction, ref, hr, std::vector<double>(hr.size(), 0.0),
                               MixedFormula::out_dim, 1, tessera_test::tolerance<T>(),
                               "batched LayoutRight");
  expect_identical(hl, hr, "batched LayoutLeft vs LayoutRight");
}

TYPED_TEST(GenredSchemes, LayoutsGiveIdenticalResults) {
  using Space = TypeParam;
  check_layouts<Space, float>(tessera::Sum{});
  check_layouts<Space, float>(tessera::KMinArgKMin{3});
  check_layouts<Space, double>(tessera::SumSoftMaxWeight{});
  check_batched_layout_left<Space, float>(tessera::LogSumExp{});
}

}  // namespace
