// Compile-time checks of the pairwise engine's two concepts, as ArborX checks its access traits:
// the BlockOp (pairwise.hpp's file comment) and the Writer (result_writers.hpp's). A trait per
// concept, true when a type has every member the engine calls, for tests and overloads:
//   is_block_op<Op, ExecSpace>::value
//   is_result_writer<Writer, T, ExecSpace>::value   (T: the values written)
// and a check per concept that names each missing member in a static_assert of its own, called
// where a type enters the engine: check_block_op by tessera::pairwise(), the public entry of any
// BlockOp; check_result_writer by run_block_pipeline, which every writer reaches. Members are
// detected as the engine calls them (the detection idiom, with std::void_t): rows(), cols() and
// block_data_bytes() on a const op (the planner reads a const op), the others on a non-const op
// or writer; write_host only for writers on the host, write_device only for the others.
#pragma once

#include <tessera/pairwise/block_scheduler.hpp>
#include <tessera/pairwise/matrix_layout.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tessera {
namespace Impl {

/// True when Archetype<Args...> names a type (the detection idiom: Kokkos 4's is_detected, which
/// Kokkos 3.4 lacks).
template <class, template <class...> class Archetype, class... Args>
struct detector : std::false_type {};
template <template <class...> class Archetype, class... Args>
struct detector<std::void_t<Archetype<Args...>>, Archetype, Args...> : std::true_type {};
template <template <class...> class Archetype, class... Args>
inline constexpr bool is_detected = detector<void, Archetype, Args...>::value;

/// True when Archetype<Args...> names a type convertible to To.
template <class To, template <class...> class Archetype, class... Args>
constexpr bool is_detected_convertible() {
  if constexpr (is_detected<Archetype, Args...>) {
    return std::is_convertible_v<Archetype<Args...>, To>;
  } else {
    return false;
  }
}

// ---- BlockOp: the expressions the engine writes with an op

template <class Op>
using BlockOpValueType = typename Op::value_type;
template <class Op>
using BlockOpRows = decltype(std::declval<const Op&>().rows());
template <class Op>
using BlockOpCols = decltype(std::declval<const Op&>().cols());
template <class Op>
using BlockOpDataBytes =
    decltype(std::declval<const Op&>().block_data_bytes(std::declval<const BlockInfo&>()));
template <class Op, class ExecSpace>
using BlockOpReserve = decltype(std::declval<Op&>().reserve(
    std::declval<const ExecSpace&>(), std::declval<const BlockScheduler&>(), std::size_t{}));
template <class Op, class ExecSpace>
using BlockOpUpload = decltype(std::declval<Op&>().upload(std::declval<const ExecSpace&>(),
                                                          std::declval<const BlockInfo&>()));
template <class Op, class ExecSpace>
using BlockOpLaunch = decltype(std::declval<Op&>().launch(
    std::declval<const ExecSpace&>(), std::declval<const BlockInfo&>(), TriangleSkipMode{},
    std::declval<const BlockStorage&>(), std::declval<typename Op::value_type*>()));

/// Which members of the BlockOp concept Op has, on ExecSpace.
template <class Op, class ExecSpace>
struct BlockOpMembers {
  static constexpr bool value_type = is_detected<BlockOpValueType, Op>;
  static constexpr bool rows       = is_detected_convertible<std::size_t, BlockOpRows, Op>();
  static constexpr bool cols       = is_detected_convertible<std::size_t, BlockOpCols, Op>();
  static constexpr bool block_data_bytes =
      is_detected_convertible<std::size_t, BlockOpDataBytes, Op>();
  static constexpr bool reserve = is_detected<BlockOpReserve, Op, ExecSpace>;
  static constexpr bool upload  = is_detected<BlockOpUpload, Op, ExecSpace>;
  static constexpr bool launch  = is_detected<BlockOpLaunch, Op, ExecSpace>;
  static constexpr bool all =
      value_type && rows && cols && block_data_bytes && reserve && upload && launch;
};

/// True when Op models the BlockOp concept (pairwise.hpp) on ExecSpace.
template <class Op, class ExecSpace>
struct is_block_op : std::bool_constant<BlockOpMembers<Op, ExecSpace>::all> {};

/// Fails to compile, naming each member Op lacks, unless Op is a BlockOp on ExecSpace.
template <class Op, class ExecSpace>
constexpr void check_block_op() {
  using M = BlockOpMembers<Op, ExecSpace>;
  static_assert(M::value_type,
                "tessera::pairwise: a BlockOp must define `using value_type = ...` (the output "
                "scalar, float or double; see the BlockOp concept in pairwise.hpp)");
  static_assert(M::rows,
                "tessera::pairwise: a BlockOp must define `std::size_t rows() const` (the "
                "functions on the rows side)");
  static_assert(M::cols,
                "tessera::pairwise: a BlockOp must define `std::size_t cols() const` (the "
                "functions on the columns side)");
  static_assert(M::block_data_bytes,
                "tessera::pairwise: a BlockOp must define `std::size_t block_data_bytes(const "
                "BlockInfo&) const` (device bytes of a block's inputs)");
  static_assert(M::reserve,
                "tessera::pairwise: a BlockOp must define `void reserve(const ExecSpace&, const "
                "BlockScheduler&, std::size_t data_bytes)` for the call's execution space");
  static_assert(M::upload,
                "tessera::pairwise: a BlockOp must define `void upload(const ExecSpace&, const "
                "BlockInfo&)` for the call's execution space");
  static_assert(M::launch,
                "tessera::pairwise: a BlockOp must define `void launch(const ExecSpace&, const "
                "BlockInfo&, TriangleSkipMode, const BlockStorage&, value_type* out) const` for "
                "the call's execution space");
}

// ---- Writer: the expressions the pipeline writes with a writer of T values

template <class W>
using WriterOnHost = std::bool_constant<W::on_host>;
template <class W>
using WriterLayout = decltype(std::declval<W&>().layout());
template <class W, class T>
using WriterWriteHost = decltype(std::declval<W&>().write_host(
    std::declval<const BlockInfo&>(), std::declval<const BlockStorage&>(), std::size_t{},
    std::size_t{}, std::declval<const T*>()));
template <class W, class T, class ExecSpace>
using WriterWriteDevice = decltype(std::declval<W&>().write_device(
    std::declval<const ExecSpace&>(), std::declval<const BlockInfo&>(),
    std::declval<const BlockStorage&>(), std::declval<T*>()));
template <class W>
using WriterFinish = decltype(std::declval<W&>().finish());

/// Whether W declares on_host true (false when it does not declare it).
template <class W>
constexpr bool writer_on_host() {
  if constexpr (is_detected<WriterOnHost, W>) {
    return W::on_host;
  } else {
    return false;
  }
}

/// Which members of the Writer concept W has, for T values on ExecSpace (write_host is needed
/// by writers on the host, write_device by the others).
template <class W, class T, class ExecSpace>
struct WriterMembers {
  static constexpr bool on_host    = is_detected<WriterOnHost, W>;
  static constexpr bool layout     = is_detected_convertible<MatrixLayout, WriterLayout, W>();
  static constexpr bool write_host = !writer_on_host<W>() || is_detected<WriterWriteHost, W, T>;
  static constexpr bool write_device =
      writer_on_host<W>() || is_detected<WriterWriteDevice, W, T, ExecSpace>;
  static constexpr bool finish = is_detected<WriterFinish, W>;
  static constexpr bool all    = on_host && layout && write_host && write_device && finish;
};

/// True when W models the Writer concept (result_writers.hpp) for T values on ExecSpace.
template <class W, class T, class ExecSpace>
struct is_result_writer : std::bool_constant<WriterMembers<W, T, ExecSpace>::all> {};

/// Fails to compile, naming each member W lacks, unless W is a Writer of T on ExecSpace.
template <class W, class T, class ExecSpace>
constexpr void check_result_writer() {
  using M = WriterMembers<W, T, ExecSpace>;
  static_assert(M::on_host,
                "tessera::pairwise: a result writer must define `static constexpr bool on_host` "
                "(true: it takes blocks in host memory; see the Writer concept in "
                "result_writers.hpp)");
  static_assert(M::layout,
                "tessera::pairwise: a result writer must define `MatrixLayout layout() const`");
  static_assert(M::write_host,
                "tessera::pairwise: a result writer on the host must define `void "
                "write_host(const BlockInfo&, const BlockStorage&, std::size_t r0, std::size_t "
                "n, const T* rows)` for the op's value_type T");
  static_assert(M::write_device,
                "tessera::pairwise: a result writer not on the host must define `void "
                "write_device(const ExecSpace&, const BlockInfo&, const BlockStorage&, const T* "
                "block)` for the call's execution space and the op's value_type T");
  static_assert(M::finish, "tessera::pairwise: a result writer must define `void finish()`");
}

}  // namespace Impl
}  // namespace tessera
