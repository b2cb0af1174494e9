# Builds and runs the first program of docs/getting-started.md, as written there: its main.cpp
# and CMakeLists.txt (the first cpp and cmake blocks of the section "A first program"),
# configured with no build type against the install of Tessera's build in PREFIX (made by the
# test package_install). Checks that the build type defaulted to Release and that the program
# printed what its comment says.
# Run by CTest (unit_tests/CMakeLists.txt: package_first_program) as
#   cmake -DPREFIX=... -DWORK_DIR=... -DGENERATOR=... -DCXX_COMPILER=... -DKOKKOS_DIR=...
#         -DDOC=docs/getting-started.md -P first_program.cmake
cmake_minimum_required(VERSION 3.16)

file(READ "${DOC}" doc)
string(FIND "${doc}" "## A first program" at)
if(at LESS 0)
  message(FATAL_ERROR "${DOC} has no section \"A first program\"")
endif()
string(SUBSTRING "${doc}" ${at} -1 doc)

# The first fenced block of `lang` in the section, into `out`.
function(fenced_block lang out)
  set(fence "```${lang}\n")
  string(FIND "${doc}" "${fence}" begin)
  if(begin LESS 0)
    message(FATAL_ERROR "${DOC}, \"A first program\": no ${lang} block")
  endif()
  string(LENGTH "${fence}" length)
  math(EXPR begin "${begin} + ${length}")
  string(SUBSTRING "${doc}" ${begin} -1 rest)
  string(FIND "${rest}" "```" end)
  string(SUBSTRING "${rest}" 0 ${end} block)
  set(${out} "${block}" PARENT_SCOPE)
endfunction()

fenced_block(cpp main_cpp)
fenced_block(cmake cmake_lists)
file(REMOVE_RECURSE "${WORK_DIR}")
file(WRITE "${WORK_DIR}/main.cpp" "${main_cpp}")
file(WRITE "${WORK_DIR}/CMakeLists.txt" "${cmake_lists}")

execute_process(COMMAND "${CMAKE_COMMAND}" -S "${WORK_DIR}" -B "${WORK_DIR}/build" -G "${GENERATOR}"
                        "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}" "-DCMAKE_PREFIX_PATH=${PREFIX}"
                        "-DKokkos_DIR=${KOKKOS_DIR}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the first program does not configure:\n${out}")
endif()
file(STRINGS "${WORK_DIR}/build/CMakeCache.txt" build_type REGEX "^CMAKE_BUILD_TYPE:")
if(NOT build_type MATCHES "=Release$")
  message(FATAL_ERROR "the first program's build type is not Release by default: ${build_type}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${WORK_DIR}/build"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the first program does not build:\n${out}")
endif()
execute_process(COMMAND "${WORK_DIR}/build/app" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "a_0 = 2000\n")
  message(FATAL_ERROR "the first program ran with exit ${rc}, printing:\n${out}\n"
                      "(expected a_0 = 2000)")
endif()
message(STATUS "the first program of ${DOC} built (Release by default) and printed: ${out}")
