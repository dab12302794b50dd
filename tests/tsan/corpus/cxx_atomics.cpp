// ABI corpus: std::atomic at every width and order, atomic_ref, atomic_flag,
// wait/notify, fences, virtual calls (vptr), exceptions, containers and
// shared_ptr. Compiled with -fsanitize=thread only to read which __tsan_*
// symbols it needs.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

template <typename T>
T exercise(std::atomic<T>& a, T v) {
  constexpr std::memory_order orders[] = {std::memory_order_relaxed, std::memory_order_consume,
                                          std::memory_order_acquire, std::memory_order_release,
                                          std::memory_order_acq_rel, std::memory_order_seq_cst};
  T sum{};
  for (auto mo : orders) {
    sum += a.exchange(v, mo);
    sum += a.fetch_add(v, mo);
    sum += a.fetch_sub(v, mo);
    sum += a.fetch_and(v, mo);
    sum += a.fetch_or(v, mo);
    sum += a.fetch_xor(v, mo);
    T e = v;
    sum += a.compare_exchange_weak(e, v, mo) ? 1 : 0;
    sum += a.compare_exchange_strong(e, v, mo) ? 1 : 0;
    sum += a.compare_exchange_strong(e, v, mo, std::memory_order_relaxed) ? 1 : 0;
  }
  a.store(v, std::memory_order_relaxed);
  a.store(v, std::memory_order_release);
  a.store(v, std::memory_order_seq_cst);
  sum += a.load(std::memory_order_relaxed) + a.load(std::memory_order_acquire) + a.load();
  ++a;
  a--;
  a += v;
  return sum;
}

template std::uint8_t exercise(std::atomic<std::uint8_t>&, std::uint8_t);
template std::uint16_t exercise(std::atomic<std::uint16_t>&, std::uint16_t);
template std::uint32_t exercise(std::atomic<std::uint32_t>&, std::uint32_t);
template std::uint64_t exercise(std::atomic<std::uint64_t>&, std::uint64_t);

struct pair16 {
  std::uint64_t a, b;
};
bool wide(std::atomic<pair16>& p) {
  pair16 e = p.load();
  p.store({1, 2});
  (void)p.exchange({3, 4});
  return p.compare_exchange_strong(e, {5, 6}) || p.compare_exchange_weak(e, {7, 8});
}

int pointer_atomics(std::atomic<int*>& p, int* q) {
  p.fetch_add(1);
  p.store(q, std::memory_order_release);
  return *p.load(std::memory_order_acquire);
}

bool flag_and_fences(std::atomic_flag& f, std::atomic<int>& w) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_acquire);
  std::atomic_signal_fence(std::memory_order_release);
  const bool was = f.test_and_set(std::memory_order_acquire);
  f.clear(std::memory_order_release);
  w.notify_one();
  w.notify_all();
  return was;
}

int ref(int& x) {
  std::atomic_ref<int> r(x);
  r.fetch_add(1, std::memory_order_acq_rel);
  return r.load();
}

struct shape {
  virtual ~shape() = default;
  virtual double area() const = 0;
};
struct square : shape {
  double side = 2;
  double area() const override { return side * side; }
};
double virtual_call(const shape& s) { return s.area(); }
std::unique_ptr<shape> make() { return std::make_unique<square>(); }

std::size_t containers(std::vector<std::string>& v, std::shared_ptr<int> p, std::mutex& m) {
  std::lock_guard<std::mutex> g(m);
  v.push_back(std::to_string(*p));
  std::shared_ptr<int> q = p;
  char buf[128];
  std::memset(buf, 1, sizeof buf);
  std::memcpy(buf + 8, buf, 64);
  return v.size() + static_cast<std::size_t>(q.use_count()) + static_cast<std::size_t>(buf[9]);
}

int throwing(int x) {
  try {
    if (x > 3) throw std::runtime_error("big");
  } catch (const std::exception& e) {
    return static_cast<int>(std::strlen(e.what()));
  }
  return x;
}

struct __attribute__((packed)) unaligned {
  char c;
  std::uint16_t h;
  std::uint32_t w;
  std::uint64_t d;
};
std::uint64_t unaligned_access(unaligned& u) {
  u.h = static_cast<std::uint16_t>(u.h + 1);
  u.w += 1;
  u.d += 1;
  return u.h + u.w + u.d;
}

volatile int vflag;
int volatile_spin() {
  vflag = 1;
  return vflag;
}
