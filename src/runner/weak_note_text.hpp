// What a weak-memory note (engine/engine.hpp's weak_note) says in the row of
// its step, as docs/memory-model.md's "Reading a weak-memory report" shows:
//   (relaxed) from the initial value; the store of 7 by op 2 (producer) at mp.cpp:10 was not yet visible
// after the row's "saw 0", or, for a store placed before newer ones:
//   placed before the store by op 3 (b) at x.cpp:11 in modification order
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/engine.hpp"

namespace heddle::detail {

// `newest_value`: the text of the newest store's value ("" when unknown);
// `operation_title`: "op 2 (producer)" for an operation id.
std::string weak_note_text(const weak_note& note, const std::string& newest_value,
                           const std::function<std::string(operation_id)>& operation_title);

// The newest store's value bits as value_bits (heddle/atomic.hpp) makes them
// for a value of `kind`: signed integers sign-extended from `size` bytes, a
// float widened to a double.
std::uint64_t weak_note_value_bits(const weak_note& note, value_kind kind);

}  // namespace heddle::detail
