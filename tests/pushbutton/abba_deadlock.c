// expect: deadlock mutex
/* Two threads take the same two pthread mutexes in opposite orders: each can
 * hold one and wait for the other (ABBA). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t accounts = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t audit_log = PTHREAD_MUTEX_INITIALIZER;
static int balance = 100;
static int entries;

static void* auditor(void* arg) {
  (void)arg;
  pthread_mutex_lock(&audit_log);
  pthread_mutex_lock(&accounts);
  ++entries;
  pthread_mutex_unlock(&accounts);
  pthread_mutex_unlock(&audit_log);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, auditor, NULL);
  pthread_mutex_lock(&accounts);
  pthread_mutex_lock(&audit_log);
  balance -= 10;
  ++entries;
  pthread_mutex_unlock(&audit_log);
  pthread_mutex_unlock(&accounts);
  pthread_join(t, NULL);
  printf("balance %d, %d entries\n", balance, entries);
  return 0;
}
