// A shared library built the way heddle_instrument() builds one (compiled with
// -fsanitize=thread, linked to libheddle-rt): its accesses are hooks too, so
// a race inside it is found and named with its own source line.
#include "shared_counter.h"

int shared_total;

void add_to_total(int n) {
  shared_total = shared_total + n;  // line: add_to_total
}
