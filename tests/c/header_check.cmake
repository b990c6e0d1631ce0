# Header checks run by ctest with one compiler (tests/c/CMakeLists.txt):
#   -DMODE=hygiene  compile SRC with the strict flags, link it, run it
#   -DMODE=cxx14    compile SRC with -std=c++14: must fail with the header's
#                   "need C++17" #error as the first error
#   -DCXX=<compiler> -DSRC=<source> -DINC=<include dir> -DLIBDIR=<libdualview dir> -DOUT=<binary>
#   -DSYSINC=<include dir>   optional, before INC (a real Kokkos, for <dualview/with_kokkos.hpp>)
#   -DMODE=fails    compile SRC with -std=c++17: must fail, with an error matching EXPECT
set(_strict -std=c++17 -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Werror)
execute_process(COMMAND ${CXX} --version OUTPUT_VARIABLE version ERROR_QUIET)
if(version MATCHES "Free Software Foundation")  # GCC
  list(APPEND _strict -Wuseless-cast)
endif()

if(MODE STREQUAL "hygiene")
  string(REPLACE ";" " " shown "${_strict}")
  message("${CXX} ${shown} ${SRC}")
  execute_process(COMMAND ${CXX} ${_strict} -I${INC} ${SRC} -L${LIBDIR} -ldualview -Wl,-rpath,${LIBDIR} -o ${OUT}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${CXX}: dualview.hpp + dualview/kokkos.hpp are not warning-free:\n${out}${err}")
  endif()
  execute_process(COMMAND ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${OUT} failed (${rc})")
  endif()
elseif(MODE STREQUAL "cxx14")
  set(_sys)
  if(SYSINC)
    set(_sys -isystem ${SYSINC})
  endif()
  execute_process(COMMAND ${CXX} -std=c++14 -fsyntax-only ${_sys} -I${INC} ${SRC}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${CXX} -std=c++14 compiled dualview.hpp; the header must refuse C++14")
  endif()
  string(REGEX MATCH "error:[^\n]*" first "${err}")
  message("${CXX} -std=c++14, first error: ${first}")
  if(NOT first MATCHES "need C\\+\\+17")
    message(FATAL_ERROR "the first error is not the header's \"need C++17\" #error:\n${err}")
  endif()
elseif(MODE STREQUAL "fails")
  execute_process(COMMAND ${CXX} -std=c++17 -fsyntax-only -isystem ${SYSINC} -I${INC} ${SRC}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${CXX} compiled ${SRC}; it must be refused")
  endif()
  string(REGEX MATCH "error:[^\n]*${EXPECT}[^\n]*" found "${err}")
  if(NOT found)
    message(FATAL_ERROR "no error says \"${EXPECT}\":\n${err}")
  endif()
  message("refused as it must be: ${found}")
else()
  message(FATAL_ERROR "MODE must be hygiene, cxx14 or fails")
endif()
