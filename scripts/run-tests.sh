#!/usr/bin/env bash
# Installs what is missing, builds everything (library, tests, examples, benchmarks), runs the
# unit tests, then installs Tessera and builds and runs a separate find_package(Tessera) project.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
bash "$root/scripts/install-deps.sh"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTESSERA_ENABLE_TESTS=ON -DTESSERA_ENABLE_EXAMPLES=ON -DTESSERA_ENABLE_BENCHMARKS=ON \
  -DTESSERA_ENABLE_KOKKOSKERNELS=ON
cmake --build "$build" -j "$(nproc)"
(cd "$build" && ctest --output-on-failure)

prefix="$build/install"
consumer="$build/install_consumer"
cmake --install "$build" --prefix "$prefix"
cmake -S "$root/unit_tests/install_consumer" -B "$consumer" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$consumer"
"$consumer/tessera_consumer"
