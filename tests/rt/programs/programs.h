/* C programs the rt tests run under control: plain pthreads, no heddle
 * header. Each returns what the test checks; rt_check (defined by the test
 * binary) turns a violated expectation into an assertion bug. */
#ifndef HEDDLE_RT_TEST_PROGRAMS_H
#define HEDDLE_RT_TEST_PROGRAMS_H

#ifdef __cplusplus
extern "C" {
#endif

void rt_check(int condition, const char* what);

/* threads.c */
int prog_create_join_result(void);       /* returns the sum the threads returned */
void prog_counter(int threads, int locked); /* rt_check: no lost update */
void prog_abba(int ordered);             /* ABBA deadlock unless ordered */
int prog_mutex_misuse(int mode);         /* see threads.c */
int prog_join_misuse(int mode);
int prog_lost_wakeup(int fixed);
int prog_cond_destroy_waited(void);
int prog_cleanup_cancel(void);           /* C cleanup handlers under cancellation */
int prog_exit_with_cleanup(void);
int prog_cancel_joiner(void);            /* 1 when a cancelled joiner ends PTHREAD_CANCELED */
int prog_cancel_blocked(int where);      /* see threads.c */
void prog_main_exits(int* finished);     /* pthread_exit in main; a worker sets *finished */
int prog_lock_destroyed(void);
int prog_nonportable_joins(void);        /* 1 when tryjoin/timedjoin results are consistent */           /* locks a destroyed mutex (misuse) */

/* sync.c */
void prog_rwlock_counter(int writers_lock); /* rt_check: no lost update */
int prog_rwlock_rules(int mode);          /* see sync.c */
int prog_barrier_rounds(void);            /* returns how many waits were the serial one */
int prog_once(void);                      /* returns how often the routine ran */
void prog_bounded_buffer(int slots_free); /* rt_check: every item consumed in order */
long long prog_sleeps(void);              /* returns the virtual nanoseconds all sleeps took */
int prog_timeouts(void);                  /* returns how many timed waits timed out */
void prog_spin_counter(void);             /* rt_check: no lost update */
int prog_spin_relock(void);
int prog_yield_spin(int use_sleep);       /* spins until another thread sets a flag */

/* c11.c */
int prog_c11_threads(void);               /* returns the sum of thrd_join results + checks */
int prog_c11_lost_wakeup(int fixed);

#ifdef __cplusplus
}
#endif

#endif
