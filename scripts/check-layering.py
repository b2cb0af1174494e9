#!/usr/bin/env python3
"""Checks the layering of include/: what is public is seen by the folder alone.

1. A public header (one outside an impl/ folder) holds the API and its contract: one of more
   than 80 lines keeps at most 30% of its lines inside `namespace Impl { ... }` blocks (the
   bodies belong in the module's impl/ folder).
2. A module reaches into no other module's internals: a header of include/tessera/<module>/
   includes tessera/<other>/impl/ headers only when <other> is core (the shared internals) or
   when <module> is mpi (the MPI layer distributes the other modules' calls and is built on
   their internals, as a backend is).

Exit status 1 with the offending headers."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
include = root / "include" / "tessera"
max_lines, max_share = 80, 0.30
impl_open = re.compile(r"^\s*namespace\s+Impl\s*\{")
impl_include = re.compile(r"^\s*#\s*include\s*<tessera/(\w+)/impl/")


def impl_lines(lines):
    """The number of lines inside namespace Impl blocks (their opening and closing lines too)."""
    count, depth, impl_depth = 0, 0, None
    for line in lines:
        code = line.split("//", 1)[0]
        if impl_depth is None and impl_open.match(code):
            impl_depth = depth
        if impl_depth is not None:
            count += 1
        depth += code.count("{") - code.count("}")
        if impl_depth is not None and depth <= impl_depth:
            impl_depth = None
    return count


failures = []
for path in sorted(include.rglob("*.hpp")):
    relative = path.relative_to(include)
    module = relative.parts[0]
    lines = path.read_text(encoding="utf-8").splitlines()
    if "impl" not in relative.parts and len(lines) > max_lines:
        share = impl_lines(lines) / len(lines)
        if share > max_share:
            failures.append(f"{relative}: {share:.0%} of its {len(lines)} lines are in namespace "
                            f"Impl (at most {max_share:.0%} in a public header of more than "
                            f"{max_lines} lines: move the bodies to {module}/impl/)")
    if module == "mpi":
        continue
    for number, line in enumerate(lines, 1):
        match = impl_include.match(line)
        if match and match.group(1) not in (module, "core"):
            failures.append(f"{relative}:{number}: includes {match.group(1)}'s internals "
                            f"({line.strip()}); share the type through core/ or a public header")

for failure in failures:
    print(failure)
sys.exit(1 if failures else 0)
