// Libraries whose threads heddle cannot see whole, found among those the
// program loaded at startup (known_libraries.cpp). Each is named to the user
// once, by the rule it breaks:
// - its threads hand each other pointers to their thread_local state, which
//   --backend fibers cannot give (every fiber's copy lies at one address):
//   such a run is refused, one line and exit status 2;
// - it orders its threads with atomics the instrumentation does not see
//   (the library is not instrumented, or they are inline assembly in its
//   headers): the race detector would report what they order as races, so
//   it is off for an instrumented program unless asked for.
#pragma once

namespace heddle::rt {

struct known_library {
  const char* path;  // as loaded
  const char* what;  // "libgomp (OpenMP)"
  const char* hidden_order;  // what its invisible atomics order, for the race detector's line
};

// The first loaded library whose threads pass thread_local state by pointer,
// or a null path.
known_library thread_local_by_pointer() noexcept;

// The first loaded library whose synchronization the race detector cannot
// see, or a null path.
known_library invisible_synchronization() noexcept;

}  // namespace heddle::rt
