#!/usr/bin/env python3
"""Checks the Spack recipe (spack/spack_repo/tessera/packages/tessera/package.py) against
Tessera's CMake options, without Spack: every variant of the recipe either maps to a CMake
option that a CMakeLists.txt of the tree declares (define_from_variant) or is a Kokkos backend
that the recipe asks of Kokkos (depends_on("kokkos+<variant>", when="+<variant>"); cuda and
cuda_arch come from CudaPackage), and every TESSERA_ENABLE_* option() has a variant.
Exit status 1 with a list of the mismatches."""
import ast
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
recipe = root / "spack" / "spack_repo" / "tessera" / "packages" / "tessera" / "package.py"
tree = ast.parse(recipe.read_text(), str(recipe))


def literal(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


variants, mapped, kokkos_asks, bases = set(), {}, set(), set()
for node in ast.walk(tree):
    if isinstance(node, ast.ClassDef):
        bases |= {b.id for b in node.bases if isinstance(b, ast.Name)}
    if not isinstance(node, ast.Call):
        continue
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    args = [literal(a) for a in node.args]
    if name == "variant" and args and args[0]:
        variants.add(args[0])
    elif name == "define_from_variant" and len(args) >= 2 and args[0] and args[1]:
        mapped[args[1]] = args[0]
    elif name == "depends_on" and args and args[0] and args[0].startswith("kokkos"):
        when = next((literal(k.value) for k in node.keywords if k.arg == "when"), None)
        for flag in re.findall(r"\+(\w+)", args[0]):
            if when and re.search(r"(^|\s)\+" + flag + r"(\s|$)", when):
                kokkos_asks.add(flag)
if "CudaPackage" in bases:
    variants |= {"cuda", "cuda_arch"}
    kokkos_asks |= {"cuda", "cuda_arch"}

options = set()
for cmake in root.rglob("CMakeLists.txt"):
    if "build" in cmake.relative_to(root).parts[0]:
        continue
    options |= set(re.findall(r"^\s*option\(\s*(\w+)", cmake.read_text(), re.M))

errors = []
for v in sorted(variants):
    if v in mapped:
        if mapped[v] not in options:
            errors.append(f"variant '{v}' maps to {mapped[v]}, which no CMakeLists.txt declares")
    elif v not in kokkos_asks:
        errors.append(f"variant '{v}' maps to no CMake option and asks Kokkos for nothing")
for o in sorted(options):
    if o.startswith("TESSERA_ENABLE_") and o not in mapped.values():
        errors.append(f"CMake option {o} has no variant in the Spack recipe")
for e in errors:
    print("check-spack-variants:", e)
print(f"check-spack-variants: {len(variants)} variants, {len(options)} CMake options, "
      f"{len(errors)} mismatches")
sys.exit(1 if errors else 0)
