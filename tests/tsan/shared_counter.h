// The instrumented shared library of the tsan tests (shared_counter.c).
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

extern int shared_total;
void add_to_total(int n);

#ifdef __cplusplus
}
#endif
