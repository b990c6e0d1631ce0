// Subview result layouts (issue 22, item 5): a subview keeps its source's
// LayoutLeft / LayoutRight when the result is packed in that layout, as Kokkos
// does for contiguous ranges; otherwise it is LayoutStride (docs/CPP.md,
// "Subview layouts").
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <type_traits>
#include <utility>

#include "common.hpp"

namespace {

using Left1 = Kokkos::View<double*, Kokkos::LayoutLeft, TestDev>;
using Left2 = Kokkos::View<double**, Kokkos::LayoutLeft, TestDev>;
using Left3 = Kokkos::View<double***, Kokkos::LayoutLeft, TestDev>;
using Right1 = Kokkos::View<double*, Kokkos::LayoutRight, TestDev>;
using Right2 = Kokkos::View<double**, Kokkos::LayoutRight, TestDev>;
using Right3 = Kokkos::View<double***, Kokkos::LayoutRight, TestDev>;
using Stride2 = Kokkos::View<double**, Kokkos::LayoutStride, TestDev>;
using P = std::pair<int, int>;
using KP = Kokkos::pair<std::size_t, std::size_t>;
using A = Kokkos::ALL_t;

template <class V, class... Args>
using layout_of = typename Kokkos::Subview<V, Args...>::array_layout;
template <class V, class... Args>
constexpr bool is_left = std::is_same_v<layout_of<V, Args...>, Kokkos::LayoutLeft>;
template <class V, class... Args>
constexpr bool is_right = std::is_same_v<layout_of<V, Args...>, Kokkos::LayoutRight>;
template <class V, class... Args>
constexpr bool is_stride = std::is_same_v<layout_of<V, Args...>, Kokkos::LayoutStride>;

// ---- LayoutLeft: ALL..., at most one range, then indices: LayoutLeft -------
static_assert(is_left<Left1, P> && is_left<Left1, KP> && is_left<Left1, A>);
static_assert(is_left<Left2, A, int> && is_left<Left2, P, int> && is_left<Left2, KP, unsigned>);
static_assert(is_left<Left2, A, P> && is_left<Left2, A, A>);
static_assert(is_left<Left3, A, A, int> && is_left<Left3, A, P, int> && is_left<Left3, P, int, int>);
static_assert(is_left<Left3, A, A, KP> && is_left<Left3, A, A, A>);
static_assert(is_left<Left2, int, int>);  // rank 0 keeps the layout (Kokkos too)
// Counter-cases. Kokkos: a padded LayoutLeft (dualview's has no padding).
static_assert(is_stride<Left2, P, A> && is_stride<Left3, A, int, A> && is_stride<Left3, P, A, int>);
static_assert(is_stride<Left2, P, P> && is_stride<Left3, P, P, int>);
// Kokkos: LayoutStride as well.
static_assert(is_stride<Left2, int, A> && is_stride<Left2, int, P> && is_stride<Left3, A, P, A>);
static_assert(is_stride<Left3, int, A, A>);

// ---- LayoutRight: indices, at most one range, then ALL...: LayoutRight -----
static_assert(is_right<Right1, P> && is_right<Right1, KP> && is_right<Right1, A>);
static_assert(is_right<Right2, int, A> && is_right<Right2, int, P> && is_right<Right2, unsigned, KP>);
static_assert(is_right<Right2, P, A> && is_right<Right2, A, A>);
static_assert(is_right<Right3, int, A, A> && is_right<Right3, int, P, A> && is_right<Right3, int, int, P>);
static_assert(is_right<Right3, KP, A, A> && is_right<Right3, A, A, A>);
static_assert(is_right<Right2, int, int>);
// Counter-cases. Kokkos: a padded LayoutRight.
static_assert(is_stride<Right2, A, P> && is_stride<Right3, A, int, A> && is_stride<Right3, int, A, P>);
static_assert(is_stride<Right2, P, P> && is_stride<Right3, int, P, P>);
// Kokkos: LayoutStride as well.
static_assert(is_stride<Right2, A, int> && is_stride<Right2, P, int> && is_stride<Right3, A, P, A>);
static_assert(is_stride<Right3, A, A, int>);

// ---- LayoutStride stays LayoutStride --------------------------------------
static_assert(is_stride<Stride2, A, A> && is_stride<Stride2, A, int> && is_stride<Stride2, int, A>);

// ---- DualView subviews follow the same rule --------------------------------
using LeftDV1 = Kokkos::DualView<double*, Kokkos::LayoutLeft, TestDev>;
using LeftDV2 = Kokkos::DualView<double**, Kokkos::LayoutLeft, TestDev>;
using RightDV1 = Kokkos::DualView<double*, Kokkos::LayoutRight, TestDev>;
using RightDV2 = Kokkos::DualView<double**, Kokkos::LayoutRight, TestDev>;
static_assert(std::is_same_v<Kokkos::Subview<LeftDV1, P>, LeftDV1>);
static_assert(std::is_same_v<Kokkos::Subview<RightDV1, KP>, RightDV1>);
static_assert(std::is_same_v<Kokkos::Subview<LeftDV2, A, int>, LeftDV1>);
static_assert(std::is_same_v<Kokkos::Subview<RightDV2, int, A>, RightDV1>);
static_assert(is_stride<LeftDV2, int, A> && is_stride<RightDV2, A, int> && is_stride<LeftDV2, P, A>);
static_assert(std::is_same_v<typename Kokkos::Subview<LeftDV2, A, P>::t_dev::array_layout, Kokkos::LayoutLeft>);

/// A kernel-like template taking one view type for a view and its subview.
template <class V>
double dot(const V& x, const V& y) {
  double s = 0;
  for (std::size_t k = 0; k < x.extent(0); ++k) s += x(k) * y(k);
  return s;
}
/// A kernel specialised on LayoutLeft rank-1 views.
template <class T, class... Props>
std::size_t left_only(const Kokkos::View<T*, Kokkos::LayoutLeft, Props...>& v) {
  return v.extent(0);
}

}  // namespace

TEST(SubviewLayout, RankOneRangesDeduceWithTheirSource) {
  using V = Kokkos::View<double*, Kokkos::LayoutLeft, Left1::device_type, Left1::memory_traits>;
  V a("a", 8);
  for (int k = 0; k < 8; ++k) a(k) = k;
  auto s = Kokkos::subview(a, std::make_pair(2, 6));
  static_assert(std::is_same_v<decltype(s), V>);
  auto t = Kokkos::subview(s, Kokkos::make_pair(1, 3));
  EXPECT_EQ(dot(s, s), 4.0 + 9 + 16 + 25);
  EXPECT_EQ(dot(t, t), 9.0 + 16);
  EXPECT_EQ(left_only(s), 4u);
  EXPECT_EQ(left_only(Kokkos::subview(Left2("m", 3, 2), Kokkos::ALL, 1)), 3u);

  // However the source type is spelt, a rank-1 range has the source's type.
  Left1 b("b", 4);
  static_assert(std::is_same_v<decltype(Kokkos::subview(b, std::make_pair(0, 2))), Left1>);
  EXPECT_EQ(dot(b, Kokkos::subview(b, std::make_pair(0, 4))), 0.0);
  Kokkos::View<double*, Kokkos::LayoutRight> rv("rv", 4);
  static_assert(std::is_same_v<decltype(Kokkos::subview(rv, Kokkos::ALL)), decltype(rv)>);
  Kokkos::DualView<double*, Kokkos::LayoutLeft> dd("dd", 4);
  static_assert(std::is_same_v<decltype(Kokkos::subview(dd, Kokkos::make_pair(1, 2))), decltype(dd)>);
  auto plain = [](auto x, auto y) { return std::is_same_v<decltype(x), decltype(y)>; };
  EXPECT_TRUE(plain(dd, Kokkos::subview(dd, Kokkos::make_pair(1, 2))));

  LeftDV1 d("d", 8);
  auto ds = Kokkos::subview(d, std::make_pair(1, 4));
  static_assert(std::is_same_v<decltype(ds), LeftDV1>);
  auto same = [](const LeftDV1& x, const LeftDV1& y) { return x.extent(0) + y.extent(0); };
  EXPECT_EQ(same(d, ds), 11u);
  EXPECT_EQ(dot(d.d_view, d.d_view), 0.0);
  EXPECT_EQ(left_only(ds.h_view), 3u);
}

TEST(SubviewLayout, LeftValuesAndStrides) {
  Left3 a("a", 4, 3, 2);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) a(i, j, k) = 100 * i + 10 * j + k;
  auto r = Kokkos::subview(a, std::make_pair(1, 3), 2, 1);  // a(1..3, 2, 1)
  static_assert(std::is_same_v<decltype(r)::array_layout, Kokkos::LayoutLeft>);
  ASSERT_EQ(r.extent(0), 2u);
  EXPECT_EQ(r.stride(0), 1u);
  EXPECT_EQ(r(0), 121.0);
  EXPECT_EQ(r(1), 221.0);
  auto p = Kokkos::subview(a, Kokkos::ALL, Kokkos::make_pair(1, 3), 1);  // a(:, 1..3, 1)
  static_assert(std::is_same_v<decltype(p)::array_layout, Kokkos::LayoutLeft>);
  ASSERT_EQ(p.extent(0), 4u);
  ASSERT_EQ(p.extent(1), 2u);
  EXPECT_EQ(p.stride(0), 1u);
  EXPECT_EQ(p.stride(1), 4u);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(p(i, j), 100 * i + 10 * (j + 1) + 1);
  EXPECT_EQ(p.data(), &a(0, 1, 1));
  // The padded case stays LayoutStride, with the parent's leading dimension.
  auto q = Kokkos::subview(a, std::make_pair(1, 3), Kokkos::ALL, 0);
  static_assert(std::is_same_v<decltype(q)::array_layout, Kokkos::LayoutStride>);
  EXPECT_EQ(q.stride(0), 1u);
  EXPECT_EQ(q.stride(1), 4u);
  EXPECT_EQ(q(1, 2), 220.0);
}

TEST(SubviewLayout, RightValuesAndStrides) {
  Right3 a("a", 2, 3, 4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) a(i, j, k) = 100 * i + 10 * j + k;
  auto r = Kokkos::subview(a, 1, 2, std::make_pair(1, 3));  // a(1, 2, 1..3)
  static_assert(std::is_same_v<decltype(r)::array_layout, Kokkos::LayoutRight>);
  ASSERT_EQ(r.extent(0), 2u);
  EXPECT_EQ(r.stride(0), 1u);
  EXPECT_EQ(r(0), 121.0);
  EXPECT_EQ(r(1), 122.0);
  auto p = Kokkos::subview(a, 1, Kokkos::make_pair(1, 3), Kokkos::ALL);  // a(1, 1..3, :)
  static_assert(std::is_same_v<decltype(p)::array_layout, Kokkos::LayoutRight>);
  ASSERT_EQ(p.extent(0), 2u);
  ASSERT_EQ(p.extent(1), 4u);
  EXPECT_EQ(p.stride(0), 4u);
  EXPECT_EQ(p.stride(1), 1u);
  for (int j = 0; j < 2; ++j)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(p(j, k), 100 + 10 * (j + 1) + k);
  EXPECT_EQ(p.data(), &a(1, 1, 0));
  auto q = Kokkos::subview(a, 0, Kokkos::ALL, std::make_pair(1, 3));
  static_assert(std::is_same_v<decltype(q)::array_layout, Kokkos::LayoutStride>);
  EXPECT_EQ(q.stride(0), 4u);
  EXPECT_EQ(q.stride(1), 1u);
  EXPECT_EQ(q(2, 1), 22.0);
  // Rank 1 LayoutRight range of a rank-1 view.
  Right1 v("v", 5);
  for (int k = 0; k < 5; ++k) v(k) = k;
  auto vs = Kokkos::subview(v, std::make_pair(2, 5));
  static_assert(std::is_same_v<decltype(vs)::array_layout, Kokkos::LayoutRight>);
  EXPECT_EQ(vs(2), 4.0);
}

TEST(SubviewLayout, DualViewSubviewsSyncTheirRegion) {
  for (int layout = 0; layout < 2; ++layout) {
    auto run = [](auto a) {
      using DV = decltype(a);
      auto s = Kokkos::subview(a, std::make_pair(2, 5));
      static_assert(std::is_same_v<decltype(s), DV>);
      for (std::size_t k = 0; k < s.extent(0); ++k) s.h_view(k) = 1.0 + k;
      s.modify_host();
      s.sync_device();
      for (std::size_t k = 0; k < a.extent(0); ++k) EXPECT_EQ(a.d_view(k), (k >= 2 && k < 5) ? 1.0 + (k - 2) : 0.0) << k;
      // The subview constructor with the parent's own type.
      DV c(a, Kokkos::make_pair(1, 3));
      EXPECT_EQ(c.d_view.data(), a.d_view.data() + 1);
      EXPECT_EQ(c.h_view(1), 1.0);
    };
    if (layout == 0)
      run(LeftDV1("l", 7));
    else
      run(RightDV1("r", 7));
  }
  // Rank 2: the leading-dimension column of LayoutLeft, the trailing row of LayoutRight.
  LeftDV2 l("l", 4, 3);
  auto col = Kokkos::subview(l, Kokkos::ALL, 1);
  static_assert(std::is_same_v<decltype(col), LeftDV1>);
  for (int i = 0; i < 4; ++i) col.h_view(i) = 5.0 + i;
  col.modify_host();
  col.sync_device();
  EXPECT_EQ(device_sum(l), 5.0 + 6 + 7 + 8);
  EXPECT_EQ(l.d_view(3, 1), 8.0);
  RightDV2 r("r", 3, 4);
  auto row = Kokkos::subview(r, 2, Kokkos::ALL);
  static_assert(std::is_same_v<decltype(row), RightDV1>);
  for (int j = 0; j < 4; ++j) row.h_view(j) = 1.0 + j;
  row.modify_host();
  row.sync_device();
  EXPECT_EQ(device_sum(r), 10.0);
  EXPECT_EQ(r.d_view(2, 3), 4.0);
}
