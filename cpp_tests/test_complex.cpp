// Issue 21: Kokkos::complex (dv::complex), as FLCL's tests and examples use it:
// built from parts or from std::complex, summed in Views and DualViews,
// returned as std::complex, with std::complex's layout.
#include <Kokkos_Complex.hpp>
#include <Kokkos_Core.hpp>
#include <Kokkos_DualView.hpp>

#include <cfloat>
#include <cmath>
#include <complex>
#include <limits>
#include <sstream>
#include <type_traits>

#include "common.hpp"

namespace {

using c64 = Kokkos::complex<double>;
using c32 = Kokkos::complex<float>;

static_assert(std::is_same<c64, dv::complex<double>>::value, "Kokkos::complex is dv::complex");
static_assert(sizeof(c64) == 2 * sizeof(double) && alignof(c64) == 2 * sizeof(double), "two doubles, aligned as a pair");
static_assert(sizeof(c32) == sizeof(std::complex<float>) && alignof(c32) == 8, "two floats, aligned as a pair");
static_assert(std::is_trivially_copyable<c64>::value, "copied by memcpy between spaces");
static_assert(std::is_same<c64::value_type, double>::value, "value_type");
static_assert(std::is_same<decltype(c32() * 2.0), c64>::value, "mixed real types promote, as Kokkos");
static_assert(std::is_same<decltype(2 * c32()), c32>::value, "an int scalar keeps float");
static_assert(c64(1, 2) + c64(3, 4) == c64(4, 6), "constexpr arithmetic");

// FLCL's own shape (test/flcl-test-cxx.cpp): a sum returned as std::complex.
std::complex<float> flcl_style_sum(std::size_t n) {
  Kokkos::View<c32*> a("a", n);
  c32 c_sum(0.0, 0.0);
  for (std::size_t i = 0; i < a.extent(0); i++) {
    a(i) = c32(1.0 * i, -1.0 * i);
    c_sum = c_sum + a(i);
  }
  return c_sum;
}

}  // namespace

TEST(Complex, PartsAndConstruction) {
  c64 zero;
  EXPECT_EQ(zero.real(), 0.0);
  EXPECT_EQ(zero.imag(), 0.0);
  c64 z(3.0, -4.0);
  EXPECT_EQ(z.real(), 3.0);
  EXPECT_EQ(z.imag(), -4.0);
  z.real(1.5);
  z.imag() = 2.5;
  EXPECT_EQ(z, c64(1.5, 2.5));
  z = 7.0;
  EXPECT_EQ(z, c64(7.0, 0.0));
  EXPECT_TRUE(z == 7.0);
  EXPECT_TRUE(7.0 != c64(7.0, 1.0));
  c64 from_std(std::complex<double>(1.0, -2.0));
  EXPECT_EQ(from_std, c64(1.0, -2.0));
  std::complex<double> back = c64(5.0, 6.0);
  EXPECT_EQ(back, std::complex<double>(5.0, 6.0));
  c32 narrow(c64(0.5, 0.25));
  EXPECT_EQ(narrow, c32(0.5f, 0.25f));
}

TEST(Complex, ArithmeticEqualsStdComplex) {
  const c64 a(1.25, -3.5), b(-0.75, 2.0);
  const std::complex<double> sa = a, sb = b;
  auto same = [](c64 x, std::complex<double> y) {
    EXPECT_NEAR(x.real(), y.real(), 1e-14 * (1 + std::abs(y)));
    EXPECT_NEAR(x.imag(), y.imag(), 1e-14 * (1 + std::abs(y)));
  };
  same(a + b, sa + sb);
  same(a - b, sa - sb);
  same(a * b, sa * sb);
  same(a / b, sa / sb);
  same(-a, -sa);
  same(a * 2.0, sa * 2.0);
  same(3.0 - a, 3.0 - sa);
  same(1.0 / a, 1.0 / sa);
  same(Kokkos::conj(a), std::conj(sa));
  same(Kokkos::exp(a), std::exp(sa));
  same(Kokkos::log(a), std::log(sa));
  same(Kokkos::sqrt(b), std::sqrt(sb));
  same(Kokkos::sqrt(c64(-4.0, 0.0)), std::sqrt(std::complex<double>(-4.0, 0.0)));
  same(Kokkos::pow(a, b), std::pow(sa, sb));
  same(Kokkos::pow(a, 2.0), std::pow(sa, 2.0));
  same(Kokkos::polar(2.0, 0.5), std::polar(2.0, 0.5));
  EXPECT_DOUBLE_EQ(Kokkos::abs(c64(3.0, 4.0)), 5.0);
  EXPECT_DOUBLE_EQ(Kokkos::norm(c64(3.0, 4.0)), 25.0);
  EXPECT_DOUBLE_EQ(Kokkos::arg(c64(0.0, 1.0)), std::acos(0.0));
  EXPECT_EQ(Kokkos::real(a), 1.25);
  EXPECT_EQ(Kokkos::imag(a), -3.5);
  c64 acc(1.0, 1.0);
  acc += b;
  acc -= 0.5;
  acc *= c64(0.0, 1.0);
  acc /= 2.0;
  same(acc, (std::complex<double>(1.0, 1.0) + sb - 0.5) * std::complex<double>(0.0, 1.0) / 2.0);
}

TEST(Complex, ScaledDivisionDoesNotOverflow) {
  // |b|^2 overflows a double; the scaled quotient does not.
  const c64 a(1e300, 1e300), b(2e300, 2e300);
  const c64 q = a / b;
  EXPECT_DOUBLE_EQ(q.real(), 0.5);
  EXPECT_DOUBLE_EQ(q.imag(), 0.0);
  const c64 inf = c64(1.0, 1.0) / c64(0.0, 0.0);
  EXPECT_TRUE(std::isinf(inf.real()) || std::isnan(inf.real()));
}

TEST(Complex, StreamsAsStdComplex) {
  std::ostringstream os;
  os << c64(1.5, -2.0);
  EXPECT_EQ(os.str(), "(1.5,-2)");
  std::istringstream is("(0.25,4)");
  c64 z;
  is >> z;
  EXPECT_EQ(z, c64(0.25, 4.0));
}

TEST(Complex, FlclStyleSumReturnsStdComplex) {
  const std::complex<float> s = flcl_style_sum(100);
  EXPECT_EQ(s.real(), 4950.0f);
  EXPECT_EQ(s.imag(), -4950.0f);
}

TEST(Complex, DualViewOfComplexSyncs) {
  Kokkos::DualView<c64*, Kokkos::LayoutLeft, TestDev> v("zv", 64);
  for (int i = 0; i < 64; ++i) v.h_view(i) = c64(i, -i);
  v.modify_host();
  v.sync_device();
  auto d = v.view_device();
  for (int i = 0; i < 64; ++i) d(i) *= c64(0.0, 1.0);  // (i, -i) * i = (i, i)
  v.modify_device();
  v.sync_host();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(v.h_view(i), c64(i, i)) << i;
}

static_assert(!dv::detail::needs_construction_v<c64> && !dv::detail::needs_construction_v<std::complex<float>>,
              "the zero fill is a complex number's construction: no host pass, device-only Views allowed");
static_assert(dv::detail::dtype_of<c64>() == DV_DTYPE_COMPLEX128 && dv::detail::dtype_of<const c32>() == DV_DTYPE_COMPLEX64 &&
                  dv::detail::dtype_of<std::complex<double>>() == DV_DTYPE_COMPLEX128,
              "complex Views carry the C ABI's complex element types");

TEST(Complex, ViewsAreZeroAndCarryTheComplexElementType) {
  Kokkos::View<c64**, Kokkos::LayoutLeft, TestDev> d("zd", 5, 3);
  for (std::size_t j = 0; j < 3; ++j)
    for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(d(i, j), c64()) << i << "," << j;
  dv_info_t info{};
  ASSERT_EQ(dv_info(d.impl_handle(), &info), DV_OK);
  EXPECT_EQ(info.dtype, uint32_t(DV_DTYPE_COMPLEX128));
  Kokkos::DualView<c32*, TestDev> f("zf", 4);
  ASSERT_EQ(dv_info(f.impl_handle(), &info), DV_OK);
  EXPECT_EQ(info.dtype, uint32_t(DV_DTYPE_COMPLEX64));
  f.resize(9);  // the new elements are (0, 0) on both sides
  for (std::size_t i = 0; i < 9; ++i) EXPECT_EQ(f.h_view(i), c32()) << i;
  Kokkos::View<std::complex<double>*> s("zs", 3);
  EXPECT_EQ(s(2), std::complex<double>());
}
