# Spack recipe for Tessera, in Spack's current package API (Spack 1.x: build systems from
# spack_repo.builtin.build_systems, the spack-packages repository layout).
#
# Tessera has no release archive or public address yet: the recipe builds the git repository it
# is part of (version main: the checkout's committed main branch).
#
#   spack repo add <checkout>/spack/spack_repo/tessera
#   spack install tessera@main                    # Serial Kokkos
#   spack install tessera@main +openmp            # Kokkos with OpenMP
#   spack install tessera@main +cuda cuda_arch=90
#   spack install tessera@main +mpi               # the MPI layer: Tessera::tessera_mpi
#   spack install --test=root tessera@main        # also builds and runs the unit tests (ctest)
#   spack test run tessera                        # builds a find_package(Tessera) program
#                                                 # against the install and runs it
#
# A working tree with uncommitted changes builds through an environment:
#   spack env create tessera-dev && spack env activate tessera-dev
#   spack develop --path <checkout> --no-clone tessera@main
#   spack add tessera@main && spack install
#
# Every variant that is not a Kokkos backend maps to a CMake option of Tessera's
# CMakeLists.txt, and every Kokkos variant the recipe names exists in the builtin Kokkos recipe:
# scripts/check-spack-variants.py (a CTest test) checks both.
import os

from spack_repo.builtin.build_systems.cmake import CMakePackage
from spack_repo.builtin.build_systems.cuda import CudaPackage

from spack.package import *


class Tessera(CMakePackage, CudaPackage):
    """Tiled map-reductions (KeOps-style Genred: kernel sums, k-nearest neighbours,
    log-sum-exp), block-sparse reductions with clustering helpers, a pairwise block engine,
    fused BLAS-1/2 sequences and interval primitives (load-balancing search, interval
    expand/move/gather/scatter) for Kokkos applications, on every Kokkos backend, with
    hand-written CUDA kernels for the hot paths, and distributed versions over MPI."""

    # The checkout that holds this recipe (spack/spack_repo/tessera/packages/tessera/ is five
    # levels below its root), until Tessera has a public repository and release archives.
    git = "file://" + os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 5))

    license("BSD-3-Clause")

    test_requires_compiler = True

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
        description="Build the MPI layer: distributed Genred, block-sparse reductions and "
        "pdist/cdist/l2_kernel (Tessera::tessera_mpi, CMake component mpi)",
    )
    variant(
        "sm90a",
        default=True,
        description="With CUDA for Hopper alone (cuda_arch=90): compile for sm_90a and run the "
        "tensor-core kernels on Hopper's warpgroup products",
    )
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
    depends_on("benchmark", type=("build", "link"), when="+benchmarks")
    # The unit tests (`spack install --test=root`): GoogleTest, and Python for the tests that
    # check the tree's text and this recipe.
    depends_on("googletest", type="test")
    depends_on("python@3:", type="test")

    def cmake_args(self):
        kokkos = self.spec["kokkos"]
        args = [
            self.define("Kokkos_ROOT", kokkos.prefix),
            self.define_from_variant("TESSERA_ENABLE_KOKKOSKERNELS", "kokkoskernels"),
            self.define_from_variant("TESSERA_ENABLE_MPI", "mpi"),
            self.define_from_variant("TESSERA_ENABLE_SM90A", "sm90a"),
            self.define_from_variant("TESSERA_ENABLE_BENCHMARKS", "benchmarks"),
            self.define_from_variant("TESSERA_ENABLE_EXAMPLES", "examples"),
            # Spack's convention for tests: built only when asked for (--test), run by check().
            self.define("TESSERA_ENABLE_TESTS", self.run_tests),
        ]
        if self.spec.satisfies("+cuda") and not self.spec.satisfies("^kokkos+cmake_lang"):
            # nvcc_wrapper-style Kokkos: Tessera compiles with the same compiler wrapper.
            args.append(self.define("CMAKE_CXX_COMPILER", self["kokkos"].kokkos_cxx))
        return args

    def check(self):
        """Runs the unit tests (ctest) in the build directory."""
        with working_dir(self.build_directory):
            ctest("--output-on-failure")

    # ---- stand-alone test (`spack test run tessera`): the install consumer of the unit tests,
    # a separate find_package(Tessera) project that checks one Genred call against a direct loop
    # (and, with +mpi, one distributed call on 2 ranks), built against the installed package.
    consumer_src_dir = join_path("unit_tests", "install_consumer")

    @run_after("install")
    def setup_build_tests(self):
        """Keeps the consumer's sources for `spack test run`."""
        cache_extra_test_sources(self, [self.consumer_src_dir])

    def test_consumer(self):
        """build a find_package(Tessera) program against the installed package and run it"""
        source = join_path(self.test_suite.current_test_cache_dir, self.consumer_src_dir)
        cxx = (
            self["kokkos"].kokkos_cxx
            if self.spec.satisfies("+cuda") and not self.spec.satisfies("^kokkos+cmake_lang")
            else os.environ["CXX"]
        )
        args = [
            source,
            self.define("CMAKE_PREFIX_PATH", get_cmake_prefix_path(self)),
            self.define("CMAKE_CXX_COMPILER", cxx),
            self.define("CMAKE_BUILD_TYPE", "Release"),
            self.define("Kokkos_ROOT", self.spec["kokkos"].prefix),
            self.define("Tessera_ROOT", self.prefix),
        ]
        if self.spec.satisfies("+mpi"):
            args.append(self.define("MPI_HOME", self.spec["mpi"].prefix))
        cmake = which(self.spec["cmake"].prefix.bin.cmake, required=True)
        with working_dir("consumer-build", create=True):
            cmake(*args)
            cmake("--build", ".")
            with test_part(self, "test_consumer_run", purpose="one Genred call, checked"):
                Executable(join_path(".", "tessera_consumer"))()
            if self.spec.satisfies("+mpi"):
                with test_part(self, "test_consumer_mpi", purpose="distributed Genred, 2 ranks"):
                    mpiexec = which(self.spec["mpi"].prefix.bin.mpiexec, required=True)
                    mpiexec("-n", "2", join_path(".", "tessera_mpi_consumer"))
