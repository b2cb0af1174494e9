// The one collective check of a distributed call: every rank checks its own arguments, then the
// ranks exchange what they found in one collective, so that every rank throws the same error, or
// none does. A rank never enters an exchange that another rank has left: bad input is an
// exception on every rank, never a hang.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
namespace mpi {
namespace Impl {

/// What a rank found when it checked its part of a collective call: nothing, or the exception it
/// would have thrown on its own.
struct LocalVerdict {
  enum Kind : std::int64_t { ok = 0, invalid_argument = 1, length_error = 2, runtime_error = 3 };
  Kind kind = ok;
  std::string message;

  /// The verdict of the exception being handled (call inside a catch block): its kind and
  /// what().
  static LocalVerdict from_current_exception();
};

/// A value every rank of a call must hold equally (a formula dimension, an option), and the name
/// the error gives it.
struct Fact {
  std::string name;
  std::int64_t value;
};

/// The collective check (one MPI_Allgather, plus one broadcast of a message when a rank failed):
/// every rank passes its verdict, the facts every rank must agree on, and values of its own
/// (its slice sizes). Returns every rank's own values, rank after rank. Throws on every rank,
/// the same exception: the verdict of the lowest failing rank (its kind, its message prefixed
/// with "tessera::<function>: rank r of P: "), else std::invalid_argument naming the first fact
/// on which two ranks disagree and their values. Every rank must pass as many facts and values.
std::vector<std::int64_t> agree(MPI_Comm comm, const char* function, const LocalVerdict& verdict,
                                const std::vector<Fact>& facts,
                                const std::vector<std::int64_t>& own_values);

/// The first exception a rank's steps threw after the collective check, kept so that the rank
/// goes on exchanging (its neighbours wait for its messages) and reported by one more check
/// (agree) once every exchange is done: errors found late are still the same on every rank.
class DeferredVerdict {
 public:
  /// Runs step() unless an earlier step threw; keeps what it throws.
  template <class Step>
  void run(Step&& step) {
    if (verdict_.kind != LocalVerdict::ok) return;
    try {
      step();
    } catch (...) {
      verdict_ = LocalVerdict::from_current_exception();
    }
  }
  /// The collective check of the kept verdicts (every rank calls it).
  void agree_all(MPI_Comm comm, const char* function) const {
    agree(comm, function, verdict_, {}, {});
  }

 private:
  LocalVerdict verdict_;
};

/// Throws std::invalid_argument "tessera::<function>: comm is MPI_COMM_NULL" for a null
/// communicator (on the calling rank alone: there is no one to agree with).
void require_communicator(MPI_Comm comm, const char* function);

/// Throws std::runtime_error naming `what` and MPI's error string unless rc is MPI_SUCCESS
/// (communicators whose error handler returns errors; the default one aborts).
void check_mpi(int rc, const char* what);

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
