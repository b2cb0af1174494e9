#!/usr/bin/env python3
"""Checks the Spack recipe (spack/spack_repo/tessera/packages/tessera/package.py) against
Tessera's CMake options and the builtin recipes it depends on, without Spack:
- every variant of the recipe either maps to a CMake option that a CMakeLists.txt of the tree
  declares (define_from_variant) or is a Kokkos backend that the recipe asks of Kokkos
  (depends_on("kokkos+<variant>", when="+<variant>"); cuda and cuda_arch come from
  CudaPackage);
- every TESSERA_ENABLE_* option() has a variant, or the recipe sets it itself (self.define:
  TESSERA_ENABLE_TESTS follows Spack's --test, self.run_tests);
- every variant the recipe names on kokkos or kokkos-kernels (`kokkos+cuda_lambda`,
  `^kokkos+cmake_lang`, ...) exists in the builtin recipe of that package (the lists below),
  and every variant a `when=` or `satisfies()` condition names on Tessera itself is one of its
  variants: a misspelt variant in a condition is never true, and Spack does not complain.
Exit status 1 with a list of the mismatches."""
import ast
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent

# The variants of the builtin recipes, from spack/spack-packages
# (https://github.com/spack/spack-packages), repos/spack_repo/builtin/packages/kokkos/package.py
# and kokkos_kernels/package.py at commit 1e8cf059 (2026-07-01), with those of their bases
# (CMakePackage: build_type, generator, ipo; CudaPackage: cuda, cuda_arch; ROCmPackage for
# Kokkos: rocm, amdgpu_target). Update them when the recipe asks for a variant they lack.
CMAKE_PACKAGE_VARIANTS = {"build_type", "generator", "ipo"}
KNOWN_VARIANTS = {
    "kokkos": CMAKE_PACKAGE_VARIANTS | {
        "aggressive_vectorization", "alloc_async", "amdgpu_target", "apu", "atomics_bypass",
        "cmake_lang", "compiler_warnings", "complex_align", "cuda", "cuda_arch",
        "cuda_constexpr", "cuda_lambda", "cuda_ldg_intrinsic", "cuda_relocatable_device_code",
        "cuda_uvm", "cxxstd", "debug", "debug_bounds_check", "debug_dualview_modify_check",
        "deprecated_code", "hip_relocatable_device_code", "hpx", "hpx_async_dispatch", "hwloc",
        "intel_gpu_arch", "memkind", "numactl", "openmp", "openmptarget", "pic", "rocm",
        "serial", "shared", "sycl", "sycl_relocatable_device_code", "tests", "threads",
        "tuning", "wrapper"},
    "kokkos-kernels": CMAKE_PACKAGE_VARIANTS | {
        "blas", "cblas", "cublas", "cuda", "cuda_arch", "cusolver", "cusparse",
        "execspace_cuda", "execspace_openmp", "execspace_serial", "execspace_threads",
        "lapack", "lapacke", "layouts", "memspace_cudaspace", "memspace_cudauvmspace", "mkl",
        "offsets", "openmp", "ordinals", "rocblas", "rocsolver", "rocsparse", "scalars",
        "serial", "shared", "superlu", "threads"},
}
recipe = root / "spack" / "spack_repo" / "tessera" / "packages" / "tessera" / "package.py"
tree = ast.parse(recipe.read_text(), str(recipe))


def literal(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def spec_text(node):
    """The text of a string or f-string spec ("{}" for each formatted value), else None."""
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return literal(node)


def named_variants(constraints):
    """The variant names of spec constraints: +a ~b ++c a=x a==x."""
    return set(re.findall(r"(?:^|[\s+~])[+~]{1,2}([\w-]+)", constraints)) | set(
        re.findall(r"([\w-]+)==?", constraints))


variants, mapped, kokkos_asks, bases = set(), {}, set(), set()
set_by_recipe = set()  # CMake options the recipe sets itself (self.define)
dependency_variants = []  # (package, variant, spec text)
condition_variants = []  # (variant of Tessera, condition text)
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
    elif name == "define" and args and args[0]:
        set_by_recipe.add(args[0])
    elif name == "depends_on" and args and args[0] and args[0].startswith("kokkos"):
        when = next((literal(k.value) for k in node.keywords if k.arg == "when"), None)
        for flag in re.findall(r"\+(\w+)", args[0]):
            if when and re.search(r"(^|\s)\+" + flag + r"(\s|$)", when):
                kokkos_asks.add(flag)
# Spec strings: the constraints on kokkos and kokkos-kernels (after the package name, up to the
# next dependency or compiler), and those of conditions on Tessera itself (before any `^`).
for node in ast.walk(tree):
    if not isinstance(node, ast.Call):
        continue
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    texts = [spec_text(a) for a in node.args] + [spec_text(k.value) for k in node.keywords]
    conditions = [spec_text(k.value) for k in node.keywords if k.arg == "when"]
    if name == "satisfies":
        conditions += [spec_text(a) for a in node.args]
    for text in filter(None, texts):
        for m in re.finditer(r"(?<![\w-])(kokkos-kernels|kokkos)(?![\w-])([^^%]*)", text):
            for v in named_variants(m.group(2)):
                dependency_variants.append((m.group(1), v, text))
    for text in filter(None, conditions):
        for v in named_variants(text.split("^")[0]):
            condition_variants.append((v, text))

if "CudaPackage" in bases:
    variants |= {"cuda", "cuda_arch"}
    kokkos_asks |= {"cuda", "cuda_arch"}

options = set()
for cmake in root.rglob("CMakeLists.txt"):
    top = cmake.relative_to(root).parts[0]
    if "build" in top or top.startswith("."):  # build trees, fetched dependencies
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
    if o.startswith("TESSERA_ENABLE_") and o not in mapped.values() and o not in set_by_recipe:
        errors.append(f"CMake option {o} has no variant in the Spack recipe")
for o in sorted(set_by_recipe):
    if o.startswith("TESSERA_ENABLE_") and o not in options:
        errors.append(f"the recipe sets {o}, which no CMakeLists.txt declares")
for package, v, text in sorted(set(dependency_variants)):
    if v not in KNOWN_VARIANTS[package]:
        errors.append(f"'{text}': {package} has no variant '{v}' (builtin recipe's variants: "
                      f"see KNOWN_VARIANTS in this script)")
for v, text in sorted(set(condition_variants)):
    if v not in variants and v not in CMAKE_PACKAGE_VARIANTS:
        errors.append(f"condition '{text}': tessera has no variant '{v}'")
for e in errors:
    print("check-spack-variants:", e)
print(f"check-spack-variants: {len(variants)} variants, {len(options)} CMake options, "
      f"{len(set(dependency_variants))} Kokkos/Kokkos Kernels variants named, "
      f"{len(errors)} mismatches")
sys.exit(1 if errors else 0)
