// Argument checks of tessera::genred (the pre-conditions of genred/genred.hpp): every bad input
// throws the documented exception type before any kernel runs (the poisoned output stays
// untouched), with a message "tessera::genred: <argument> <what> (got X, expected Y...)" that
// names the argument and both values.
#include "cluster/block_sparse_test_support.hpp"
#include "genred/genred_test_support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

namespace {

using tessera::Dims;
using tessera::dynamic_extent;
using tessera::In;
using tessera::Out;
using tessera_test::expect_rejected;

/// F = [p0 |x - y|^2 + u0, w0]: one parameter, two i-variables (x, u), two j-variables (y, w).
struct TwoByTwo {
  using param_dims             = Dims<1>;
  using i_dims                 = Dims<3, 1>;
  using j_dims                 = Dims<3, 1>;
  static constexpr int out_dim = 2;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, 1> p, In<T, 3> x, In<T, 1> u, In<T, 3> y, In<T, 1> w,
                                         Out<T, 2> out) const {
    out[0] = p[0] * tessera::squared_distance(x, y) + u[0];
    out[1] = w[0];
  }
};

/// F = y0 + y1 + y2: j-variables only (M comes from the output with Axis::j).
struct OnlyJ {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<>;
  using j_dims                 = Dims<3>;
  static constexpr int out_dim = 1;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, 3> y, Out<T, 1> out) const {
    out[0] = y[0] + y[1] + y[2];
  }
};

/// F = x0: i-variables only.
struct OnlyI {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<3>;
  using j_dims                 = Dims<>;
  static constexpr int out_dim = 1;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, 3> x, Out<T, 1> out) const {
    out[0] = x[0];
  }
};

/// A formula whose run-time output dimension is 0 (invalid).
struct EmptyOutput {
  using param_dims             = Dims<>;
  using i_dims                 = Dims<3>;
  using j_dims                 = Dims<3>;
  static constexpr int out_dim = dynamic_extent;
  int output_dim(const tessera::VariableDims&) const { return 0; }
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(In<T, 3>, In<T, 3>, Out<T, dynamic_extent>) const {}
};

constexpr int M = 5, N = 6;

template <class Space>
using View2 = Kokkos::View<float**, Kokkos::LayoutRight, typename Space::memory_space>;
template <class Space>
using View3 = Kokkos::View<float***, Kokkos::LayoutRight, typename Space::memory_space>;
template <class Space>
using Index2 = Kokkos::View<int**, Kokkos::LayoutRight, typename Space::memory_space>;

template <class Space>
View2<Space> filled(const char* label, int rows, int cols, unsigned seed) {
  return tessera_test::to_view2<float, Space>(
      label, tessera_test::random_values<float>(static_cast<std::size_t>(rows) * cols, 0, 1, seed),
      rows, cols);
}

/// A poisoned values View (NaN) of the given shape.
template <class Space>
View2<Space> poisoned(int rows, int cols) {
  View2<Space> v("out", rows, cols);
  Kokkos::deep_copy(v, std::numeric_limits<float>::quiet_NaN());
  return v;
}
template <class Space>
Index2<Space> poisoned_indices(int rows, int cols) {
  Index2<Space> v("indices", rows, cols);
  Kokkos::deep_copy(v, -7);
  return v;
}

template <class View>
void expect_untouched(const View& v, const std::string& what) {
  for (double e : tessera_test::host_rows(v)) {
    if (std::is_floating_point_v<typename View::value_type>) {
      ASSERT_TRUE(std::isnan(e)) << what << ": output written before the exception";
    } else {
      ASSERT_EQ(e, -7) << what << ": output written before the exception";
    }
  }
}

/// The valid call every test perturbs in one place: M = 5, N = 6, TwoByTwo.
template <class Space>
struct Valid {
  View2<Space> p = filled<Space>("p", 1, 1, 1);
  View2<Space> x = filled<Space>("x", M, 3, 2);
  View2<Space> u = filled<Space>("u", M, 1, 3);
  View2<Space> y = filled<Space>("y", N, 3, 4);
  View2<Space> w = filled<Space>("w", N, 1, 5);
};

template <class Space>
class GenredValidation : public ::testing::Test {};
TYPED_TEST_SUITE(GenredValidation, tessera_test::ExecutionSpaces);

// The unperturbed call is accepted and computes the right values: the rejections below are due
// to their one perturbation only.
TYPED_TEST(GenredValidation, ValidCallRuns) {
  using Space = TypeParam;
  Valid<Space> v;
  auto out = poisoned<Space>(M, 2);
  tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(v.p),
                  tessera::i_vars(v.x, v.u), tessera::j_vars(v.y, v.w), out);
  const auto p = tessera_test::host_rows(v.p), x = tessera_test::host_rows(v.x),
             u = tessera_test::host_rows(v.u), y = tessera_test::host_rows(v.y),
             w = tessera_test::host_rows(v.w), a = tessera_test::host_rows(out);
  for (int i = 0; i < M; ++i) {
    double s0 = 0, s1 = 0;
    for (int j = 0; j < N; ++j) {
      double r2 = 0;
      for (int k = 0; k < 3; ++k)
        r2 += (x[i * 3 + k] - y[j * 3 + k]) * (x[i * 3 + k] - y[j * 3 + k]);
      s0 += p[0] * r2 + u[i];
      s1 += w[j];
    }
    // Six float terms of size <= 4: a few ulp of 24 suffice.
    EXPECT_NEAR(a[i * 2], s0, 1e-5) << "row " << i;
    EXPECT_NEAR(a[i * 2 + 1], s1, 1e-5) << "row " << i;
  }
  // k = N is the largest valid k on Axis::j.
  auto values  = poisoned<Space>(M, 2 * N);
  auto indices = poisoned_indices<Space>(M, 2 * N);
  tessera::genred(Space(), tessera::KMinArgKMin{N}, TwoByTwo{}, tessera::params(v.p),
                  tessera::i_vars(v.x, v.u), tessera::j_vars(v.y, v.w),
                  tessera::outputs(values, indices));
  const auto hi = tessera_test::host_rows(indices);
  for (int i = 0; i < M; ++i) {  // component 1 is w_j: its k = N smallest list is a permutation
    std::vector<int> seen(N, 0);
    for (int t = 0; t < N; ++t) {
      const int j = static_cast<int>(hi[i * 2 * N + t * 2 + 1]);
      ASSERT_GE(j, 0);
      ASSERT_LT(j, N);
      ++seen[j];
    }
    for (int j = 0; j < N; ++j)
      EXPECT_EQ(seen[j], 1) << "row " << i << " index " << j;
  }
}

TYPED_TEST(GenredValidation, RowCountsDisagree) {
  using Space = TypeParam;
  Valid<Space> v;
  auto out      = poisoned<Space>(M, 2);
  const auto u4 = filled<Space>("u", M - 1, 1, 6);
  const auto w7 = filled<Space>("w", N + 1, 1, 7);
  const auto p2 = filled<Space>("p", 2, 1, 8);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(v.p),
                        tessera::i_vars(v.x, u4), tessera::j_vars(v.y, v.w), out);
      },
      {"tessera::genred: ", "i_vars[1] rows", "got 4", "expected 5"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(v.p),
                        tessera::i_vars(v.x, v.u), tessera::j_vars(v.y, w7), out);
      },
      {"tessera::genred: ", "j_vars[1] rows", "got 7", "expected 6"});
  // Axis::i reads M and N the same way: the check does not depend on the axis.
  tessera::GenredOptions axis_i = tessera_test::test_options();
  axis_i.axis                   = tessera::Axis::i;
  auto out_n                    = poisoned<Space>(N, 2);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(v.p),
                        tessera::i_vars(v.x, v.u), tessera::j_vars(v.y, w7), out_n, axis_i);
      },
      {"tessera::genred: ", "j_vars[1] rows", "got 7", "expected 6"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(p2),
                        tessera::i_vars(v.x, v.u), tessera::j_vars(v.y, v.w), out);
      },
      {"tessera::genred: ", "params[0] rows", "got 2", "expected 1"});
  expect_untouched(out, "rows");
  expect_untouched(out_n, "rows, Axis::i");
}

TYPED_TEST(GenredValidation, DimensionDisagreesWithFormula) {
  using Space = TypeParam;
  Valid<Space> v;
  auto out      = poisoned<Space>(M, 2);
  const auto x2 = filled<Space>("x", M, 2, 9);
  const auto y4 = filled<Space>("y", N, 4, 10);
  const auto w2 = filled<Space>("w", N, 2, 11);
  const auto p3 = filled<Space>("p", 1, 3, 12);
  auto run      = [&](const auto& p, const auto& x, const auto& y, const auto& w) {
    return [&, p, x, y, w] {
      tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(p),
                           tessera::i_vars(x, v.u), tessera::j_vars(y, w), out);
    };
  };
  expect_rejected<std::invalid_argument>(
      run(v.p, x2, v.y, v.w), {"tessera::genred: ", "i_vars[0] dimension", "got 2", "expected 3",
                               "declared by the formula"});
  expect_rejected<std::invalid_argument>(
      run(v.p, v.x, y4, v.w), {"tessera::genred: ", "j_vars[0] dimension", "got 4", "expected 3"});
  expect_rejected<std::invalid_argument>(
      run(v.p, v.x, v.y, w2), {"tessera::genred: ", "j_vars[1] dimension", "got 2", "expected 1"});
  expect_rejected<std::invalid_argument>(
      run(p3, v.x, v.y, v.w), {"tessera::genred: ", "params[0] dimension", "got 3", "expected 1"});
  // A run-time dimension accepts any extent >= 1, but not 0.
  const auto x0 = filled<Space>("x", M, 0, 13);
  auto out1     = poisoned<Space>(M, 1);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, tessera::SquaredDistance<dynamic_extent>{},
                        tessera::i_vars(x0), tessera::j_vars(v.y), out1);
      },
      {"tessera::genred: ", "i_vars[0] dimension must be at least 1", "got 0"});
  expect_untouched(out, "dimension");
  expect_untouched(out1, "dimension 0");
}

TYPED_TEST(GenredValidation, BatchExtentsDisagree) {
  using Space = TypeParam;
  auto make   = [](const char* label, int batch, int rows, int cols) {
    View3<Space> v(std::string(label), batch, rows, cols);
    Kokkos::deep_copy(v, 0.5f);
    return v;
  };
  const auto p = make("p", 2, 1, 1), x = make("x", 2, M, 3), u = make("u", 2, M, 1),
             y = make("y", 2, N, 3), w = make("w", 2, N, 1);
  const auto x3 = make("x", 3, M, 3), y1 = make("y", 1, N, 3);
  View3<Space> out("out", 2, M, 2), out1("out", 1, M, 2);
  Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
  Kokkos::deep_copy(out1, std::numeric_limits<float>::quiet_NaN());
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(p),
                        tessera::i_vars(x3, u), tessera::j_vars(y, w), out);
      },
      {"tessera::genred: ", "i_vars[0] batch extent", "got 3", "expected 2"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(p),
                        tessera::i_vars(x, u), tessera::j_vars(y1, w), out);
      },
      {"tessera::genred: ", "j_vars[0] batch extent", "got 1", "expected 2"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(p),
                        tessera::i_vars(x, u), tessera::j_vars(y, w), out1);
      },
      {"tessera::genred: ", "out batch extent", "got 1", "expected 2"});
  for (const auto& o : {out, out1}) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), o);
    for (std::size_t e = 0; e < h.size(); ++e) {
      ASSERT_TRUE(std::isnan(h.data()[e])) << "batch: output written before the exception";
    }
  }
  // The same Views with consistent batches are accepted: out = sum_j F, F = [0.25 * 0 + 0.5,
  // 0.5] since all points coincide.
  tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(p), tessera::i_vars(x, u),
                  tessera::j_vars(y, w), out);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < M; ++i) {
      EXPECT_EQ(h(b, i, 0), 0.5f * N);  // exact: sums of 0.5
      EXPECT_EQ(h(b, i, 1), 0.5f * N);
    }
  }
}

TYPED_TEST(GenredValidation, OutputShape) {
  using Space = TypeParam;
  Valid<Space> v;
  auto call = [&](const auto& reduction, const auto& out, tessera::Axis axis = tessera::Axis::j) {
    return [&, reduction, out, axis] {
      tessera::GenredOptions opt = tessera_test::test_options();
      opt.axis                   = axis;
      tessera::genred(Space(), reduction, TwoByTwo{}, tessera::params(v.p),
                      tessera::i_vars(v.x, v.u), tessera::j_vars(v.y, v.w), out, opt);
    };
  };
  const auto rows4 = poisoned<Space>(M - 1, 2), cols3 = poisoned<Space>(M, 3),
             axis_i_rows = poisoned<Space>(M, 2), kmin_cols = poisoned<Space>(M, 2);
  const auto good_values = poisoned<Space>(M, 2), bad_values = poisoned<Space>(M + 2, 2);
  const auto good_indices = poisoned_indices<Space>(M, 2),
             bad_indices  = poisoned_indices<Space>(M, 1);
  expect_rejected<std::invalid_argument>(call(tessera::Sum{}, rows4),
                                         {"tessera::genred: ", "out rows", "got 4", "expected 5"});
  expect_rejected<std::invalid_argument>(
      call(tessera::Sum{}, cols3), {"tessera::genred: ", "out columns", "got 3", "expected 2"});
  expect_rejected<std::invalid_argument>(
      call(tessera::Sum{}, axis_i_rows, tessera::Axis::i),
      {"tessera::genred: ", "out rows", "got 5", "expected 6", "Axis::i"});
  expect_rejected<std::invalid_argument>(
      call(tessera::KMin{2}, kmin_cols),  // K-reductions write k * D columns
      {"tessera::genred: ", "out columns", "got 2", "expected 4"});
  expect_rejected<std::invalid_argument>(
      call(tessera::ArgMin{}, bad_indices),
      {"tessera::genred: ", "out columns", "got 1", "expected 2"});
  expect_rejected<std::invalid_argument>(
      call(tessera::MinArgMin{}, tessera::outputs(good_values, bad_indices)),
      {"tessera::genred: ", "out.indices columns", "got 1", "expected 2"});
  expect_rejected<std::invalid_argument>(
      call(tessera::MaxArgMax{}, tessera::outputs(bad_values, good_indices)),
      {"tessera::genred: ", "out.values rows", "got 7", "expected 5"});
  for (const auto& o : {rows4, cols3, axis_i_rows, kmin_cols, good_values, bad_values}) {
    expect_untouched(o, "output shape");
  }
  expect_untouched(good_indices, "output shape");
  expect_untouched(bad_indices, "output shape");
}

TYPED_TEST(GenredValidation, KOutOfRange) {
  using Space = TypeParam;
  Valid<Space> v;
  auto call = [&](const auto& reduction, const auto& out, tessera::Axis axis) {
    return [&, reduction, out, axis] {
      tessera::GenredOptions opt = tessera_test::test_options();
      opt.axis                   = axis;
      tessera::genred(Space(), reduction, TwoByTwo{}, tessera::params(v.p),
                      tessera::i_vars(v.x, v.u), tessera::j_vars(v.y, v.w), out, opt);
    };
  };
  const auto j = tessera::Axis::j, i = tessera::Axis::i;
  auto values  = poisoned<Space>(M, 2);
  auto indices = poisoned_indices<Space>(M, 2);
  auto out_n   = poisoned<Space>(N, 2 * N);
  auto idx_n   = poisoned_indices<Space>(N, 2 * N);
  expect_rejected<std::invalid_argument>(call(tessera::KMin{0}, values, j),
                                         {"tessera::genred: ", "k (got 0)", "[1, 6]"});
  expect_rejected<std::invalid_argument>(call(tessera::KMin{-3}, values, j),
                                         {"tessera::genred: ", "k (got -3)", "[1, 6]"});
  expect_rejected<std::invalid_argument>(call(tessera::ArgKMin{N + 1}, indices, j),
                                         {"tessera::genred: ", "k (got 7)", "[1, 6]"});
  expect_rejected<std::invalid_argument>(
      call(tessera::KMinArgKMin{N + 1}, tessera::outputs(values, indices), j),
      {"tessera::genred: ", "k (got 7)", "[1, 6]"});
  // Axis::i reduces over the M = 5 i-rows: k = 6 is valid on Axis::j but not here.
  expect_rejected<std::invalid_argument>(
      call(tessera::KMinArgKMin{N}, tessera::outputs(out_n, idx_n), i),
      {"tessera::genred: ", "k (got 6)", "[1, 5]"});
  expect_untouched(values, "k");
  expect_untouched(indices, "k");
  expect_untouched(out_n, "k, Axis::i");
  expect_untouched(idx_n, "k, Axis::i");
}

TYPED_TEST(GenredValidation, WeightedReductionNeedsTwoComponents) {
  using Space = TypeParam;
  Valid<Space> v;
  auto out = poisoned<Space>(M, 1);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::LogSumExpWeighted{}, tessera::GaussianKernel<3>(1.0),
                        tessera::i_vars(v.x), tessera::j_vars(v.y), out);
      },
      {"tessera::genred: ", "formula output dimension", "got 1", "expected at least 2"});
  // A run-time weight dimension of 1 gives a run-time output dimension of 1: same rejection.
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::SumSoftMaxWeight{},
                        tessera::GaussianKernel<3, dynamic_extent>(1.0), tessera::i_vars(v.x),
                        tessera::j_vars(v.y, v.w), out);
      },
      {"tessera::genred: ", "formula output dimension", "got 1", "expected at least 2"});
  // A run-time output dimension of 0 is rejected for every reduction.
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, EmptyOutput{}, tessera::i_vars(v.x),
                        tessera::j_vars(v.y), out);
      },
      {"tessera::genred: ", "formula output dimension must be at least 1", "got 0"});
  expect_untouched(out, "weighted");
}

// Implementation::cuda and Implementation::host run their kernel where the execution space has
// it (the same results as the portable kernel) and are rejected before any kernel elsewhere.
TYPED_TEST(GenredValidation, ForcedImplementationNeedsItsBackend) {
  using Space = TypeParam;
  Valid<Space> v;
  const auto call = [&](const tessera::GenredOptions& options, View2<Space> result) {
    tessera::genred(Space(), tessera::Min{}, tessera::SquaredDistance<3>{}, tessera::i_vars(v.x),
                    tessera::j_vars(v.y), result, options);
  };
  for (const auto& [implementation, message] :
       {std::pair{tessera::Implementation::cuda, "Implementation::cuda needs a Kokkos::Cuda"},
        std::pair{tessera::Implementation::host, "Implementation::host needs a host execution"}}) {
    SCOPED_TRACE(message);
    auto out                 = poisoned<Space>(M, 1);
    tessera::GenredOptions o = tessera_test::test_options();
    o.implementation         = implementation;
    if (tessera::Impl::GenredBackend<Space>::implementation == implementation) {
      auto portable             = poisoned<Space>(M, 1);
      tessera::GenredOptions po = o;
      po.implementation         = tessera::Implementation::portable;
      call(o, out);
      call(po, portable);
      const auto got = tessera_test::host_rows(out), want = tessera_test::host_rows(portable);
      ASSERT_EQ(got.size(), want.size());
      // The CUDA kernel runs the portable body: the same bits. The host kernel's vectorised
      // arithmetic may contract to FMA: the same values within float rounding.
      const double tol = implementation == tessera::Implementation::cuda ? 0 : 1e-5;
      for (std::size_t e = 0; e < got.size(); ++e)
        EXPECT_NEAR(got[e], want[e], tol * std::fabs(want[e])) << "entry " << e;
      if (implementation == tessera::Implementation::host) {
        // A call the host kernel does not take (the 2D scheme) is rejected before any kernel.
        auto untouched            = poisoned<Space>(M, 1);
        tessera::GenredOptions o2 = o;
        o2.scheme                 = tessera::Scheme::tiled_2d;
        expect_rejected<std::invalid_argument>(
            [&] { call(o2, untouched); },
            {"tessera::genred: ",
             "Implementation::host: the host kernel takes calls of the 1D "
             "scheme (dense or block-sparse)"});
        expect_untouched(untouched, "Implementation::host with Scheme::tiled_2d");
        // A block-sparse call is taken: the portable kernel's values, the empty-range value
        // (+infinity) for the segment that keeps nothing.
        tessera_test::HostPattern pattern(M, N);
        pattern.add_segment(2, {{1, 4}});
        pattern.add_segment(M, {});
        const auto ranges      = pattern.to_device<Space>();
        const auto call_sparse = [&](const tessera::GenredOptions& options, View2<Space> result) {
          tessera::genred(Space(), tessera::Min{}, tessera::SquaredDistance<3>{},
                          tessera::i_vars(v.x), tessera::j_vars(v.y), result, ranges, options);
        };
        auto sparse = poisoned<Space>(M, 1), sparse_portable = poisoned<Space>(M, 1);
        call_sparse(o, sparse);
        call_sparse(po, sparse_portable);
        const auto s = tessera_test::host_rows(sparse);
        const auto w = tessera_test::host_rows(sparse_portable);
        for (int i = 0; i < M; ++i) {
          if (i < 2) {
            EXPECT_NEAR(s[i], w[i], 1e-5 * w[i]) << "block-sparse row " << i;
          } else {
            EXPECT_EQ(s[i], std::numeric_limits<double>::infinity()) << "block-sparse row " << i;
          }
        }
      }
    } else {
      expect_rejected<std::invalid_argument>([&] { call(o, out); }, {"tessera::genred: ", message});
      expect_untouched(out, message);
    }
  }
}

TYPED_TEST(GenredValidation, AxisWithoutVariables) {
  using Space = TypeParam;
  Valid<Space> v;
  auto out_m                    = poisoned<Space>(M, 1);
  auto out_n                    = poisoned<Space>(N, 1);
  tessera::GenredOptions axis_i = tessera_test::test_options();
  axis_i.axis                   = tessera::Axis::i;
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, OnlyJ{}, tessera::i_vars(), tessera::j_vars(v.y),
                        out_n, axis_i);
      },
      {"tessera::genred: ", "Axis::i needs at least one i-variable"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, OnlyI{}, tessera::i_vars(v.x), tessera::j_vars(),
                        out_m);
      },
      {"tessera::genred: ", "Axis::j needs at least one j-variable"});
  expect_untouched(out_m, "no j-variables");
  expect_untouched(out_n, "no i-variables");

  // The documented complements: Axis::j without i-variables takes M from the output, Axis::i
  // without j-variables takes N from it.
  tessera::genred(Space(), tessera::Sum{}, OnlyJ{}, tessera::i_vars(), tessera::j_vars(v.y), out_m);
  tessera::genred(Space(), tessera::Max{}, OnlyI{}, tessera::i_vars(v.x), tessera::j_vars(), out_n,
                  axis_i);
  const auto y = tessera_test::host_rows(v.y), x = tessera_test::host_rows(v.x);
  double sum = 0, max = -1;
  for (int j = 0; j < N; ++j)
    sum += y[j * 3] + y[j * 3 + 1] + y[j * 3 + 2];
  for (int i = 0; i < M; ++i)
    max = std::max(max, x[i * 3]);
  const auto hm = tessera_test::host_rows(out_m), hn = tessera_test::host_rows(out_n);
  for (int i = 0; i < M; ++i)
    EXPECT_NEAR(hm[i], sum, 1e-5) << i;  // 18 floats in [0, 1)
  for (int j = 0; j < N; ++j)
    EXPECT_EQ(hn[j], max) << j;  // a max is exact
}

TYPED_TEST(GenredValidation, ExtentBeyondIntIsLengthError) {
  using Space = TypeParam;
  Valid<Space> v;
  // An unmanaged View claiming 2^31 rows over a small allocation: genred must reject it from
  // its extents alone, before reading anything.
  using Unmanaged        = Kokkos::View<float**, Kokkos::LayoutRight, typename Space::memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const std::size_t rows = std::size_t(1) << 31;
  Unmanaged huge(v.x.data(), rows, 3);
  auto out = poisoned<Space>(M, 2);
  expect_rejected<std::length_error>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(v.p),
                        tessera::i_vars(huge, v.u), tessera::j_vars(v.y, v.w), out);
      },
      {"tessera::genred: ", "M extent 2147483648", "2147483647"});
  expect_rejected<std::length_error>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(v.p),
                        tessera::i_vars(v.x, v.u), tessera::j_vars(huge, v.w), out);
      },
      {"tessera::genred: ", "N extent 2147483648", "2147483647"});
  expect_untouched(out, "length");
}

// Every option out of its documented range is rejected with the option's name, the same way
// the interval primitives reject their options.
TYPED_TEST(GenredValidation, OptionsOutOfRange) {
  using Space = TypeParam;
  Valid<Space> v;
  auto out        = poisoned<Space>(M, 2);
  const auto call = [&](const tessera::GenredOptions& o) {
    tessera::genred(Space(), tessera::Sum{}, TwoByTwo{}, tessera::params(v.p),
                    tessera::i_vars(v.x, v.u), tessera::j_vars(v.y, v.w), out, o);
  };
  const auto with = [](auto set) {
    tessera::GenredOptions o = tessera_test::test_options();
    set(o);
    return o;
  };
  expect_rejected<std::invalid_argument>(
      [&] { call(with([](auto& o) { o.tile_j = -1; })); },
      {"tessera::genred: ", "options.tile_j must be >= 0", "(got -1)"});
  expect_rejected<std::invalid_argument>(
      [&] { call(with([](auto& o) { o.team_size = -3; })); },
      {"tessera::genred: ", "options.team_size must be >= 0", "(got -3)"});
  expect_rejected<std::invalid_argument>(
      [&] { call(with([](auto& o) { o.chunks_2d = -2; })); },
      {"tessera::genred: ", "options.chunks_2d must be >= 0", "(got -2)"});
  expect_rejected<std::invalid_argument>(
      [&] { call(with([](auto& o) { o.axis = static_cast<tessera::Axis>(7); })); },
      {"tessera::genred: ", "options.axis is not an Axis", "(got 7)"});
  expect_rejected<std::invalid_argument>(
      [&] { call(with([](auto& o) { o.summation = static_cast<tessera::Summation>(-1); })); },
      {"tessera::genred: ", "options.summation is not a Summation", "(got -1)"});
  expect_rejected<std::invalid_argument>(
      [&] { call(with([](auto& o) { o.scheme = static_cast<tessera::Scheme>(3); })); },
      {"tessera::genred: ", "options.scheme is not a Scheme", "(got 3)"});
  expect_rejected<std::invalid_argument>(
      [&] {
        call(with([](auto& o) { o.implementation = static_cast<tessera::Implementation>(9); }));
      },
      {"tessera::genred: ", "options.implementation is not an Implementation", "(got 9)"});
  // a team larger than the backend runs (the portable kernel; the CUDA kernel sizes its own)
  expect_rejected<std::invalid_argument>(
      [&] {
        call(with([](auto& o) {
          o.implementation = tessera::Implementation::portable;
          o.team_size      = 1 << 20;
        }));
      },
      {"tessera::genred: ", "options.team_size is too large for this backend",
       "(got 1048576, expected at most "});
  expect_untouched(out, "options");
}

/// F = |x - y|^2 with run-time dimensions (SquaredDistance<dynamic_extent>).
template <class Space>
void call_dynamic_distance(const View2<Space>& x, const View2<Space>& y, const View2<Space>& out) {
  tessera::genred(Space(), tessera::Sum{}, tessera::SquaredDistance<dynamic_extent>{},
                  tessera::i_vars(x), tessera::j_vars(y), out, tessera_test::test_options());
}

// Run-time dimensions of x and y must agree for the built-in formulas that compare points: 3
// against 4 would silently use 3, 4 against 3 would read past each y row.
TYPED_TEST(GenredValidation, DynamicDimensionsMustAgree) {
  using Space   = TypeParam;
  const auto x3 = filled<Space>("x3", M, 3, 11), x4 = filled<Space>("x4", M, 4, 12);
  const auto y3 = filled<Space>("y3", N, 3, 13), y4 = filled<Space>("y4", N, 4, 14);
  auto out = poisoned<Space>(M, 1);
  expect_rejected<std::invalid_argument>(
      [&] { call_dynamic_distance<Space>(x3, y4, out); },
      {"tessera::genred: ", "j_vars[0] dimension (got 4, expected 3", "i_vars[0]"});
  expect_rejected<std::invalid_argument>(
      [&] { call_dynamic_distance<Space>(x4, y3, out); },
      {"tessera::genred: ", "j_vars[0] dimension (got 3, expected 4", "i_vars[0]"});
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::Sum{}, tessera::GaussianKernel<dynamic_extent>(1.0),
                        tessera::i_vars(x4), tessera::j_vars(y3), out,
                        tessera_test::test_options());
      },
      {"tessera::genred: ", "j_vars[0] dimension (got 3, expected 4"});
  expect_untouched(out, "dynamic dimensions");
  // equal run-time dimensions: accepted, and the right sums
  call_dynamic_distance<Space>(x4, y4, out);
  const auto hx = tessera_test::host_rows(x4), hy = tessera_test::host_rows(y4);
  const auto ha = tessera_test::host_rows(out);
  for (int i = 0; i < M; ++i) {
    double sum = 0;
    for (int j = 0; j < N; ++j)
      for (int k = 0; k < 4; ++k)
        sum += (hx[i * 4 + k] - hy[j * 4 + k]) * (hx[i * 4 + k] - hy[j * 4 + k]);
    EXPECT_NEAR(ha[i], sum, 1e-5 * sum) << i;  // 24 float terms
  }
}

// An index output whose type cannot hold every reduced index is rejected (int16_t with
// N = 40000 would wrap to negative indices); one that can is exact. (Unsigned index types are
// rejected at compile time: an empty range writes -1.)
TYPED_TEST(GenredValidation, IndexTypeMustHoldReducedIndices) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  const int n = 40000;
  auto x      = filled<Space>("x", 2, 1, 21);
  auto y      = filled<Space>("y", n, 1, 22);
  Kokkos::View<std::int16_t**, Mem> narrow("narrow", 2, 1);
  Kokkos::deep_copy(narrow, -7);
  expect_rejected<std::length_error>(
      [&] {
        tessera::genred(Space(), tessera::ArgMin{}, tessera::SquaredDistance<1>{},
                        tessera::i_vars(x), tessera::j_vars(y), narrow,
                        tessera_test::test_options());
      },
      {"tessera::genred: ", "out cannot hold the reduced indices", "holds up to 32767",
       "reduced extent is 40000"});
  expect_untouched(narrow, "narrow indices");
  // 32768 reduced rows: the largest index, 32767, fits int16_t
  auto y_fit = Kokkos::subview(y, std::make_pair(0, 32768), Kokkos::ALL);
  Kokkos::View<int**, Mem> wide("wide", 2, 1);
  tessera::genred(Space(), tessera::ArgMin{}, tessera::SquaredDistance<1>{}, tessera::i_vars(x),
                  tessera::j_vars(y_fit), narrow, tessera_test::test_options());
  tessera::genred(Space(), tessera::ArgMin{}, tessera::SquaredDistance<1>{}, tessera::i_vars(x),
                  tessera::j_vars(y_fit), wide, tessera_test::test_options());
  EXPECT_EQ(tessera_test::host_rows(narrow), tessera_test::host_rows(wide));
}

// An output sharing memory with a variable (out = x = y gave a wrong result) or with the other
// output is rejected before any kernel runs; disjoint pieces of one allocation are accepted.
TYPED_TEST(GenredValidation, OutputSharingMemoryWithAnInput) {
  using Space = TypeParam;
  using Mem   = typename Space::memory_space;
  auto xy     = filled<Space>("xy", M, 1, 31);
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> copy("copy", M, 1);
  Kokkos::deep_copy(copy, xy);
  const auto sum_into = [&](const auto& x, const auto& y, const auto& out) {
    tessera::genred(Space(), tessera::Sum{}, tessera::SquaredDistance<1>{}, tessera::i_vars(x),
                    tessera::j_vars(y), out, tessera_test::test_options());
  };
  expect_rejected<std::invalid_argument>([&] { sum_into(xy, xy, xy); },
                                         {"tessera::genred: ", "out shares memory with i_vars[0]"});
  expect_rejected<std::invalid_argument>([&] { sum_into(copy, xy, xy); },
                                         {"tessera::genred: ", "out shares memory with j_vars[0]"});
  // partial overlap: the output is rows [2, 2 + M) of an allocation whose rows [0, M) are y
  View2<Space> big("big", M + 2, 1);
  Kokkos::deep_copy(Kokkos::subview(big, std::make_pair(0, M), Kokkos::ALL), xy);
  auto y_part   = Kokkos::subview(big, std::make_pair(0, M), Kokkos::ALL);
  auto out_part = Kokkos::subview(big, std::make_pair(2, M + 2), Kokkos::ALL);
  expect_rejected<std::invalid_argument>([&] { sum_into(copy, y_part, out_part); },
                                         {"tessera::genred: ", "out shares memory with j_vars[0]"});
  // values and indices over one allocation
  auto values = poisoned<Space>(M, 1);
  using Alias =
      Kokkos::View<int**, Kokkos::LayoutRight, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Alias indices(reinterpret_cast<int*>(values.data()), M, 1);
  expect_rejected<std::invalid_argument>(
      [&] {
        tessera::genred(Space(), tessera::MinArgMin{}, tessera::SquaredDistance<1>{},
                        tessera::i_vars(copy), tessera::j_vars(copy),
                        tessera::outputs(values, indices), tessera_test::test_options());
      },
      {"tessera::genred: ", "out.values shares memory with out.indices"});
  expect_untouched(values, "aliased outputs");
  // disjoint halves of one allocation: accepted, and the same sums as separate Views
  View2<Space> halves("halves", 2 * M, 1);
  auto first  = Kokkos::subview(halves, std::make_pair(0, M), Kokkos::ALL);
  auto second = Kokkos::subview(halves, std::make_pair(M, 2 * M), Kokkos::ALL);
  Kokkos::deep_copy(first, xy);
  auto reference = poisoned<Space>(M, 1);
  sum_into(first, first, second);
  sum_into(copy, copy, reference);
  EXPECT_EQ(tessera_test::host_rows(second), tessera_test::host_rows(reference));
}

}  // namespace
