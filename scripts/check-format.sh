#!/usr/bin/env bash
# Checks that every tracked C++ source (*.hpp, *.cpp) is formatted as the root .clang-format
# says, with clang-format 14 (Debian 12's; other versions format some constructs differently).
# Lists the files that differ and exits 1 if there are any; changes nothing. To fix a file:
#   clang-format -i <file>
# CMake templates (*.in) are not checked: clang-format would split their @VARIABLE@ tokens.
# CLANG_FORMAT names another clang-format binary.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

clang_format=${CLANG_FORMAT:-}
if [ -z "$clang_format" ]; then
  for candidate in clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null 2>&1; then clang_format=$candidate; break; fi
  done
fi
if [ -z "$clang_format" ] || ! command -v "$clang_format" >/dev/null 2>&1; then
  echo "check-format: clang-format not found (scripts/install-deps.sh installs it)" >&2
  exit 2
fi
version=$("$clang_format" --version)
case "$version" in
  *"version 14."*) ;;
  *) echo "check-format: warning: the reference is clang-format 14; using: $version" >&2 ;;
esac

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -- '*.hpp' '*.cpp')
else  # e.g. an unpacked archive
  mapfile -t files < <(find . -path ./.git -prune -o -path './build*' -prune -o \
                         \( -name '*.hpp' -o -name '*.cpp' \) -type f -print | sed 's|^\./||' | sort)
fi

bad=()
for f in "${files[@]}"; do
  [ -f "$f" ] || continue  # deleted in the work tree but still tracked
  if ! "$clang_format" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done

if [ ${#bad[@]} -ne 0 ]; then
  echo "check-format: ${#bad[@]} of ${#files[@]} files are not formatted as .clang-format says:"
  printf '  %s\n' "${bad[@]}"
  echo "Fix with: $clang_format -i <file>... (then review the diff)"
  exit 1
fi
echo "check-format: all ${#files[@]} files formatted ($version)"
