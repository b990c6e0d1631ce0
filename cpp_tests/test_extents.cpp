// dv::extents, dv::dims, dv::dyn_extents: the rank-1 resolution, conversions, errors.
#include <string>
#include <vector>

#include "common.hpp"

static_assert(dv::extents<4>::rank() == 1 && dv::extents<4>::rank_dynamic() == 0 && dv::extents<4>::static_extent(0) == 4);
static_assert(dv::dims<4>::rank() == 4 && dv::dims<4>::rank_dynamic() == 4);
static_assert(std::is_same_v<dv::dims<1>, dv::extents<dv::dynamic_extent>>);
static_assert(dv::extents<dv::dynamic_extent, 3>::static_extent(0) == dv::dynamic_extent);
static_assert(dv::extents<dv::dynamic_extent, 3>::static_extent(1) == 3);
static_assert(std::is_trivially_copyable_v<dv_extents_t> && sizeof(dv_extents_t) == 72);

TEST(Extents, StaticRank1IsNotRank4) {
  dv::extents<4> s;
  dv::dims<4> f(4, 4, 4, 4);
  EXPECT_EQ(s.extent(0), 4u);
  EXPECT_EQ(s.to_c().rank, 1u);
  EXPECT_EQ(f.to_c().rank, 4u);
  EXPECT_TRUE(s != f);
  EXPECT_TRUE(s == dv::dims<1>(4));
  EXPECT_TRUE(s == dv::dyn_extents(4));
  EXPECT_TRUE((dv::extents<2, 3>{} == dv::dims<2>(2, 3)));
}

TEST(Extents, DynExtentsCountsItsValues) {
  EXPECT_EQ(dv::dyn_extents(4).rank(), 1u);
  EXPECT_EQ(dv::dyn_extents(4, 4).rank(), 2u);
  EXPECT_EQ(dv::dyn_extents().rank(), 0u);
  EXPECT_EQ(dv::dyn_extents(2).extent(1), 0u);
}

TEST(Extents, MdspanConstructorRule) {
  using E = dv::extents<dv::dynamic_extent, 3>;
  EXPECT_EQ(E(5).extent(0), 5u);
  EXPECT_EQ(E(5, 3).extent(1), 3u);
  EXPECT_THROW(E(5, 4), dv::static_mismatch);
  EXPECT_THROW(E(1, 2, 3), dv::rank_mismatch);
  EXPECT_THROW(dv::extents<4>(5), dv::static_mismatch);
}

TEST(Extents, CheckedConversions) {
  dv::dims<1> five(5);
  EXPECT_THROW(dv::extents<4>{five}, dv::static_mismatch);
  dv::dyn_extents three(1, 2, 3);
  EXPECT_THROW(dv::dims<2>{three}, dv::rank_mismatch);
  dv::dims<2> ok{dv::dyn_extents(7, 8)};
  EXPECT_EQ(ok.extent(1), 8u);
  dv::dyn_extents widened = dv::extents<2, 3>{};
  EXPECT_EQ(widened.extent(1), 3u);
}

TEST(Extents, OverflowAndRankErrors) {
  EXPECT_THROW(dv::dims<2>(std::size_t(1) << 62, 8), dv::overflow_error);
  dv_extents_t nine{9, 0, {1, 1, 1, 1, 1, 1, 1, 1}};
  EXPECT_THROW(dv::dyn_extents::from_c(nine), dv::rank_error);
}

TEST(Extents, DualViewFromExtents) {
  dv::DualView<double**, dv::LayoutLeft, TestDev> a("E", dv::dims<2>(3, 4));
  EXPECT_EQ(a.extent(0), 3u);
  EXPECT_EQ(a.extent(1), 4u);
  dv::DualView<double*[3], dv::LayoutRight, TestDev> b("F", dv::extents<dv::dynamic_extent, 3>(6));
  EXPECT_EQ(b.extent(0), 6u);
  EXPECT_THROW((dv::DualView<double*[3], dv::LayoutRight, TestDev>("G", dv::dims<2>(6, 4))), dv::static_mismatch);
}

// One assignment rule (dv::extents::from_values) for extents, Views, DualViews
// and their resize: the same values are accepted, and refused with the same
// error and message, whichever of them is given them.
TEST(Extents, OneAssignmentRuleForExtentsViewsAndDualViews) {
  using E = dv::extents<dv::dynamic_extent, 3>;
  using V = dv::View<double* [3], dv::LayoutRight, dv::HostSpace>;
  using D = dv::DualView<double* [3], dv::LayoutRight, TestDev>;
  auto message = [](auto&& make) -> std::string {
    try {
      make();
    } catch (const dv::error& e) {
      return e.what();
    }
    return "accepted";
  };
  const std::vector<std::vector<std::size_t>> cases = {{5}, {5, 3}, {5, 4}, {1, 2, 3}, {}, {std::size_t(1) << 62}};
  for (const auto& c : cases) {
    const std::size_t n = c.size();
    auto at = [&](std::size_t i) { return i < n ? c[i] : dv::detail::ctor_default; };
    const std::string by_extents = message([&] { E::from_values(c.data(), n); });
    EXPECT_EQ(message([&] { V("v", at(0), at(1), at(2)); }), by_extents) << n;
    EXPECT_EQ(message([&] { D("d", at(0), at(1), at(2)); }), by_extents) << n;
    D grown("g", 1);
    EXPECT_EQ(message([&] { grown.resize(at(0), at(1), at(2)); }), by_extents) << n;
  }
  EXPECT_EQ(message([] { E(5, 4); }), message([] { V("v", 5, 4); }));
  EXPECT_NE(message([] { E(5, 4); }).find("does not match the static extent 3"), std::string::npos);
}

// DECISIONS E10: extent(r) past the rank is 0 for every kind, noexcept.
TEST(Extents, ExtentPastTheRankIsZeroForEveryKind) {
  constexpr dv::extents<2, 3> s{};
  static_assert(s.extent(2) == 0 && s.extent(8) == 0 && s.extent(100) == 0);
  const dv::dims<2> d(4, 5);
  const dv::dyn_extents y(4, 5);
  static_assert(noexcept(y.extent(7)));
  for (std::size_t r : {2u, 3u, 7u, 8u, 9u, 1000u}) {
    EXPECT_EQ(d.extent(r), 0u) << r;
    EXPECT_EQ(y.extent(r), 0u) << r;
  }
  EXPECT_EQ(dv::dyn_extents().extent(0), 0u);
  EXPECT_EQ(y.extent(1), 5u);
}

// DECISIONS E11: the uBLAS predicates overlap; rank 0 has size 1 but is not a scalar.
TEST(Extents, UblasPredicatesOverlapAsUblasSays) {
  const dv::dyn_extents v4(4);
  EXPECT_TRUE(dv::is_vector(v4));
  EXPECT_TRUE(dv::is_matrix(v4));
  EXPECT_FALSE(dv::is_scalar(v4));
  const dv::dyn_extents one(1);
  EXPECT_TRUE(dv::is_scalar(one) && dv::is_vector(one) && dv::is_matrix(one));
  const dv::dyn_extents r0;
  EXPECT_EQ(r0.size(), 1u);
  EXPECT_FALSE(dv::is_scalar(r0) || dv::is_vector(r0) || dv::is_matrix(r0) || dv::is_tensor(r0));
  dv_extents_t c = r0.to_c();
  bool out = true;
  ASSERT_EQ(dv_extents_is_scalar(&c, &out), DV_OK);
  EXPECT_FALSE(out);
  c = v4.to_c();
  bool vec = false, mat = false;
  ASSERT_EQ(dv_extents_is_vector(&c, &vec), DV_OK);
  ASSERT_EQ(dv_extents_is_matrix(&c, &mat), DV_OK);
  EXPECT_TRUE(vec && mat);
}

// The uBLAS predicates and squeeze of the C++ header give the core's answers
// (src/extents/ublas.rs through dv_extents_*) on every shape of rank 0 to 5
// with extents 0 to 3, for a run-time rank (dyn_extents) and a rank in the
// type (dims<R>): the Rust table is the oracle, nothing is restated here.
template <std::size_t R>
void expect_ublas_parity(const std::size_t* v) {
  const dv::dyn_extents d = dv::dyn_extents::from_c(dv::dims<R>::from_values(v, R).to_c());
  const dv::dims<R> f = dv::dims<R>::from_values(v, R);
  const dv_extents_t c = f.to_c();
  bool scalar = false, vector = false, matrix = false, tensor = false;
  ASSERT_EQ(dv_extents_is_scalar(&c, &scalar), DV_OK);
  ASSERT_EQ(dv_extents_is_vector(&c, &vector), DV_OK);
  ASSERT_EQ(dv_extents_is_matrix(&c, &matrix), DV_OK);
  ASSERT_EQ(dv_extents_is_tensor(&c, &tensor), DV_OK);
  std::string shape = "{";
  for (std::size_t r = 0; r < R; ++r) shape += std::to_string(v[r]) + (r + 1 < R ? "," : "");
  shape += "}";
  EXPECT_EQ(dv::is_scalar(d), scalar) << shape;
  EXPECT_EQ(dv::is_vector(d), vector) << shape;
  EXPECT_EQ(dv::is_matrix(d), matrix) << shape;
  EXPECT_EQ(dv::is_tensor(d), tensor) << shape;
  EXPECT_EQ(dv::is_scalar(f), scalar) << shape;
  EXPECT_EQ(dv::is_vector(f), vector) << shape;
  EXPECT_EQ(dv::is_matrix(f), matrix) << shape;
  EXPECT_EQ(dv::is_tensor(f), tensor) << shape;
  dv_extents_t numpy{}, octave{};
  ASSERT_EQ(dv_extents_squeeze(&c, DV_SQUEEZE_NUMPY, &numpy), DV_OK);
  ASSERT_EQ(dv_extents_squeeze(&c, DV_SQUEEZE_OCTAVE, &octave), DV_OK);
  EXPECT_EQ(dv::squeeze(f), dv::dyn_extents::from_c(numpy)) << shape;
  EXPECT_EQ(dv::squeeze_octave(f), dv::dyn_extents::from_c(octave)) << shape;
}

template <std::size_t R>
std::size_t ublas_parity_of_rank() {
  std::size_t shapes = 1;
  for (std::size_t r = 0; r < R; ++r) shapes *= 4;
  for (std::size_t k = 0; k < shapes; ++k) {
    std::size_t v[R + 1] = {};
    for (std::size_t r = 0, rest = k; r < R; ++r, rest /= 4) v[r] = rest % 4;
    expect_ublas_parity<R>(v);
  }
  return shapes;
}

TEST(Extents, UblasPredicatesAreTheCoresOnEveryShape) {
  const std::size_t shapes = ublas_parity_of_rank<0>() + ublas_parity_of_rank<1>() + ublas_parity_of_rank<2>() +
                             ublas_parity_of_rank<3>() + ublas_parity_of_rank<4>() + ublas_parity_of_rank<5>();
  EXPECT_EQ(shapes, 1365u);
}
