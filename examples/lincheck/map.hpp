// A map with get_or_insert(key, value), in two versions for lincheck
// (docs/lincheck.md).
//
// racy_map looks the key up in one critical section and inserts in another:
// two calls for the same missing key both insert, and each returns its own
// value, where any sequential order has the second return the first's.
// fixed_map does both in one critical section. seq_map is the model.
#pragma once

#include <map>
#include <mutex>
#include <optional>

#include <heddle/lincheck.hpp>
#include <heddle/mutex.hpp>

namespace examples {

template <bool Atomic>
class locked_map {
 public:
  int get_or_insert(int key, int value) {
    if constexpr (Atomic) {
      std::lock_guard<heddle::mutex> guard(mutex_);
      return data_.try_emplace(key, value).first->second;
    } else {
      {
        std::lock_guard<heddle::mutex> guard(mutex_);
        if (auto it = data_.find(key); it != data_.end()) return it->second;
      }
      // the bug: another call may insert `key` between the two critical sections
      std::lock_guard<heddle::mutex> guard(mutex_);
      data_[key] = value;
      return value;
    }
  }

  std::optional<int> get(int key) {
    std::lock_guard<heddle::mutex> guard(mutex_);
    if (auto it = data_.find(key); it != data_.end()) return it->second;
    return std::nullopt;
  }

 private:
  heddle::mutex mutex_;
  std::map<int, int> data_;
};

using racy_map = locked_map<false>;
using fixed_map = locked_map<true>;

struct seq_map {
  std::map<int, int> data;
  int get_or_insert(int key, int value) { return data.try_emplace(key, value).first->second; }
  std::optional<int> get(int key) const {
    if (auto it = data.find(key); it != data.end()) return it->second;
    return std::nullopt;
  }
  bool operator==(const seq_map&) const = default;
};

template <class Map>
heddle::lincheck::spec<Map, seq_map> map_spec() {
  return heddle::lincheck::spec<Map, seq_map>()
      .op("get_or_insert", &Map::get_or_insert, &seq_map::get_or_insert, heddle::lincheck::values(1, 2),
          heddle::lincheck::range(10, 19))
      .op("get", &Map::get, &seq_map::get, heddle::lincheck::values(1, 2))
      .threads(2)
      .ops_per_thread(3);
}

}  // namespace examples
