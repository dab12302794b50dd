// See real.hpp: the lookups themselves happen in the macros.
#include "backends/real.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace heddle::detail::real {

namespace {

// No stdio, no allocation: this can run before main, inside an interposed
// pthread call, with the C library half set up.
void write_line(const char* a, const char* b) noexcept {
  ::write(2, a, std::strlen(a));
  ::write(2, b, std::strlen(b));
  ::write(2, "\n", 1);
}

}  // namespace

void* checked(void* f, const char* name) noexcept {
  if (f == nullptr) {
    write_line("heddle: the C library does not export ", name);
    std::_Exit(3);
  }
  return f;
}

}  // namespace heddle::detail::real
