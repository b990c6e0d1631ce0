# Compile one C++ source with a given compiler and standard (strict warnings), then run it.
execute_process(COMMAND ${CXX} -std=c++${STD} -Wall -Wextra -Werror -I${INC} ${SRC} -L${LIBDIR} -ldualview
                        -Wl,-rpath,${LIBDIR} -o ${OUT}
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CXX} -std=c++${STD} failed:\n${out}${err}")
endif()
execute_process(COMMAND ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${OUT} failed (${rc})")
endif()
