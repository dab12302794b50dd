// Four concurrent objects that are not linearizable, checked by lincheck:
// each test fails and prints the minimized scenario, its interleaving and why
// no sequential order explains the results (docs/lincheck.md shows one).
// Their fixed twins are in lincheck_fixed.cpp.
#include "map.hpp"
#include "queue.hpp"
#include "stack.hpp"
#include "treiber.hpp"

HEDDLE_LINCHECK_TEST(lincheck_stack, size_updated_after_push) { return examples::stack_spec<examples::racy_stack>(); }
HEDDLE_LINCHECK_TEST(lincheck_queue, dequeue_moves_head_without_cas) {
  return examples::queue_spec<examples::racy_queue>();
}
HEDDLE_LINCHECK_TEST(lincheck_map, get_or_insert_in_two_steps) { return examples::map_spec<examples::racy_map>(); }
HEDDLE_LINCHECK_TEST(lincheck_treiber, aba_on_a_reused_node) { return examples::treiber_spec<examples::aba_stack>(); }
