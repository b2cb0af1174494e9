# Spack package for Tessera: `spack repo add <tessera>/spack && spack install tessera`.
from spack.package import *


class Tessera(CMakePackage):
    """Genred tiled map-reduce (KeOps-style kernel sums, k-nearest neighbours, log-sum-exp),
    block-sparse reductions with clustering helpers, and interval primitives (scan,
    load-balancing search, interval expand/move/gather/scatter) for Kokkos applications."""

    homepage = "https://example.invalid/tessera"
    git = "https://example.invalid/tessera.git"

    maintainers("tessera-developers")
    license("BSD-3-Clause")

    version("main", branch="main")

    variant(
        "cuda",
        default=False,
        description="Build against a Kokkos 4 with CUDA (Tessera's CUDA kernels need Kokkos 4)",
    )
    variant(
        "kokkoskernels",
        default=False,
        description="Find Kokkos Kernels, for the (future) fused-sequence module's unfused "
        "references; nothing uses it yet",
    )
    variant("tests", default=False, description="Build the unit tests")
    variant("benchmarks", default=False, description="Build the benchmarks in perf/")
    variant("examples", default=False, description="Build the example programs")

    depends_on("cmake@3.16:", type="build")
    depends_on("cxx", type="build")
    depends_on("kokkos@3.4:")
    depends_on("kokkos@4: +cuda +cuda_lambda", when="+cuda")
    depends_on("kokkos-kernels@3.4:", when="+kokkoskernels")
    depends_on("kokkos-kernels+cuda", when="+kokkoskernels+cuda")
    depends_on("googletest", when="+tests")
    depends_on("benchmark", when="+benchmarks")

    def cmake_args(self):
        args = [
            self.define("Kokkos_ROOT", self.spec["kokkos"].prefix),
            self.define_from_variant("TESSERA_ENABLE_KOKKOSKERNELS", "kokkoskernels"),
            self.define_from_variant("TESSERA_ENABLE_TESTS", "tests"),
            self.define_from_variant("TESSERA_ENABLE_BENCHMARKS", "benchmarks"),
            self.define_from_variant("TESSERA_ENABLE_EXAMPLES", "examples"),
        ]
        if self.spec.satisfies("+cuda") and not self.spec.satisfies(
            "^kokkos+compile_as_cmake_language"
        ):
            # nvcc_wrapper-style Kokkos: consumers compile with the same wrapper.
            args.append(
                self.define("CMAKE_CXX_COMPILER", self.spec["kokkos"].kokkos_cxx)
            )
        return args
