#!/usr/bin/env bash
# Installs what is missing, builds the Genred demo (once; later runs rebuild only what changed)
# and runs it; arguments are passed on, e.g. --width 512 --height 512 --n 50000 --out kde.png.
# The demo writes genred_demo.png (a density image) in the current directory by default.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build-demo}
bash "$root/scripts/install-deps.sh"

echo "== run-demo: building examples/genred_demo in $build =="
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DTESSERA_ENABLE_TESTS=OFF -DTESSERA_ENABLE_EXAMPLES=ON
cmake --build "$build" -j "$(nproc)" --target genred_demo
echo "== run-demo: $build/examples/genred_demo $* =="
"$build/examples/genred_demo" "$@"
