// How lincheck prints arguments and results in reports: operator<< when the
// type has one, {fmt} when it is formattable, element by element for optional,
// pair, tuple and ranges, and a fallback naming the type otherwise. bool prints
// as true/false, a call without result as "void".
#pragma once

#include <optional>
#include <ostream>
#include <ranges>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

#if __has_include(<fmt/format.h>)
#include <fmt/format.h>
#define HEDDLE_LINCHECK_HAS_FMT 1
#endif

namespace heddle::lincheck::detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
struct is_pair_or_tuple : std::false_type {};
template <class A, class B>
struct is_pair_or_tuple<std::pair<A, B>> : std::true_type {};
template <class... A>
struct is_pair_or_tuple<std::tuple<A...>> : std::true_type {};

template <class T>
std::string show(const T& value);

template <class Tuple>
std::string show_elements(const Tuple& t) {
  std::string out;
  std::apply([&](const auto&... element) { ((out += (out.empty() ? "" : ", ") + show(element)), ...); }, t);
  return out;
}

template <class T>
std::string show(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value ? "true" : "false";
  } else if constexpr (is_optional<T>::value) {
    return value ? show(*value) : std::string("none");
  } else if constexpr (std::is_same_v<T, std::nullopt_t>) {
    return "none";
  } else if constexpr (requires(std::ostream& os) { os << value; }) {
    std::ostringstream os;
    os << value;
    return os.str();
  } else if constexpr (is_pair_or_tuple<T>::value) {
    return "(" + show_elements(value) + ")";
  } else if constexpr (std::ranges::input_range<const T>) {
    std::string out = "[";
    for (const auto& element : value) out += (out.size() > 1 ? ", " : "") + show(element);
    return out + "]";
#ifdef HEDDLE_LINCHECK_HAS_FMT
  } else if constexpr (fmt::is_formattable<T>::value) {
    return fmt::format("{}", value);
#endif
  } else {
    return std::string("<") + typeid(T).name() + ">";
  }
}

}  // namespace heddle::lincheck::detail
