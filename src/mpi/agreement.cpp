// The collective check of the distributed calls (mpi/impl/agreement.hpp).
#include <tessera/core/impl/errors.hpp>
#include <tessera/mpi/impl/agreement.hpp>

#include <exception>
#include <stdexcept>

namespace tessera {
namespace mpi {
namespace Impl {

using tessera::Impl::concat;

LocalVerdict LocalVerdict::from_current_exception() {
  try {
    throw;
  } catch (const std::invalid_argument& e) {
    return {invalid_argument, e.what()};
  } catch (const std::length_error& e) {
    return {length_error, e.what()};
  } catch (const std::exception& e) {
    return {runtime_error, e.what()};
  } catch (...) {
    return {runtime_error, "an exception that is not a std::exception"};
  }
}

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(concat("tessera::mpi: ", what, " failed: ", std::string(text, length)));
}

void require_communicator(MPI_Comm comm, const char* function) {
  if (comm == MPI_COMM_NULL) {
    throw std::invalid_argument(concat("tessera::", function, ": comm is MPI_COMM_NULL"));
  }
}

std::vector<std::int64_t> agree(MPI_Comm comm, const char* function, const LocalVerdict& verdict,
                                const std::vector<Fact>& facts,
                                const std::vector<std::int64_t>& own_values) {
  require_communicator(comm, function);
  int rank = 0, size = 0;
  check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");

  const std::size_t width = 1 + facts.size() + own_values.size();
  std::vector<std::int64_t> record;
  record.reserve(width);
  record.push_back(verdict.kind);
  for (const Fact& f : facts)
    record.push_back(f.value);
  record.insert(record.end(), own_values.begin(), own_values.end());
  std::vector<std::int64_t> all(width * static_cast<std::size_t>(size));
  check_mpi(MPI_Allgather(record.data(), static_cast<int>(width), MPI_INT64_T, all.data(),
                          static_cast<int>(width), MPI_INT64_T, comm),
            "MPI_Allgather");

  for (int r = 0; r < size; ++r) {
    const std::int64_t kind = all[r * width];
    if (kind == LocalVerdict::ok) continue;
    // The lowest failing rank's message, broadcast so that every rank throws the same text.
    std::int64_t length = rank == r ? static_cast<std::int64_t>(verdict.message.size()) : 0;
    check_mpi(MPI_Bcast(&length, 1, MPI_INT64_T, r, comm), "MPI_Bcast");
    std::string message = rank == r ? verdict.message : std::string(length, ' ');
    check_mpi(MPI_Bcast(message.data(), static_cast<int>(length), MPI_CHAR, r, comm), "MPI_Bcast");
    const std::string text =
        concat("tessera::", function, ": rank ", r, " of ", size, ": ", message);
    if (kind == LocalVerdict::invalid_argument) throw std::invalid_argument(text);
    if (kind == LocalVerdict::length_error) throw std::length_error(text);
    throw std::runtime_error(text);
  }
  for (std::size_t f = 0; f < facts.size(); ++f) {
    for (int r = 1; r < size; ++r) {
      const std::int64_t first = all[1 + f], other = all[r * width + 1 + f];
      if (other != first) {
        throw std::invalid_argument(concat("tessera::", function, ": the ranks disagree on ",
                                           facts[f].name, " (rank 0: ", first, ", rank ", r, ": ",
                                           other, ")"));
      }
    }
  }
  std::vector<std::int64_t> values;
  values.reserve(own_values.size() * static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    const auto first = all.begin() + r * width + 1 + facts.size();
    values.insert(values.end(), first, first + own_values.size());
  }
  return values;
}

}  // namespace Impl
}  // namespace mpi
}  // namespace tessera
