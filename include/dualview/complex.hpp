/*
 * dualview/complex.hpp: dv::complex<T>, a complex number usable in device
 * kernels (std::complex is host-only under nvcc). Kokkos::complex is this
 * type (dualview/kokkos.hpp). Its layout is two T, real first, aligned to
 * 2 * sizeof(T): the layout of std::complex<T>, C's `T _Complex` and Fortran's
 * complex, so a DualView of DV_DTYPE_COMPLEX128 elements views as
 * dv::complex<double>.
 */
#ifndef DUALVIEW_COMPLEX_HPP
#define DUALVIEW_COMPLEX_HPP

#include <cmath>
#include <complex>
#include <istream>
#include <ostream>
#include <type_traits>

#include "config.hpp"

namespace dv {

/// A complex number of a floating-point RealType, callable in device code.
template <class RealType>
class alignas(2 * sizeof(RealType)) complex {
  static_assert(std::is_floating_point<RealType>::value && std::is_same<RealType, std::remove_cv_t<RealType>>::value,
                "dv::complex<T>: T must be float, double or long double, without const or volatile");
  RealType re_{};
  RealType im_{};

 public:
  using value_type = RealType;

  /// Zero.
  complex() noexcept = default;
  /// (re, 0): implicit, as std::complex.
  DV_INLINE_FUNCTION constexpr complex(RealType re) noexcept : re_(re), im_(0) {}
  /// (re, im).
  DV_INLINE_FUNCTION constexpr complex(RealType re, RealType im) noexcept : re_(re), im_(im) {}
  /// From a complex of another real type.
  template <class U, class = std::enable_if_t<std::is_convertible<U, RealType>::value>>
  DV_INLINE_FUNCTION constexpr complex(const complex<U>& z) noexcept : re_(RealType(z.real())), im_(RealType(z.imag())) {}
  /// From std::complex (host code).
  complex(const std::complex<RealType>& z) noexcept : re_(z.real()), im_(z.imag()) {}
  /// To std::complex (host code), implicit as in Kokkos.
  operator std::complex<RealType>() const noexcept { return std::complex<RealType>(re_, im_); }

  /// The real part.
  DV_INLINE_FUNCTION constexpr RealType real() const noexcept { return re_; }
  /// The imaginary part.
  DV_INLINE_FUNCTION constexpr RealType imag() const noexcept { return im_; }
  /// The real part, writable.
  DV_INLINE_FUNCTION constexpr RealType& real() noexcept { return re_; }
  /// The imaginary part, writable.
  DV_INLINE_FUNCTION constexpr RealType& imag() noexcept { return im_; }
  /// Set the real part.
  DV_INLINE_FUNCTION constexpr void real(RealType v) noexcept { re_ = v; }
  /// Set the imaginary part.
  DV_INLINE_FUNCTION constexpr void imag(RealType v) noexcept { im_ = v; }

  /// Assign a real number: (v, 0).
  DV_INLINE_FUNCTION constexpr complex& operator=(RealType v) noexcept {
    re_ = v;
    im_ = 0;
    return *this;
  }
  DV_INLINE_FUNCTION constexpr complex& operator+=(const complex& z) noexcept {
    re_ += z.re_;
    im_ += z.im_;
    return *this;
  }
  DV_INLINE_FUNCTION constexpr complex& operator+=(RealType v) noexcept {
    re_ += v;
    return *this;
  }
  DV_INLINE_FUNCTION constexpr complex& operator-=(const complex& z) noexcept {
    re_ -= z.re_;
    im_ -= z.im_;
    return *this;
  }
  DV_INLINE_FUNCTION constexpr complex& operator-=(RealType v) noexcept {
    re_ -= v;
    return *this;
  }
  DV_INLINE_FUNCTION constexpr complex& operator*=(const complex& z) noexcept {
    const RealType r = re_ * z.re_ - im_ * z.im_;
    im_ = re_ * z.im_ + im_ * z.re_;
    re_ = r;
    return *this;
  }
  DV_INLINE_FUNCTION constexpr complex& operator*=(RealType v) noexcept {
    re_ *= v;
    im_ *= v;
    return *this;
  }
  /// Division scaled by |z.re| + |z.im|, so that it neither overflows nor
  /// underflows where the quotient is representable.
  DV_INLINE_FUNCTION constexpr complex& operator/=(const complex& z) noexcept {
    const RealType s = (z.re_ < 0 ? -z.re_ : z.re_) + (z.im_ < 0 ? -z.im_ : z.im_);
    if (s == RealType(0)) {  // as IEEE division by zero: inf or nan parts
      re_ /= s;
      im_ /= s;
      return *this;
    }
    const RealType ar = re_ / s, ai = im_ / s, br = z.re_ / s, bi = z.im_ / s;
    const RealType d = br * br + bi * bi;
    re_ = (ar * br + ai * bi) / d;
    im_ = (ai * br - ar * bi) / d;
    return *this;
  }
  DV_INLINE_FUNCTION constexpr complex& operator/=(RealType v) noexcept {
    re_ /= v;
    im_ /= v;
    return *this;
  }
};

template <class T>
DV_INLINE_FUNCTION constexpr complex<T> operator+(const complex<T>& z) noexcept {
  return z;
}
template <class T>
DV_INLINE_FUNCTION constexpr complex<T> operator-(const complex<T>& z) noexcept {
  return complex<T>(-z.real(), -z.imag());
}

// Binary arithmetic as Kokkos: complex with complex, and with an arithmetic
// scalar on either side; the result's real type is the common type.
namespace detail {
template <class T, class U>
using complex_common_t = complex<std::common_type_t<T, U>>;
template <class U>
using if_arithmetic_t = std::enable_if_t<std::is_arithmetic<U>::value, int>;
}  // namespace detail
#define DV_COMPLEX_BINARY(OP, ASSIGN)                                                                          \
  template <class T, class U>                                                                                  \
  DV_INLINE_FUNCTION constexpr detail::complex_common_t<T, U> operator OP(const complex<T>& a, const complex<U>& b) noexcept { \
    return detail::complex_common_t<T, U>(a) ASSIGN detail::complex_common_t<T, U>(b);                                        \
  }                                                                                                            \
  template <class T, class U, detail::if_arithmetic_t<U> = 0>                                                          \
  DV_INLINE_FUNCTION constexpr detail::complex_common_t<T, U> operator OP(const complex<T>& a, U b) noexcept {         \
    return detail::complex_common_t<T, U>(a) ASSIGN detail::complex_common_t<T, U>(b);                                        \
  }                                                                                                            \
  template <class T, class U, detail::if_arithmetic_t<U> = 0>                                                          \
  DV_INLINE_FUNCTION constexpr detail::complex_common_t<T, U> operator OP(U a, const complex<T>& b) noexcept {         \
    return detail::complex_common_t<T, U>(a) ASSIGN detail::complex_common_t<T, U>(b);                                        \
  }
DV_COMPLEX_BINARY(+, +=)
DV_COMPLEX_BINARY(-, -=)
DV_COMPLEX_BINARY(*, *=)
DV_COMPLEX_BINARY(/, /=)
#undef DV_COMPLEX_BINARY

template <class T, class U>
DV_INLINE_FUNCTION constexpr bool operator==(const complex<T>& a, const complex<U>& b) noexcept {
  return a.real() == b.real() && a.imag() == b.imag();
}
template <class T, class U, detail::if_arithmetic_t<U> = 0>
DV_INLINE_FUNCTION constexpr bool operator==(const complex<T>& a, U b) noexcept {
  return a.real() == b && a.imag() == T(0);
}
template <class T, class U, detail::if_arithmetic_t<U> = 0>
DV_INLINE_FUNCTION constexpr bool operator==(U a, const complex<T>& b) noexcept {
  return b == a;
}
template <class T, class U>
DV_INLINE_FUNCTION constexpr bool operator!=(const complex<T>& a, const complex<U>& b) noexcept {
  return !(a == b);
}
template <class T, class U, detail::if_arithmetic_t<U> = 0>
DV_INLINE_FUNCTION constexpr bool operator!=(const complex<T>& a, U b) noexcept {
  return !(a == b);
}
template <class T, class U, detail::if_arithmetic_t<U> = 0>
DV_INLINE_FUNCTION constexpr bool operator!=(U a, const complex<T>& b) noexcept {
  return !(b == a);
}

/// The real part.
template <class T>
DV_INLINE_FUNCTION constexpr T real(const complex<T>& z) noexcept {
  return z.real();
}
/// The imaginary part.
template <class T>
DV_INLINE_FUNCTION constexpr T imag(const complex<T>& z) noexcept {
  return z.imag();
}
/// The conjugate.
template <class T>
DV_INLINE_FUNCTION constexpr complex<T> conj(const complex<T>& z) noexcept {
  return complex<T>(z.real(), -z.imag());
}
/// The squared magnitude re^2 + im^2.
template <class T>
DV_INLINE_FUNCTION constexpr T norm(const complex<T>& z) noexcept {
  return z.real() * z.real() + z.imag() * z.imag();
}
/// The magnitude, without overflow in the squares (hypot).
template <class T>
DV_INLINE_FUNCTION T abs(const complex<T>& z) {
  using std::hypot;
  return hypot(z.real(), z.imag());
}
/// The phase angle in (-pi, pi].
template <class T>
DV_INLINE_FUNCTION T arg(const complex<T>& z) {
  using std::atan2;
  return atan2(z.imag(), z.real());
}
/// r * (cos theta, sin theta).
template <class T>
DV_INLINE_FUNCTION complex<T> polar(const T& r, const T& theta = T()) {
  using std::cos;
  using std::sin;
  return complex<T>(r * cos(theta), r * sin(theta));
}
/// e^z.
template <class T>
DV_INLINE_FUNCTION complex<T> exp(const complex<T>& z) {
  using std::exp;
  return polar(exp(z.real()), z.imag());
}
/// The principal natural logarithm.
template <class T>
DV_INLINE_FUNCTION complex<T> log(const complex<T>& z) {
  using std::log;
  return complex<T>(log(abs(z)), arg(z));
}
/// The principal square root (non-negative real part).
template <class T>
DV_INLINE_FUNCTION complex<T> sqrt(const complex<T>& z) {
  using std::sqrt;
  const T r = abs(z);
  if (r == T(0)) return complex<T>(T(0), z.imag());
  const T a = sqrt((r + (z.real() < 0 ? -z.real() : z.real())) / T(2));
  if (z.real() >= T(0)) return complex<T>(a, z.imag() / (T(2) * a));
  return complex<T>((z.imag() < 0 ? -z.imag() : z.imag()) / (T(2) * a), z.imag() < T(0) ? -a : a);
}
/// z^w = e^(w log z); 0^w is 0.
template <class T>
DV_INLINE_FUNCTION complex<T> pow(const complex<T>& z, const complex<T>& w) {
  return z == T(0) ? complex<T>() : exp(w * log(z));
}
/// z^x for a real x.
template <class T>
DV_INLINE_FUNCTION complex<T> pow(const complex<T>& z, const T& x) {
  return pow(z, complex<T>(x));
}

/// Writes "(re,im)", as std::complex.
template <class T>
std::ostream& operator<<(std::ostream& os, const complex<T>& z) {
  return os << std::complex<T>(z);
}
/// Reads what std::complex reads: "re", "(re)" or "(re,im)".
template <class T>
std::istream& operator>>(std::istream& is, complex<T>& z) {
  std::complex<T> s;
  if (is >> s) z = complex<T>(s);
  return is;
}

}  // namespace dv

#endif  // DUALVIEW_COMPLEX_HPP
