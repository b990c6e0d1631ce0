# Compile CUDA sources without a GPU (source errors show up on CPU-only CI).
#   -DNVCC=<nvcc or empty> -DFILES=<sources, |-separated> -DINCS=<include dirs, |-separated> -DOUT=<dir>
# Prints "SKIPPED: <reason>" (the tests' SKIP_REGULAR_EXPRESSION) when there is no nvcc.
if(NOT NVCC OR NOT EXISTS "${NVCC}")
  message("SKIPPED: no nvcc here (set NVCC, or run scripts/test.sh, which installs the CUDA wheels); the .cu tests run in scripts/gpu-check.sh")
  return()
endif()
file(MAKE_DIRECTORY ${OUT})
set(incflags)
string(REPLACE "|" ";" INCS "${INCS}")
foreach(dir IN LISTS INCS)
  list(APPEND incflags -I${dir})
endforeach()
string(REPLACE "|" ";" FILES "${FILES}")
foreach(src IN LISTS FILES)
  get_filename_component(name ${src} NAME)
  execute_process(COMMAND ${NVCC} -std=c++17 -arch=sm_90 -x cu -Werror all-warnings ${incflags} -c ${src} -o ${OUT}/${name}.o
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nvcc failed on ${name}:\n${out}${err}")
  endif()
  message("compiled ${name} as CUDA with ${NVCC}")
endforeach()
