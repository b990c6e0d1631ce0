# fortran/dualview.f90 must equal the output of scripts/gen-fortran.py.
execute_process(COMMAND ${PY} ${SRC}/scripts/gen-fortran.py OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "scripts/gen-fortran.py failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${SRC}/fortran/dualview.f90 RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "fortran/dualview.f90 is stale: run python3 scripts/gen-fortran.py > fortran/dualview.f90")
endif()
