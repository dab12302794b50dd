#include "backends/stack_pool.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>
#include <system_error>

#include <sys/mman.h>
#include <unistd.h>

namespace heddle::detail {
namespace {

// Guard pages of every live stack, for the crash handler. A fixed table: a
// signal handler can neither lock nor allocate. Slots are claimed with a CAS.
constexpr std::size_t max_guarded = 16384;
std::atomic<char*> guard_table[max_guarded];
std::atomic<std::size_t> guard_page_size{4096};

void remember_guard(char* page) noexcept {
  for (auto& slot : guard_table) {
    char* expected = nullptr;
    if (slot.compare_exchange_strong(expected, page, std::memory_order_release)) return;
  }
}

void forget_guard(char* page) noexcept {
  for (auto& slot : guard_table) {
    char* expected = page;
    if (slot.compare_exchange_strong(expected, nullptr, std::memory_order_release)) return;
  }
}

}  // namespace

stack_pool::stack_pool(std::size_t usable_size) : page_(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))) {
  usable_ = std::max<std::size_t>((usable_size + page_ - 1) / page_ * page_, 4 * page_);
  guard_page_size.store(page_, std::memory_order_relaxed);
}

stack_pool::~stack_pool() {
  for (const mapping& m : all_) {
    forget_guard(m.base);
    ::munmap(m.base, m.length);
  }
}

boost::context::stack_context stack_pool::allocate() {
  mapping m{};
  if (!free_.empty()) {
    m = free_.back();
    free_.pop_back();
  } else {
    const std::size_t length = usable_ + page_;
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                     -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc{};
    m = {static_cast<char*>(p), length};
    if (::mprotect(m.base, page_, PROT_NONE) != 0) {
      ::munmap(p, length);
      throw std::system_error(errno, std::generic_category(), "mprotect of a stack guard page");
    }
    remember_guard(m.base);
    all_.push_back(m);
  }
  boost::context::stack_context sc;
  sc.size = usable_;
  sc.sp = m.base + m.length;  // stacks grow down from the top
  return sc;
}

void stack_pool::deallocate(boost::context::stack_context& sc) noexcept {
  char* top = static_cast<char*>(sc.sp);
  free_.push_back({top - usable_ - page_, usable_ + page_});
}

stack_pool& stack_pool::for_this_thread(std::size_t usable_size) {
  thread_local std::vector<std::unique_ptr<stack_pool>> pools;
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t rounded = std::max<std::size_t>((usable_size + page - 1) / page * page, 4 * page);
  for (auto& p : pools)
    if (p->usable_size() == rounded) return *p;
  pools.push_back(std::make_unique<stack_pool>(usable_size));
  return *pools.back();
}

bool stack_pool::is_guard_page(const void* address) noexcept {
  const char* a = static_cast<const char*>(address);
  const std::size_t page = guard_page_size.load(std::memory_order_relaxed);
  for (const auto& slot : guard_table) {
    const char* g = slot.load(std::memory_order_acquire);
    if (g != nullptr && a >= g && a < g + page) return true;
  }
  return false;
}

}  // namespace heddle::detail
