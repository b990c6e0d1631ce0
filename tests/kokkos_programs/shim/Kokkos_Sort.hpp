/*
 * Kokkos_Sort.hpp of the core-dispatch shim (tests/kokkos_programs): Kokkos'
 * sorting algorithms are parallel dispatch, like parallel_for, so they belong
 * to the shim and not to dualview (docs/CPP.md). miniMD includes this header;
 * its one use of it (BinSort in Atom::sort) is commented out in its source.
 * Serial, on the host, for rank-1 Views whose memory the host can read (Serial
 * or the test device). Written for these tests; no Kokkos source.
 *
 *   Kokkos::sort(view), Kokkos::sort(exec, view)  ascending, std::sort
 *   Kokkos::sort(view, begin, end)                 the elements [begin, end)
 */
#ifndef DUALVIEW_KOKKOS_PROGRAMS_SORT_HPP
#define DUALVIEW_KOKKOS_PROGRAMS_SORT_HPP

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace Kokkos {

/// Sort the elements [begin, end) of a rank-1 View ascending.
template <class ViewType, class = std::enable_if_t<is_view<ViewType>::value>>
void sort(const ViewType& view, std::size_t begin, std::size_t end) {
  static_assert(ViewType::rank == 1, "Kokkos::sort (shim): a rank-1 View");
  std::vector<typename ViewType::non_const_value_type> tmp;
  tmp.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) tmp.push_back(view(i));
  std::sort(tmp.begin(), tmp.end());
  for (std::size_t i = begin; i < end; ++i) view(i) = tmp[i - begin];
}
/// Sort a whole rank-1 View ascending.
template <class ViewType, class = std::enable_if_t<is_view<ViewType>::value>>
void sort(const ViewType& view) {
  sort(view, 0, view.extent(0));
}
/// Sort on an execution space instance (run at once: the shim is serial).
template <class Exec, class ViewType,
          class = std::enable_if_t<is_execution_space<Exec>::value && is_view<ViewType>::value>>
void sort(const Exec&, const ViewType& view) {
  sort(view, 0, view.extent(0));
}

}  // namespace Kokkos

#endif  // DUALVIEW_KOKKOS_PROGRAMS_SORT_HPP
