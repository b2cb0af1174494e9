// tessera::mpi::block_sparse_from_cutoff and the block-sparse tessera::mpi::genred, on 1 to 4
// ranks with uneven and empty slices of clouds dealt as slabs (as a domain decomposition deals
// them, so that patterns prune):
//  - the pattern of each axis keeps every pair of the whole clouds within the cutoff, and the
//    ranks assemble fewer rows than dense calls would;
//  - every reduction, both axes, float and double, batched or not: the rank's rows equal the
//    double-precision host reference over the whole problem restricted to the pattern's pairs,
//    with reduced indices global;
//  - end to end: for formulas that vanish (Sum) or are infinite (KMinArgKMin) beyond the cutoff,
//    the rank's rows equal those of one dense genred call on the gathered sorted clouds;
//  - a pattern built for other slices, or Scheme::tiled_2d, is rejected on every rank.
#include "cluster/block_sparse_test_support.hpp"
#include "mpi/distributed_test_support.hpp"

#include <tessera/mpi/block_sparse.hpp>
#include <tessera/mpi/genred.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

using namespace tessera_test;
using Space = Kokkos::DefaultExecutionSpace;
using tessera::Axis;

constexpr double cutoff = 0.12;
constexpr double voxel  = 0.25;

template <class T>
using Points = Kokkos::View<T**, Kokkos::LayoutRight, Space::memory_space>;

/// `count` random points of the unit cube, ordered by their first coordinate: consecutive rows
/// form slabs, so that a rank's slice is a slab.
std::vector<double> slab_cloud(int count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<std::array<double, 3>> points(count);
  for (auto& p : points)
    p = {unit(gen), unit(gen), unit(gen)};
  std::sort(points.begin(), points.end());
  std::vector<double> flat;
  for (const auto& p : points)
    flat.insert(flat.end(), p.begin(), p.end());
  return flat;
}

/// Rows [first, first + count) of a host (rows, 3) cloud as a View.
template <class T>
Points<T> slice_view(const std::vector<double>& cloud, std::pair<int, int> rows) {
  Points<T> v("slice", rows.second, 3);
  auto h = Kokkos::create_mirror_view(v);
  for (int r = 0; r < rows.second; ++r)
    for (int c = 0; c < 3; ++c)
      h(r, c) = static_cast<T>(cloud[(rows.first + r) * 3 + c]);
  Kokkos::deep_copy(v, h);
  return v;
}

/// Every rank's `mine`, in rank order, on every rank.
template <class Value>
std::vector<Value> all_gathered(const std::vector<Value>& mine) {
  const int size = mpi_size();
  int count      = static_cast<int>(mine.size());
  std::vector<int> counts(size), displs(size);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<Value> all(total);
  MPI_Datatype type = MPI_INT;
  if constexpr (!std::is_same_v<Value, int>) type = tessera::mpi::Impl::mpi_scalar<Value>();
  MPI_Allgatherv(mine.data(), count, type, all.data(), counts.data(), displs.data(), type,
                 MPI_COMM_WORLD);
  return all;
}

template <class View>
std::vector<typename View::non_const_value_type> host_vector(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename View::non_const_value_type>(h.data(), h.data() + h.size());
}

/// The whole sorted order of a cloud dealt in slices: row g of the sorted whole cloud is row
/// order[g] of the cloud (each rank's slice sorted by its permutation, in rank order).
std::vector<int> sorted_order(const Kokkos::View<int*, Space::memory_space>& perm, int first) {
  std::vector<int> mine = host_vector(perm);
  for (int& p : mine)
    p += first;
  return all_gathered(mine);
}

/// The pairs a rank's pattern keeps along `axis`, over its output rows and the whole reduced
/// range: kept[o][g] for output row o, reduced row g.
template <class Pattern>
std::vector<std::vector<bool>> kept_pairs(const Pattern& pattern, Axis axis, int reduced_total) {
  const auto& along             = pattern.along(axis);
  const HostPattern host        = host_pattern(along.ranges, axis);  // output rows x assembled rows
  const std::vector<int> global = host_vector(along.global_rows);
  std::vector<std::vector<bool>> kept(host.m, std::vector<bool>(reduced_total, false));
  for (int q = 0; q < host.segment_count(); ++q) {
    for (int o = host.segments[2 * q]; o < host.segments[2 * q + 1]; ++o) {
      for (int l = q == 0 ? 0 : host.slices[q - 1]; l < host.slices[q]; ++l) {
        for (int a = host.ranges[2 * l]; a < host.ranges[2 * l + 1]; ++a)
          kept[o][global[a]] = true;
      }
    }
  }
  return kept;
}

/// One case: which axis, how the clouds are dealt, batched or not.
struct SparseCase {
  Axis axis;
  Deal deal_i, deal_j;
  bool batched;

  std::string name() const {
    return std::string(axis == Axis::j ? "Axis::j" : "Axis::i") + " i " + deal_name(deal_i) +
           " j " + deal_name(deal_j) + (batched ? " batched" : "") + " on " +
           std::to_string(mpi_size()) + " ranks";
  }
};

std::vector<SparseCase> sparse_cases() {
  std::vector<SparseCase> cases;
  for (Axis axis : {Axis::j, Axis::i}) {
    cases.push_back({axis, Deal::even, Deal::uneven, false});
    cases.push_back({axis, Deal::uneven, Deal::last_only, false});
    cases.push_back({axis, Deal::last_only, Deal::even, true});
  }
  return cases;
}

constexpr int m = 307, n = 283;  // primes, not multiples of any tile

/// A problem dealt over the ranks: the slab clouds the pattern is built from, the rank's
/// pattern, and the whole sorted order of both clouds.
template <class T>
struct DealtClouds {
  std::vector<double> xs = slab_cloud(m, 17), ys = slab_cloud(n, 23);
  std::pair<int, int> my_i, my_j;
  tessera::mpi::DistributedBlockSparsity<Space::memory_space> pattern;
  std::vector<int> order_x, order_y;

  DealtClouds(Deal deal_i, Deal deal_j)
      : my_i(slice_of(m, mpi_size(), mpi_rank(), deal_i)),
        my_j(slice_of(n, mpi_size(), mpi_rank(), deal_j)) {
    auto x = slice_view<T>(xs, my_i), y = slice_view<T>(ys, my_j);
    pattern = tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y, voxel, cutoff);
    order_x = sorted_order(pattern.perm_x, my_i.first);
    order_y = sorted_order(pattern.perm_y, my_j.first);
  }
};

/// rows of a (batch, rows, dim) host array reordered: row g of the result is row order[g].
std::vector<double> reordered(const std::vector<double>& data, int batches,
                              const std::vector<int>& order, int dim) {
  const std::size_t rows = order.size();
  std::vector<double> out(data.size());
  for (int b = 0; b < batches; ++b)
    for (std::size_t g = 0; g < rows; ++g)
      for (int c = 0; c < dim; ++c)
        out[(b * rows + g) * dim + c] = data[(b * rows + order[g]) * dim + c];
  return out;
}

TEST(DistributedBlockSparsePattern, KeepsEveryPairWithinTheCutoffAndPrunes) {
  for (const auto deals :
       {std::make_pair(Deal::even, Deal::even), std::make_pair(Deal::uneven, Deal::last_only)}) {
    const DealtClouds<double> clouds(deals.first, deals.second);
    for (Axis axis : {Axis::j, Axis::i}) {
      const bool along_j   = axis == Axis::j;
      const auto& outer    = along_j ? clouds.xs : clouds.ys;
      const auto& inner    = along_j ? clouds.ys : clouds.xs;
      const auto& o_order  = along_j ? clouds.order_x : clouds.order_y;
      const auto& i_order  = along_j ? clouds.order_y : clouds.order_x;
      const auto my_outer  = along_j ? clouds.my_i : clouds.my_j;
      const int total      = along_j ? n : m;
      const auto& along    = clouds.pattern.along(axis);
      const auto kept      = kept_pairs(clouds.pattern, axis, total);
      const std::string at = std::string(along_j ? "Axis::j" : "Axis::i") + " i " +
                             deal_name(deals.first) + " j " + deal_name(deals.second) + ", rank " +
                             std::to_string(mpi_rank());
      ASSERT_EQ(static_cast<int>(kept.size()), my_outer.second) << at;
      int within = 0, missed = 0;
      for (int o = 0; o < my_outer.second; ++o) {
        const double* p = &outer[o_order[my_outer.first + o] * 3];
        for (int g = 0; g < total; ++g) {
          const double* q = &inner[i_order[g] * 3];
          double r2       = 0;
          for (int c = 0; c < 3; ++c)
            r2 += (p[c] - q[c]) * (p[c] - q[c]);
          if (r2 > cutoff * cutoff) continue;
          ++within;
          if (!kept[o][g]) ++missed;
        }
      }
      EXPECT_EQ(missed, 0) << at << ": pairs within the cutoff dropped, of " << within;
      // the rank receives only what it asked for, and sends what the others asked of it
      EXPECT_EQ(along.assembled_rows(), static_cast<int>(along.global_rows.extent(0))) << at;
      int sent = 0;
      for (int c : along.send_counts)
        sent += c;
      EXPECT_EQ(sent, static_cast<int>(along.send_rows.extent(0))) << at;
      int totals[3] = {within, along.assembled_rows(), sent};
      MPI_Allreduce(MPI_IN_PLACE, totals, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_GT(totals[0], m) << at << ": the cutoff keeps neighbours";
      EXPECT_EQ(totals[1], totals[2]) << at << ": rows sent and received";
      if (mpi_size() > 1) {
        EXPECT_LT(totals[1], mpi_size() * total) << at << ": slabs far apart are pruned";
      }
    }
  }
}

template <class T>
class DistributedBlockSparse : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DistributedBlockSparse, Scalars);

/// Runs `reduction` on MixedFormula over the rank's sorted slices with its pattern, and compares
/// its rows with the reference over the whole sorted problem restricted to the pattern's pairs.
template <class T, class Reduction>
void check_distributed_reduction(const Reduction& reduction) {
  using namespace tessera;
  using Facts       = Impl::ReductionFacts<Reduction>;
  constexpr int dim = MixedFormula::out_dim;
  const int k       = Impl::reduction_k(reduction);
  for (const SparseCase& c : sparse_cases()) {
    const DealtClouds<T> clouds(c.deal_i, c.deal_j);
    const int batch = c.batched ? 2 : 0;
    // MixedFormula's data in the clouds' whole sorted order (any data: the reference is
    // restricted to the pattern's pairs)
    ProblemData d       = make_problem<T>(batch, m, n, 99);
    d.x                 = reordered(d.x, d.batches(), clouds.order_x, 3);
    d.y                 = reordered(d.y, d.batches(), clouds.order_y, 3);
    d.b                 = reordered(d.b, d.batches(), clouds.order_y, 2);
    const auto P        = to_view<T, Space>("p", d.p, batch, 1, 1);
    const auto X        = to_view<T, Space>("x", d.x, batch, m, 3);
    const auto Y        = to_view<T, Space>("y", d.y, batch, n, 3);
    const auto B        = to_view<T, Space>("b", d.b, batch, n, 2);
    const bool along_j  = c.axis == Axis::j;
    const auto my_outer = along_j ? clouds.my_i : clouds.my_j;
    const int total     = along_j ? n : m;
    const auto kept     = kept_pairs(clouds.pattern, c.axis, total);
    const auto formula  = reference_formula(d, c.axis);
    const auto ref      = tessera_ref::reduce(
             reduction, d.batches(), my_outer.second, total, dim,
             [&](int b, int o, int inner, double* out) { formula(b, my_outer.first + o, inner, out); },
             [&](int o, int inner) { return static_cast<bool>(kept[o][inner]); });

    mpi::DistributedOptions options;
    options.genred      = test_options();
    options.genred.axis = c.axis;
    Kokkos::View<T***, Kokkos::LayoutRight, Space::memory_space> values("values", d.batches(),
                                                                        my_outer.second, ref.cols);
    Kokkos::View<std::int64_t***, Kokkos::LayoutRight, Space::memory_space> indices(
        "indices", d.batches(), my_outer.second, ref.cols);
    const auto call = [&](const auto& p, const auto& x, const auto& y, const auto& b, const auto& v,
                          const auto& ix) {
      const auto out = [&] {
        if constexpr (Facts::writes_values && Facts::writes_indices) {
          return outputs(v, ix);
        } else if constexpr (Facts::writes_values) {
          return v;
        } else {
          return ix;
        }
      }();
      mpi::genred(MPI_COMM_WORLD, Space(), reduction, MixedFormula{}, params(p), i_vars(x),
                  j_vars(y, b), out, clouds.pattern, options);
    };
    const auto sliced = [&](const auto& view, std::pair<int, int> rows) {
      return rows_of_view(view, rows, c.batched);
    };
    const auto xs = sliced(X, clouds.my_i), ys = sliced(Y, clouds.my_j),
               bs = sliced(B, clouds.my_j);
    if (c.batched) {
      call(P, xs, ys, bs, values, indices);
    } else {
      const auto flat = [](const auto& view) {
        return Kokkos::subview(view, 0, Kokkos::ALL(), Kokkos::ALL());
      };
      call(flat(P), flat(xs), flat(ys), flat(bs), flat(values), flat(indices));
    }
    expect_matches(reduction, ref, host_values(values), host_values(indices), dim, k,
                   tolerance<T>(), c.name() + ": rank " + std::to_string(mpi_rank()));
    if (::testing::Test::HasFailure()) return;  // one failing case is enough to read
  }
}

#define TESSERA_DISTRIBUTED_SPARSE_TEST(Name, Reduction, ctor)       \
  TYPED_TEST(DistributedBlockSparse, Name) {                         \
    check_distributed_reduction<TypeParam>(tessera::Reduction ctor); \
  }
TESSERA_FOR_EACH_REDUCTION(TESSERA_DISTRIBUTED_SPARSE_TEST)
#undef TESSERA_DISTRIBUTED_SPARSE_TEST

/// F = |x - y|^2 within the cutoff, +infinity beyond (Infinite) or exp(-|x - y|^2 / 0.02) within
/// the cutoff, 0 beyond (otherwise).
template <bool Infinite>
struct Truncated {
  using param_dims             = tessera::Dims<>;
  using i_dims                 = tessera::Dims<3>;
  using j_dims                 = tessera::Dims<3>;
  static constexpr int out_dim = 1;
  template <class T>
  KOKKOS_INLINE_FUNCTION void operator()(tessera::In<T, 3> x, tessera::In<T, 3> y,
                                         tessera::Out<T, 1> out) const {
    const T r2    = tessera::squared_distance(x, y);
    const bool in = r2 <= T(cutoff * cutoff);
    if constexpr (Infinite) {
      out[0] = in ? r2 : tessera::math::infinity<T>();
    } else {
      out[0] = in ? tessera::math::exp(-r2 / T(0.02)) : T(0);
    }
  }
};

/// Every rank's (sorted) rows, in rank order, as one View on every rank.
template <class T>
Points<T> gathered(const Points<T>& mine) {
  const std::vector<T> all = all_gathered(host_vector(mine));
  Points<T> v("gathered", all.size() / 3, 3);
  auto h = Kokkos::create_mirror_view(v);
  std::copy(all.begin(), all.end(), h.data());
  Kokkos::deep_copy(v, h);
  return v;
}

TYPED_TEST(DistributedBlockSparse, EqualsOneDenseCallOnTheGatheredSortedClouds) {
  using T     = TypeParam;
  const int k = 3;
  for (const SparseCase& c : sparse_cases()) {
    if (c.batched) continue;
    const bool along_j  = c.axis == Axis::j;
    const auto my_i     = slice_of(m, mpi_size(), mpi_rank(), c.deal_i);
    const auto my_j     = slice_of(n, mpi_size(), mpi_rank(), c.deal_j);
    const auto my_outer = along_j ? my_i : my_j;
    auto x = slice_view<T>(slab_cloud(m, 17), my_i), y = slice_view<T>(slab_cloud(n, 23), my_j);
    const auto pattern =
        tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y, voxel, cutoff);

    // The portable kernel for every call: block-sparse calls never run the host kernel, whose
    // contracted arithmetic would round F differently from the dense reference.
    tessera::mpi::DistributedOptions options;
    options.genred.implementation = tessera::Implementation::portable;
    options.genred.axis           = c.axis;
    Points<T> sums("sums", my_outer.second, 1), kmin("kmin", my_outer.second, k);
    Kokkos::View<int**, Kokkos::LayoutRight, Space::memory_space> karg("karg", my_outer.second, k);
    tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, Truncated<false>{},
                         tessera::i_vars(x), tessera::j_vars(y), sums, pattern, options);
    tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::KMinArgKMin{k}, Truncated<true>{},
                         tessera::i_vars(x), tessera::j_vars(y), tessera::outputs(kmin, karg),
                         pattern, options);
    const auto X = gathered(x), Y = gathered(y);
    const int outer = along_j ? m : n;
    Points<T> ref_sums("ref_sums", outer, 1), ref_kmin("ref_kmin", outer, k);
    Kokkos::View<int**, Kokkos::LayoutRight, Space::memory_space> ref_karg("ref_karg", outer, k);
    tessera::genred(Space(), tessera::Sum{}, Truncated<false>{}, tessera::i_vars(X),
                    tessera::j_vars(Y), ref_sums, options.genred);
    tessera::genred(Space(), tessera::KMinArgKMin{k}, Truncated<true>{}, tessera::i_vars(X),
                    tessera::j_vars(Y), tessera::outputs(ref_kmin, ref_karg), options.genred);

    const auto hs    = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sums);
    const auto hk    = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kmin);
    const auto ha    = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), karg);
    const auto rs    = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref_sums);
    const auto rk    = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref_kmin);
    const auto ra    = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ref_karg);
    const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
    int finite       = 0;
    for (int r = 0; r < my_outer.second; ++r) {
      const int g          = my_outer.first + r;
      const std::string at = c.name() + " row " + std::to_string(g);
      EXPECT_NEAR(hs(r, 0), rs(g, 0), tol * (1 + std::fabs(rs(g, 0)))) << at;
      for (int t = 0; t < k; ++t) {
        EXPECT_EQ(hk(r, t), rk(g, t)) << at << " entry " << t;
        if (std::isfinite(rk(g, t))) {
          ++finite;
          EXPECT_EQ(ha(r, t), ra(g, t)) << at << " entry " << t;
        }
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, &finite, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_GT(finite, outer / 2) << c.name() << ": the test compares real selections";
  }
}

TEST(DistributedBlockSparseValidation, APatternForOtherSlicesIsRejectedOnEveryRank) {
  const int size = mpi_size(), rank = mpi_rank();
  const std::vector<double> cloud = slab_cloud(60, 5);
  auto x = slice_view<float>(cloud, {0, 10}), y = slice_view<float>(cloud, {10, 10});
  const auto pattern =
      tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y, voxel, cutoff);
  const std::string last = "rank " + std::to_string(size - 1) + " of " + std::to_string(size) +
                           ": tessera::mpi::genred: ";
  // the last rank passes one row fewer than its pattern was built for, on either side
  const int short_rows = rank == size - 1 ? 9 : 10;
  const auto x_short   = Kokkos::subview(x, std::make_pair(0, short_rows), Kokkos::ALL());
  const auto y_short   = Kokkos::subview(y, std::make_pair(0, short_rows), Kokkos::ALL());
  tessera::mpi::DistributedOptions along_i;
  along_i.genred.axis = Axis::i;
  Points<float> out_x("out", x_short.extent(0), 1), out_y("out", y_short.extent(0), 1),
      out_i("out", 10, 1);
  const auto sum = [&](const auto& xv, const auto& yv, const auto& out,
                       const tessera::mpi::DistributedOptions& options) {
    return [&, xv, yv, out, options] {
      tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, Truncated<false>{},
                           tessera::i_vars(xv), tessera::j_vars(yv), out, pattern, options);
    };
  };
  expect_rejected_everywhere<std::invalid_argument>(
      sum(x_short, y, out_x, {}), {last + "pattern.over_j.ranges M (got 10, expected 9"});
  expect_rejected_everywhere<std::invalid_argument>(
      sum(x, y_short, out_i, {}), {last + "pattern.over_j.local_rows (got 10, expected 9"});
  expect_rejected_everywhere<std::invalid_argument>(
      sum(x, y_short, out_y, along_i), {last + "pattern.over_i.ranges N (got 10, expected 9"});
  expect_rejected_everywhere<std::invalid_argument>(
      sum(x_short, y, out_i, along_i), {last + "pattern.over_i.local_rows (got 10, expected 9"});
  tessera::mpi::DistributedOptions tiled_2d;
  tiled_2d.genred.scheme = tessera::Scheme::tiled_2d;
  expect_rejected_everywhere<std::invalid_argument>(
      sum(x, y, out_i, tiled_2d),
      {"rank 0 of " + std::to_string(size) +
       ": tessera::mpi::genred: block-sparse reductions run the 1D scheme"});
}

TEST(DistributedBlockSparseValidation, BadBuilderInputIsRejectedOnEveryRank) {
  const int size = mpi_size(), rank = mpi_rank();
  const std::vector<double> cloud = slab_cloud(40, 7);
  auto x = slice_view<double>(cloud, {0, 20}), y = slice_view<double>(cloud, {20, 20});
  // a negative cutoff on the last rank only, a null communicator on every rank
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y, voxel,
                                               rank == size - 1 ? -1.0 : cutoff);
      },
      {"rank " + std::to_string(size - 1) + " of " + std::to_string(size) +
       ": tessera::mpi::block_sparse_from_cutoff: cutoff must be >= 0 (got -1)"});
  expect_rejected_everywhere<std::invalid_argument>(
      [&] { tessera::mpi::block_sparse_from_cutoff(MPI_COMM_NULL, Space(), x, y, voxel, cutoff); },
      {"tessera::mpi::block_sparse_from_cutoff: comm is MPI_COMM_NULL"});
  const std::string last =
      "rank " + std::to_string(size - 1) + " of " + std::to_string(size) + ": tessera::";
  // on the last rank only: a zero voxel, a NaN coordinate, y of another dimension than x
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y,
                                               rank == size - 1 ? 0.0 : voxel, cutoff);
      },
      {last, "voxel_size must be positive and finite (got 0"});
  std::vector<double> with_nan = cloud;
  if (rank == size - 1) with_nan[25 * 3 + 1] = std::numeric_limits<double>::quiet_NaN();
  auto y_nan = slice_view<double>(with_nan, {20, 20});
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y_nan, voxel, cutoff);
      },
      {last, "points must have finite coordinates (got a NaN or infinite coordinate in row 5)"});
  Points<double> y2("y2", 20, rank == size - 1 ? 2 : 3);
  expect_rejected_everywhere<std::invalid_argument>(
      [&] {
        tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y2, voxel, cutoff);
      },
      {last, "y dimension"});
  // every rank consistent, but the last in 2-D: the ranks disagree
  if (size > 1) {
    Points<double> x2("x2", 20, rank == size - 1 ? 2 : 3), y3("y3", 20, rank == size - 1 ? 2 : 3);
    expect_rejected_everywhere<std::invalid_argument>(
        [&] {
          tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x2, y3, voxel, cutoff);
        },
        {"tessera::mpi::block_sparse_from_cutoff: the ranks disagree on the points' dimension"});
  }
}

}  // namespace
