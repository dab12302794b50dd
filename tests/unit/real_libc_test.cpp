// HEDDLE_REAL reaches the C library's definition past interposers.
#include <gtest/gtest.h>
#include <pthread.h>
#include <unistd.h>

#include "backends/real.hpp"

namespace {

TEST(real_libc, resolves_the_c_library_definition) {
  EXPECT_EQ(HEDDLE_REAL(getpid)(), ::getpid());
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  EXPECT_EQ(HEDDLE_REAL(pthread_mutex_lock)(&m), 0);
  EXPECT_EQ(HEDDLE_REAL(pthread_mutex_trylock)(&m), EBUSY);
  EXPECT_EQ(HEDDLE_REAL(pthread_mutex_unlock)(&m), 0);
}

TEST(real_libc, condition_variables_use_the_current_symbol_version) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  timespec past{0, 0};
  ASSERT_EQ(pthread_mutex_lock(&m), 0);
  EXPECT_EQ(HEDDLE_REAL_COND(pthread_cond_timedwait)(&c, &m, &past), ETIMEDOUT);
  EXPECT_EQ(HEDDLE_REAL_COND(pthread_cond_signal)(&c), 0);
  ASSERT_EQ(pthread_mutex_unlock(&m), 0);
}

}  // namespace
