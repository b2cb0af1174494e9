// The exchange and the call of a distributed block-sparse genred (mpi/genred.hpp), along the
// call's axis (the pattern's over_j or over_i, mpi/block_sparse.hpp): every rank packs its sorted
// reduced rows that the others asked for (the pattern's send lists), one MPI_Alltoallv assembles
// each rank's reduced rows (in global order: rank by rank, each rank's kept clusters in its
// sorted order), one block-sparse call reduces the rank's output rows over them, and for
// index-writing reductions a kernel maps assembled indices to the whole sorted reduced range.
// Assembled order follows global order, so ties go to the smaller global index as in one call.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/genred/genred.hpp>
#include <tessera/genred/impl/dispatch.hpp>
#include <tessera/genred/impl/genred_call.hpp>
#include <tessera/genred/impl/output_access.hpp>
#include <tessera/genred/variables.hpp>
#include <tessera/mpi/block_sparse.hpp>
#include <tessera/mpi/distributed_report.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/distributed_genred.hpp>
#include <tessera/mpi/impl/reduced_slices.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <type_traits>

namespace tessera {
namespace mpi {
namespace Impl {

/// Writes the indices of assembled rows as rows of the whole sorted j-range.
template <class T, class Index>
struct GlobalIndices {
  const int* assembled;  ///< (batch, rows, cols) LayoutRight, the call's indices
  const int* global;     ///< assembled row -> whole-range row
  tessera::Impl::OutputAccess<T, Index> out;
  int rows, cols;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    const int b = static_cast<int>(p / rows), r = static_cast<int>(p % rows);
    const auto row = out.row(b, r);
    for (int c = 0; c < cols; ++c) {
      const int j = assembled[p * cols + c];
      row.index(c, j < 0 ? -1 : global[j]);
    }
  }
};

/// Exchanges the reduced rows of `pattern` (one axis of a DistributedBlockSparsity) and runs the
/// rank's block-sparse call over them (OuterIsI: along j); fences on return.
template <bool OuterIsI, class ExecSpace, class Call, class Reduction, class MemorySpace>
void exchange_and_reduce(MPI_Comm comm, const ExecSpace& space, const Call& call,
                         const Reduction& reduction,
                         const DistributedReducedRows<MemorySpace>& pattern,
                         DistributedReport& report) {
  using T               = typename Call::scalar_type;
  using Index           = typename Call::index_type;
  using Memory          = typename ExecSpace::memory_space;
  using Facts           = tessera::Impl::ReductionFacts<Reduction>;
  using PinnedHost      = tessera::Impl::PinnedHostSpace;
  const int batch       = static_cast<int>(call.shape.batch);
  const int rows        = call.template n_outer<OuterIsI>();
  const auto& group     = reduced_group<OuterIsI>(call);
  const std::size_t row = static_cast<std::size_t>(batch) * group.runtime_width;
  const int sent        = static_cast<int>(pattern.send_rows.extent(0));
  const int assembled   = pattern.assembled_rows();
  const bool staged     = report.staged;
  const int cols =
      Facts::writes_indices
          ? static_cast<int>(call.outputs.indices.extent(decltype(call.outputs.indices)::rank - 1))
          : 0;

  Kokkos::View<T*, Memory> send, recv;
  Kokkos::View<T*, PinnedHost> send_host, recv_host;
  Kokkos::View<int***, Kokkos::LayoutRight, Memory> indices;
  DeferredVerdict allocation;
  allocation.run([&] {
    allocate_uninitialized(send, "tessera::mpi::genred::sent_rows", row * sent);
    allocate_uninitialized(recv, "tessera::mpi::genred::assembled_rows", row * assembled);
    if (staged) {
      allocate_uninitialized(send_host, "tessera::mpi::genred::staged_sent_rows", row * sent);
      allocate_uninitialized(recv_host, "tessera::mpi::genred::staged_assembled_rows",
                             row * assembled);
    }
    if constexpr (Facts::writes_indices) {
      indices = decltype(indices)(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                                     std::string("tessera::mpi::genred::indices")),
                                  batch, rows, cols);
    }
  });
  allocation.agree_all(comm, "mpi::genred");

  const PackedRowType type(mpi_scalar<T>(), static_cast<int>(row));
  pack_rows(space, group, sent, batch, send.data(), pattern.send_rows.data());
  if (staged) copy_range(space, send_host, send, 0, row * sent);
  space.fence();
  const auto exchange = std::chrono::steady_clock::now();
  check_mpi(MPI_Alltoallv(staged ? send_host.data() : send.data(), pattern.send_counts.data(),
                          pattern.send_offsets.data(), type.get(),
                          staged ? recv_host.data() : recv.data(), pattern.recv_counts.data(),
                          pattern.recv_offsets.data(), type.get(), comm),
            "MPI_Alltoallv");
  report.exposed_exchange_seconds = seconds_since(exchange);
  report.steps                    = 1;
  report.bytes_received           = sizeof(T) * row * static_cast<std::size_t>(assembled);
  if (staged) copy_range(space, recv, recv_host, 0, row * assembled);

  DeferredVerdict kernels;
  kernels.run([&] {
    using UserOuts = std::decay_t<decltype(call.outputs)>;
    using Outs     = tessera::Outputs<typename UserOuts::values_type,
                                  std::conditional_t<Facts::writes_indices, decltype(indices),
                                                     typename UserOuts::indices_type>>;
    Outs outs{call.outputs.values, {}};
    if constexpr (Facts::writes_indices) {
      outs.indices = indices;
    } else {
      outs.indices = call.outputs.indices;
    }
    using Sparse =
        tessera::Impl::GenredCall<T, int, typename Call::formula_type, decltype(call.params),
                                  decltype(call.ivars), decltype(call.jvars), Outs,
                                  BlockSparseRanges<MemorySpace>>;
    Sparse sparse{call.options, call.shape, call.formula, call.formula_dim, call.params,
                  call.ivars,   call.jvars, outs,         pattern.ranges};
    sparse = with_reduced_rows<OuterIsI>(sparse, recv.data(), assembled);
    tessera::Impl::dispatch(space, sparse, reduction);
    if constexpr (Facts::writes_indices) {
      Kokkos::parallel_for("tessera::mpi::genred::global_indices",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                               space, 0, static_cast<std::int64_t>(batch) * rows),
                           GlobalIndices<T, Index>{
                               indices.data(), pattern.global_rows.data(),
                               tessera::Impl::output_access<T, Index>(call.outputs), rows, cols});
    }
  });
  space.fence();  // the assembled rows are freed on return
  kernels.agree_all(comm, "mpi::genred");
}

/// Exchanges the asked-for reduced rows and runs the rank's block-sparse call along the call's
/// axis (file comment); fences on return. The collective check has passed.
template <class ExecSpace, class Call, class Reduction, class MemorySpace>
void run_block_sparse(MPI_Comm comm, const ExecSpace& space, const Call& call,
                      const Reduction& reduction,
                      const DistributedBlockSparsity<MemorySpace>& pattern,
                      DistributedReport& report) {
  if (call.options.axis == Axis::j) {
    exchange_and_reduce<true>(comm, space, call, reduction, pattern.over_j, report);
  } else {
    exchange_and_reduce<false>(comm, space, call, reduction, pattern.over_i, report);
  }
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
