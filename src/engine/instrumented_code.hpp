// Whether this process runs code built with heddle-cc/heddle-c++, whose plain
// (non-atomic) memory accesses reach the runtime (libheddle-rt's __tsan_init
// notes it when the first instrumented module starts). Without it, heddle sees
// a test's atomics and models but not its plain memory: under rc11 a plain
// access ordered only by relaxed atomics is a data race heddle cannot report,
// and the verdict says so (statistics::plain_unseen_iterations).
#pragma once

namespace heddle::detail {

void note_instrumented_code() noexcept;
bool instrumented_code() noexcept;

}  // namespace heddle::detail
