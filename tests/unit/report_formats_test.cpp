// The readable forms of a bug's trace (src/runner/timeline, html_report,
// perfetto): the annotated trace file still loads as a plain trace and round
// trips its annotations and minimized trace; malformed annotations are one
// clear error; the HTML has one lane per operation and escapes what the
// program wrote; the Chrome trace-event JSON has the fields Perfetto needs.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "backends/fiber_backend.hpp"
#include "heddle/heddle.hpp"
#include "runner/html_report.hpp"
#include "runner/minimize.hpp"
#include "runner/saved_bug.hpp"
#include "runner/perfetto.hpp"
#include "runner/report.hpp"
#include "runner/summary_json.hpp"
#include "runner/timeline.hpp"
#include "strategies/strategies.hpp"

namespace {

using heddle::detail::timeline;
using nlohmann::json;

// A lost update between two named threads, with a message that needs escaping.
void lost_update() {
  heddle::atomic<int> counter{0};
  auto bump = [&] {
    heddle::this_thread::set_name("<bumper & co>");
    const int seen = counter.load();
    counter.store(seen + 1);
  };
  heddle::thread a(bump), b(bump);
  a.join();
  b.join();
  HEDDLE_ASSERT_MSG(counter.load() == 2, "lost <update> & \"more\"");
}

// The original and the minimized timeline of the lost update's first bug.
std::vector<timeline> found_and_minimized() {
  const heddle::result r = heddle::explore(
      {.iterations = 10'000, .strategy = "random", .print_report = false, .out = ""}, lost_update, {.test = "f.lost"});
  EXPECT_TRUE(r.bug);
  heddle::detail::fiber_backend fibers(256 * 1024);
  heddle::detail::engine engine(fibers, {});
  heddle::detail::replay_strategy replay(r.trace.steps);
  replay.begin_iteration(0, 0);
  const heddle::detail::iteration_outcome& outcome = engine.run(replay, lost_update);
  return heddle::detail::finalize_bug(lost_update, r.trace, outcome).timelines();
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + "/report_formats_" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(report_formats, annotated_trace_file_round_trips_and_still_replays_as_a_trace) {
  const std::vector<timeline> t = found_and_minimized();
  ASSERT_EQ(t.size(), 2u);
  const std::string text = heddle::detail::timeline_json(t[1], &t[0]);
  // A plain trace reader (replay) sees the minimized trace.
  EXPECT_EQ(heddle::trace_from_json(text), t[1].trace);
  const std::string path = write_temp("round.json", text);
  const std::vector<timeline> back = heddle::detail::load_timelines(path);
  std::remove(path.c_str());
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(back[i].label, t[i].label);
    EXPECT_EQ(back[i].trace, t[i].trace);
    EXPECT_EQ(back[i].operation_names, t[i].operation_names);
    EXPECT_EQ(back[i].preemptions, t[i].preemptions);
    EXPECT_TRUE(back[i].annotated);
    ASSERT_EQ(back[i].steps.size(), t[i].steps.size());
    for (std::size_t s = 0; s < t[i].steps.size(); ++s) {
      EXPECT_EQ(back[i].steps[s].operation, t[i].steps[s].operation);
      EXPECT_EQ(back[i].steps[s].object, t[i].steps[s].object);
      EXPECT_EQ(back[i].steps[s].line, t[i].steps[s].line);
      EXPECT_EQ(back[i].steps[s].preemption, t[i].steps[s].preemption);
    }
  }
  EXPECT_EQ(t[1].preemptions, 1u);
  EXPECT_EQ(t[0].operation_names, (std::vector<std::string>{"main", "<bumper & co>", "<bumper & co>"}));
}

TEST(report_formats, a_bare_trace_knows_who_ran_but_not_where) {
  const std::vector<timeline> t = found_and_minimized();
  const timeline bare = heddle::detail::make_timeline("original", t[0].trace);
  EXPECT_FALSE(bare.annotated);
  EXPECT_EQ(bare.operation_count(), 3u);
  for (std::size_t s = 0; s < bare.steps.size(); ++s) {
    EXPECT_EQ(bare.steps[s].operation, t[0].steps[s].operation) << s;
    EXPECT_EQ(bare.step_where(s), "");
  }
}

TEST(report_formats, malformed_annotations_are_one_clear_error) {
  const std::vector<timeline> t = found_and_minimized();
  json j = json::parse(heddle::detail::timeline_json(t[0]));
  j["annotations"]["steps"][0] = json::array({1, "x"});
  const std::string path = write_temp("bad.json", j.dump());
  try {
    (void)heddle::detail::load_timelines(path);
    FAIL() << "no error";
  } catch (const heddle::trace_error& e) {
    EXPECT_NE(std::string(e.what()).find("step 0 is not [operation, object, file, line, preemption]"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(report_formats, html_has_a_lane_per_operation_and_escapes_program_text) {
  const std::vector<timeline> t = found_and_minimized();
  const std::string html = heddle::detail::html_report(t);
  EXPECT_NE(html.find("&lt;bumper &amp; co&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<bumper"), std::string::npos);
  EXPECT_NE(html.find("lost &lt;update&gt; &amp; &quot;more&quot;"), std::string::npos);
  for (const char* lane : {"<g class=\"lane\" data-operation=\"1\"", "<g class=\"lane\" data-operation=\"2\"",
                           "<g class=\"lane\" data-operation=\"3\""}) {
    std::size_t count = 0;
    for (std::size_t at = html.find(lane); at != std::string::npos; at = html.find(lane, at + 1)) ++count;
    EXPECT_EQ(count, 2u) << lane;  // once per trace
  }
  EXPECT_EQ(html.find("<g class=\"lane\" data-operation=\"4\""), std::string::npos);
  EXPECT_NE(html.find("data-show=\"minimized\""), std::string::npos);
  EXPECT_NE(html.find("1 preemption<"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // the SVG namespace, nothing fetched
}

TEST(report_formats, perfetto_json_has_a_track_per_operation_a_slice_per_step_and_the_bug) {
  const std::vector<timeline> t = found_and_minimized();
  const json doc = json::parse(heddle::detail::chrome_trace_json(t));
  ASSERT_TRUE(doc.contains("traceEvents"));
  std::map<int, std::vector<json>> slices, bugs;
  std::map<int, std::set<int>> tracks;
  for (const json& e : doc["traceEvents"]) {
    for (const char* field : {"name", "ph", "pid", "tid"}) ASSERT_TRUE(e.contains(field)) << field << e.dump();
    const int pid = e["pid"].get<int>();
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks[pid].insert(e["tid"].get<int>());
    if (e["ph"] == "X") slices[pid].push_back(e);
    if (e["ph"] == "i") bugs[pid].push_back(e);
  }
  for (int pid : {1, 2}) {
    const timeline& tl = t[static_cast<std::size_t>(pid - 1)];
    EXPECT_EQ(tracks[pid], (std::set<int>{1, 2, 3}));
    ASSERT_EQ(slices[pid].size(), tl.steps.size());
    for (std::size_t i = 0; i < tl.steps.size(); ++i) {
      EXPECT_EQ(slices[pid][i]["ts"], i);
      EXPECT_EQ(slices[pid][i]["dur"], 1);
      EXPECT_EQ(slices[pid][i]["tid"], tl.steps[i].operation);
      EXPECT_EQ(slices[pid][i]["name"], tl.step_text(i));
    }
    ASSERT_EQ(bugs[pid].size(), 1u);
    EXPECT_EQ(bugs[pid][0]["ts"], tl.steps.size());
    EXPECT_EQ(bugs[pid][0]["args"]["kind"], "assertion");
    EXPECT_EQ(bugs[pid][0]["args"]["message"], "lost <update> & \"more\"");
  }
}

TEST(report_formats, text_report_shows_both_traces_and_the_minimized_interleaving) {
  const std::vector<timeline> t = found_and_minimized();
  const heddle::detail::report_context ctx{.test = "f.lost", .program = "/bin/x", .trace_file = "out/bug-1.json"};
  const std::string r = heddle::detail::format_report(*t[0].trace.found, t[0], &t[1], ctx);
  EXPECT_NE(r.find(fmt::format("minimized: {} -> 1 preemptions, {} -> {} steps", *t[0].preemptions,
                               t[0].steps.size(), t[1].steps.size())),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("minimized interleaving"), std::string::npos) << r;
  EXPECT_NE(r.find("* marks a preemption"), std::string::npos) << r;
  EXPECT_NE(r.find("replay: heddle replay out/bug-1.json"), std::string::npos) << r;
  EXPECT_NE(r.find("the minimized trace; the original is in it too"), std::string::npos) << r;
  EXPECT_NE(r.find(heddle::to_compact(t[1].trace)), std::string::npos) << r;
}

// A minimized trace ends in the same bug as the original, but its message
// (who waits for what) and its step count are its own: the report tells the
// bug of the interleaving it prints (issue 14, item 4).
TEST(report_formats, text_report_tells_the_bug_of_the_trace_it_shows) {
  std::vector<timeline> t = found_and_minimized();
  ASSERT_EQ(t.size(), 2u);
  t[1].trace.found->message = "the minimized trace's own message";
  t[1].trace.found->step = 4321;
  const heddle::detail::report_context ctx{.test = "f.lost", .program = "/bin/x", .trace_file = "out/bug-1.json"};
  const std::string r = heddle::detail::format_report(*t[0].trace.found, t[0], &t[1], ctx);
  EXPECT_NE(r.find("assertion: the minimized trace's own message"), std::string::npos) << r;
  EXPECT_NE(r.find("after 4321 steps"), std::string::npos) << r;
  EXPECT_EQ(r.find("lost <update>"), std::string::npos) << r;
}

// One numbering of iterations everywhere (docs/reports.md): the 0-based index
// of the trace header, in the text report, the HTML report, the trace file and
// the JSON record (issue 14, item 3).
TEST(report_formats, iteration_numbers_agree_in_every_report) {
  const std::string out = testing::TempDir() + "/report_formats_iterations";
  std::filesystem::remove_all(out);
  const heddle::options o{.iterations = 10'000, .strategy = "random", .seed = 7, .print_report = false, .out = out};
  const heddle::result r = heddle::explore(o, lost_update, {.test = "f.lost"});
  ASSERT_TRUE(r.bug);
  const std::uint64_t index = r.bugs.front().first_iteration;
  EXPECT_EQ(r.trace.header.iteration, index);
  EXPECT_EQ(heddle::load_trace(r.trace_file).header.iteration, index);
  EXPECT_NE(r.report.find(fmt::format("(iteration {}, strategy random, seed 7)", index)), std::string::npos)
      << r.report;
  std::string html_path = r.trace_file;
  html_path.replace(html_path.size() - 5, 5, ".html");
  std::ifstream html_in(html_path);
  const std::string html{std::istreambuf_iterator<char>(html_in), std::istreambuf_iterator<char>()};
  EXPECT_NE(html.find(fmt::format("iteration <code>{}</code>", index)), std::string::npos);
  const json record = heddle::detail::test_record("f.lost", o, r);
  EXPECT_EQ(record["iteration"], index);
  EXPECT_EQ(record["bugs"][0]["first_iteration"], index);
  std::filesystem::remove_all(out);
}

}  // namespace
