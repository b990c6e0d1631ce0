/*
 * dualview.hpp: the typed C++17 wrapper over the dualview C ABI (namespace dv).
 *
 * dv::View<DataType, Props...> and dv::DualView<DataType, Props...> with
 * Kokkos' data-type syntax (T, T*, T**, T*[3], T[2][3]), layouts, memory and
 * execution spaces, the DualView typedefs and members, and the free functions
 * (deep_copy, subview, resize, realloc, create_mirror*, fence). Views copy by
 * value into CUDA kernels. Every failing call throws dv::error (or a subclass).
 *
 * The parts, each usable on its own (docs/CPP.md):
 *   dualview/config.hpp     C++17 check, host/device macros
 *   dualview/error.hpp      dv::error and its subclasses
 *   dualview/extents.hpp    constexpr extents, dims, dyn_extents, strides, predicates
 *   dualview/layout.hpp     LayoutLeft/Right/Stride and their mappings
 *   dualview/space.hpp      memory and execution spaces
 *   dualview/traits.hpp     ViewTraits, memory traits, view_alloc
 *   dualview/view.hpp       dv::View, deep_copy, mirrors
 *   dualview/complex.hpp    dv::complex, usable in device kernels
 *   dualview/dual_view.hpp  dv::DualView, subview
 *   dualview/tools.hpp      the Kokkos Tools interface
 *   dualview/kokkos.hpp     the Kokkos:: names (not included here)
 */
#ifndef DUALVIEW_HPP
#define DUALVIEW_HPP

#include "dualview/complex.hpp"
#include "dualview/config.hpp"
#include "dualview/dual_view.hpp"
#include "dualview/error.hpp"
#include "dualview/extents.hpp"
#include "dualview/layout.hpp"
#include "dualview/space.hpp"
#include "dualview/tools.hpp"
#include "dualview/traits.hpp"
#include "dualview/utility.hpp"
#include "dualview/view.hpp"

#endif  // DUALVIEW_HPP
