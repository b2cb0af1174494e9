// exp and exp2 for host code that compilers vectorise: the C library's expf and exp are
// function calls, which keep every loop around them scalar (glibc offers vector versions only
// under -ffast-math), so the host kernels of a Gaussian or a log-sum-exp would spend most of
// their time in scalar calls. These are branch-free polynomials on a reduced argument:
//   exp(x) = 2^n exp(r),  n = round(x / ln 2),  r = x - n ln 2 (Cody-Waite, |r| <= ln 2 / 2),
//   exp2(x) = 2^n exp(r), n = round(x),         r = (x - n) ln 2,
// exp(r) by Cephes' minimax polynomial in float (degree 7) and by its Taylor polynomial of
// degree 13 in double (truncation below 5e-18), 2^n in two exponent-field factors so that
// results between the smallest normal and the smallest subnormal number come out subnormal as
// from the C library. Errors stay within 2 ulp over the whole range (unit_tests/core/
// test_host_exp.cpp checks them against the C library); overflow gives +inf, underflow 0, NaN
// stays NaN. Rounding to an integer uses the 1.5 * 2^mantissa trick rather than floor or
// nearbyint, which are calls too without SSE 4.1.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tessera {
namespace Impl {

/// The constants of host_exp for one floating-point type.
template <class T>
struct HostExpTraits;

template <>
struct HostExpTraits<float> {
  using Bits                          = std::int32_t;
  static constexpr int mantissa_bits  = 23;
  static constexpr int exponent_bias  = 127;
  static constexpr float round_magic  = 12582912.0f;  // 1.5 * 2^23
  static constexpr float lowest_arg   = -104.0f;      // exp(-104) < half the least subnormal
  static constexpr float highest_arg  = 89.0f;        // exp(89) > FLT_MAX
  static constexpr float lowest_arg2  = -151.0f;      // the same bounds for exp2
  static constexpr float highest_arg2 = 129.0f;
  static constexpr float ln2_hi       = 0.693359375f;  // ln 2 = ln2_hi + ln2_lo, ln2_hi exact
  static constexpr float ln2_lo       = -2.12194440e-4f;
  static constexpr float ln2          = 0.693147180559945309f;
  static constexpr float log2_e       = 1.44269504088896341f;
  /// exp(r) for |r| <= ln 2 / 2 (Cephes expf: 1 + r + r^2 P(r)).
  static float exp_reduced(float r) {
    float p = 1.9875691500E-4f;
    p       = p * r + 1.3981999507E-3f;
    p       = p * r + 8.3334519073E-3f;
    p       = p * r + 4.1665795894E-2f;
    p       = p * r + 1.6666665459E-1f;
    p       = p * r + 5.0000001201E-1f;
    return p * (r * r) + r + 1.0f;
  }
};

template <>
struct HostExpTraits<double> {
  using Bits                           = std::int64_t;
  static constexpr int mantissa_bits   = 52;
  static constexpr int exponent_bias   = 1023;
  static constexpr double round_magic  = 6755399441055744.0;  // 1.5 * 2^52
  static constexpr double lowest_arg   = -746.0;
  static constexpr double highest_arg  = 710.0;
  static constexpr double lowest_arg2  = -1076.0;
  static constexpr double highest_arg2 = 1025.0;
  static constexpr double ln2_hi       = 6.93145751953125E-1;  // Cephes' split of ln 2
  static constexpr double ln2_lo       = 1.42860682030941723212E-6;
  static constexpr double ln2          = 0.693147180559945309417;
  static constexpr double log2_e       = 1.44269504088896340736;
  /// exp(r) for |r| <= ln 2 / 2: the Taylor polynomial of degree 13, by Horner's rule.
  static double exp_reduced(double r) {
    double p = 1.0 / 6227020800.0;  // 1 / 13!
    p        = p * r + 1.0 / 479001600.0;
    p        = p * r + 1.0 / 39916800.0;
    p        = p * r + 1.0 / 3628800.0;
    p        = p * r + 1.0 / 362880.0;
    p        = p * r + 1.0 / 40320.0;
    p        = p * r + 1.0 / 5040.0;
    p        = p * r + 1.0 / 720.0;
    p        = p * r + 1.0 / 120.0;
    p        = p * r + 1.0 / 24.0;
    p        = p * r + 1.0 / 6.0;
    p        = p * r + 0.5;
    return p * (r * r) + r + 1.0;
  }
};

/// 2^n for an integer n with 2 (lowest exponent) <= n <= 2 (highest exponent), as two factors
/// of 2^(n/2) each within the normal range, multiplied into y.
/// For NaN arguments n is meaningless but within range of Bits, and y is NaN.
template <class T>
inline T scale_by_power_of_two(T y, typename HostExpTraits<T>::Bits n) {
  using E        = HostExpTraits<T>;
  using Bits     = typename E::Bits;
  using Unsigned = std::make_unsigned_t<Bits>;  // shifting a negative value is undefined
  const Bits h   = n / 2;
  const Bits a = static_cast<Bits>(static_cast<Unsigned>(h + E::exponent_bias) << E::mantissa_bits);
  const Bits b =
      static_cast<Bits>(static_cast<Unsigned>(n - h + E::exponent_bias) << E::mantissa_bits);
  T fa, fb;
  std::memcpy(&fa, &a, sizeof(T));
  std::memcpy(&fb, &b, sizeof(T));
  return y * fa * fb;
}

/// x rounded to the nearest integer (ties to even) for |x| < 2^(mantissa bits - 1), as a value
/// and as an integer.
template <class T>
inline T round_to_integer(T x, typename HostExpTraits<T>::Bits& n) {
  using E         = HostExpTraits<T>;
  const T t       = x + E::round_magic;
  const T rounded = t - E::round_magic;
  typename HostExpTraits<T>::Bits tb, mb;
  const T magic = E::round_magic;
  std::memcpy(&tb, &t, sizeof(T));
  std::memcpy(&mb, &magic, sizeof(T));
  n = tb - mb;
  return rounded;
}

/// c ? a : b for float or double, as a bit mask rather than a branch. gcc threads the jumps of
/// consecutive ?: on floats into paths on which a later comparison is conditional, and then,
/// honouring floating-point traps, does not vectorise the loop.
template <class T>
inline T select(bool c, T a, T b) {
  using Bits = typename HostExpTraits<T>::Bits;
  Bits ab, bb;
  std::memcpy(&ab, &a, sizeof(T));
  std::memcpy(&bb, &b, sizeof(T));
  const Bits mask = -static_cast<Bits>(c);  // all ones where c
  const Bits rb   = (ab & mask) | (bb & ~mask);
  T r;
  std::memcpy(&r, &rb, sizeof(T));
  return r;
}

/// x clamped to [lo, hi], NaN staying NaN (both comparisons fail).
template <class T>
inline T clamp_passing_nan(T x, T lo, T hi) {
  return select(x > hi, hi, select(x < lo, lo, x));
}

/// e^x for float or double on the host, vectorisable (see the file comment).
template <class T>
inline T host_exp(T x) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "tessera::Impl::host_exp: float or double");
  using E    = HostExpTraits<T>;
  const T xc = clamp_passing_nan(x, E::lowest_arg, E::highest_arg);
  typename E::Bits n;
  const T nf = round_to_integer(xc * E::log2_e, n);
  const T r  = (xc - nf * E::ln2_hi) - nf * E::ln2_lo;
  return scale_by_power_of_two(E::exp_reduced(r), n);
}

/// 2^x for float or double on the host, vectorisable (see the file comment).
template <class T>
inline T host_exp2(T x) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                "tessera::Impl::host_exp2: float or double");
  using E    = HostExpTraits<T>;
  const T xc = clamp_passing_nan(x, E::lowest_arg2, E::highest_arg2);
  typename E::Bits n;
  const T nf = round_to_integer(xc, n);
  return scale_by_power_of_two(E::exp_reduced((xc - nf) * E::ln2), n);
}

/// 2^x in float with math::fast_exp2's contract on GPUs (relative error below 2^-22, results
/// under 2^-126 flushed to 0, +inf above 2^128, NaN stays NaN), cheaper than host_exp2: Cephes'
/// exp2f polynomial of degree 6 in the fraction, and 2^n as one exponent field (n = -127 makes
/// the field 0, i.e. a zero factor).
inline float host_fast_exp2(float x) {
  const float xc = clamp_passing_nan(x, -127.0f, 128.0f);
  std::int32_t n;
  const float f = xc - round_to_integer(xc, n);
  float p       = 1.535336188319500E-4f;
  p             = p * f + 1.339887440266574E-3f;
  p             = p * f + 9.618437357674640E-3f;
  p             = p * f + 5.550332471162809E-2f;
  p             = p * f + 2.402264791363012E-1f;
  p             = p * f + 6.931472028550421E-1f;
  p             = p * f + 1.0f;
  // n = 128 (x in [127.5, 128]) has no exponent field of its own: 2 * 2^127 instead.
  const bool top          = n > 127;
  const std::int32_t e    = top ? 254 : n + 127;
  const std::int32_t bits = static_cast<std::int32_t>(static_cast<std::uint32_t>(e) << 23);
  float scale;
  std::memcpy(&scale, &bits, sizeof(float));
  return select(top, p * 2.0f, p) * scale;
}

}  // namespace Impl
}  // namespace tessera
