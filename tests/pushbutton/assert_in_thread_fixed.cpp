// The fixed twin of assert_in_thread.cpp: both fields change in one critical
// section.
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
    std::lock_guard<std::mutex> guard(lock);
    first = 1;
    second = 1;
  });
  std::thread reader([] {
    std::lock_guard<std::mutex> guard(lock);
    assert(first == second);
  });
  writer.join();
  reader.join();
}
