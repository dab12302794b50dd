// expect: data_race data race on 8 bytes
// Two threads share one configuration through a std::shared_ptr<config>
// object: a reader copies it while a writer replaces it, without a lock. Copies
// of one shared_ptr may be made and dropped in any thread (their reference
// count is atomic once the program has a second thread), but the object
// itself is a plain variable: the copy reads its pointer while the
// assignment writes it, a real data race (std::atomic<std::shared_ptr> or a
// mutex fixes it).
#include <cassert>
#include <memory>
#include <thread>

namespace {

struct config {
  int version;
};

std::shared_ptr<config> current = std::make_shared<config>(config{1});

}  // namespace

int main() {
  std::thread reader([] {
    const std::shared_ptr<config> mine = current;  // the bug: no lock
    assert(mine->version >= 1);
  });
  std::thread writer([] { current = std::make_shared<config>(config{2}); });
  reader.join();
  writer.join();
  return 0;
}
