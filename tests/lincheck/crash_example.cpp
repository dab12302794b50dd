// A lincheck test whose object crashes in some interleavings (racy_slot.hpp),
// for tests/lincheck/cli_test.sh. Linked with heddle::main, so `heddle list`
// and `heddle test` see it; the crash must become a reported crash, minimized,
// with a trace `heddle replay` replays, not a silent death.
#include "racy_slot.hpp"

HEDDLE_LINCHECK_TEST(lincheck_crash, take_after_take) { return racy::slot_spec(); }
