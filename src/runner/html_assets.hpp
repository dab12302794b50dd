// The style sheet and script of the HTML report (html_report.cpp), embedded
// so a report is one self-contained file: no network, no other file.
//
// Contract with the markup: each trace is a <section class="trace"
// data-label=...>, hidden unless its toggle button (button[data-show]) is
// pressed; every step is an SVG rect.step with data-step, data-kind,
// data-object, data-where and data-operation; a section's div.detail shows
// the step under the pointer. The page reads fine without the script (the
// first trace shows; every step has a <title> tooltip).
#pragma once

#include <string_view>

namespace heddle::detail::html_assets {

inline constexpr std::string_view style = R"css(
:root { --ink: #1f2933; --muted: #616e7c; --line: #d9e2ec; --paper: #ffffff; --panel: #f5f7fa;
        --bug: #b42318; --preempt: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
       background: var(--paper); }
header { padding: 18px 24px 10px; border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { margin: 0 0 4px; font-size: 18px; font-weight: 600; }
.meta { color: var(--muted); font-size: 13px; }
.meta code, .detail code, .bug code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, monospace; }
nav.toggle { margin-top: 12px; display: flex; gap: 8px; flex-wrap: wrap; }
nav.toggle button { font: inherit; padding: 5px 12px; border: 1px solid var(--line); border-radius: 6px;
                    background: var(--paper); color: var(--ink); cursor: pointer; }
nav.toggle button[aria-pressed="true"] { border-color: #3e4c59; background: #3e4c59; color: #fff; }
main { padding: 16px 24px 32px; }
.summary { margin: 0 0 10px; color: var(--muted); }
.grid { display: grid; grid-template-columns: max-content 1fr; border: 1px solid var(--line); border-radius: 6px; }
.labels { border-right: 1px solid var(--line); background: var(--panel); padding-top: 22px; }
.label { height: 30px; padding: 0 12px; display: flex; align-items: center; white-space: nowrap; font-size: 13px; }
.scroll { overflow-x: auto; }
svg.lanes { display: block; }
svg .axis text { fill: var(--muted); font-size: 10px; }
svg .axis line { stroke: var(--line); }
svg .lane-bg { fill: var(--paper); }
svg .lane:nth-child(even) .lane-bg { fill: #fafbfc; }
svg .flow { fill: none; stroke: #9aa5b1; stroke-width: 1; opacity: .7; }
svg .step { stroke: rgba(0,0,0,.18); stroke-width: .5; cursor: default; }
svg .step:hover, svg .step.current { stroke: var(--ink); stroke-width: 1.5; }
svg .step-label { font: 10.5px ui-monospace, SFMono-Regular, Menlo, monospace; fill: #fff; pointer-events: none;
                  paint-order: stroke; stroke: rgba(0,0,0,.45); stroke-width: 2px; }
svg .preempt { fill: var(--preempt); }
svg .bug-marker { fill: var(--bug); stroke: #fff; stroke-width: 1; }
.k-lifecycle { fill: #9fb3c8; } .k-lock { fill: #4c78a8; } .k-wait { fill: #9c6ade; }
.k-read { fill: #54a24b; } .k-write { fill: #f58518; } .k-rmw { fill: #d9a404; } .k-fence { fill: #829ab1; }
.k-yield { fill: #cbd2d9; } .k-choose { fill: #2f9e9e; } .k-message { fill: #9d755d; } .k-user { fill: #7b8794; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; margin: 10px 0 0; color: var(--muted); font-size: 12px; }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 5px;
                       border-radius: 2px; background: var(--c); vertical-align: -1px; }
.detail { margin: 12px 0; padding: 8px 12px; min-height: 2.2em; background: var(--panel); border-radius: 6px; }
.bug { margin-top: 14px; padding: 12px 14px; border-left: 4px solid var(--bug); background: #fef3f2; border-radius: 4px; }
.bug .kind { color: var(--bug); font-weight: 600; }
.bug .message { white-space: pre-wrap; }
.bug .where { color: var(--muted); margin-top: 4px; }
)css";

inline constexpr std::string_view script = R"js(
(function () {
  const buttons = Array.from(document.querySelectorAll('nav.toggle button[data-show]'));
  const sections = Array.from(document.querySelectorAll('section.trace'));
  function show(label) {
    for (const s of sections) s.hidden = s.dataset.label !== label;
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.show === label));
  }
  for (const b of buttons) b.addEventListener('click', () => show(b.dataset.show));
  for (const s of sections) {
    const detail = s.querySelector('.detail');
    s.addEventListener('mouseover', (e) => {
      const step = e.target.closest('rect.step');
      if (!step || !detail) return;
      for (const c of s.querySelectorAll('rect.step.current')) c.classList.remove('current');
      step.classList.add('current');
      const d = step.dataset;
      detail.textContent = '';
      const parts = [['step', d.lastStep && d.lastStep !== d.step ? d.step + '-' + d.lastStep : d.step],
                     ['operation', d.operationTitle], ['did', d.did || d.kind],
                     ['object', d.object || '(none)'], ['source', d.where || '(unknown)']];
      parts.forEach(([name, value], i) => {
        if (i > 0) detail.append(' \u00b7 ');
        const b = document.createElement('b');
        b.textContent = name + ' ';
        detail.append(b);
        const c = document.createElement('code');
        c.textContent = value;
        detail.append(c);
      });
      if (d.preemption === 'true') detail.append(' \u00b7 preemption');
    });
  }
  if (buttons.length > 0) show(buttons[buttons.length - 1].dataset.show);
})();
)js";

}  // namespace heddle::detail::html_assets
