// SPDX-License-Identifier: MIT
/**
 * @file expected.hpp
 * @brief hipfile::expected and hipfile::unexpected: `std::expected` where the standard library
 *        has it (`__cpp_lib_expected`), otherwise a small compatible type of ours.
 *
 * hipfile++ builds as C++20 with GCC >= 12 and clang >= 14, whose standard libraries may lack
 * <expected> (GCC 12 in C++20 mode; clang 14 with libstdc++, which hides it behind C++20
 * concepts that clang 14 does not advertise). The fallback has the members hipfile++ and its
 * users need: has_value, operator bool, *, ->, value, error, value_or, and_then, transform,
 * or_else, comparisons, and `unexpected` with its deduction guide. Write `hipfile::unexpected`
 * (or plain `unexpected` inside namespace hipfile) to stay portable across both.
 *
 * value() on an error: std::expected throws bad_expected_access (std::abort under
 * -fno-exceptions); the fallback prints the error's message to stderr (for hipfile::Error)
 * and aborts. Test the result first, and use error().message() to say what failed.
 */
#pragma once

#include <version>

#if defined(__cpp_lib_expected) && __cpp_lib_expected >= 202202L

#include <expected>

namespace hipfile {
using std::expected;
using std::unexpected;
}  // namespace hipfile

#else

#include <cstdlib>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>
#include <variant>

#define HIPFILE_EXPECTED_FALLBACK 1

namespace hipfile {

template <class E>
class unexpected {
 public:
  template <class G = E>
    requires(!std::is_same_v<std::remove_cvref_t<G>, unexpected> && std::is_constructible_v<E, G>)
  constexpr explicit unexpected(G&& e) noexcept(std::is_nothrow_constructible_v<E, G>) : e_(std::forward<G>(e)) {}

  constexpr const E& error() const& noexcept { return e_; }
  constexpr E& error() & noexcept { return e_; }
  constexpr E&& error() && noexcept { return std::move(e_); }

  template <class G>
  friend constexpr bool operator==(const unexpected& a, const unexpected<G>& b) {
    return a.error() == b.error();
  }

 private:
  E e_;
};
template <class E>
unexpected(E) -> unexpected<E>;

namespace detail {
/// Called by the fallback's value() on an error, just before std::abort. hipfile::Error
/// provides an overload that prints its message (error.hpp); found by argument-dependent lookup.
template <class E>
void report_bad_expected_access(const E&) noexcept {}

template <class E>
[[noreturn]] void bad_expected_access(const E& e) noexcept {
  report_bad_expected_access(e);
  std::abort();
}
}  // namespace detail

template <class T, class E>
class expected;

template <class X>
inline constexpr bool is_expected_v = false;
template <class T, class E>
inline constexpr bool is_expected_v<expected<T, E>> = true;

/// The value-holding fallback (T is not void).
template <class T, class E>
class expected {
 public:
  using value_type = T;
  using error_type = E;
  using unexpected_type = unexpected<E>;

  constexpr expected() noexcept(std::is_nothrow_default_constructible_v<T>)
    requires std::is_default_constructible_v<T>
      : v_(std::in_place_index<0>) {}
  template <class U = T>
    requires(!std::is_same_v<std::remove_cvref_t<U>, expected> && !std::is_same_v<std::remove_cvref_t<U>, std::in_place_t> &&
             !is_expected_v<std::remove_cvref_t<U>> && std::is_constructible_v<T, U>)
  constexpr expected(U&& v) noexcept(std::is_nothrow_constructible_v<T, U>)  // NOLINT: implicit, as std::expected
      : v_(std::in_place_index<0>, std::forward<U>(v)) {}
  template <class G>
  constexpr expected(const unexpected<G>& u) : v_(std::in_place_index<1>, u.error()) {}  // NOLINT
  template <class G>
  constexpr expected(unexpected<G>&& u) noexcept(std::is_nothrow_constructible_v<E, G>)  // NOLINT
      : v_(std::in_place_index<1>, std::move(u).error()) {}
  template <class... Args>
  constexpr explicit expected(std::in_place_t, Args&&... args) : v_(std::in_place_index<0>, std::forward<Args>(args)...) {}

  constexpr bool has_value() const noexcept { return v_.index() == 0; }
  constexpr explicit operator bool() const noexcept { return has_value(); }

  constexpr T& operator*() & noexcept { return *std::get_if<0>(&v_); }
  constexpr const T& operator*() const& noexcept { return *std::get_if<0>(&v_); }
  constexpr T&& operator*() && noexcept { return std::move(*std::get_if<0>(&v_)); }
  constexpr T* operator->() noexcept { return std::get_if<0>(&v_); }
  constexpr const T* operator->() const noexcept { return std::get_if<0>(&v_); }

  constexpr T& value() & { return has_value() ? **this : (detail::bad_expected_access(error()), **this); }
  constexpr const T& value() const& { return has_value() ? **this : (detail::bad_expected_access(error()), **this); }
  constexpr T&& value() && { return std::move(value()); }

  constexpr E& error() & noexcept { return *std::get_if<1>(&v_); }
  constexpr const E& error() const& noexcept { return *std::get_if<1>(&v_); }
  constexpr E&& error() && noexcept { return std::move(*std::get_if<1>(&v_)); }

  template <class U>
  constexpr T value_or(U&& fallback) const& {
    return has_value() ? **this : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U>
  constexpr T value_or(U&& fallback) && {
    return has_value() ? std::move(**this) : static_cast<T>(std::forward<U>(fallback));
  }

  /// f(value) -> expected<U, E>; an error passes through.
  template <class F>
  constexpr auto and_then(F&& f) & { return bind(*this, std::forward<F>(f)); }
  template <class F>
  constexpr auto and_then(F&& f) const& { return bind(*this, std::forward<F>(f)); }
  template <class F>
  constexpr auto and_then(F&& f) && { return bind(std::move(*this), std::forward<F>(f)); }
  /// f(value) -> U, wrapped as expected<U, E>; an error passes through.
  template <class F>
  constexpr auto transform(F&& f) & { return map(*this, std::forward<F>(f)); }
  template <class F>
  constexpr auto transform(F&& f) const& { return map(*this, std::forward<F>(f)); }
  template <class F>
  constexpr auto transform(F&& f) && { return map(std::move(*this), std::forward<F>(f)); }
  /// f(error) -> expected<T, G>; a value passes through.
  template <class F>
  constexpr auto or_else(F&& f) const& {
    using R = std::remove_cvref_t<std::invoke_result_t<F, const E&>>;
    return has_value() ? R(**this) : std::invoke(std::forward<F>(f), error());
  }
  template <class F>
  constexpr auto or_else(F&& f) && {
    using R = std::remove_cvref_t<std::invoke_result_t<F, E&&>>;
    return has_value() ? R(std::move(**this)) : std::invoke(std::forward<F>(f), std::move(error()));
  }

  template <class T2, class E2>
    requires(!std::is_void_v<T2>)
  friend constexpr bool operator==(const expected& a, const expected<T2, E2>& b) {
    if (a.has_value() != b.has_value()) return false;
    return a.has_value() ? *a == *b : a.error() == b.error();
  }
  template <class T2>
    requires(!is_expected_v<T2>)
  friend constexpr bool operator==(const expected& a, const T2& v) {
    return a.has_value() && *a == v;
  }
  template <class E2>
  friend constexpr bool operator==(const expected& a, const unexpected<E2>& u) {
    return !a.has_value() && a.error() == u.error();
  }

 private:
  template <class Self, class F>
  static constexpr auto bind(Self&& self, F&& f) {
    using R = std::remove_cvref_t<std::invoke_result_t<F, decltype(*std::forward<Self>(self))>>;
    if (self.has_value()) return std::invoke(std::forward<F>(f), *std::forward<Self>(self));
    return R(unexpected<E>(std::forward<Self>(self).error()));
  }
  template <class Self, class F>
  static constexpr auto map(Self&& self, F&& f) {
    using U = std::remove_cv_t<std::invoke_result_t<F, decltype(*std::forward<Self>(self))>>;
    if (!self.has_value()) return expected<U, E>(unexpected<E>(std::forward<Self>(self).error()));
    if constexpr (std::is_void_v<U>) {
      std::invoke(std::forward<F>(f), *std::forward<Self>(self));
      return expected<U, E>();
    } else {
      return expected<U, E>(std::invoke(std::forward<F>(f), *std::forward<Self>(self)));
    }
  }

  std::variant<T, E> v_;
};

/// The fallback for expected<void, E>: success, or an error.
template <class E>
class expected<void, E> {
 public:
  using value_type = void;
  using error_type = E;
  using unexpected_type = unexpected<E>;

  constexpr expected() noexcept = default;
  template <class G>
  constexpr expected(const unexpected<G>& u) : e_(u.error()) {}  // NOLINT
  template <class G>
  constexpr expected(unexpected<G>&& u) noexcept(std::is_nothrow_constructible_v<E, G>)  // NOLINT
      : e_(std::move(u).error()) {}
  constexpr explicit expected(std::in_place_t) noexcept {}

  constexpr bool has_value() const noexcept { return !e_.has_value(); }
  constexpr explicit operator bool() const noexcept { return has_value(); }
  constexpr void operator*() const noexcept {}
  constexpr void value() const {
    if (!has_value()) detail::bad_expected_access(error());
  }

  constexpr E& error() & noexcept { return *e_; }
  constexpr const E& error() const& noexcept { return *e_; }
  constexpr E&& error() && noexcept { return std::move(*e_); }

  template <class F>
  constexpr auto and_then(F&& f) const {
    using R = std::remove_cvref_t<std::invoke_result_t<F>>;
    if (has_value()) return std::invoke(std::forward<F>(f));
    return R(unexpected<E>(error()));
  }
  template <class F>
  constexpr auto transform(F&& f) const {
    using U = std::remove_cv_t<std::invoke_result_t<F>>;
    if (!has_value()) return expected<U, E>(unexpected<E>(error()));
    if constexpr (std::is_void_v<U>) {
      std::invoke(std::forward<F>(f));
      return expected<U, E>();
    } else {
      return expected<U, E>(std::invoke(std::forward<F>(f)));
    }
  }
  template <class F>
  constexpr auto or_else(F&& f) const {
    using R = std::remove_cvref_t<std::invoke_result_t<F, const E&>>;
    return has_value() ? R() : std::invoke(std::forward<F>(f), error());
  }

  template <class E2>
  friend constexpr bool operator==(const expected& a, const expected<void, E2>& b) {
    if (a.has_value() != b.has_value()) return false;
    return a.has_value() || a.error() == b.error();
  }
  template <class E2>
  friend constexpr bool operator==(const expected& a, const unexpected<E2>& u) {
    return !a.has_value() && a.error() == u.error();
  }

 private:
  std::optional<E> e_;
};

}  // namespace hipfile

#endif
