// Shared pieces of the distributed Genred tests: the global problem (every rank builds the same
// one from one seed), its rows dealt over the ranks unevenly, with empty slices, and a check that
// runs tessera::mpi::genred on the rank's slices and compares its rows with those of a
// single-rank genred on the whole problem (the gathered data).
#pragma once

#include <tessera/mpi/genred.hpp>

#include "genred/genred_test_support.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace tessera_test {

inline int mpi_rank(MPI_Comm comm = MPI_COMM_WORLD) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
inline int mpi_size(MPI_Comm comm = MPI_COMM_WORLD) {
  int s = 0;
  MPI_Comm_size(comm, &s);
  return s;
}

/// Expects call() to throw Exception on every rank, with a message containing every part and
/// equal to rank 0's.
template <class Exception, class Call>
void expect_rejected_everywhere(Call&& call, const std::vector<std::string>& parts) {
  std::string message;
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << parts.front() << "\"";
  } catch (const Exception& e) {
    message = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(message.find(part), std::string::npos)
          << "message \"" << message << "\" lacks \"" << part << "\"";
    }
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type " << typeid(e).name() << ": " << e.what();
  }
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string first = mpi_rank() == 0 ? message : std::string(length, ' ');
  MPI_Bcast(first.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_EQ(message, first) << "rank " << mpi_rank() << " threw another message than rank 0";
}

/// How rows are dealt over the ranks.
enum class Deal {
  even,      ///< as equal as possible
  uneven,    ///< rank r gets a share growing with r; rank 1 gets none
  last_only  ///< every row on the last rank, the others empty
};

/// The first row and the row count of `rank` when `total` rows are dealt over `size` ranks.
inline std::pair<int, int> slice_of(int total, int size, int rank, Deal deal) {
  std::vector<long> weight(size);
  for (int r = 0; r < size; ++r) {
    weight[r] = deal == Deal::even        ? 1
                : deal == Deal::last_only ? (r == size - 1 ? 1 : 0)
                                          : (size > 1 && r == 1 ? 0 : (r + 1) * (r + 2));
  }
  long sum = 0;
  for (long w : weight)
    sum += w;
  std::vector<int> first(size + 1, 0);
  long acc = 0;
  for (int r = 0; r < size; ++r) {
    acc += weight[r];
    first[r + 1] = static_cast<int>(total * acc / sum);
  }
  return {first[rank], first[rank + 1] - first[rank]};
}

inline const char* deal_name(Deal d) {
  return d == Deal::even ? "even" : d == Deal::uneven ? "uneven" : "last_only";
}

/// MixedFormula's problem with ties: the j-rows repeat with period 7 (exact ties across slices,
/// which must go to the smallest global index as in one call).
template <class T>
ProblemData tied_problem(int batch, int m, int n, unsigned seed) {
  ProblemData d = make_problem<T>(batch, m, n, seed);
  for (int b = 0; b < d.batches(); ++b) {
    for (int j = 7; j < n; ++j) {
      for (int c = 0; c < 3; ++c)
        d.y[(static_cast<std::size_t>(b) * n + j) * 3 + c] =
            d.y[(static_cast<std::size_t>(b) * n + j % 7) * 3 + c];
      for (int c = 0; c < 2; ++c)
        d.b[(static_cast<std::size_t>(b) * n + j) * 2 + c] =
            d.b[(static_cast<std::size_t>(b) * n + j % 7) * 2 + c];
    }
  }
  return d;
}

/// Rows [first, first + count) of a (batch, rows, dim) View, as rank 3 (batched) or rank 2.
template <class View>
auto rows_of_view(const View& v, std::pair<int, int> rows, bool batched) {
  const std::pair<int, int> range(rows.first, rows.first + rows.second);
  return Kokkos::subview(v,
                         batched ? Kokkos::pair<int, int>(0, static_cast<int>(v.extent(0)))
                                 : Kokkos::pair<int, int>(0, 1),
                         range, Kokkos::ALL());
}

/// One case of the distributed check.
struct DistributedCase {
  tessera::Axis axis;
  tessera::mpi::Schedule schedule;
  Deal deal_i, deal_j;
  bool batched;
  int m, n;
  tessera::Summation summation = tessera::Summation::block_sum;
  bool tied = true;  ///< the j-rows repeat with period 7 (tied_problem), else all distinct

  std::string name() const {
    return std::string(axis == tessera::Axis::j ? "Axis::j" : "Axis::i") +
           (schedule == tessera::mpi::Schedule::ring ? " ring" : " all_gather") + " i " +
           deal_name(deal_i) + " j " + deal_name(deal_j) + (batched ? " batched" : "") +
           (tied ? "" : " untied") + " M " + std::to_string(m) + " N " + std::to_string(n) +
           " on " + std::to_string(mpi_size()) + " ranks";
  }
};

/// Runs `reduction` on the rank's slices with tessera::mpi::genred and compares its rows with
/// those of one genred call on the whole problem: exactly for selections and indices (and for
/// every reduction under the all-gather schedule, which runs the single-rank kernels on the same
/// rows), within `sum_tol` relative to the row's scale for sums.
template <class T, class Reduction>
void expect_distributed_matches(const Reduction& reduction, const DistributedCase& c,
                                double sum_tol) {
  using namespace tessera;
  using Space              = Kokkos::DefaultExecutionSpace;
  using Facts              = Impl::ReductionFacts<Reduction>;
  constexpr bool selection = !Impl::uses_summation<Reduction>;
  const int size = mpi_size(), rank = mpi_rank();
  const int batch     = c.batched ? 2 : 0;
  const unsigned seed = 20261126u + c.m * 7 + c.n;
  const ProblemData d =
      c.tied ? tied_problem<T>(batch, c.m, c.n, seed) : make_problem<T>(batch, c.m, c.n, seed);
  const auto P        = to_view<T, Space>("p", d.p, batch, 1, 1);
  const auto X        = to_view<T, Space>("x", d.x, batch, c.m, 3);
  const auto Y        = to_view<T, Space>("y", d.y, batch, c.n, 3);
  const auto Bw       = to_view<T, Space>("b", d.b, batch, c.n, 2);
  const bool axis_j   = c.axis == Axis::j;
  const int outer     = axis_j ? c.m : c.n;
  const int k         = Impl::reduction_k(reduction);
  const int cols      = k * (Impl::is_weighted_reduction<Reduction> ? 2 : 3);
  const int nb        = d.batches();
  const auto my_i     = slice_of(c.m, size, rank, c.deal_i);
  const auto my_j     = slice_of(c.n, size, rank, c.deal_j);
  const auto my_outer = axis_j ? my_i : my_j;

  GenredOptions options = test_options();
  options.axis          = c.axis;
  options.summation     = c.summation;
  mpi::DistributedOptions distributed;
  distributed.genred   = options;
  distributed.schedule = c.schedule;

  using Values  = Kokkos::View<T***, Kokkos::LayoutRight, Space::memory_space>;
  using Indices = Kokkos::View<int***, Kokkos::LayoutRight, Space::memory_space>;
  Values whole_values("whole_values", nb, outer, cols), values("values", nb, my_outer.second, cols);
  Indices whole_indices("whole_indices", nb, outer, cols),
      indices("indices", nb, my_outer.second, cols);
  const auto run = [&](const auto& p, const auto& x, const auto& y, const auto& b, const auto& v,
                       const auto& ix, auto&& call) {
    if constexpr (Facts::writes_values && Facts::writes_indices) {
      call(params(p), i_vars(x), j_vars(y, b), outputs(v, ix));
    } else if constexpr (Facts::writes_values) {
      call(params(p), i_vars(x), j_vars(y, b), v);
    } else {
      call(params(p), i_vars(x), j_vars(y, b), ix);
    }
  };
  const auto sliced = [&](const auto& view, std::pair<int, int> rows) {
    return rows_of_view(view, rows, c.batched);
  };
  const auto call_on = [&](const auto& p, const auto& x, const auto& y, const auto& b,
                           const auto& v, const auto& ix, bool distributed_call) {
    const auto invoke = [&](const auto& pp, const auto& xx, const auto& yy, const auto& out) {
      if (distributed_call) {
        mpi::genred(MPI_COMM_WORLD, Space(), reduction, MixedFormula{}, pp, xx, yy, out,
                    distributed);
      } else {
        genred(Space(), reduction, MixedFormula{}, pp, xx, yy, out, options);
      }
    };
    if (c.batched) {
      run(p, x, y, b, v, ix, invoke);
    } else {
      const auto flat = [](const auto& view) {
        return Kokkos::subview(view, 0, Kokkos::ALL(), Kokkos::ALL());
      };
      run(flat(p), flat(x), flat(y), flat(b), flat(v), flat(ix), invoke);
    }
  };
  call_on(P, X, Y, Bw, whole_values, whole_indices, false);
  call_on(P, sliced(X, my_i), sliced(Y, my_j), sliced(Bw, my_j), values, indices, true);
  Kokkos::fence();

  const std::vector<double> got_v = host_values(values), got_i = host_values(indices);
  const std::vector<double> ref_v = host_values(whole_values), ref_i = host_values(whole_indices);
  const bool exact = selection || c.schedule == mpi::Schedule::all_gather || size == 1;
  int failures     = 0;
  for (int bb = 0; bb < nb && failures < 5; ++bb) {
    for (int r = 0; r < my_outer.second && failures < 5; ++r) {
      for (int col = 0; col < cols; ++col) {
        const std::size_t e = (static_cast<std::size_t>(bb) * my_outer.second + r) * cols + col;
        const std::size_t w =
            (static_cast<std::size_t>(bb) * outer + my_outer.first + r) * cols + col;
        const std::string at = c.name() + ": rank " + std::to_string(rank) + " batch " +
                               std::to_string(bb) + " row " + std::to_string(r) + " col " +
                               std::to_string(col);
        if constexpr (Facts::writes_indices) {
          if (got_i[e] != ref_i[w]) ++failures;
          EXPECT_EQ(got_i[e], ref_i[w]) << at;
        }
        if constexpr (Facts::writes_values) {
          const double g = got_v[e], x = ref_v[w];
          const bool ok = exact ? (g == x || (std::isnan(g) && std::isnan(x)))
                                : (g == x || std::fabs(g - x) <= sum_tol * (1 + std::fabs(x)));
          if (!ok) ++failures;
          EXPECT_TRUE(ok) << at << ": got " << g << ", single-rank " << x;
        }
      }
    }
  }
}

/// The cases every reduction runs: both axes, both schedules, rows dealt unevenly with empty
/// slices (or all on one rank), sizes that are primes (not multiples of any tile), one batched.
inline std::vector<DistributedCase> distributed_cases() {
  using tessera::Axis;
  using tessera::mpi::Schedule;
  std::vector<DistributedCase> cases;
  for (Axis axis : {Axis::j, Axis::i}) {
    for (Schedule schedule : {Schedule::ring, Schedule::all_gather}) {
      cases.push_back({axis, schedule, Deal::even, Deal::uneven, false, 53, 61});
      cases.push_back({axis, schedule, Deal::uneven, Deal::last_only, false, 37, 41});
    }
  }
  cases.push_back({Axis::j, Schedule::ring, Deal::uneven, Deal::even, true, 29, 31});
  cases.push_back({Axis::i, Schedule::ring, Deal::last_only, Deal::uneven, true, 31, 29});
  return cases;
}

}  // namespace tessera_test
