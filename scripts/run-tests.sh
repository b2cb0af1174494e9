#!/usr/bin/env bash
# Installs what is missing, checks the formatting (scripts/check-format.sh), builds everything
# (library, tests including the self-contained header check, examples, benchmarks), runs the
# unit tests, builds the API reference (Doxygen, warnings as errors), then installs Tessera and
# builds and runs a separate find_package(Tessera) project (and its MPI consumer on 2 ranks).
# A formatting failure is reported first but does not stop the rest; the script then exits 1.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
bash "$root/scripts/install-deps.sh"

format_ok=1
bash "$root/scripts/check-format.sh" || format_ok=0

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTESSERA_ENABLE_TESTS=ON -DTESSERA_ENABLE_EXAMPLES=ON -DTESSERA_ENABLE_BENCHMARKS=ON \
  -DTESSERA_ENABLE_KOKKOSKERNELS=ON -DTESSERA_ENABLE_MPI=ON
cmake --build "$build" -j "$(nproc)"
(cd "$build" && ctest --output-on-failure)
# The API reference, with Doxygen's warnings as errors (an undocumented public entity fails),
# then checked by scripts/check-reference.py: every public free function has its entry, no link
# or picture of the pages is dead.
cmake --build "$build" --target tessera_docs

prefix="$build/install"
consumer="$build/install_consumer"
cmake --install "$build" --prefix "$prefix"
cmake -S "$root/unit_tests/install_consumer" -B "$consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$consumer"
"$consumer/tessera_consumer"
# The MPI layer's consumer on 2 ranks (Open MPI: oversubscribed on small machines; as root only
# when told).
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  mpirun -np 2 --oversubscribe "$consumer/tessera_mpi_consumer"

if [ "$format_ok" -ne 1 ]; then
  echo "run-tests: everything else passed, but scripts/check-format.sh failed (see its list above)"
  exit 1
fi
