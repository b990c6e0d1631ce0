/*
 * Kokkos_Complex.hpp under Kokkos' name, for code written against Kokkos: the Kokkos
 * names mapped onto dualview (see dualview/kokkos.hpp). This folder is on the
 * include path only through the DualView::kokkos target or
 * `pkg-config dualview-kokkos`, so a project that also has real Kokkos does
 * not pick it up by accident.
 */
#ifndef DUALVIEW_COMPAT_KOKKOS_COMPLEX_HPP
#define DUALVIEW_COMPAT_KOKKOS_COMPLEX_HPP
#include "../kokkos.hpp"
#endif  // DUALVIEW_COMPAT_KOKKOS_COMPLEX_HPP
