// An iteration that never ends on its own: main blocks in pause(), a call the
// runtime does not model (orphan_test.sh kills the fork server meanwhile).
#include <unistd.h>

int main() {
  ::pause();
  return 0;
}
