# Configures find_consumer/ against the install of Tessera's build in PREFIX (made by the test
# package_install) in the cases a packager meets, checking that find_package(Tessera) keeps its
# caller's QUIET and REQUIRED (its dependencies are found with find_dependency):
#  - Kokkos found: Tessera found, Tessera::tessera defined;
#  - Kokkos missing (CMAKE_DISABLE_FIND_PACKAGE_Kokkos, or not in the prefixes searched),
#    QUIET: the configure succeeds with Tessera_FOUND false;
#  - Kokkos missing, REQUIRED: the configure fails and says that Kokkos is what is missing;
#  - the component mpi: required and present when Tessera has its MPI layer; a consumer without
#    MPI still finds Tessera when it does not ask for the component; an unknown component is
#    not found.
# Run by CTest (unit_tests/CMakeLists.txt: package_find_tessera) as
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=... -DCXX_COMPILER=... -DKOKKOS_DIR=...
#         -DTESSERA_ENABLE_MPI=ON|OFF -P find_tessera.cmake
cmake_minimum_required(VERSION 3.16)

set(prefix "${PREFIX}")
file(REMOVE_RECURSE "${WORK_DIR}")

set(failures 0)
# Configures the consumer in WORK_DIR/<name> with the -D arguments that follow and checks the
# exit status (0 or "fails") and that the output matches `regex`.
function(expect name status regex)
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/find_consumer" -B "${WORK_DIR}/${name}"
            -G "${GENERATOR}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
            "-DCMAKE_PREFIX_PATH=${prefix}" ${ARGN}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(out "${out}${err}")
  if(status STREQUAL "fails")
    set(status_ok NO)
    if(NOT rc EQUAL 0)
      set(status_ok YES)
    endif()
  else()
    set(status_ok NO)
    if(rc EQUAL 0)
      set(status_ok YES)
    endif()
  endif()
  if(status_ok AND out MATCHES "${regex}")
    message(STATUS "ok: ${name}")
  else()
    message(STATUS "FAILED: ${name}: expected exit ${status} and output matching '${regex}', "
                   "got exit ${rc}:\n${out}")
    math(EXPR count "${failures} + 1")
    set(failures ${count} PARENT_SCOPE)
  endif()
endfunction()

set(with_kokkos "-DKokkos_DIR=${KOKKOS_DIR}")
expect(found 0 "Tessera_FOUND=\\[1\\] tessera=\\[1\\]" -DFIND_ARGS=REQUIRED ${with_kokkos})
expect(quiet_kokkos_disabled 0 "Tessera_FOUND=\\[0\\] tessera=\\[0\\]" -DFIND_ARGS=QUIET
       -DCMAKE_DISABLE_FIND_PACKAGE_Kokkos=ON)
expect(quiet_kokkos_absent 0 "Tessera_FOUND=\\[0\\] tessera=\\[0\\]" -DFIND_ARGS=QUIET
       -DHIDE_SYSTEM_PACKAGES=ON)
expect(required_kokkos_absent fails "provided by \"Kokkos\".*TesseraConfig.cmake"
       -DFIND_ARGS=REQUIRED -DHIDE_SYSTEM_PACKAGES=ON)
expect(unknown_component 0 "Tessera_FOUND=\\[0\\]" "-DFIND_ARGS=QUIET COMPONENTS nonesuch"
       ${with_kokkos})
if(TESSERA_ENABLE_MPI)
  expect(mpi_component 0 "Tessera_FOUND=\\[1\\] tessera=\\[1\\] tessera_mpi=\\[1\\]"
         "-DFIND_ARGS=REQUIRED COMPONENTS mpi" ${with_kokkos})
  expect(mpi_absent_not_asked 0 "Tessera_FOUND=\\[1\\] tessera=\\[1\\] tessera_mpi=\\[0\\]"
         -DFIND_ARGS=REQUIRED -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON ${with_kokkos})
  expect(mpi_absent_quiet 0 "Tessera_FOUND=\\[0\\]" "-DFIND_ARGS=QUIET COMPONENTS mpi"
         -DCMAKE_DISABLE_FIND_PACKAGE_MPI=ON ${with_kokkos})
else()
  expect(mpi_not_built fails "built without its MPI layer"
         "-DFIND_ARGS=REQUIRED COMPONENTS mpi" ${with_kokkos})
endif()
if(failures GREATER 0)
  message(FATAL_ERROR "find_package(Tessera): ${failures} case(s) failed")
endif()
