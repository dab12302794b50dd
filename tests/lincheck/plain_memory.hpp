// Plain (non-atomic) memory in instrumented code, for memory_policy_test.cpp:
// which accesses the memory policy makes scheduling points under lincheck.
//
// plain_memory.cpp, and only it, is compiled with -fsanitize=thread against
// libheddle-rt (heddle_instrument() in CMakeLists.txt), so every access it
// makes reaches heddle's memory policy. The callers are not instrumented:
// what they touch is invisible to the policy.
#pragma once

namespace plain_memory {

// *slot += v, returning the new value: one plain read and one plain write of
// *slot, and no other instrumented access.
int add_to(int* slot, int v);

// A counter whose add() is a plain read-modify-write: two calls that
// interleave between the read and the write lose an update. The constructor
// (instrumented) writes the value, so every later access is to memory an
// operation other than the caller has touched.
class counter {
 public:
  counter();
  void add();
  int get() const;

 private:
  int value_;
};

}  // namespace plain_memory
