// The schedules of tessera::mpi::genred (mpi/genred.hpp), run after the collective check on the
// rank's validated call (its output rows against its own slice of the reduced rows).
//
// Ring: P steps. At step s, rank r holds the packed slice of rank (r + s) mod P; it posts the
// receive of the next slice (from rank r + 1) and the send of the one it holds (to rank r - 1),
// reduces its rows against the slice it holds into accumulator rows (the call's own reducer,
// writing its accumulators with global reduced indices: genred/impl/partial_accumulators.hpp;
// the KMin family's lists admit only values at or below the running k-th ones, so that a slice
// costs the insertions it would in one call), merges them into its running accumulators with the
// reducer's combine(), then waits for the messages and for the kernels, so that the next slice
// travels while the kernels run. The last kernel writes the finished rows. Memory: two slices, two
// accumulator rows per output row.
//
// All-gather: every rank gathers every slice (MPI_Allgatherv) and runs one call over all reduced
// rows: the single-rank kernels on the same rows in the same order, so the results are those of
// a single-rank call on the gathered data, bit for bit.
//
// Device memory goes to MPI directly when the MPI is GPU-aware, else through pinned host
// buffers: a received slice is forwarded from the host buffer it arrived in and copied to the
// device once, behind the running kernel on the same stream.
#pragma once

#include <tessera/core/kokkos_compat.hpp>
#include <tessera/core/impl/tiling.hpp>
#include <tessera/genred/impl/dispatch.hpp>
#include <tessera/genred/impl/genred_call.hpp>
#include <tessera/genred/impl/partial_accumulators.hpp>
#include <tessera/genred/impl/schedule.hpp>
#include <tessera/genred/variables.hpp>
#include <tessera/mpi/distributed_report.hpp>
#include <tessera/mpi/impl/agreement.hpp>
#include <tessera/mpi/impl/reduced_slices.hpp>

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera {
namespace mpi {
namespace Impl {

/// Where every rank's slice of the reduced rows lies in the whole reduced range.
struct SliceMap {
  std::vector<int> rows;   ///< rows[r]: rank r's reduced rows
  std::vector<int> start;  ///< start[r]: its first row in the whole range (rank order)
  int total    = 0;
  int max_rows = 0;
};

/// How the call's kernels meet MPI, decided on each rank.
struct ExchangePlan {
  bool all_gather;  ///< the all-gather schedule, else the ring
  bool staged;      ///< device slices staged through pinned host buffers
};

/// The reduced group of a call over j (OuterIsI: the j-variables) or over i (the i-variables).
template <bool OuterIsI, class Call>
const auto& reduced_group(const Call& call) {
  if constexpr (OuterIsI) {
    return call.jvars;
  } else {
    return call.ivars;
  }
}

/// The call with its reduced group reading `rows` packed rows at `data`.
template <bool OuterIsI, class Call, class T>
Call with_reduced_rows(Call call, const T* data, int rows) {
  const int batch = static_cast<int>(call.shape.batch);
  if constexpr (OuterIsI) {
    call.jvars   = packed_group(call.jvars, data, batch);
    call.shape.n = static_cast<std::size_t>(rows);
  } else {
    call.ivars   = packed_group(call.ivars, data, batch);
    call.shape.m = static_cast<std::size_t>(rows);
  }
  return call;
}

/// The call writing accumulator rows into `buffer` (index type int) instead of its outputs.
template <class Call, class T, class MemorySpace>
auto writing_accumulators(const Call& call,
                          const tessera::Impl::AccumulatorBuffer<T, MemorySpace>& buffer) {
  using Outs = tessera::Outputs<decltype(buffer.values), decltype(buffer.indices)>;
  return tessera::Impl::GenredCall<T, int, typename Call::formula_type, decltype(call.params),
                                   decltype(call.ivars), decltype(call.jvars), Outs,
                                   tessera::Impl::NoSparsity>{call.options,
                                                              call.shape,
                                                              call.formula,
                                                              call.formula_dim,
                                                              call.params,
                                                              call.ivars,
                                                              call.jvars,
                                                              Outs{buffer.values, buffer.indices},
                                                              {}};
}

/// Seconds since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Every allocation of a schedule, made before any exchange so that a rank that cannot allocate
/// is found by a collective check (agree) rather than leaving the others waiting.
template <class T, class MemorySpace>
struct ScheduleBuffers {
  using PinnedHost = tessera::Impl::PinnedHostSpace;
  Kokkos::View<T*, MemorySpace> slice[2];  ///< ring: two slices; all-gather: slice[0], all rows
  Kokkos::View<T*, PinnedHost> staged[2];  ///< their host copies, when staged
  tessera::Impl::AccumulatorBuffer<T, MemorySpace> running, step;  ///< ring only
};

/// Queues (on space) the copy of elements [first, first + count) of src into dst.
template <class ExecSpace, class Dst, class Src>
void copy_range(const ExecSpace& space, const Dst& dst, const Src& src, std::size_t first,
                std::size_t count) {
  if (count == 0) return;
  const std::pair<std::size_t, std::size_t> range(first, first + count);
  Kokkos::deep_copy(space, Kokkos::subview(dst, range), Kokkos::subview(src, range));
}

/// Allocates the schedule's buffers; on every rank, throws the same error when any rank fails.
template <class ExecSpace, class Call, class T = typename Call::scalar_type>
ScheduleBuffers<T, typename ExecSpace::memory_space> allocate_buffers(
    MPI_Comm comm, const Call& call, std::size_t row_elements, const SliceMap& map,
    const ExchangePlan& plan, int acc_values, int acc_indices, std::size_t outer_rows) {
  using Memory = typename ExecSpace::memory_space;
  ScheduleBuffers<T, Memory> buffers;
  DeferredVerdict allocation;
  allocation.run([&] {
    const std::size_t slice_elements =
        row_elements * static_cast<std::size_t>(plan.all_gather ? map.total : map.max_rows);
    for (int b = 0; b < (plan.all_gather ? 1 : 2); ++b) {
      allocate_uninitialized(buffers.slice[b], "tessera::mpi::genred::slice", slice_elements);
      if (plan.staged)
        allocate_uninitialized(buffers.staged[b], "tessera::mpi::genred::staged_slice",
                               slice_elements);
    }
    if (!plan.all_gather) {
      const std::size_t batch = call.shape.batch;
      buffers.running = {"tessera::mpi::genred::accumulators", batch, outer_rows, acc_values,
                         acc_indices};
      buffers.step    = {"tessera::mpi::genred::slice_accumulators", batch, outer_rows, acc_values,
                         acc_indices};
    }
  });
  allocation.agree_all(comm, "mpi::genred");
  return buffers;
}

/// The all-gather schedule (file comment). Fences on return.
template <bool OuterIsI, class ExecSpace, class Call, class Reduction>
void run_all_gather(MPI_Comm comm, const ExecSpace& space, const Call& call,
                    const Reduction& reduction, const SliceMap& map, const ExchangePlan& plan,
                    int rank, DistributedReport& report) {
  using T               = typename Call::scalar_type;
  const int batch       = static_cast<int>(call.shape.batch);
  const auto& group     = reduced_group<OuterIsI>(call);
  const std::size_t row = static_cast<std::size_t>(batch) * group.runtime_width;
  auto buffers          = allocate_buffers<ExecSpace>(comm, call, row, map, plan, 0, 0, 0);
  const PackedRowType type(mpi_scalar<T>(), static_cast<int>(row));
  const std::size_t mine  = row * static_cast<std::size_t>(map.start[rank]);
  const std::size_t total = row * static_cast<std::size_t>(map.total);
  pack_rows(space, group, map.rows[rank], batch, buffers.slice[0].data() + mine);
  T* exchanged = buffers.slice[0].data();
  if (plan.staged) {
    copy_range(space, buffers.staged[0], buffers.slice[0], mine, row * map.rows[rank]);
    exchanged = buffers.staged[0].data();
  }
  space.fence();
  const auto gather = std::chrono::steady_clock::now();
  check_mpi(MPI_Allgatherv(MPI_IN_PLACE, 0, type.get(), exchanged, map.rows.data(),
                           map.start.data(), type.get(), comm),
            "MPI_Allgatherv");
  report.exposed_exchange_seconds = seconds_since(gather);
  report.steps                    = 1;
  report.bytes_received = sizeof(T) * (total - row * static_cast<std::size_t>(map.rows[rank]));
  if (plan.staged) copy_range(space, buffers.slice[0], buffers.staged[0], 0, total);
  DeferredVerdict kernels;
  kernels.run([&] {
    tessera::Impl::dispatch(
        space, with_reduced_rows<OuterIsI>(call, buffers.slice[0].data(), map.total), reduction);
  });
  space.fence();  // the gathered rows are freed on return
  kernels.agree_all(comm, "mpi::genred");
}

/// The ring schedule (file comment). Fences on return.
template <bool OuterIsI, class ExecSpace, class Call, class Reduction>
void run_ring(MPI_Comm comm, const ExecSpace& space, const Call& call, const Reduction& reduction,
              const SliceMap& map, const ExchangePlan& plan, int rank, int size,
              DistributedReport& report) {
  using T               = typename Call::scalar_type;
  using Index           = typename Call::index_type;
  const int batch       = static_cast<int>(call.shape.batch);
  const int outer_rows  = call.template n_outer<OuterIsI>();
  const auto& group     = reduced_group<OuterIsI>(call);
  const std::size_t row = static_cast<std::size_t>(batch) * group.runtime_width;
  const int to          = (rank + size - 1) % size;
  const int from        = (rank + 1) % size;
  constexpr int tag     = 0x7e55;  // one message per step and direction: order tells them apart
  tessera::Impl::with_reducer(call, reduction, [&](const auto& red) {
    using Red    = std::decay_t<decltype(red)>;
    auto buffers = allocate_buffers<ExecSpace>(comm, call, row, map, plan, red.acc_values(),
                                               red.acc_indices(), outer_rows);
    const PackedRowType type(mpi_scalar<T>(), static_cast<int>(row));
    // staged: a received slice goes to the device on a stream of its own, behind nothing
    const ExecSpace copier =
        plan.staged ? tessera::Impl::independent_instances<1>(space)[0] : space;
    const auto message = [&](int b) {
      return plan.staged ? buffers.staged[b].data() : buffers.slice[b].data();
    };
    pack_rows(space, group, map.rows[rank], batch, buffers.slice[0].data());
    if (plan.staged)
      copy_range(space, buffers.staged[0], buffers.slice[0], 0, row * map.rows[rank]);
    space.fence();

    const auto merge = [&](bool with_slice, bool finish) {
      tessera::Impl::MergeAccumulators<T, Red, Index> kernel{
          red,
          buffers.running.rows(),
          with_slice ? buffers.step.rows() : tessera::Impl::PartialBuffer<T>{},
          tessera::Impl::output_access<T, Index>(call.outputs),
          outer_rows,
          finish};
      Kokkos::parallel_for("tessera::mpi::genred::merge_accumulators",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(
                               space, 0, static_cast<std::int64_t>(batch) * outer_rows),
                           kernel);
    };
    bool accumulated = false;  // whether the running accumulators hold a slice yet
    DeferredVerdict kernels;   // a launch that throws must not leave the neighbours waiting
    for (int s = 0; s < size; ++s) {
      const int owner = (rank + s) % size;
      const int cur = s % 2, next = 1 - cur;
      MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
      if (s + 1 < size) {
        const int next_owner = (owner + 1) % size;
        check_mpi(MPI_Irecv(message(next), map.rows[next_owner], type.get(), from, tag, comm,
                            &requests[0]),
                  "MPI_Irecv");
        check_mpi(MPI_Isend(message(cur), map.rows[owner], type.get(), to, tag, comm, &requests[1]),
                  "MPI_Isend");
      }
      if (map.rows[owner] > 0 && outer_rows > 0) {
        kernels.run([&] {
          // after the first slice: into the step's rows, the running ones bounding the lists
          const auto& target = accumulated ? buffers.step : buffers.running;
          tessera::Impl::launch_along_axis(
              space,
              with_reduced_rows<OuterIsI>(writing_accumulators(call, target),
                                          buffers.slice[cur].data(), map.rows[owner]),
              tessera::Impl::accumulator_rows(
                  red, map.start[owner],
                  accumulated ? buffers.running.rows() : tessera::Impl::PartialBuffer<T>{},
                  outer_rows));
          if (accumulated) merge(true, false);
          accumulated = true;
        });
      }
      const auto wait = std::chrono::steady_clock::now();
      check_mpi(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
      const double waited = seconds_since(wait);
      const auto fence    = std::chrono::steady_clock::now();
      if (plan.staged && s + 1 < size) {
        copy_range(copier, buffers.slice[next], buffers.staged[next], 0,
                   row * map.rows[(owner + 1) % size]);
        copier.fence();
      }
      space.fence();  // the next step receives into the slice this step's kernel read
      if (seconds_since(fence) < tessera::Impl::Tuning<ExecSpace>::mpi_busy_fence_seconds)
        report.exposed_exchange_seconds += waited;
      if (s + 1 < size) {
        report.bytes_received += sizeof(T) * row * map.rows[(owner + 1) % size];
      }
    }
    report.steps = size;
    kernels.run([&] {
      if (accumulated) {
        merge(false, true);
      } else {  // no reduced row on any rank: the empty-range values, as one call writes them
        tessera::Impl::launch_along_axis(space, with_reduced_rows<OuterIsI>(call, message(0), 0),
                                         red);
      }
    });
    space.fence();  // the accumulators are freed on return
    kernels.agree_all(comm, "mpi::genred");
  });
}

/// Runs the validated call on the schedule of `plan` (the collective check has passed),
/// accounting in `report`.
template <class ExecSpace, class Call, class Reduction>
void run_distributed(MPI_Comm comm, const ExecSpace& space, const Call& call,
                     const Reduction& reduction, const SliceMap& map, const ExchangePlan& plan,
                     int rank, int size, DistributedReport& report) {
  report.schedule = plan.all_gather ? Schedule::all_gather : Schedule::ring;
  report.staged   = plan.staged;
  const auto run  = [&](auto outer_is_i) {
    constexpr bool OuterIsI = decltype(outer_is_i)::value;
    if (plan.all_gather) {
      run_all_gather<OuterIsI>(comm, space, call, reduction, map, plan, rank, report);
    } else {
      run_ring<OuterIsI>(comm, space, call, reduction, map, plan, rank, size, report);
    }
  };
  if (call.options.axis == Axis::j) {
    run(std::true_type{});
  } else {
    run(std::false_type{});
  }
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
