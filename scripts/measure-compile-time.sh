#!/usr/bin/env bash
# Compiles perf/compile_time/one_genred_call.cpp (a consumer translation unit with one Genred
# call) with the compile command of a configured build directory and prints the best of two
# wall times and the object size, for the Genred headers and for <tessera.hpp>:
#   scripts/measure-compile-time.sh <build directory>
# The build directory's compiler, flags and Kokkos are used (its bench_genred_host object's
# command, perf/ being configured with -DTESSERA_ENABLE_BENCHMARKS=ON).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "$1" && pwd)
source="$root/perf/compile_time/one_genred_call.cpp"
command=$(ninja -C "$build" -t commands perf/bench_genred_host |
          grep -- "-c .*bench_genred_host.cpp" | tail -1)
# The object's compile command, minus its dependency file, output and source.
command=$(echo "$command" | sed -E 's/ -MD -MT [^ ]+ -MF [^ ]+//; s/ -o [^ ]+//; s/ -c [^ ]+$//')
object=$(mktemp --suffix=.o)
trap 'rm -f "$object"' EXIT
for variant in genred umbrella; do
  define=""
  [ "$variant" = umbrella ] && define="-DTESSERA_UMBRELLA"
  best=""
  for _ in 1 2; do
    start=$(date +%s.%N)
    (cd "$build" && eval "$command $define -o $object -c $source")
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    if [ -z "$best" ] || [ "$(echo "$seconds < $best" | bc)" = 1 ]; then best=$seconds; fi
  done
  printf '%-8s %6.1f s %8d bytes\n' "$variant" "$best" "$(stat -c %s "$object")"
done
