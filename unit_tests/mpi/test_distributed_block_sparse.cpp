// tessera::mpi::block_sparse_from_cutoff and the block-sparse tessera::mpi::genred: on 1 to 4
// ranks with uneven and empty slices, the rank's rows equal those of one dense genred call on the
// gathered sorted clouds, for formulas that vanish (Sum) or are infinite (KMinArgKMin) beyond the
// cutoff: the pattern keeps every pair within the cutoff, so the kept pairs decide every result;
// selections and global indices exactly, sums within rounding. Only the asked-for j-clusters
// travel; a pattern built for other slices is rejected on every rank.
#include "mpi/distributed_test_support.hpp"

#include <tessera/mpi/block_sparse.hpp>
#include <tessera/mpi/genred.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace tessera_test;
using Space = Kokkos::DefaultExecutionSpace;

constexpr double cutoff = 0.25;

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

template <class T>
using Points = Kokkos::View<T**, Kokkos::LayoutRight, Space::memory_space>;

/// Rows [first, first + count) of a host cloud as a View.
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

/// Every rank's (sorted) rows, in rank order, as one View on every rank.
template <class T>
Points<T> gathered(const Points<T>& mine) {
  const auto h   = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), mine);
  const int size = mpi_size();
  int count      = static_cast<int>(h.size());
  std::vector<int> counts(size), displs(size);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = total;
    total += counts[r];
  }
  std::vector<T> all(total);
  MPI_Allgatherv(h.data(), count, tessera::mpi::Impl::mpi_scalar<T>(), all.data(), counts.data(),
                 displs.data(), tessera::mpi::Impl::mpi_scalar<T>(), MPI_COMM_WORLD);
  Points<T> v("gathered", total / 3, 3);
  auto hv = Kokkos::create_mirror_view(v);
  for (int e = 0; e < total; ++e)
    hv.data()[e] = all[e];
  Kokkos::deep_copy(v, hv);
  return v;
}

template <class T>
class DistributedBlockSparse : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DistributedBlockSparse, Scalars);

TYPED_TEST(DistributedBlockSparse, EqualsOneDenseCallOnTheGatheredSortedClouds) {
  using T        = TypeParam;
  const int size = mpi_size(), rank = mpi_rank();
  constexpr int m = 211, n = 197, k = 3;
  std::mt19937 gen(17);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<double> xs(m * 3), ys(n * 3);
  for (auto& e : xs)
    e = unit(gen);
  for (auto& e : ys)
    e = unit(gen);
  const auto my_i = slice_of(m, size, rank, Deal::uneven);
  const auto my_j = slice_of(n, size, rank, Deal::even);
  auto x = slice_view<T>(xs, my_i), y = slice_view<T>(ys, my_j);
  const auto pattern =
      tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y, 0.2, cutoff);
  EXPECT_LE(pattern.assembled_rows(), n);

  // The portable kernel for every call: block-sparse calls never run the host kernel, whose
  // contracted arithmetic would round F differently from the dense reference.
  tessera::mpi::DistributedOptions options;
  options.genred.implementation = tessera::Implementation::portable;
  // the distributed calls
  Points<T> sums("sums", my_i.second, 1), kmin("kmin", my_i.second, k);
  Kokkos::View<int**, Kokkos::LayoutRight, Space::memory_space> karg("karg", my_i.second, k);
  tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, Truncated<false>{},
                       tessera::i_vars(x), tessera::j_vars(y), sums, pattern, options);
  tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::KMinArgKMin{k}, Truncated<true>{},
                       tessera::i_vars(x), tessera::j_vars(y), tessera::outputs(kmin, karg),
                       pattern, options);
  // one dense call on the gathered sorted clouds
  const auto X = gathered(x), Y = gathered(y);
  Points<T> ref_sums("ref_sums", m, 1), ref_kmin("ref_kmin", m, k);
  Kokkos::View<int**, Kokkos::LayoutRight, Space::memory_space> ref_karg("ref_karg", m, k);
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
  for (int r = 0; r < my_i.second; ++r) {
    const int g = my_i.first + r;
    EXPECT_NEAR(hs(r, 0), rs(g, 0), tol * (1 + std::fabs(rs(g, 0)))) << "row " << g;
    for (int t = 0; t < k; ++t) {
      EXPECT_EQ(hk(r, t), rk(g, t)) << "row " << g << " entry " << t;
      if (std::isfinite(rk(g, t))) {
        ++finite;
        EXPECT_EQ(ha(r, t), ra(g, t)) << "row " << g << " entry " << t;
      }
    }
  }
  int any = finite;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_GT(any, m);  // the cutoff keeps neighbours: the test compares real selections
}

TEST(DistributedBlockSparseValidation, APatternForOtherSlicesIsRejectedOnEveryRank) {
  const int size = mpi_size(), rank = mpi_rank();
  std::vector<double> cloud(60 * 3);
  std::mt19937 gen(5);
  std::uniform_real_distribution<double> unit(0, 1);
  for (auto& e : cloud)
    e = unit(gen);
  auto x = slice_view<float>(cloud, {0, 10}), y = slice_view<float>(cloud, {10, 20});
  const auto pattern =
      tessera::mpi::block_sparse_from_cutoff(MPI_COMM_WORLD, Space(), x, y, 0.3, cutoff);
  // the last rank passes one i-row fewer than its pattern was built for
  const auto x_short =
      Kokkos::subview(x, std::make_pair(0, rank == size - 1 ? 9 : 10), Kokkos::ALL());
  Points<float> out("out", x_short.extent(0), 1);
  try {
    tessera::mpi::genred(MPI_COMM_WORLD, Space(), tessera::Sum{}, Truncated<false>{},
                         tessera::i_vars(x_short), tessera::j_vars(y), out, pattern);
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rank " + std::to_string(size - 1) + " of " +
                                         std::to_string(size) +
                                         ": tessera::mpi::genred: pattern.ranges M (got 10, "
                                         "expected 9"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
