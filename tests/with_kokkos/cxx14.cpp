// LAMMPS 2 Aug 2023 builds its KOKKOS package at C++14 unless told otherwise: with
// <dualview/with_kokkos.hpp> the first error must be dualview's own "need C++17"
// message, which says what to set (-DCMAKE_CXX_STANDARD=17; DECISIONS K9). Checked by
// tests/c/header_check.cmake (MODE=cxx14) against Debian's Kokkos 3.4, which builds at C++14.
#include <Kokkos_Core.hpp>
#include <dualview/with_kokkos.hpp>

int main() { return 0; }
