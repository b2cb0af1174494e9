#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera needs to build, test and benchmark (idempotent).
set -euo pipefail

# Kokkos Kernels is optional (TESSERA_ENABLE_KOKKOSKERNELS, for the fused-sequence module's
# references); the tests configure with it so that finding it stays tested. clang-format (14 on
# Debian 12) is for scripts/check-format.sh, python3 for scripts/check-spack-variants.py (a test)
# and, with python3-yaml, for scripts/check-package-metadata.py (a test: CITATION.cff),
# Doxygen for the API reference (the tessera_docs target), libpng for the Genred demo's image
# (the demo builds without it, writing no image), Open MPI for the MPI layer
# (TESSERA_ENABLE_MPI; its tests run under mpirun).
packages=(cmake ninja-build g++ libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
          libgtest-dev libbenchmark-dev libpng-dev clang-format python3 python3-yaml doxygen
          libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "Installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# numpy and scipy for the round trip of the pairwise outputs through them
# (unit_tests/pairwise/scipy_roundtrip.py), masspcf for its comparison there. Best effort: without
# them (an unreachable package index, a Python that refuses pip) those tests are skipped.
python3 -m pip install --quiet numpy scipy || echo "numpy and scipy not installed: skipping"
python3 -m pip install --quiet masspcf || echo "masspcf not installed: skipping"
