// The pseudo-random generator of every randomized strategy lives in
// engine/rng.hpp: the engine draws `random`'s choices itself, inline
// (strategy::uniform_draws). Strategies, the runner and tests include it
// from here as before.
#pragma once

#include "engine/rng.hpp"
