// The umbrella header: every model and the explore() API. HEDDLE_TEST lives in
// heddle/test.hpp, which needs GoogleTest.
#pragma once

#include "heddle/atomic.hpp"
#include "heddle/barrier.hpp"
#include "heddle/chrono.hpp"
#include "heddle/condition_variable.hpp"
#include "heddle/explore.hpp"
#include "heddle/future.hpp"
#include "heddle/jthread.hpp"
#include "heddle/latch.hpp"
#include "heddle/lock.hpp"
#include "heddle/model.hpp"
#include "heddle/mutex.hpp"
#include "heddle/once.hpp"
#include "heddle/semaphore.hpp"
#include "heddle/shared.hpp"
#include "heddle/shared_mutex.hpp"
#include "heddle/stop_token.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "heddle/version.hpp"
