# Finding Kokkos (and Kokkos Kernels) the same way for Tessera's build and its consumers.
#
# Two kinds of installs are handled:
#  - a Kokkos 4.x CMake install (-DKokkos_ROOT=...), possibly with CUDA, compiled either through
#    nvcc_wrapper as CMAKE_CXX_COMPILER or with Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON, in
#    which case every source that includes Kokkos must be compiled as CUDA;
#  - a TriBITS-packaged Kokkos 3.4 (Debian's libtrilinos-kokkos-dev, Trilinos), whose imported
#    target Kokkos::kokkos names a non-existent include directory (the headers live in
#    Kokkos_INCLUDE_DIRS, /usr/include/trilinos on Debian) and whose Kokkos Kernels has no
#    Kokkos::kokkoskernels target.

include_guard(GLOBAL)

# Replaces the include directories of an imported target by the existing ones of `dirs`.
function(_tessera_fix_include_dirs target)
  set(good "")
  get_target_property(current ${target} INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS current ARGN)
    if(dir AND EXISTS "${dir}")
      get_filename_component(dir "${dir}" REALPATH)
      list(APPEND good "${dir}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES good)
  set_property(TARGET ${target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${good}")
endfunction()

# find_package(Kokkos) plus tessera_use_kokkos(), for Tessera's own build (TesseraConfig.cmake
# finds Kokkos with find_dependency instead, so that its caller's QUIET or REQUIRED holds).
macro(tessera_find_kokkos)
  find_package(Kokkos 3.4 REQUIRED)
  tessera_use_kokkos()
endmacro()

# The repairs above for the Kokkos that find_package(Kokkos) found; sets TESSERA_KOKKOS_LANGUAGE
# to CXX or CUDA.
macro(tessera_use_kokkos)
  if(NOT TARGET Kokkos::kokkos)
    message(FATAL_ERROR "Tessera: this Kokkos install exports no Kokkos::kokkos target")
  endif()
  if(Kokkos_INCLUDE_DIRS)  # TriBITS-style install
    _tessera_fix_include_dirs(Kokkos::kokkos ${Kokkos_INCLUDE_DIRS})
  endif()
  if(Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
    set(TESSERA_KOKKOS_LANGUAGE CUDA)
    if(NOT CMAKE_CUDA_ARCHITECTURES AND Kokkos_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES ${Kokkos_CUDA_ARCHITECTURES})
    endif()
    enable_language(CUDA)
  else()
    set(TESSERA_KOKKOS_LANGUAGE CXX)
  endif()
endmacro()

# find_package(KokkosKernels) providing Kokkos::kokkoskernels for both kinds of install.
macro(tessera_find_kokkoskernels)
  find_package(KokkosKernels REQUIRED)
  if(NOT TARGET Kokkos::kokkoskernels)
    if(TARGET trilinos_kokkoskernels)
      add_library(Kokkos::kokkoskernels INTERFACE IMPORTED)
      set_property(TARGET Kokkos::kokkoskernels PROPERTY INTERFACE_LINK_LIBRARIES
                                                         trilinos_kokkoskernels Kokkos::kokkos)
      _tessera_fix_include_dirs(Kokkos::kokkoskernels ${KokkosKernels_INCLUDE_DIRS})
    else()
      message(FATAL_ERROR "Tessera: Kokkos Kernels was found but exports no usable target")
    endif()
  endif()
endmacro()

# Compiles everything that uses Kokkos for sm_90a instead of sm_90 (Hopper's arch-specific
# features: the warpgroup products of Tessera's tensor-core engine), by rewriting the
# architecture flag of the Kokkos found (nvcc_wrapper installs) or CMAKE_CUDA_ARCHITECTURES
# (CUDA-language installs). Such code runs only on compute capability 9.0.
function(tessera_use_sm90a)
  foreach(target IN ITEMS Kokkos::kokkoscore Kokkos::kokkos)
    if(TARGET ${target})
      foreach(property IN ITEMS INTERFACE_COMPILE_OPTIONS INTERFACE_LINK_OPTIONS)
        get_target_property(flags ${target} ${property})
        if(flags)
          string(REGEX REPLACE "-arch=sm_90([^a0-9]|$)" "-arch=sm_90a\\1" flags "${flags}")
          set_property(TARGET ${target} PROPERTY ${property} "${flags}")
        endif()
      endforeach()
    endif()
  endforeach()
  if(CMAKE_CUDA_ARCHITECTURES STREQUAL "90")
    set(CMAKE_CUDA_ARCHITECTURES 90a PARENT_SCOPE)
  endif()
endfunction()

# Sets `out` to ON when Tessera should use sm_90a by default: CUDA kernels on, and the Kokkos
# found built for Hopper (Kokkos_ARCH HOPPER90) and for no other GPU.
function(tessera_kokkos_is_hopper_only out)
  set(${out} OFF PARENT_SCOPE)
  string(TOUPPER "${Kokkos_ARCH}" arch)
  if("HOPPER90" IN_LIST arch)
    set(${out} ON PARENT_SCOPE)
    foreach(a IN LISTS arch)
      if(a MATCHES "^(KEPLER|MAXWELL|PASCAL|VOLTA|TURING|AMPERE|ADA|BLACKWELL)")
        set(${out} OFF PARENT_SCOPE)
      endif()
    endforeach()
  endif()
endfunction()

# Sets `out` to ON when the Kokkos found by tessera_find_kokkos has the CUDA backend. Both kinds
# of install set Kokkos_DEVICES (e.g. "SERIAL;CUDA"); Kokkos 4 also sets Kokkos_ENABLE_CUDA.
function(tessera_kokkos_has_cuda out)
  string(TOUPPER "${Kokkos_DEVICES}" devices)
  if(Kokkos_ENABLE_CUDA OR "CUDA" IN_LIST devices)
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

# Marks sources that include Kokkos as CUDA when Kokkos was built as a CMake CUDA language.
function(tessera_kokkos_sources)
  if(TESSERA_KOKKOS_LANGUAGE STREQUAL "CUDA")
    set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CUDA)
  endif()
endfunction()

# An executable whose sources include Kokkos: compiled in the right language, linked to tessera.
function(tessera_add_executable name)
  add_executable(${name} ${ARGN})
  tessera_kokkos_target(${name} ${ARGN})
endfunction()

# Compiles `sources` of the existing target `name` (defined in the calling directory) in the
# right language and links it to tessera. Under nvcc, a call from device code to a host-only
# function is an error, not a warning.
function(tessera_kokkos_target name)
  tessera_kokkos_sources(${ARGN})
  target_link_libraries(${name} PRIVATE Tessera::tessera)
  if(TESSERA_KOKKOS_LANGUAGE STREQUAL "CUDA")
    target_compile_options(${name} PRIVATE
                           $<$<COMPILE_LANGUAGE:CUDA>:--Werror=cross-execution-space-call>)
  elseif(CMAKE_CXX_COMPILER MATCHES "nvcc_wrapper")
    target_compile_options(${name} PRIVATE --Werror=cross-execution-space-call)
  endif()
endfunction()
