// The fixed twins of lincheck_buggy.cpp: every test passes.
#include "map.hpp"
#include "queue.hpp"
#include "stack.hpp"
#include "treiber.hpp"

HEDDLE_LINCHECK_TEST(lincheck_stack, size_updated_under_lock) { return examples::stack_spec<examples::fixed_stack>(); }
HEDDLE_LINCHECK_TEST(lincheck_queue, dequeue_moves_head_with_cas) { return examples::queue_spec<examples::fixed_queue>(); }
HEDDLE_LINCHECK_TEST(lincheck_map, get_or_insert_atomic) { return examples::map_spec<examples::fixed_map>(); }
HEDDLE_LINCHECK_TEST(lincheck_treiber, tagged_head) { return examples::treiber_spec<examples::tagged_stack>(); }
