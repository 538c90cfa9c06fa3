// SPDX-License-Identifier: MIT
/**
 * @file hipfile-safetensors/dtype.hpp
 * @brief The element types of the safetensors format, their names and sizes, and the C++
 *        types that typed access maps onto them.
 */
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hipfile::safetensors {

/// Every dtype of the safetensors format (safetensors 0.6), in the format's own spelling.
enum class Dtype : std::uint8_t {
  BOOL, U8, I8, F8_E5M2, F8_E4M3, F8_E8M0, I16, U16, F16, BF16, I32, U32, F32, C64, I64, U64, F64,
  F4, F6_E2M3, F6_E3M2,
};

namespace detail {
struct DtypeRow {
  Dtype dtype;
  std::string_view name;
  unsigned bits;  // bits per element; F4 and F6 are packed below a byte
};
inline constexpr DtypeRow kDtypes[] = {
    {Dtype::BOOL, "BOOL", 8},        {Dtype::U8, "U8", 8},           {Dtype::I8, "I8", 8},
    {Dtype::F8_E5M2, "F8_E5M2", 8},  {Dtype::F8_E4M3, "F8_E4M3", 8}, {Dtype::F8_E8M0, "F8_E8M0", 8},
    {Dtype::I16, "I16", 16},         {Dtype::U16, "U16", 16},        {Dtype::F16, "F16", 16},
    {Dtype::BF16, "BF16", 16},       {Dtype::I32, "I32", 32},        {Dtype::U32, "U32", 32},
    {Dtype::F32, "F32", 32},         {Dtype::C64, "C64", 64},        {Dtype::I64, "I64", 64},
    {Dtype::U64, "U64", 64},         {Dtype::F64, "F64", 64},        {Dtype::F4, "F4", 4},
    {Dtype::F6_E2M3, "F6_E2M3", 6},  {Dtype::F6_E3M2, "F6_E3M2", 6},
};
}  // namespace detail

/// All dtypes, for iteration (tests, tools).
inline constexpr std::size_t kDtypeCount = std::size(detail::kDtypes);
[[nodiscard]] constexpr Dtype dtype_at(std::size_t i) noexcept { return detail::kDtypes[i].dtype; }

/// "BF16", "F32", ...: the spelling in a safetensors header.
[[nodiscard]] constexpr std::string_view dtype_name(Dtype d) noexcept {
  return detail::kDtypes[static_cast<std::size_t>(d)].name;
}
/// Bits per element: 8, 16, 32, 64, or 4 and 6 for the packed F4 / F6 types.
[[nodiscard]] constexpr unsigned dtype_bits(Dtype d) noexcept {
  return detail::kDtypes[static_cast<std::size_t>(d)].bits;
}
/// The dtype a header spells @p name, if it is one (case-sensitive, as the format is).
[[nodiscard]] constexpr std::optional<Dtype> parse_dtype(std::string_view name) noexcept {
  for (const auto& row : detail::kDtypes)
    if (row.name == name) return row.dtype;
  return std::nullopt;
}

/// Storage types for dtypes C++ has no arithmetic type for: the raw bits, same size and
/// alignment as the element, so a std::span of them views the tensor exactly.
struct bf16 { std::uint16_t bits; };
struct f16 { std::uint16_t bits; };
struct f8_e4m3 { std::uint8_t bits; };
struct f8_e5m2 { std::uint8_t bits; };
struct f8_e8m0 { std::uint8_t bits; };

/// dtype_of<T>::value: the one dtype typed access accepts for element type T.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr Dtype value = Dtype::BOOL; };
template <> struct dtype_of<std::uint8_t> { static constexpr Dtype value = Dtype::U8; };
template <> struct dtype_of<std::int8_t> { static constexpr Dtype value = Dtype::I8; };
template <> struct dtype_of<std::int16_t> { static constexpr Dtype value = Dtype::I16; };
template <> struct dtype_of<std::uint16_t> { static constexpr Dtype value = Dtype::U16; };
template <> struct dtype_of<std::int32_t> { static constexpr Dtype value = Dtype::I32; };
template <> struct dtype_of<std::uint32_t> { static constexpr Dtype value = Dtype::U32; };
template <> struct dtype_of<std::int64_t> { static constexpr Dtype value = Dtype::I64; };
template <> struct dtype_of<std::uint64_t> { static constexpr Dtype value = Dtype::U64; };
template <> struct dtype_of<float> { static constexpr Dtype value = Dtype::F32; };
template <> struct dtype_of<double> { static constexpr Dtype value = Dtype::F64; };
template <> struct dtype_of<std::complex<float>> { static constexpr Dtype value = Dtype::C64; };
template <> struct dtype_of<bf16> { static constexpr Dtype value = Dtype::BF16; };
template <> struct dtype_of<f16> { static constexpr Dtype value = Dtype::F16; };
template <> struct dtype_of<f8_e4m3> { static constexpr Dtype value = Dtype::F8_E4M3; };
template <> struct dtype_of<f8_e5m2> { static constexpr Dtype value = Dtype::F8_E5M2; };
template <> struct dtype_of<f8_e8m0> { static constexpr Dtype value = Dtype::F8_E8M0; };
template <class T> struct dtype_of<const T> : dtype_of<T> {};

/// True when T has a dtype (typed access compiles only for these).
template <class T, class = void> inline constexpr bool has_dtype = false;
template <class T> inline constexpr bool has_dtype<T, std::void_t<decltype(dtype_of<T>::value)>> = true;

}  // namespace hipfile::safetensors
