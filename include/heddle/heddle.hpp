// The umbrella header: everything a test needs.
#pragma once

#include "heddle/explore.hpp"
#include "heddle/model.hpp"
#include "heddle/mutex.hpp"
#include "heddle/thread.hpp"
#include "heddle/version.hpp"
