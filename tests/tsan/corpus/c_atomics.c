// ABI corpus: C11 <stdatomic.h> and the __atomic builtins at every width, every
// memory order and every operation, plus volatile, packed and memcpy-heavy code.
// Compiled with -fsanitize=thread only to read which __tsan_* symbols it needs.
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define ORDERS(X, T, name) \
  X(T, name, __ATOMIC_RELAXED) X(T, name, __ATOMIC_CONSUME) X(T, name, __ATOMIC_ACQUIRE) \
  X(T, name, __ATOMIC_RELEASE) X(T, name, __ATOMIC_ACQ_REL) X(T, name, __ATOMIC_SEQ_CST)

#define OPS(T, name, mo)                                                         \
  T name##_load_##mo(T* p) { return __atomic_load_n(p, mo == __ATOMIC_RELEASE || mo == __ATOMIC_ACQ_REL ? __ATOMIC_SEQ_CST : mo); } \
  void name##_store_##mo(T* p, T v) { __atomic_store_n(p, v, mo == __ATOMIC_CONSUME || mo == __ATOMIC_ACQUIRE || mo == __ATOMIC_ACQ_REL ? __ATOMIC_SEQ_CST : mo); } \
  T name##_xchg_##mo(T* p, T v) { return __atomic_exchange_n(p, v, mo); }        \
  T name##_add_##mo(T* p, T v) { return __atomic_fetch_add(p, v, mo); }          \
  T name##_sub_##mo(T* p, T v) { return __atomic_fetch_sub(p, v, mo); }          \
  T name##_and_##mo(T* p, T v) { return __atomic_fetch_and(p, v, mo); }          \
  T name##_or_##mo(T* p, T v) { return __atomic_fetch_or(p, v, mo); }            \
  T name##_xor_##mo(T* p, T v) { return __atomic_fetch_xor(p, v, mo); }          \
  T name##_nand_##mo(T* p, T v) { return __atomic_fetch_nand(p, v, mo); }        \
  T name##_addf_##mo(T* p, T v) { return __atomic_add_fetch(p, v, mo); }         \
  T name##_nandf_##mo(T* p, T v) { return __atomic_nand_fetch(p, v, mo); }       \
  int name##_cas_strong_##mo(T* p, T* e, T v) { return __atomic_compare_exchange_n(p, e, v, 0, mo, __ATOMIC_RELAXED); } \
  int name##_cas_weak_##mo(T* p, T* e, T v) { return __atomic_compare_exchange_n(p, e, v, 1, mo, __ATOMIC_RELAXED); }  \
  int name##_cas_strong_sc_##mo(T* p, T* e, T v) { return __atomic_compare_exchange_n(p, e, v, 0, __ATOMIC_SEQ_CST, mo == __ATOMIC_RELEASE || mo == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE : mo); }

ORDERS(OPS, uint8_t, u8)
ORDERS(OPS, uint16_t, u16)
ORDERS(OPS, uint32_t, u32)
ORDERS(OPS, uint64_t, u64)
#ifdef __SIZEOF_INT128__
ORDERS(OPS, unsigned __int128, u128)
#endif

void fences(void) {
  atomic_thread_fence(memory_order_acquire);
  atomic_thread_fence(memory_order_release);
  atomic_thread_fence(memory_order_seq_cst);
  atomic_signal_fence(memory_order_seq_cst);
  __atomic_thread_fence(__ATOMIC_ACQ_REL);
  __atomic_signal_fence(__ATOMIC_ACQUIRE);
}

_Atomic int c11_counter;
atomic_flag c11_flag = ATOMIC_FLAG_INIT;
int c11_ops(void) {
  atomic_fetch_add(&c11_counter, 1);
  atomic_fetch_sub_explicit(&c11_counter, 1, memory_order_relaxed);
  int expected = 0;
  atomic_compare_exchange_strong(&c11_counter, &expected, 2);
  atomic_compare_exchange_weak_explicit(&c11_counter, &expected, 3, memory_order_acq_rel,
                                        memory_order_acquire);
  while (atomic_flag_test_and_set(&c11_flag)) {}
  atomic_flag_clear(&c11_flag);
  c11_counter += 5;
  return atomic_load(&c11_counter) + c11_counter;
}

struct __attribute__((packed)) packed {
  char c;
  uint16_t h;
  uint32_t w;
  uint64_t d;
};
uint64_t packed_access(struct packed* p) {
  p->h++;
  p->w++;
  p->d++;
  return p->h + p->w + p->d;
}

uint64_t volatile_access(volatile uint8_t* b, volatile uint16_t* h, volatile uint32_t* w,
                         volatile uint64_t* d) {
  *b = 1;
  *h = 2;
  *w = 3;
  *d = 4;
  return *b + *h + *w + *d;
}

void bulk(char* dst, const char* src, unsigned long n) {
  memcpy(dst, src, n);
  memmove(dst + 1, dst, n - 1);
  memset(dst, 0, n / 2);
}

struct big { char bytes[64]; };
void struct_copy(struct big* a, const struct big* b) { *a = *b; }

uint64_t plain(uint8_t* b, uint16_t* h, uint32_t* w, uint64_t* d, unsigned __int128* q) {
  *b += 1;
  *h += 1;
  *w += 1;
  *d += 1;
  *q += 1;
  return *b + *h + *w + *d + (uint64_t)*q;
}
