# fortran/dualview.f90 must equal what scripts/gen-fortran.py writes from include/dualview.h.
execute_process(COMMAND ${PY} ${SRC}/scripts/gen-fortran.py OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scripts/gen-fortran.py failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${SRC}/fortran/dualview.f90 RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "fortran/dualview.f90 is stale: run python3 scripts/gen-fortran.py -o fortran/dualview.f90")
endif()
