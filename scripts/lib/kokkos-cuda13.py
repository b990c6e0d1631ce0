#!/usr/bin/env python3
"""Edit a Kokkos tree that predates CUDA 13 so that CUDA 13's nvcc builds it.

CUDA 13 changed three signatures Kokkos calls: cudaMemAdvise and
cudaMemPrefetchAsync take a cudaMemLocation, cudaGraphAddDependencies takes edge
data; and it dropped sm_70, nvcc_wrapper's default architecture (CMake's first
compiler test uses it). The calls sit in Kokkos_CudaSpace.cpp and
Kokkos_Cuda_Graph_Impl.hpp in 3.7.02 (LAMMPS 2 Aug 2023's lib/kokkos) and in
Kokkos_Cuda_Instance.hpp in 4.6.x. Each edit is made only where the old form is
found and not yet edited, guarded by CUDART_VERSION, so a second run, or a tree
of 4.7 or later, changes nothing; the count of edits made is printed.
scripts/kokkos-build.sh and scripts/lammps-check.sh call it.

    python3 scripts/lib/kokkos-cuda13.py KOKKOS_TREE
"""
import os
import sys

LOC = ("    cudaMemLocation loc;\n"
       "    loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;\n"
       "    loc.id = device;\n")

# Whole statements (a directive may not sit inside a macro's arguments).
EDITS = {
    "core/src/Cuda/Kokkos_CudaSpace.cpp": [
        ("      cudaMemAdvise(ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation,\n                    cudaCpuDeviceId);",
         "      cudaMemAdvise(ptr, arg_alloc_size, cudaMemAdviseSetPreferredLocation,\n"
         "                    cudaMemLocation{cudaMemLocationTypeHost, 0});"),
        ("    KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemPrefetchAsync(\n        ptr, bytes, space.cuda_device(), space.cuda_stream()));",
         "    KOKKOS_IMPL_CUDA_SAFE_CALL(cudaMemPrefetchAsync(\n"
         "        ptr, bytes, cudaMemLocation{cudaMemLocationTypeDevice, space.cuda_device()}, 0, space.cuda_stream()));"),
    ],
    "core/src/Cuda/Kokkos_Cuda_Graph_Impl.hpp": [
        ("    KOKKOS_IMPL_CUDA_SAFE_CALL(\n        cudaGraphAddDependencies(m_graph, &pred_cuda_node, &cuda_node, 1));",
         "    KOKKOS_IMPL_CUDA_SAFE_CALL(\n        cudaGraphAddDependencies(m_graph, &pred_cuda_node, &cuda_node, nullptr, 1));"),
    ],
    # 4.6.x: the instance's wrappers of the three calls.
    "core/src/Cuda/Kokkos_Cuda_Instance.hpp": [
        ("    return cudaGraphAddDependencies(graph, from, to, numDependencies);",
         "    return cudaGraphAddDependencies(graph, from, to, nullptr, numDependencies);"),
        ("    return cudaMemAdvise(devPtr, count, advice, device);",
         LOC + "    return cudaMemAdvise(devPtr, count, advice, loc);"),
        ("    return cudaMemPrefetchAsync(devPtr, count, dstDevice,\n                                get_input_stream(stream));",
         LOC.replace("device ==", "dstDevice ==").replace("= device;", "= dstDevice;")
         + "    return cudaMemPrefetchAsync(devPtr, count, loc, 0, get_input_stream(stream));"),
    ],
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    done = 0
    for rel, edits in EDITS.items():
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        text = open(path).read()
        for old, new in edits:
            if old in text and new not in text:
                text = text.replace(old, "#if CUDART_VERSION >= 13000\n" + new + "\n#else\n" + old + "\n#endif", 1)
                done += 1
        open(path, "w").write(text)
    wrapper = os.path.join(root, "bin/nvcc_wrapper")
    w = open(wrapper).read()
    if 'default_arch="sm_70"' in w:
        open(wrapper, "w").write(w.replace('default_arch="sm_70"', 'default_arch="sm_90"', 1))
        done += 1
    print(f"kokkos-build: {done} edits for CUDA 13")


if __name__ == "__main__":
    main()
