// Instrumented C code the tsan tests drive (compiled with -fsanitize=thread,
// like a program built with heddle-cc). No heddle header: only plain C and
// C11 atomics, so what heddle sees is what the compiler emitted. Tests check
// the file:line of reports against the lines marked "line:" below, so edit
// with care.
#include "programs.h"

#include <pthread.h>
#include <stdatomic.h>

int plain_counter;

void bump(void) {
  plain_counter = plain_counter + 1;  // line: bump
}

int read_counter(void) {
  return plain_counter;  // line: read_counter
}

void bump_twice(void) {
  bump();
  bump();
}

struct account checking;

void deposit(int amount) {
  int balance = checking.balance;
  checking.balance = balance + amount;
  checking.deposits = checking.deposits + 1;
}

_Atomic int atomic_counter;

void atomic_bump(int times) {
  for (int i = 0; i < times; ++i) atomic_fetch_add_explicit(&atomic_counter, 1, memory_order_relaxed);
}

int payload;
_Atomic int ready;

void publish(int value, int release) {
  payload = value;
  atomic_store_explicit(&ready, 1, release ? memory_order_release : memory_order_relaxed);
}

int consume(int acquire) {
  while (!atomic_load_explicit(&ready, acquire ? memory_order_acquire : memory_order_relaxed)) {
  }
  return payload;  // line: consume
}

int weak_cas_fails(_Atomic int* word) {
  int expected = atomic_load(word);
  return !atomic_compare_exchange_weak(word, &expected, expected + 1);
}

tsan_u128 wide_exchange(tsan_u128* word, tsan_u128 value) {
  return __atomic_exchange_n(word, value, __ATOMIC_SEQ_CST);
}

unsigned char bytes[16];

void write_byte(int index) { bytes[index] = (unsigned char)(bytes[index] + 1); }

void write_block_byte(unsigned char* block, int index) { block[index] = (unsigned char)(block[index] + 1); }

// Threads through the interposed pthread API (libheddle-rt's pthread surface):
// each worker records itself in a plain int, under the mutex or not; main reads
// it after joining both.
static int last_finisher;
static pthread_mutex_t last_finisher_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static int setup_value;

static void setup(void) { setup_value = 7; }

static void* finish(void* arg) {
  const int locked = arg != 0;
  pthread_once(&setup_once, setup);
  if (setup_value != 7) return NULL;
  if (locked) pthread_mutex_lock(&last_finisher_lock);
  last_finisher = last_finisher + 1;  // line: finish
  if (locked) pthread_mutex_unlock(&last_finisher_lock);
  return NULL;
}

int pthread_finishers(int locked) {
  pthread_t a, b;
  last_finisher = 0;
  pthread_create(&a, NULL, finish, locked ? &last_finisher : NULL);
  pthread_create(&b, NULL, finish, locked ? &last_finisher : NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return last_finisher;
}

/* Publication through fences: a relaxed flag after a release fence, read
 * relaxed and followed by an acquire fence (fenced 1), or seq_cst fences on
 * both sides (fenced 2), orders the payload; without fences (0) it races. */
int fenced_payload;
_Atomic int fenced_ready;

void publish_fenced(int value, int fenced) {
  fenced_payload = value;
  if (fenced == 1) atomic_thread_fence(memory_order_release);
  if (fenced == 2) atomic_thread_fence(memory_order_seq_cst);
  atomic_store_explicit(&fenced_ready, 1, memory_order_relaxed);
}

int consume_fenced(int fenced) {
  while (!atomic_load_explicit(&fenced_ready, memory_order_relaxed)) {
  }
  if (fenced == 1) atomic_thread_fence(memory_order_acquire);
  if (fenced == 2) atomic_thread_fence(memory_order_seq_cst);
  return fenced_payload;  // line: consume_fenced
}

/* An 8-byte flag published whole and read as its 4-byte low half: a
 * mixed-size atomic, which --memory-model rc11 does not model (it stays
 * sequentially consistent), with a plain payload it publishes. */
unsigned long long wide_flag;
int wide_payload;

void publish_wide(int value) {
  wide_payload = value;
  __atomic_store_n(&wide_flag, 1ULL, __ATOMIC_RELEASE);
}

int consume_narrow(void) {
  while (!__atomic_load_n((unsigned*)&wide_flag, __ATOMIC_ACQUIRE)) {
  }
  return wide_payload;  // line: consume_narrow
}

/* An atomic int also written plainly: undefined behaviour, a data race unless
 * ordered; atomic accesses alone never race. */
_Atomic int mixed;

void mixed_atomic_store(int value) { atomic_store_explicit(&mixed, value, memory_order_relaxed); }
int mixed_atomic_load(void) { return atomic_load_explicit(&mixed, memory_order_relaxed); }
void mixed_plain_write(int value) { *(int*)&mixed = value; }  // line: mixed_plain_write
