# Run EXE with DV_LEAK_REPORT=1 and judge its exit report (stderr): it must match
# EXPECT, and not REJECT when given. -DEXE=... -DEXPECT=<regex> [-DREJECT=<regex>]
execute_process(COMMAND ${CMAKE_COMMAND} -E env DV_LEAK_REPORT=1 ${EXE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} failed (${rc})")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "the leak report does not match: ${EXPECT}")
endif()
if(DEFINED REJECT AND err MATCHES "${REJECT}")
  message(FATAL_ERROR "the leak report matches what it must not: ${REJECT}")
endif()
