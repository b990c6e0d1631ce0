# Compile the .cu tests without a GPU (source errors show up on CPU-only CI).
#   -DNVCC=<nvcc or empty> -DSRC=<tests/cuda> -DINC=<include> -DOUT=<dir>
# Exits 77 (a visible skip in ctest) when there is no nvcc.
if(NOT NVCC OR NOT EXISTS "${NVCC}")
  message("SKIPPED: no nvcc here (set NVCC, or run scripts/test.sh, which installs the CUDA wheels); the .cu tests run in scripts/gpu-check.sh")
  cmake_language(EXIT 77)
endif()
file(MAKE_DIRECTORY ${OUT})
foreach(cu kernel_dualview.cu)
  execute_process(COMMAND ${NVCC} -std=c++17 -arch=sm_90 -Werror all-warnings -I${INC} -c ${SRC}/${cu} -o ${OUT}/${cu}.o
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nvcc failed on ${cu}:\n${out}${err}")
  endif()
  message("compiled ${cu} with ${NVCC}")
endforeach()
