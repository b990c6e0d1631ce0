/*
 * kokkos_compat.hpp: the Kokkos names mapped onto dualview (kept for code
 * that included it by this name; it is dualview/kokkos.hpp).
 */
#ifndef DUALVIEW_KOKKOS_COMPAT_HPP
#define DUALVIEW_KOKKOS_COMPAT_HPP
#include "kokkos.hpp"
#endif  // DUALVIEW_KOKKOS_COMPAT_HPP
