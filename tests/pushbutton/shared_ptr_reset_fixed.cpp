// The fixed twin of shared_ptr_reset.cpp: the shared object is read and
// replaced under a mutex, and every thread then copies and drops its own
// shared_ptr freely. libstdc++ counts references atomically only when glibc's
// __libc_single_threaded says the program has more than one thread; heddle
// must clear it as glibc's pthread_create does, or the counts would be plain
// increments, scheduled in the middle and reported as data races.
#include <sys/single_threaded.h>

#include <cassert>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace {

struct config {
  int version;
};

std::mutex lock;
std::shared_ptr<config> current = std::make_shared<config>(config{1});

std::shared_ptr<config> read() {
  const std::lock_guard<std::mutex> g(lock);
  return current;
}

}  // namespace

int main() {
  assert(__libc_single_threaded != 0);
  std::thread reader([] {
    for (int i = 0; i < 3; ++i) {
      const std::shared_ptr<config> mine = read();
      std::vector<std::shared_ptr<config>> copies(2, mine);
      assert(mine->version >= 1 && copies[1]->version == mine->version);
    }
  });
  assert(__libc_single_threaded == 0);
  std::thread writer([] {
    const std::shared_ptr<config> next = std::make_shared<config>(config{2});
    const std::lock_guard<std::mutex> g(lock);
    current = next;
  });
  const std::shared_ptr<config> held = read();
  reader.join();
  writer.join();
  assert(held.use_count() >= 1 && read()->version == 2);
  return 0;
}
