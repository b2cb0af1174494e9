# Spack recipe for Tessera, in Spack's current package API (Spack 1.x: build systems from
# spack_repo.builtin.build_systems, the spack-packages repository layout).
#
#   spack repo add <tessera>/spack/spack_repo/tessera
#   spack install tessera                  # Serial Kokkos
#   spack install tessera +openmp          # Kokkos with OpenMP
#   spack install tessera +cuda cuda_arch=90
#   spack install tessera +mpi             # the distributed calls (Tessera::tessera_mpi)
#
# Every variant that is not a Kokkos backend maps to a CMake option of Tessera's
# CMakeLists.txt; scripts/check-spack-variants.py (a CTest test) checks that it exists.
from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


class Tessera(CMakePackage, CudaPackage):
    """Tiled map-reductions (KeOps-style Genred: kernel sums, k-nearest neighbours,
    log-sum-exp), block-sparse reductions with clustering helpers, a pairwise block engine,
    fused BLAS-1/2 sequences and interval primitives (load-balancing search, interval
    expand/move/gather/scatter) for Kokkos applications, on every Kokkos backend, with
    hand-written CUDA kernels for the hot paths."""

    # The project has no public address yet: these two lines are where it goes. Until then,
    # `spack develop --path <checkout> tessera@main` builds a local checkout.
    homepage = "https://example.invalid/tessera"
    git = "https://example.invalid/tessera.git"

    maintainers("tessera-developers")
    license("BSD-3-Clause")

    version("main", branch="main")

    # Kokkos backends: Tessera runs on those of the Kokkos it is built against.
    variant("openmp", default=False, description="Build against a Kokkos with OpenMP")
    # Tessera's own CMake options (name of the variant -> TESSERA_ENABLE_<NAME>).
    variant(
        "kokkoskernels",
        default=False,
        description="Find Kokkos Kernels: the fused sequences' unfused references and benchmarks",
    )
    variant(
        "mpi",
        default=False,
        description="Build the MPI layer: distributed Genred (Tessera::tessera_mpi)",
    )
    variant("tests", default=False, description="Build the unit tests (GoogleTest)")
    variant("benchmarks", default=False, description="Build the benchmarks in perf/")
    variant("examples", default=False, description="Build the example programs")

    depends_on("cxx", type="build")
    depends_on("cmake@3.16:", type="build")

    depends_on("kokkos@3.4:")
    depends_on("kokkos+openmp", when="+openmp")
    # The CUDA kernels need Kokkos 4 with CUDA, for the same architectures as Tessera.
    depends_on("kokkos@4:", when="+cuda")
    for arch in CudaPackage.cuda_arch_values:
        depends_on(f"kokkos+cuda cuda_arch={arch}", when=f"+cuda cuda_arch={arch}")
    conflicts("+cuda", when="cuda_arch=none", msg="tessera+cuda needs a cuda_arch")
    # Device lambdas: a variant of Kokkos 4 only (Kokkos 5 always enables them).
    depends_on("kokkos+cuda_lambda", when="+cuda ^kokkos@:4")

    depends_on("kokkos-kernels@3.4:", when="+kokkoskernels")
    depends_on("kokkos-kernels+cuda", when="+kokkoskernels+cuda")
    depends_on("kokkos-kernels+openmp", when="+kokkoskernels+openmp")
    depends_on("mpi", when="+mpi")
    depends_on("googletest", type=("build", "link"), when="+tests")
    depends_on("benchmark", type=("build", "link"), when="+benchmarks")

    def cmake_args(self):
        kokkos = self.spec["kokkos"]
        args = [
            self.define("Kokkos_ROOT", kokkos.prefix),
            self.define_from_variant("TESSERA_ENABLE_KOKKOSKERNELS", "kokkoskernels"),
            self.define_from_variant("TESSERA_ENABLE_MPI", "mpi"),
            self.define_from_variant("TESSERA_ENABLE_TESTS", "tests"),
            self.define_from_variant("TESSERA_ENABLE_BENCHMARKS", "benchmarks"),
            self.define_from_variant("TESSERA_ENABLE_EXAMPLES", "examples"),
        ]
        if self.spec.satisfies("+cuda") and not self.spec.satisfies(
            "^kokkos+compile_as_cmake_language"
        ):
            # nvcc_wrapper-style Kokkos: Tessera compiles with the same compiler wrapper.
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
        return args
