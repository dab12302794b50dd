// heddle::checked<C>: thread-safety-violation checks for standard containers
// (DESIGN.md section 11), after TSVD (Li et al., "Efficient Scalable
// Thread-Safety-Violation Detection", SOSP 2019) and Coyote's checks.
//
// std containers are not thread-safe: two calls on one container that overlap
// in time, at least one of them a write, are undefined behaviour, whatever the
// calls' effects. checked<C> wraps a std::vector, std::deque, std::basic_string,
// std::map or std::unordered_map and declares each method a read or a write
// (docs/checks.md has the table). Under control each call is
//
//   entry point (read or write, on the container) -> check -> the std call ->
//   exit point (the same kind) -> the call ends
//
// and the check reports a `thread_safety_violation` when another operation has a
// call on the same object in flight (between its entry and its end) and one of
// the two is a write. The message names both calls, their kinds, operations and
// source lines. The two points let any strategy make calls overlap, and they
// work the same for every kind of controlled operation: threads, tasks, actors.
// Outside a controlled iteration (and while one is unwound) a call is the std
// call behind one thread-local load and a branch.
//
// The contract kept: a call with no other operation's conflicting call in
// flight behaves exactly as the std method; a reported overlap is one that a
// real execution has. What is not checked: what the caller does through a
// reference, pointer or iterator a call returned (TSVD checks calls, not
// element accesses; the call that returned it counts as a read), and calls on
// the container reached through unchecked().
//
// Locations: each method takes a trailing std::source_location default argument,
// so the caller's line is captured. Where C++ allows no extra parameter, the
// argument type captures it (operator[]'s index or key, the position of
// emplace and the key of try_emplace, the right side of a string's +=);
// emplace_back, emplace_front and a map's emplace take up to four constructor
// arguments for the same reason. Copy and move assignment between checked
// containers, comparisons and the string_view conversion are reported without
// a line.
#pragma once

#include <compare>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <iterator>
#include <map>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "heddle/model.hpp"

namespace heddle {

template <class C>
class checked;

namespace detail {

// Whether a checked call reads or writes its container.
enum class checked_access : std::uint8_t { read, write };

// True when a checked call must be checked: a controlled operation runs and
// the iteration is not being unwound. Elsewhere a call is the std call.
HEDDLE_MODEL_INLINE inline bool checking() noexcept { return control.running != 0 && !control.unwinding; }

// The controlled state of one checked container: its resource (object kind
// `variable`, "checked vector #3" in messages) and the calls in flight on it.
// Copying one makes a new object: identity is never copied.
class checked_object {
 public:
  explicit checked_object(const char* type) noexcept : type_(type) {}
  checked_object(const checked_object& other) noexcept : type_(other.type_) {}
  checked_object& operator=(const checked_object&) noexcept { return *this; }
  HEDDLE_MODEL_INLINE ~checked_object() {
    if (checking() && epoch_ == control.epoch && !calls_.empty()) [[unlikely]] destroyed();
  }

  // Under checking() only. The entry point, then the check against the calls
  // in flight (report_bug on a conflict, which unwinds), then this call is in
  // flight.
  void enter(const char* method, checked_access kind, std::source_location loc);
  // The exit point: the call is still in flight while others may run.
  HEDDLE_MODEL_INLINE void exit(checked_access kind, std::source_location loc) {
    scheduling_point(kind == checked_access::write ? point_kind::write : point_kind::read, resource_, loc);
  }
  // The running operation's latest call has ended (normally or by an exception).
  void leave() noexcept;

 private:
  struct call {
    operation_id operation = 0;
    checked_access kind = checked_access::read;
    const char* method = nullptr;
    std::source_location where;
  };
  // The container is destroyed (a write) while another operation's call is in
  // flight: flag_bug, since a destructor cannot unwind.
  void destroyed() noexcept;

  resource resource_{object_kind::variable};
  const char* type_;  // "vector", "map", ...: for messages
  // The iteration `calls_` belongs to; a container that outlives an iteration
  // (a global) starts the next one with no call in flight.
  std::uint32_t epoch_ = 0;
  // Calls in flight, oldest first. Invariant: either all are reads, or all are
  // by one operation (anything else was reported when it began).
  std::vector<call> calls_;
};

// One checked call in flight: enter() on construction, leave() on destruction
// (also when the std call throws, or the exit point unwinds the iteration).
class checked_call {
 public:
  checked_call(checked_object& object, const char* method, checked_access kind, std::source_location loc)
      : object_(object), kind_(kind), loc_(loc) {
    object_.enter(method, kind, loc);
  }
  checked_call(const checked_call&) = delete;
  checked_call& operator=(const checked_call&) = delete;
  ~checked_call() { object_.leave(); }
  void exit() { object_.exit(kind_, loc_); }

 private:
  checked_object& object_;
  checked_access kind_;
  std::source_location loc_;
};

// An argument and the caller's line, for operators, which take no extra
// parameter: the conversion to located<T> happens at the call site, where the
// default argument is evaluated.
template <class T>
struct located {
  template <class U>
    requires std::convertible_to<U, T>
  located(U&& v, std::source_location loc = std::source_location::current())  // NOLINT(google-explicit-constructor)
      : value(std::forward<U>(v)), where(loc) {}
  T value;
  std::source_location where;
};

// A key and the caller's line, for map::operator[] and try_emplace: refers to
// the caller's key when it is a key_type (no copy), holds one made from
// anything else ("abc" for a std::string key).
template <class K>
class key_arg {
 public:
  key_arg(const K& k, std::source_location loc = std::source_location::current())  // NOLINT(google-explicit-constructor)
      : key_(const_cast<K*>(&k)), where_(loc) {}
  key_arg(K&& k, std::source_location loc = std::source_location::current())  // NOLINT(google-explicit-constructor)
      : key_(&k), movable_(true), where_(loc) {}
  template <class U>
    requires(!std::is_same_v<std::remove_cvref_t<U>, K> && std::is_constructible_v<K, U>)
  key_arg(U&& u, std::source_location loc = std::source_location::current())  // NOLINT(google-explicit-constructor)
      : made_(std::in_place, std::forward<U>(u)), key_(&*made_), movable_(true), where_(loc) {}
  key_arg(const key_arg&) = delete;
  key_arg& operator=(const key_arg&) = delete;

  // The key to pass on: moved from when the caller gave an rvalue.
  template <class F>
  decltype(auto) pass(F&& f) {
    if (movable_) return std::forward<F>(f)(std::move(*key_));
    return std::forward<F>(f)(static_cast<const K&>(*key_));
  }
  std::source_location where() const noexcept { return where_; }

 private:
  std::optional<K> made_;
  K* key_;
  bool movable_ = false;
  std::source_location where_;
};

// What each supported container is; the primary template is "not supported".
struct no_key {};
template <class C>
struct checked_traits {
  static constexpr bool supported = false;
  static constexpr const char* name = "";
  using key_type = no_key;
  using mapped_type = no_key;
  using node_type = no_key;
  using char_type = char;
  static constexpr bool sequence = false, contiguous = false, double_ended = false, string = false;
  static constexpr bool associative = false, ordered = false, hashed = false;
};
struct sequence_traits {
  static constexpr bool supported = true;
  using key_type = no_key;
  using mapped_type = no_key;
  using node_type = no_key;
  static constexpr bool sequence = true, associative = false, ordered = false, hashed = false;
};
template <class T, class A>
struct checked_traits<std::vector<T, A>> : sequence_traits {
  static constexpr const char* name = "vector";
  using char_type = char;
  static constexpr bool contiguous = true, double_ended = false, string = false;
};
template <class T, class A>
struct checked_traits<std::deque<T, A>> : sequence_traits {
  static constexpr const char* name = "deque";
  using char_type = char;
  static constexpr bool contiguous = false, double_ended = true, string = false;
};
template <class Ch, class Tr, class A>
struct checked_traits<std::basic_string<Ch, Tr, A>> : sequence_traits {
  static constexpr const char* name = std::is_same_v<Ch, char> ? "string" : "basic_string";
  using char_type = Ch;
  static constexpr bool contiguous = true, double_ended = false, string = true;
};
template <class K, class V>
struct associative_traits {
  static constexpr bool supported = true;
  using key_type = K;
  using mapped_type = V;
  using char_type = char;
  static constexpr bool sequence = false, contiguous = false, double_ended = false, string = false;
  static constexpr bool associative = true;
};
template <class K, class V, class Cmp, class A>
struct checked_traits<std::map<K, V, Cmp, A>> : associative_traits<K, V> {
  static constexpr const char* name = "map";
  using node_type = typename std::map<K, V, Cmp, A>::node_type;
  static constexpr bool ordered = true, hashed = false;
};
template <class K, class V, class H, class E, class A>
struct checked_traits<std::unordered_map<K, V, H, E, A>> : associative_traits<K, V> {
  static constexpr const char* name = "unordered_map";
  using node_type = typename std::unordered_map<K, V, H, E, A>::node_type;
  static constexpr bool ordered = false, hashed = true;
};

}  // namespace detail

// A std container whose calls are checked for thread-safety violations under
// control. C is std::vector, std::deque, std::basic_string, std::map or
// std::unordered_map (any element type, allocator, comparator or hash).
template <class C>
class checked {
  using traits = detail::checked_traits<C>;
  static_assert(traits::supported,
                "heddle::checked<C> supports std::vector, std::deque, std::basic_string, std::map and "
                "std::unordered_map");
  using loc_t = std::source_location;
  using access = detail::checked_access;
  static constexpr access read = access::read;
  static constexpr access write = access::write;
  static constexpr bool sequence = traits::sequence;
  static constexpr bool associative = traits::associative;
  static constexpr bool reversible = !traits::hashed;

 public:
  using container_type = C;
  using value_type = typename C::value_type;
  using size_type = typename C::size_type;
  using difference_type = typename C::difference_type;
  using reference = typename C::reference;
  using const_reference = typename C::const_reference;
  using pointer = typename C::pointer;
  using const_pointer = typename C::const_pointer;
  using iterator = typename C::iterator;
  using const_iterator = typename C::const_iterator;
  using allocator_type = typename C::allocator_type;
  // Maps only (a placeholder type for the others).
  using key_type = typename traits::key_type;
  using mapped_type = typename traits::mapped_type;
  using node_type = typename traits::node_type;
  // Strings only (char for the others).
  using char_type = typename traits::char_type;
  using string_view_type = std::basic_string_view<char_type>;

  // --- construction: nobody else can see the object yet, so nothing to check --
  checked() : state_(traits::name) {}
  checked(std::initializer_list<value_type> values) : c_(values), state_(traits::name) {}
  // From anything C is constructible from (a C, a count, a C string, an
  // allocator); implicit where C's own constructor is.
  template <class U>
    requires(!std::is_same_v<std::remove_cvref_t<U>, checked> && std::is_constructible_v<C, U>)
  explicit(!std::is_convertible_v<U, C>) checked(U&& arg) : c_(std::forward<U>(arg)), state_(traits::name) {}
  template <class A, class B, class... Rest>
    requires std::is_constructible_v<C, A, B, Rest...>
  checked(A&& a, B&& b, Rest&&... rest)
      : c_(std::forward<A>(a), std::forward<B>(b), std::forward<Rest>(rest)...), state_(traits::name) {}
  // Copying reads the source, moving writes it.
  checked(const checked& other, loc_t loc = loc_t::current())
      : c_(other.call("copy constructor", read, loc, [&]() -> C { return other.c_; })), state_(other.state_) {}
  checked(checked&& other, loc_t loc = loc_t::current())
      : c_(other.call("move constructor", write, loc, [&]() -> C { return std::move(other.c_); })),
        state_(other.state_) {}
  checked& operator=(const checked& other) {
    if (this != &other)
      call("operator=", write, {}, [&] { other.call("copy assignment", read, {}, [&] { c_ = other.c_; }); });
    return *this;
  }
  checked& operator=(checked&& other) {
    if (this != &other)
      call("operator=", write, {}, [&] { other.call("move assignment", write, {}, [&] { c_ = std::move(other.c_); }); });
    return *this;
  }
  checked& operator=(std::initializer_list<value_type> values) {
    call("operator=", write, {}, [&] { c_ = values; });
    return *this;
  }
  // The container without checks: for passing it where a C is expected. Calls
  // made through it are not checked.
  C& unchecked() noexcept { return c_; }
  const C& unchecked() const noexcept { return c_; }
  allocator_type get_allocator() const noexcept { return c_.get_allocator(); }

  // --- capacity (reads unless they change it) --------------------------------
  bool empty(loc_t loc = loc_t::current()) const {
    return call("empty", read, loc, [&] { return c_.empty(); });
  }
  size_type size(loc_t loc = loc_t::current()) const {
    return call("size", read, loc, [&] { return c_.size(); });
  }
  size_type max_size(loc_t loc = loc_t::current()) const {
    return call("max_size", read, loc, [&] { return c_.max_size(); });
  }
  size_type length(loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("length", read, loc, [&] { return c_.length(); });
  }
  size_type capacity(loc_t loc = loc_t::current()) const
    requires traits::contiguous
  {
    return call("capacity", read, loc, [&] { return c_.capacity(); });
  }
  void reserve(size_type n, loc_t loc = loc_t::current())
    requires(traits::contiguous || traits::hashed)
  {
    call("reserve", write, loc, [&] { c_.reserve(n); });
  }
  void shrink_to_fit(loc_t loc = loc_t::current())
    requires sequence
  {
    call("shrink_to_fit", write, loc, [&] { c_.shrink_to_fit(); });
  }
  void resize(size_type n, loc_t loc = loc_t::current())
    requires sequence
  {
    call("resize", write, loc, [&] { c_.resize(n); });
  }
  void resize(size_type n, const value_type& v, loc_t loc = loc_t::current())
    requires sequence
  {
    call("resize", write, loc, [&] { c_.resize(n, v); });
  }

  // --- iterators: each call that returns one reads the container -------------
  iterator begin(loc_t loc = loc_t::current()) {
    return call("begin", read, loc, [&] { return c_.begin(); });
  }
  const_iterator begin(loc_t loc = loc_t::current()) const {
    return call("begin", read, loc, [&] { return c_.begin(); });
  }
  iterator end(loc_t loc = loc_t::current()) {
    return call("end", read, loc, [&] { return c_.end(); });
  }
  const_iterator end(loc_t loc = loc_t::current()) const {
    return call("end", read, loc, [&] { return c_.end(); });
  }
  const_iterator cbegin(loc_t loc = loc_t::current()) const {
    return call("cbegin", read, loc, [&] { return c_.cbegin(); });
  }
  const_iterator cend(loc_t loc = loc_t::current()) const {
    return call("cend", read, loc, [&] { return c_.cend(); });
  }
  auto rbegin(loc_t loc = loc_t::current())
    requires reversible
  {
    return call("rbegin", read, loc, [&] { return c_.rbegin(); });
  }
  auto rbegin(loc_t loc = loc_t::current()) const
    requires reversible
  {
    return call("rbegin", read, loc, [&] { return c_.rbegin(); });
  }
  auto rend(loc_t loc = loc_t::current())
    requires reversible
  {
    return call("rend", read, loc, [&] { return c_.rend(); });
  }
  auto rend(loc_t loc = loc_t::current()) const
    requires reversible
  {
    return call("rend", read, loc, [&] { return c_.rend(); });
  }
  auto crbegin(loc_t loc = loc_t::current()) const
    requires reversible
  {
    return call("crbegin", read, loc, [&] { return c_.crbegin(); });
  }
  auto crend(loc_t loc = loc_t::current()) const
    requires reversible
  {
    return call("crend", read, loc, [&] { return c_.crend(); });
  }

  // --- element access (reads: what is done through the reference is not checked)
  reference operator[](detail::located<size_type> i)
    requires sequence
  {
    return call("operator[]", read, i.where, [&]() -> reference { return c_[i.value]; });
  }
  const_reference operator[](detail::located<size_type> i) const
    requires sequence
  {
    return call("operator[]", read, i.where, [&]() -> const_reference { return c_[i.value]; });
  }
  reference at(size_type i, loc_t loc = loc_t::current())
    requires sequence
  {
    return call("at", read, loc, [&]() -> reference { return c_.at(i); });
  }
  const_reference at(size_type i, loc_t loc = loc_t::current()) const
    requires sequence
  {
    return call("at", read, loc, [&]() -> const_reference { return c_.at(i); });
  }
  reference front(loc_t loc = loc_t::current())
    requires sequence
  {
    return call("front", read, loc, [&]() -> reference { return c_.front(); });
  }
  const_reference front(loc_t loc = loc_t::current()) const
    requires sequence
  {
    return call("front", read, loc, [&]() -> const_reference { return c_.front(); });
  }
  reference back(loc_t loc = loc_t::current())
    requires sequence
  {
    return call("back", read, loc, [&]() -> reference { return c_.back(); });
  }
  const_reference back(loc_t loc = loc_t::current()) const
    requires sequence
  {
    return call("back", read, loc, [&]() -> const_reference { return c_.back(); });
  }
  auto data(loc_t loc = loc_t::current())
    requires traits::contiguous
  {
    return call("data", read, loc, [&] { return c_.data(); });
  }
  auto data(loc_t loc = loc_t::current()) const
    requires traits::contiguous
  {
    return call("data", read, loc, [&] { return c_.data(); });
  }

  // --- sequence modifiers (writes) --------------------------------------------
  void push_back(const value_type& v, loc_t loc = loc_t::current())
    requires sequence
  {
    call("push_back", write, loc, [&] { c_.push_back(v); });
  }
  void push_back(value_type&& v, loc_t loc = loc_t::current())
    requires sequence
  {
    call("push_back", write, loc, [&] { c_.push_back(std::move(v)); });
  }
  void pop_back(loc_t loc = loc_t::current())
    requires sequence
  {
    call("pop_back", write, loc, [&] { c_.pop_back(); });
  }
  void push_front(const value_type& v, loc_t loc = loc_t::current())
    requires traits::double_ended
  {
    call("push_front", write, loc, [&] { c_.push_front(v); });
  }
  void push_front(value_type&& v, loc_t loc = loc_t::current())
    requires traits::double_ended
  {
    call("push_front", write, loc, [&] { c_.push_front(std::move(v)); });
  }
  void pop_front(loc_t loc = loc_t::current())
    requires traits::double_ended
  {
    call("pop_front", write, loc, [&] { c_.pop_front(); });
  }
  // emplace_back and emplace_front: up to four constructor arguments.
  reference emplace_back(loc_t loc = loc_t::current())
    requires(sequence && !traits::string)
  {
    return call("emplace_back", write, loc, [&]() -> reference { return c_.emplace_back(); });
  }
  template <class A>
  reference emplace_back(A&& a, loc_t loc = loc_t::current())
    requires(sequence && !traits::string)
  {
    return call("emplace_back", write, loc, [&]() -> reference { return c_.emplace_back(std::forward<A>(a)); });
  }
  template <class A, class B>
  reference emplace_back(A&& a, B&& b, loc_t loc = loc_t::current())
    requires(sequence && !traits::string)
  {
    return call("emplace_back", write, loc,
                [&]() -> reference { return c_.emplace_back(std::forward<A>(a), std::forward<B>(b)); });
  }
  template <class A, class B, class D>
  reference emplace_back(A&& a, B&& b, D&& d, loc_t loc = loc_t::current())
    requires(sequence && !traits::string)
  {
    return call("emplace_back", write, loc, [&]() -> reference {
      return c_.emplace_back(std::forward<A>(a), std::forward<B>(b), std::forward<D>(d));
    });
  }
  template <class A, class B, class D, class E>
  reference emplace_back(A&& a, B&& b, D&& d, E&& e, loc_t loc = loc_t::current())
    requires(sequence && !traits::string)
  {
    return call("emplace_back", write, loc, [&]() -> reference {
      return c_.emplace_back(std::forward<A>(a), std::forward<B>(b), std::forward<D>(d), std::forward<E>(e));
    });
  }
  reference emplace_front(loc_t loc = loc_t::current())
    requires traits::double_ended
  {
    return call("emplace_front", write, loc, [&]() -> reference { return c_.emplace_front(); });
  }
  template <class A>
  reference emplace_front(A&& a, loc_t loc = loc_t::current())
    requires traits::double_ended
  {
    return call("emplace_front", write, loc, [&]() -> reference { return c_.emplace_front(std::forward<A>(a)); });
  }
  template <class A, class B>
  reference emplace_front(A&& a, B&& b, loc_t loc = loc_t::current())
    requires traits::double_ended
  {
    return call("emplace_front", write, loc,
                [&]() -> reference { return c_.emplace_front(std::forward<A>(a), std::forward<B>(b)); });
  }
  template <class A, class B, class D>
  reference emplace_front(A&& a, B&& b, D&& d, loc_t loc = loc_t::current())
    requires traits::double_ended
  {
    return call("emplace_front", write, loc, [&]() -> reference {
      return c_.emplace_front(std::forward<A>(a), std::forward<B>(b), std::forward<D>(d));
    });
  }
  template <class A, class B, class D, class E>
  reference emplace_front(A&& a, B&& b, D&& d, E&& e, loc_t loc = loc_t::current())
    requires traits::double_ended
  {
    return call("emplace_front", write, loc, [&]() -> reference {
      return c_.emplace_front(std::forward<A>(a), std::forward<B>(b), std::forward<D>(d), std::forward<E>(e));
    });
  }
  template <class... Args>
  iterator emplace(detail::located<const_iterator> pos, Args&&... args)
    requires(sequence && !traits::string)
  {
    return call("emplace", write, pos.where, [&] { return c_.emplace(pos.value, std::forward<Args>(args)...); });
  }
  // At a position (sequences) or with a hint (maps).
  iterator insert(const_iterator pos, const value_type& v, loc_t loc = loc_t::current()) {
    return call("insert", write, loc, [&] { return c_.insert(pos, v); });
  }
  iterator insert(const_iterator pos, value_type&& v, loc_t loc = loc_t::current()) {
    return call("insert", write, loc, [&] { return c_.insert(pos, std::move(v)); });
  }
  iterator insert(const_iterator pos, size_type n, const value_type& v, loc_t loc = loc_t::current())
    requires sequence
  {
    return call("insert", write, loc, [&] { return c_.insert(pos, n, v); });
  }
  template <std::input_iterator It>
  iterator insert(const_iterator pos, It first, It last, loc_t loc = loc_t::current())
    requires sequence
  {
    return call("insert", write, loc, [&] { return c_.insert(pos, first, last); });
  }
  iterator insert(const_iterator pos, std::initializer_list<value_type> values, loc_t loc = loc_t::current())
    requires sequence
  {
    return call("insert", write, loc, [&] { return c_.insert(pos, values); });
  }
  iterator erase(const_iterator pos, loc_t loc = loc_t::current()) {
    return call("erase", write, loc, [&] { return c_.erase(pos); });
  }
  iterator erase(const_iterator first, const_iterator last, loc_t loc = loc_t::current()) {
    return call("erase", write, loc, [&] { return c_.erase(first, last); });
  }
  void assign(size_type n, const value_type& v, loc_t loc = loc_t::current())
    requires sequence
  {
    call("assign", write, loc, [&] { c_.assign(n, v); });
  }
  template <std::input_iterator It>
  void assign(It first, It last, loc_t loc = loc_t::current())
    requires sequence
  {
    call("assign", write, loc, [&] { c_.assign(first, last); });
  }
  void assign(std::initializer_list<value_type> values, loc_t loc = loc_t::current())
    requires sequence
  {
    call("assign", write, loc, [&] { c_ = values; });
  }
  void clear(loc_t loc = loc_t::current()) {
    call("clear", write, loc, [&] { c_.clear(); });
  }
  // Writes both containers.
  void swap(checked& other, loc_t loc = loc_t::current()) {
    call("swap", write, loc, [&] { other.call("swap", write, loc, [&] { c_.swap(other.c_); }); });
  }
  friend void swap(checked& a, checked& b) { a.swap(b, {}); }
  template <class Pred>
  friend size_type erase_if(checked& c, Pred pred, loc_t loc = loc_t::current()) {
    return c.call("erase_if", write, loc, [&] { return std::erase_if(c.c_, std::move(pred)); });
  }

  // --- maps: lookup (reads) ---------------------------------------------------
  mapped_type& at(const key_type& k, loc_t loc = loc_t::current())
    requires associative
  {
    return call("at", read, loc, [&]() -> mapped_type& { return c_.at(k); });
  }
  const mapped_type& at(const key_type& k, loc_t loc = loc_t::current()) const
    requires associative
  {
    return call("at", read, loc, [&]() -> const mapped_type& { return c_.at(k); });
  }
  iterator find(const key_type& k, loc_t loc = loc_t::current())
    requires associative
  {
    return call("find", read, loc, [&] { return c_.find(k); });
  }
  const_iterator find(const key_type& k, loc_t loc = loc_t::current()) const
    requires associative
  {
    return call("find", read, loc, [&] { return c_.find(k); });
  }
  size_type count(const key_type& k, loc_t loc = loc_t::current()) const
    requires associative
  {
    return call("count", read, loc, [&] { return c_.count(k); });
  }
  bool contains(const key_type& k, loc_t loc = loc_t::current()) const
    requires associative
  {
    return call("contains", read, loc, [&] { return c_.contains(k); });
  }
  auto equal_range(const key_type& k, loc_t loc = loc_t::current())
    requires associative
  {
    return call("equal_range", read, loc, [&] { return c_.equal_range(k); });
  }
  auto equal_range(const key_type& k, loc_t loc = loc_t::current()) const
    requires associative
  {
    return call("equal_range", read, loc, [&] { return c_.equal_range(k); });
  }
  iterator lower_bound(const key_type& k, loc_t loc = loc_t::current())
    requires traits::ordered
  {
    return call("lower_bound", read, loc, [&] { return c_.lower_bound(k); });
  }
  const_iterator lower_bound(const key_type& k, loc_t loc = loc_t::current()) const
    requires traits::ordered
  {
    return call("lower_bound", read, loc, [&] { return c_.lower_bound(k); });
  }
  iterator upper_bound(const key_type& k, loc_t loc = loc_t::current())
    requires traits::ordered
  {
    return call("upper_bound", read, loc, [&] { return c_.upper_bound(k); });
  }
  const_iterator upper_bound(const key_type& k, loc_t loc = loc_t::current()) const
    requires traits::ordered
  {
    return call("upper_bound", read, loc, [&] { return c_.upper_bound(k); });
  }

  // --- maps: modifiers (writes; operator[] may insert, so it writes) ----------
  mapped_type& operator[](detail::key_arg<key_type> k)
    requires associative
  {
    return call("operator[]", write, k.where(),
                [&]() -> mapped_type& { return k.pass([&](auto&& key) -> mapped_type& { return c_[std::forward<decltype(key)>(key)]; }); });
  }
  std::pair<iterator, bool> insert(const value_type& v, loc_t loc = loc_t::current())
    requires associative
  {
    return call("insert", write, loc, [&] { return c_.insert(v); });
  }
  std::pair<iterator, bool> insert(value_type&& v, loc_t loc = loc_t::current())
    requires associative
  {
    return call("insert", write, loc, [&] { return c_.insert(std::move(v)); });
  }
  template <std::input_iterator It>
  void insert(It first, It last, loc_t loc = loc_t::current())
    requires associative
  {
    call("insert", write, loc, [&] { c_.insert(first, last); });
  }
  void insert(std::initializer_list<value_type> values, loc_t loc = loc_t::current())
    requires associative
  {
    call("insert", write, loc, [&] { c_.insert(values); });
  }
  template <class M>
  std::pair<iterator, bool> insert_or_assign(const key_type& k, M&& m, loc_t loc = loc_t::current())
    requires associative
  {
    return call("insert_or_assign", write, loc, [&] { return c_.insert_or_assign(k, std::forward<M>(m)); });
  }
  template <class M>
  std::pair<iterator, bool> insert_or_assign(key_type&& k, M&& m, loc_t loc = loc_t::current())
    requires associative
  {
    return call("insert_or_assign", write, loc,
                [&] { return c_.insert_or_assign(std::move(k), std::forward<M>(m)); });
  }
  // try_emplace: the key argument carries the caller's line.
  template <class... Args>
  std::pair<iterator, bool> try_emplace(detail::key_arg<key_type> k, Args&&... args)
    requires associative
  {
    return call("try_emplace", write, k.where(), [&] {
      return k.pass([&](auto&& key) { return c_.try_emplace(std::forward<decltype(key)>(key), std::forward<Args>(args)...); });
    });
  }
  // A map's emplace: up to four constructor arguments of the value.
  template <class A>
  std::pair<iterator, bool> emplace(A&& a, loc_t loc = loc_t::current())
    requires associative
  {
    return call("emplace", write, loc, [&] { return c_.emplace(std::forward<A>(a)); });
  }
  template <class A, class B>
  std::pair<iterator, bool> emplace(A&& a, B&& b, loc_t loc = loc_t::current())
    requires associative
  {
    return call("emplace", write, loc, [&] { return c_.emplace(std::forward<A>(a), std::forward<B>(b)); });
  }
  template <class A, class B, class D>
  std::pair<iterator, bool> emplace(A&& a, B&& b, D&& d, loc_t loc = loc_t::current())
    requires associative
  {
    return call("emplace", write, loc,
                [&] { return c_.emplace(std::forward<A>(a), std::forward<B>(b), std::forward<D>(d)); });
  }
  template <class A, class B, class D, class E>
  std::pair<iterator, bool> emplace(A&& a, B&& b, D&& d, E&& e, loc_t loc = loc_t::current())
    requires associative
  {
    return call("emplace", write, loc, [&] {
      return c_.emplace(std::forward<A>(a), std::forward<B>(b), std::forward<D>(d), std::forward<E>(e));
    });
  }
  template <class... Args>
  iterator emplace_hint(detail::located<const_iterator> hint, Args&&... args)
    requires associative
  {
    return call("emplace_hint", write, hint.where,
                [&] { return c_.emplace_hint(hint.value, std::forward<Args>(args)...); });
  }
  iterator erase(iterator pos, loc_t loc = loc_t::current())
    requires associative
  {
    return call("erase", write, loc, [&] { return c_.erase(pos); });
  }
  size_type erase(const key_type& k, loc_t loc = loc_t::current())
    requires associative
  {
    return call("erase", write, loc, [&] { return c_.erase(k); });
  }
  auto extract(const_iterator pos, loc_t loc = loc_t::current())
    requires associative
  {
    return call("extract", write, loc, [&] { return c_.extract(pos); });
  }
  auto extract(const key_type& k, loc_t loc = loc_t::current())
    requires associative
  {
    return call("extract", write, loc, [&] { return c_.extract(k); });
  }
  auto insert(node_type&& node, loc_t loc = loc_t::current())
    requires associative
  {
    return call("insert", write, loc, [&] { return c_.insert(std::move(node)); });
  }
  // Writes both maps (the source loses the nodes it moves).
  void merge(checked& source, loc_t loc = loc_t::current())
    requires associative
  {
    call("merge", write, loc, [&] { source.call("merge", write, loc, [&] { c_.merge(source.c_); }); });
  }

  // --- unordered_map: buckets and hashing -------------------------------------
  size_type bucket_count(loc_t loc = loc_t::current()) const
    requires traits::hashed
  {
    return call("bucket_count", read, loc, [&] { return c_.bucket_count(); });
  }
  size_type max_bucket_count(loc_t loc = loc_t::current()) const
    requires traits::hashed
  {
    return call("max_bucket_count", read, loc, [&] { return c_.max_bucket_count(); });
  }
  size_type bucket_size(size_type n, loc_t loc = loc_t::current()) const
    requires traits::hashed
  {
    return call("bucket_size", read, loc, [&] { return c_.bucket_size(n); });
  }
  size_type bucket(const key_type& k, loc_t loc = loc_t::current()) const
    requires traits::hashed
  {
    return call("bucket", read, loc, [&] { return c_.bucket(k); });
  }
  float load_factor(loc_t loc = loc_t::current()) const
    requires traits::hashed
  {
    return call("load_factor", read, loc, [&] { return c_.load_factor(); });
  }
  float max_load_factor(loc_t loc = loc_t::current()) const
    requires traits::hashed
  {
    return call("max_load_factor", read, loc, [&] { return c_.max_load_factor(); });
  }
  void max_load_factor(float f, loc_t loc = loc_t::current())
    requires traits::hashed
  {
    call("max_load_factor", write, loc, [&] { c_.max_load_factor(f); });
  }
  void rehash(size_type n, loc_t loc = loc_t::current())
    requires traits::hashed
  {
    call("rehash", write, loc, [&] { c_.rehash(n); });
  }

  // --- strings ------------------------------------------------------------------
  const char_type* c_str(loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("c_str", read, loc, [&] { return c_.c_str(); });
  }
  C substr(size_type pos = 0, size_type n = C::npos, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("substr", read, loc, [&] { return c_.substr(pos, n); });
  }
  size_type copy(char_type* dest, size_type n, size_type pos = 0, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("copy", read, loc, [&] { return c_.copy(dest, n, pos); });
  }
  int compare(string_view_type s, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("compare", read, loc, [&] { return c_.compare(s); });
  }
  size_type find(string_view_type s, size_type pos = 0, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("find", read, loc, [&] { return c_.find(s, pos); });
  }
  size_type find(char_type ch, size_type pos = 0, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("find", read, loc, [&] { return c_.find(ch, pos); });
  }
  size_type rfind(string_view_type s, size_type pos = C::npos, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("rfind", read, loc, [&] { return c_.rfind(s, pos); });
  }
  size_type rfind(char_type ch, size_type pos = C::npos, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("rfind", read, loc, [&] { return c_.rfind(ch, pos); });
  }
  size_type find_first_of(string_view_type s, size_type pos = 0, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("find_first_of", read, loc, [&] { return c_.find_first_of(s, pos); });
  }
  size_type find_first_not_of(string_view_type s, size_type pos = 0, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("find_first_not_of", read, loc, [&] { return c_.find_first_not_of(s, pos); });
  }
  size_type find_last_of(string_view_type s, size_type pos = C::npos, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("find_last_of", read, loc, [&] { return c_.find_last_of(s, pos); });
  }
  size_type find_last_not_of(string_view_type s, size_type pos = C::npos, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("find_last_not_of", read, loc, [&] { return c_.find_last_not_of(s, pos); });
  }
  bool starts_with(string_view_type s, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("starts_with", read, loc, [&] { return c_.starts_with(s); });
  }
  bool starts_with(char_type ch, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("starts_with", read, loc, [&] { return c_.starts_with(ch); });
  }
  bool ends_with(string_view_type s, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("ends_with", read, loc, [&] { return c_.ends_with(s); });
  }
  bool ends_with(char_type ch, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("ends_with", read, loc, [&] { return c_.ends_with(ch); });
  }
  bool contains(string_view_type s, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("contains", read, loc, [&] { return c_.find(s) != C::npos; });
  }
  bool contains(char_type ch, loc_t loc = loc_t::current()) const
    requires traits::string
  {
    return call("contains", read, loc, [&] { return c_.find(ch) != C::npos; });
  }
  // A view of the string: a read (reported without a line).
  operator string_view_type() const  // NOLINT(google-explicit-constructor): as std::basic_string
    requires traits::string
  {
    return call("operator string_view", read, {}, [&] { return string_view_type(c_); });
  }
  checked& append(string_view_type s, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("append", write, loc, [&] { c_.append(s); });
    return *this;
  }
  checked& append(size_type n, char_type ch, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("append", write, loc, [&] { c_.append(n, ch); });
    return *this;
  }
  template <std::input_iterator It>
  checked& append(It first, It last, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("append", write, loc, [&] { c_.append(first, last); });
    return *this;
  }
  checked& operator+=(detail::located<string_view_type> s)
    requires traits::string
  {
    call("operator+=", write, s.where, [&] { c_ += s.value; });
    return *this;
  }
  checked& operator+=(detail::located<char_type> ch)
    requires traits::string
  {
    call("operator+=", write, ch.where, [&] { c_ += ch.value; });
    return *this;
  }
  checked& assign(string_view_type s, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("assign", write, loc, [&] { c_.assign(s); });
    return *this;
  }
  checked& insert(size_type index, string_view_type s, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("insert", write, loc, [&] { c_.insert(index, s); });
    return *this;
  }
  checked& insert(size_type index, size_type n, char_type ch, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("insert", write, loc, [&] { c_.insert(index, n, ch); });
    return *this;
  }
  checked& erase(size_type index, size_type n = C::npos, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("erase", write, loc, [&] { c_.erase(index, n); });
    return *this;
  }
  checked& replace(size_type pos, size_type n, string_view_type s, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("replace", write, loc, [&] { c_.replace(pos, n, s); });
    return *this;
  }
  checked& replace(const_iterator first, const_iterator last, string_view_type s, loc_t loc = loc_t::current())
    requires traits::string
  {
    call("replace", write, loc, [&] { c_.replace(first, last, s); });
    return *this;
  }

  // --- comparisons: reads of both sides (reported without a line) -------------
  friend bool operator==(const checked& a, const checked& b) {
    return a.call("operator==", read, {}, [&] { return b.call("operator==", read, {}, [&] { return a.c_ == b.c_; }); });
  }
  friend auto operator<=>(const checked& a, const checked& b)
    requires requires(const C& x) { x <=> x; }
  {
    return a.call("operator<=>", read, {},
                  [&] { return b.call("operator<=>", read, {}, [&] { return a.c_ <=> b.c_; }); });
  }
  // A string against anything that converts to a string view ("abc", a std::string).
  template <class S>
    requires(traits::string && !std::is_same_v<S, checked> && std::is_convertible_v<const S&, string_view_type>)
  friend bool operator==(const checked& a, const S& b) {
    return a.call("operator==", read, {}, [&] { return string_view_type(a.c_) == string_view_type(b); });
  }

 private:
  // One checked call: the std call `f` between the entry and exit points, or
  // just `f` when nothing is checked.
  template <class F>
  decltype(auto) call(const char* method, access kind, loc_t loc, F&& f) const {
    if (!detail::checking()) [[likely]]
      return std::forward<F>(f)();
    detail::checked_call scope(state_, method, kind, loc);
    if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
      f();
      scope.exit();
    } else {
      decltype(auto) r = f();
      scope.exit();
      return r;
    }
  }

  C c_;
  mutable detail::checked_object state_;
};

}  // namespace heddle
