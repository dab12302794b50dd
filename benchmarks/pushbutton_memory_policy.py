#!/usr/bin/env python3
"""The memory policies of heddle run on the programs of tests/pushbutton
(docs/pushbutton.md, "Memory policy").

For each buggy program: the iterations the default strategy (seed 1) needs
to find its bug, at most 10,000. For each fixed twin, over 1,000 iterations:
the mean decisions per iteration (what a policy costs, independent of the
machine's load) and iterations/s (the median of --rounds runs). The
configurations run interleaved, program by program, so that they share the
machine's load.

  pushbutton_memory_policy.py BUILD_DIR NAME=VAR=VALUE[,VAR=VALUE] ... [--rounds N]

e.g. shared=HEDDLE_MEMORY=shared all=HEDDLE_MEMORY=all
     before=LD_LIBRARY_PATH=/path/to/an/older/build/src/rt   (its libheddle-rt)
"""
import json
import os
import pathlib
import statistics
import subprocess
import sys


def run(heddle, program, flags, environment, iterations, record=False):
    command = [heddle, "run", "--format", "json", "--seed", "1", "--iterations", str(iterations),
               "--iteration-timeout", "2s", "--out", "/tmp/heddle-policy-out"]
    environment = dict(environment, HEDDLE_RECORD_ITERATIONS="1" if record else "0")
    out = subprocess.run(command + flags + ["--", program], env=environment, capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    return json.loads(lines[-1]) if lines else {}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--rounds")]
    rounds = int(next((a.split("=")[1] for a in sys.argv[1:] if a.startswith("--rounds=")), "3"))
    build = pathlib.Path(args[0]).resolve()
    configs = []
    for spec in args[1:]:
        name, assignments = spec.split("=", 1)
        environment = dict(os.environ)
        for assignment in assignments.split(","):
            variable, value = assignment.split("=", 1)
            environment[variable] = value
        configs.append((name, environment))
    heddle = str(build / "bin" / "heddle")
    sources = pathlib.Path(__file__).resolve().parent.parent / "tests" / "pushbutton"
    print(f"{'program':30} {'config':8} {'found at':>8} {'steps/it':>9} {'it/s':>7}")
    totals = {name: [0, 0, []] for name, _ in configs}  # found, total steps, rates
    for source in sorted(list(sources.glob("*.c")) + list(sources.glob("*.cpp"))):
        name = source.stem
        if name.endswith("_fixed"):
            continue
        flags = []
        for line in source.read_text().splitlines():
            if line.startswith("// heddle: "):
                flags = line[len("// heddle: "):].split()
        program = str(build / "tests" / "pushbutton" / f"pushbutton_{name}")
        for config, environment in configs:
            found = run(heddle, program, flags, environment, 10000)
            at = found.get("iterations") if found.get("status") == "bug" else None
            rates, steps = [], None
            for _ in range(rounds):
                fixed = run(heddle, program + "_fixed", flags, environment, 1000, record=True)
                rates.append(fixed.get("iterations_per_second", 0))
                if steps is None and fixed.get("schedules"):
                    steps = statistics.mean(s[2] for s in fixed["schedules"])
            rate = statistics.median(rates)
            totals[config][0] += at is not None
            totals[config][1] += steps or 0
            totals[config][2].append(rate)
            print(f"{name:30} {config:8} {at if at else 'none':>8} {steps or 0:9.1f} {rate:7.0f}", flush=True)
    for config, (found, steps, rates) in totals.items():
        print(f"total {config}: {found} bugs found, {steps:.0f} decisions per iteration summed over the twins, "
              f"median it/s {statistics.median(rates):.0f}")


if __name__ == "__main__":
    main()
