// Scenario generation: from a seed, an init part, T threads of K calls, and a
// post part, drawing operations uniformly and arguments from the declared
// generators. Restrictions: an operation declared once() appears at most once
// per scenario; the operations of a group() are called by one thread only in
// the parallel part (a thread chosen per scenario), and freely in the
// sequential parts. A thread left with no allowed operation is shorter.
#include <map>

#include "lincheck/scenario.hpp"

namespace heddle::lincheck::detail {

scenario generate_scenario(const erased_spec& spec, const lincheck::options& opts, random_source& r) {
  scenario sc;
  std::vector<bool> used(spec.ops.size(), false);
  std::size_t next_id = 0;
  std::map<std::string, std::size_t> group_thread;
  for (const operation_decl& d : spec.ops)
    if (!d.group.empty() && !group_thread.contains(d.group))
      group_thread[d.group] = std::uniform_int_distribution<std::size_t>(0, opts.threads - 1)(r);

  // `thread` is the parallel thread, or no thread for the sequential parts.
  auto draw = [&](std::optional<std::size_t> thread) -> std::optional<actor> {
    std::vector<std::size_t> allowed;
    for (std::size_t i = 0; i < spec.ops.size(); ++i) {
      const operation_decl& d = spec.ops[i];
      if (d.once && used[i]) continue;
      if (thread && !d.group.empty() && group_thread[d.group] != *thread) continue;
      allowed.push_back(i);
    }
    if (allowed.empty()) return std::nullopt;
    const std::size_t op = allowed[std::uniform_int_distribution<std::size_t>(0, allowed.size() - 1)(r)];
    used[op] = true;
    return actor{op, spec.ops[op].generate(r), next_id++};
  };
  for (std::size_t i = 0; i < opts.init_ops; ++i)
    if (auto a = draw(std::nullopt)) sc.init.push_back(std::move(*a));
  sc.threads.resize(opts.threads);
  for (std::size_t t = 0; t < opts.threads; ++t)
    for (std::size_t i = 0; i < opts.ops_per_thread; ++i)
      if (auto a = draw(t)) sc.threads[t].push_back(std::move(*a));
  for (std::size_t i = 0; i < opts.post_ops; ++i)
    if (auto a = draw(std::nullopt)) sc.post.push_back(std::move(*a));
  return sc;
}

}  // namespace heddle::lincheck::detail
