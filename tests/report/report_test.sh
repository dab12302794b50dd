#!/usr/bin/env bash
# End-to-end tests of `heddle report`, one behaviour per invocation:
#
#   report_test.sh CASE HEDDLE REPORT_FIXTURE WORK_DIR
#
# report_fixture writes the minimized trace file of a bug-suite program
# (dining_philosophers: four operations, a deadlock) as the runner writes it.
# Each case checks exit codes, output text, the HTML and the Perfetto JSON;
# the Chromium case renders the page headless, checks the rendered DOM (one
# lane per operation, the bug message, the minimized trace shown by the
# script) and that the screenshot is a PNG that is not one flat colour.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/check.sh"

case_name=$1 heddle=$2 fixture=$3 work=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

make_trace() {
  run "$fixture" dining_philosophers trace.json
  expect_exit 0
  expect_nonempty_file trace.json
}

# python3 CHECK-SCRIPT ARGS...: a check written in Python; its assertion
# message becomes the failure.
check() {
  last_command="python3 check $*"
  python3 - "$@" >"$work/stdout" 2>"$work/stderr"
  rc=$?
  [[ $rc == 0 ]] || fail "check failed"
}

case $case_name in
  text_shows_original_and_minimized)
    make_trace
    run "$heddle" report trace.json
    expect_exit 0
    expect_stdout "deadlock: "
    expect_stdout "waits for mutex"
    expect_stdout "original:"
    expect_stdout "minimized:"
    expect_stdout "minimized interleaving:"
    expect_stdout "op 2 (philosopher 0)"
    expect_stdout "acquire mutex"
    ;;

  text_tells_the_bug_of_the_minimized_trace)
    # The minimized trace's own bug, not the original's, heads its interleaving.
    make_trace
    check trace.json <<'EOF2'
import json, sys
t = json.load(open(sys.argv[1]))
assert t["original"]["bug"]["message"] != "edited: the minimized trace's own message"
t["bug"]["message"] = "edited: the minimized trace's own message"
t["bug"]["step"] = 4321
json.dump(t, open(sys.argv[1], "w"))
EOF2
    run "$heddle" report trace.json
    expect_exit 0
    expect_stdout "deadlock: edited: the minimized trace's own message"
    expect_stdout "after 4321 steps"
    ;;

  html_is_self_contained_with_a_lane_per_operation)
    make_trace
    run "$heddle" report trace.json --html report.html
    expect_exit 0
    expect_nonempty_file report.html
    check report.html trace.json <<'EOF'
import json, re, sys
html = open(sys.argv[1]).read()
trace = json.load(open(sys.argv[2]))
# Self-contained: no external script, style sheet, image or font.
assert not re.search(r'<script[^>]+src=|<link[^>]+href=|<img|@import|url\(', html), "the HTML loads something"
sections = re.findall(r'<section class="trace" data-label="([a-z]+)"', html)
assert sections == ["original", "minimized"], sections
for label, t in (("original", trace["original"]), ("minimized", trace)):
    body = html.split(f'data-label="{label}"', 1)[1].split("</section>", 1)[0]
    lanes = re.findall(r'<g class="lane" data-operation="(\d+)"', body)
    ops = len(t["annotations"]["operations"])
    assert lanes == [str(i) for i in range(1, ops + 1)], (label, lanes, ops)
    # One rect per row: a step, with the data choices folded into it.
    rows = re.findall(r'<rect class="step[^"]*"[^>]* data-step="(\d+)" data-last-step="(\d+)"', body)
    covered = sorted(i for first, last in rows for i in range(int(first), int(last) + 1))
    assert covered == list(range(len(t["steps"]))), (label, "rows cover every step once")
    assert "philosopher 0" in body and "waits for mutex" in body, label
    assert re.search(r'data-kind="acquire" data-object="mutex #\d+" data-where="[^"]+:\d+"', body), "hover data"
    assert f'{len(t["steps"])} steps' in body
assert 'data-show="minimized"' in html and 'data-show="original"' in html, "no toggle"
EOF
    ;;

  html_renders_in_chromium_with_lanes_and_the_bug)
    make_trace
    run "$heddle" report trace.json --html report.html
    expect_exit 0
    browser=$(command -v chromium || command -v chromium-browser || true)
    if [[ -z $browser ]]; then
      echo "SKIP: chromium is not installed (Debian package 'chromium', in the Makefile's PACKAGES)"
      exit 0
    fi
    flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --no-first-run
           --user-data-dir="$work/profile" --window-size=1000,560)
    # One launch does both: the DOM after the script ran, and the screenshot.
    last_command="chromium --dump-dom --screenshot"
    timeout 60 "$browser" "${flags[@]}" --dump-dom --screenshot="$work/report.png" "file://$work/report.html" \
      >dom.html 2>chromium.log
    rc=$?
    [[ $rc == 0 ]] || fail "chromium failed: $(tail -3 chromium.log)"
    expect_nonempty_file report.png
    check dom.html trace.json report.png <<'EOF'
import json, re, struct, sys, zlib
dom = open(sys.argv[1]).read()
trace = json.load(open(sys.argv[2]))
# The script ran: the minimized trace is the one shown, its button pressed.
shown = re.findall(r'<section class="trace" data-label="([a-z]+)"(?! hidden)[^>]*>', dom)
assert shown == ["minimized"], f"sections shown after the script ran: {shown}"
assert re.search(r'data-show="minimized" aria-pressed="true"', dom), "the minimized button is not pressed"
body = dom.split('data-label="minimized"', 1)[1].split("</section>", 1)[0]
ops = len(trace["annotations"]["operations"])
lanes = re.findall(r'<g class="lane" data-operation="\d+"', body)
assert len(lanes) == ops, f"{len(lanes)} lanes for {ops} operations"
assert "deadlock" in body and "waits for mutex" in body, "the bug message is not on the page"

# The screenshot: a PNG whose pixels are not all one colour.
data = open(sys.argv[3], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width, height, ctype = 8, b"", 0, 0, 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    chunk = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, ctype = struct.unpack(">IIBB", chunk[:10])
        assert depth == 8 and ctype in (2, 6), f"unexpected PNG format (depth {depth}, colour type {ctype})"
    elif kind == b"IDAT":
        idat += chunk
    pos += 12 + length
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = width * bpp
previous = bytearray(stride)
colours = {}
for y in range(height):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = previous[x]
        c = previous[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, stride, bpp * 4):
            key = bytes(line[x:x + 3])
            colours[key] = colours.get(key, 0) + 1
    previous = line
total = sum(colours.values())
assert len(colours) >= 5, f"only {len(colours)} colours: a blank page"
assert max(colours.values()) < 0.98 * total, "one colour covers the page"
print(f"{width}x{height}, {len(colours)} colours sampled, {len(lanes)} lanes")
EOF
    ;;

  perfetto_json_has_tracks_slices_and_the_bug)
    make_trace
    run "$heddle" report trace.json --perfetto perfetto.json
    expect_exit 0
    expect_stdout "perfetto: perfetto.json"
    check perfetto.json trace.json <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
trace = json.load(open(sys.argv[2]))
events = doc["traceEvents"]
for e in events:
    for field in ("name", "ph", "pid", "tid"):
        assert field in e, (field, e)
for pid, t in ((1, trace["original"]), (2, trace)):
    mine = [e for e in events if e["pid"] == pid]
    names = {e["tid"]: e["args"]["name"] for e in mine if e["ph"] == "M" and e["name"] == "thread_name"}
    assert len(names) == len(t["annotations"]["operations"]), names
    slices = [e for e in mine if e["ph"] == "X"]
    assert [e["ts"] for e in slices] == list(range(len(t["steps"]))), "one slice per step, 1 us apart"
    assert all(e["dur"] == 1 and e["tid"] in names for e in slices)
    assert [e["tid"] for e in slices] == [a[0] for a in t["annotations"]["steps"]]
    bugs = [e for e in mine if e["ph"] == "i"]
    assert len(bugs) == 1 and bugs[0]["ts"] == len(t["steps"]) and bugs[0]["args"]["kind"] == "deadlock", bugs
EOF
    ;;

  bare_trace_reports_without_annotations)
    make_trace
    # The same trace without what the runner adds (as a crash's trace is).
    python3 - <<'EOF'
import json
t = json.load(open("trace.json"))
del t["annotations"], t["original"]
json.dump(t, open("bare.json", "w"))
EOF
    run "$heddle" report bare.json --html bare.html
    expect_exit 0
    expect_stdout "original:"
    expect_stdout "no source locations"
    expect_stdout "op 2 "
    [[ $out != *"minimized:"* ]] || fail "a bare trace has no original to compare with"
    expect_nonempty_file bare.html
    grep -q 'class="lane" data-operation="4"' bare.html || fail "the bare trace's HTML lacks lane 4"
    ;;

  bad_trace_is_one_line_and_exit_2)
    make_trace
    python3 - <<'EOF'
import json
t = json.load(open("trace.json"))
t["annotations"]["steps"] = t["annotations"]["steps"][:-1]
json.dump(t, open("short.json", "w"))
EOF
    for file in short.json missing.json; do
      run "$heddle" report "$file" --html x.html
      expect_exit 2
      [[ -z $out ]] || fail "expected nothing on stdout"
      [[ $(printf '%s\n' "$err" | wc -l) == 1 && $err == "heddle: "* ]] || fail "expected one line 'heddle: ...'"
    done
    [[ $err == *"cannot read trace file"* ]] || fail "the missing file is not named as such"
    run "$heddle" report short.json
    [[ $err == *"annotations"* ]] || fail "the short annotations are not named"
    run "$heddle" report trace.json --html /nonexistent-dir/x.html
    expect_exit 2
    [[ $err == *"cannot write the HTML report"* ]] || fail "an unwritable output is not named"
    ;;

  *)
    echo "report_test.sh: unknown case '$case_name'" >&2
    exit 2
    ;;
esac
exit 0
