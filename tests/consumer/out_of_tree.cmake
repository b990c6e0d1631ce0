# README, "Build, test, install with CMake": a build directory outside the
# checkout, without the tests: configure, build and install into a scratch
# prefix; the package a consumer's find_package reads is there.
#   cmake -DSOURCE=<checkout> -DWORK=<scratch> -P out_of_tree.cmake
file(REMOVE_RECURSE ${WORK})
foreach(step "-S;${SOURCE};-B;${WORK}/build;-DCMAKE_BUILD_TYPE=Release"
             "--build;${WORK}/build;-j;2"
             "--install;${WORK}/build;--prefix;${WORK}/prefix")
  execute_process(COMMAND ${CMAKE_COMMAND} ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cmake ${step} failed (${rc}):\n${out}")
  endif()
endforeach()
file(GLOB config ${WORK}/prefix/lib*/cmake/DualView/DualViewConfig.cmake)
file(GLOB lib ${WORK}/prefix/lib*/libdualview.so)
if(NOT config OR NOT lib)
  message(FATAL_ERROR "no DualViewConfig.cmake or libdualview.so under ${WORK}/prefix")
endif()
message(STATUS "built outside the checkout and installed: ${config}")
