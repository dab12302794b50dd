#include "runner/finalize.hpp"

namespace heddle::detail {

finalized_bug finalize_trace(const trace& recorded, const iteration_outcome& outcome, const finalize_context& ctx) {
  return finalize_bug(ctx.body, recorded, outcome, {.stack_size = ctx.opts.stack_size}, ctx.opts.minimize, ctx.reduce);
}

}  // namespace heddle::detail
