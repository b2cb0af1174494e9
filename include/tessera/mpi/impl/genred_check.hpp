// The collective check of a distributed genred (mpi/genred.hpp), run before any kernel or
// exchange: each rank checks its slice as a single-rank call would, then the ranks agree on the
// facts every rank must hold equally (agreement.hpp) and on where every rank's reduced rows lie,
// and the whole reduced range's extents are checked on every rank alike.
#pragma once

#include <tessera/core/impl/errors.hpp>
#include <tessera/genred/genred.hpp>
#include <tessera/genred/options.hpp>
#include <tessera/genred/variables.hpp>
#include <tessera/mpi/distributed_options.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/distributed_genred.hpp>

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace tessera {
namespace mpi {
namespace Impl {

/// The facts every rank of a call must agree on: the variables' scalar type, rank and
/// dimensions, the batch extent, the formula dimension, k and the options.
template <class Call, class Reduction, class... P, class... I, class... J>
std::vector<Fact> genred_facts(const std::optional<Call>& call, const Reduction& reduction,
                               const Params<P...>& params, const IVars<I...>& i,
                               const JVars<J...>& j, const DistributedOptions& options,
                               std::size_t all_gather_bytes) {
  using T = typename Call::scalar_type;
  std::vector<Fact> facts;
  const auto dims = [&](const char* pack, const auto& views) {
    std::apply(
        [&](const auto&... view) {
          int v = 0;
          ((facts.push_back({tessera::Impl::concat(pack, "[", v++, "] dimension"),
                             static_cast<std::int64_t>(tessera::Impl::cols_of(view))})),
           ...);
        },
        views);
  };
  facts.push_back({"the variables' scalar type (bytes)", static_cast<std::int64_t>(sizeof(T))});
  dims("params", params.views);
  dims("i_vars", i.views);
  dims("j_vars", j.views);
  facts.push_back({"the batch extent", static_cast<std::int64_t>(call->shape.batch)});
  facts.push_back({"the formula's output dimension", call->formula_dim});
  facts.push_back({"k", tessera::Impl::reduction_k(reduction)});
  const GenredOptions& g = options.genred;
  facts.push_back({"options.genred.axis", static_cast<std::int64_t>(g.axis)});
  facts.push_back({"options.genred.summation", static_cast<std::int64_t>(g.summation)});
  facts.push_back({"options.genred.scheme", static_cast<std::int64_t>(g.scheme)});
  facts.push_back({"options.genred.implementation", static_cast<std::int64_t>(g.implementation)});
  facts.push_back({"options.schedule", static_cast<std::int64_t>(options.schedule)});
  facts.push_back(
      {"the all-gather threshold (bytes)", static_cast<std::int64_t>(all_gather_bytes)});
  return facts;
}

/// How many facts genred_facts gives for a formula.
template <class Formula>
constexpr std::size_t genred_facts_count() {
  return 10 + Formula::param_dims::count + Formula::i_dims::count + Formula::j_dims::count;
}

/// The rank's arguments checked as a slice (genred.hpp's validated_call) and the distributed
/// options in range; throws what a single-rank call would.
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output>
auto checked_slice(const ExecSpace& space, const Reduction& reduction, const Formula& formula,
                   const Params<P...>& params, const IVars<I...>& i, const JVars<J...>& j,
                   const Output& out, const DistributedOptions& options) {
  using tessera::Impl::require;
  require(options.schedule == Schedule::automatic || options.schedule == Schedule::ring ||
              options.schedule == Schedule::all_gather,
          "mpi::genred", "options.schedule is not a Schedule (got ",
          static_cast<int>(options.schedule), ")");
  require(options.gpu_aware == GpuAwareMpi::automatic || options.gpu_aware == GpuAwareMpi::yes ||
              options.gpu_aware == GpuAwareMpi::no,
          "mpi::genred", "options.gpu_aware is not a GpuAwareMpi (got ",
          static_cast<int>(options.gpu_aware), ")");
  return tessera::Impl::validated_call(space, reduction, formula, params, i, j, out, options.genred,
                                       tessera::Impl::NoSparsity{},
                                       tessera::Impl::ReducedRange::slice);
}

/// A distributed call past its collective check: the rank's validated call and where every
/// rank's reduced rows lie.
template <class Call>
struct CheckedDistributed {
  Call call;
  SliceMap map;
  int rank = 0, size = 1;
};

/// The collective check of a distributed genred (file comment): the rank's slice checked as a
/// single-rank call (checked_slice), plus `extra(call)` (a pattern's checks), then the ranks'
/// facts agreed and the whole reduced range's extents checked on every rank alike.
template <class ExecSpace, class Reduction, class Formula, class... P, class... I, class... J,
          class Output, class Extra>
auto checked_distributed(MPI_Comm comm, const ExecSpace& space, const Reduction& reduction,
                         const Formula& formula, const Params<P...>& params, const IVars<I...>& i,
                         const JVars<J...>& j, const Output& out, const DistributedOptions& options,
                         std::size_t all_gather_bytes, const Extra& extra) {
  using Call = decltype(checked_slice(space, reduction, formula, params, i, j, out, options));
  std::optional<Call> call;
  LocalVerdict verdict;
  std::vector<Fact> facts;
  std::vector<std::int64_t> own{0, 0};  // output rows, reduced rows
  try {
    call.emplace(checked_slice(space, reduction, formula, params, i, j, out, options));
    extra(*call);
    facts             = genred_facts(call, reduction, params, i, j, options, all_gather_bytes);
    const bool axis_j = options.genred.axis == Axis::j;
    own               = {static_cast<std::int64_t>(axis_j ? call->shape.m : call->shape.n),
                         static_cast<std::int64_t>(axis_j ? call->shape.n : call->shape.m)};
  } catch (...) {
    verdict = LocalVerdict::from_current_exception();
  }
  // Every rank passes as many facts: a failed rank pads with zeros (its verdict is reported).
  facts.resize(genred_facts_count<Formula>(), {"", 0});
  const std::vector<std::int64_t> rows = agree(comm, "mpi::genred", verdict, facts, own);

  CheckedDistributed<Call> checked{*call, {}, 0, 1};
  MPI_Comm_rank(comm, &checked.rank);
  MPI_Comm_size(comm, &checked.size);
  SliceMap& map     = checked.map;
  std::size_t total = 0;
  for (int r = 0; r < checked.size; ++r) {
    const auto reduced = static_cast<std::size_t>(rows[2 * r + 1]);
    map.start.push_back(static_cast<int>(std::min<std::size_t>(total, INT_MAX)));
    map.rows.push_back(static_cast<int>(reduced));
    map.max_rows = std::max(map.max_rows, map.rows.back());
    total += reduced;
  }
  tessera::Impl::require_int_extent("mpi::genred", "the whole reduced range", total);
  map.total = static_cast<int>(total);
  tessera::Impl::check_reduced_extent<Reduction, typename Call::index_type>(
      reduction, total, tessera::Impl::indices_name<Reduction>());
  space.fence();  // the caller's work on `space` may still write the variables
  return checked;
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
