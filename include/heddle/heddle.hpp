// The umbrella header: everything a test needs.
#pragma once

#include "heddle/explore.hpp"
#include "heddle/model.hpp"
#include "heddle/mutex.hpp"
#include "heddle/chrono.hpp"
#include "heddle/this_thread.hpp"
#include "heddle/thread.hpp"
#include "heddle/version.hpp"
