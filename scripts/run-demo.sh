#!/usr/bin/env bash
# Installs what is missing, builds the examples, and runs the Genred demo (arguments are passed
# on, e.g. --n 20000).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build-demo}
bash "$root/scripts/install-deps.sh"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTESSERA_ENABLE_TESTS=OFF -DTESSERA_ENABLE_EXAMPLES=ON
cmake --build "$build" -j "$(nproc)" --target genred_demo
"$build/examples/genred_demo" "$@"
