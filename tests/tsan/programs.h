// The instrumented C functions of programs.c, for the tsan tests.
#pragma once

#ifdef __cplusplus
extern "C" {
#define TSAN_ATOMIC(T) T  // same layout; C++ code reads these only outside races
#else
#define TSAN_ATOMIC(T) _Atomic T
#endif
__extension__ typedef unsigned __int128 tsan_u128;

extern int plain_counter;
void bump(void);
int read_counter(void);
void bump_twice(void);

struct account {
  int balance;
  int deposits;
};
extern struct account checking;
void deposit(int amount);

extern TSAN_ATOMIC(int) atomic_counter;
void atomic_bump(int times);

extern int payload;
extern TSAN_ATOMIC(int) ready;
void publish(int value, int release);
int consume(int acquire);

int weak_cas_fails(TSAN_ATOMIC(int) * word);

extern int fenced_payload;
extern TSAN_ATOMIC(int) fenced_ready;
void publish_fenced(int value, int fenced);
int consume_fenced(int fenced);

extern unsigned long long wide_flag;
extern int wide_payload;
void publish_wide(int value);
int consume_narrow(void);

extern TSAN_ATOMIC(int) mixed;
void mixed_atomic_store(int value);
int mixed_atomic_load(void);
void mixed_plain_write(int value);
tsan_u128 wide_exchange(tsan_u128* word, tsan_u128 value);

extern unsigned char bytes[16];
void write_byte(int index);
// The same on a heap block (memory policy: not a global).
void write_block_byte(unsigned char* block, int index);

// Two pthreads bump a plain int, under a mutex or not; returns it after joining them.
int pthread_finishers(int locked);

#ifdef __cplusplus
}
#endif
