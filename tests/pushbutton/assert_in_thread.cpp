// expect: assertion first == second
// A writer updates two fields in two critical sections; a reader asserts
// they agree. The reader can run between the writer's two sections.
#include <cassert>
#include <mutex>
#include <thread>

namespace {
std::mutex lock;
int first = 0;
int second = 0;
}  // namespace

int main() {
  std::thread writer([] {
    {
      std::lock_guard<std::mutex> guard(lock);
      first = 1;
    }
    std::lock_guard<std::mutex> guard(lock);
    second = 1;
  });
  std::thread reader([] {
    std::lock_guard<std::mutex> guard(lock);
    assert(first == second);
  });
  writer.join();
  reader.join();
}
