# ctest mpi.jacobi.report_np2: the Jacobi example at 2 ranks with DV_REPORT=<prefix>
# writes one transfer report per rank (docs/GPU.md, "The transfer report"), each
# with the grid's halo traffic. Inputs: -DMPIEXEC=... -DEXE=... -DOUT=<folder>.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env DV_REPORT=${OUT}/jacobi
          ${MPIEXEC} -n 2 --oversubscribe --allow-run-as-root ${EXE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
# The exit status is not checked, as in the other mpi.jacobi tests: under LeakSanitizer
# Open MPI's plugins, unloaded before the leak check, make it non-zero. A failed run
# writes no reports, which the checks below catch.
message("jacobi at 2 ranks: exit status ${rc}")
# The report is written from an exit handler: nothing may fail there (a CUDA run once panicked).
if(err MATCHES "panicked|cannot write the report")
  message(FATAL_ERROR "the exit-time report failed:\n${err}")
endif()
if(NOT out MATCHES "bitwise equal to the single-rank run: yes")
  message(FATAL_ERROR "jacobi at 2 ranks did not finish:\n${out}${err}")
endif()
foreach(rank 0 1)
  set(txt "${OUT}/jacobi.${rank}.txt")
  if(NOT EXISTS "${txt}" OR NOT EXISTS "${OUT}/jacobi.${rank}.csv")
    message(FATAL_ERROR "no report of rank ${rank} in ${OUT}")
  endif()
  file(READ "${txt}" report)
  message("${report}")
  if(NOT report MATCHES "rank ${rank}," OR NOT report MATCHES "\n\"u\" +[1-9]")
    message(FATAL_ERROR "the report of rank ${rank} lacks its header or the grid's row:\n${report}")
  endif()
  file(READ "${OUT}/jacobi.${rank}.csv" csv)
  if(NOT csv MATCHES "\n${rank},\"u\",[^,]*,to_host,[1-9][0-9]*,[1-9][0-9]*,")
    message(FATAL_ERROR "rank ${rank}'s CSV has no halo traffic to the host for \"u\":\n${csv}")
  endif()
endforeach()
message("each rank's report holds its halo traffic")
