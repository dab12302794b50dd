// Reads and writes of a plain variable, each preceded by a scheduling point,
// so the interleavings a real machine produces between a read and the write
// that depends on it are explored.
//
// A stand-in for heddle::shared<T> (whose loads and stores are scheduling
// points of their own) until that header lands.
#pragma once

#include "heddle/this_thread.hpp"

namespace heddle_bugs {

template <class T>
T read(const T& v) {
  heddle::this_thread::yield();
  return v;
}

template <class T, class U>
void write(T& v, U value) {
  heddle::this_thread::yield();
  v = static_cast<T>(value);
}

}  // namespace heddle_bugs
