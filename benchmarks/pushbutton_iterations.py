#!/usr/bin/env python3
"""Push-button iterations per second and page faults per iteration, run by hand.

What it measures: `heddle run` (the fork server and one child per iteration)
on a few of the bundled push-button programs, with the default strategy
portfolio and the default OS-thread backend, as a user runs them. For each
program and each runtime it reports, over several runs alternated between the
runtimes (the machine is noisy: only figures of one sitting compare):

  iterations/s     as the fork server counts it (the JSON summary's
                   iterations_per_second), median and range of the runs;
  CPU/iteration    user + system time of `heddle run` and all its processes
                   (getrusage(RUSAGE_CHILDREN)), per iteration, median;
  faults/iteration minor page faults of the same processes, per iteration,
                   median (a child's copy-on-write and first-touch faults are
                   most of a push-button iteration's cost on a VM).

  benchmarks/pushbutton_iterations.py [--build build/default] [--runs 5]
      [--iterations 1000] [--runtime NAME=DIR ...] [program ...]

A program is a name under <build>/tests/pushbutton (without the pushbutton_
prefix); by default wm_peterson_fixed, chase_lev_fixed and
abba_deadlock_fixed. `--runtime NAME=DIR` adds a runtime to compare: the
programs then load DIR/libheddle-rt.so (LD_LIBRARY_PATH, ahead of the
programs' RUNPATH); the build's own runtime is always measured, as "build".
To compare with an older commit, copy its libheddle-rt.so aside first:

  cp -L build/default/src/rt/libheddle-rt.so /tmp/before/   # on the old commit
  benchmarks/pushbutton_iterations.py --runtime before=/tmp/before

Not a timed test: figures go to docs/performance.md, with the date, the
machine and its load.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

DEFAULT_PROGRAMS = ["wm_peterson_fixed", "chase_lev_fixed", "abba_deadlock_fixed"]


def run_once(heddle, program, iterations, library_dir, out_dir):
    env = dict(os.environ)
    if library_dir:
        env["LD_LIBRARY_PATH"] = library_dir + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([heddle, "run", "--iterations", str(iterations), "--format", "json", "--out", out_dir,
                           "--", program], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        summary = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        sys.exit(f"pushbutton_iterations: {program}: no JSON summary (exit {done.returncode}): {done.stderr.strip()}")
    n = summary["iterations"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    faults = after.ru_minflt - before.ru_minflt
    return {"rate": summary["iterations_per_second"], "cpu_us": cpu / n * 1e6, "faults": faults / n,
            "status": summary["status"], "iterations": n}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/default")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--runtime", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("programs", nargs="*", default=DEFAULT_PROGRAMS)
    args = parser.parse_args()
    heddle = os.path.join(args.build, "bin", "heddle")
    runtimes = [("build", None)] + [tuple(r.split("=", 1)) for r in args.runtime]
    for name, directory in runtimes:
        if directory and not os.path.exists(os.path.join(directory, "libheddle-rt.so")):
            sys.exit(f"pushbutton_iterations: no libheddle-rt.so in {directory}")
    results = {}
    with tempfile.TemporaryDirectory() as out_dir:
        for program in args.programs:
            path = os.path.join(args.build, "tests", "pushbutton", "pushbutton_" + program)
            if not os.path.exists(path):
                sys.exit(f"pushbutton_iterations: no program {path}")
            run_once(heddle, path, 20, runtimes[0][1], out_dir)  # warm the page cache
            for _ in range(args.runs):
                for name, directory in runtimes:  # alternated, so that both see the same load
                    results.setdefault((program, name), []).append(
                        run_once(heddle, path, args.iterations, directory, out_dir))
    print(f"# {args.runs} runs of {args.iterations} iterations, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'program':<22} {'runtime':<10} {'iterations/s (range)':<26} {'CPU/iteration':>14} {'faults/iteration':>17}"
          f" {'status':>7}")
    for program in args.programs:
        base = None
        for name, _ in runtimes:
            rs = results[(program, name)]
            rates = [r["rate"] for r in rs]
            rate = statistics.median(rates)
            cpu = statistics.median(r["cpu_us"] for r in rs)
            faults = statistics.median(r["faults"] for r in rs)
            ratio = "" if base is None or not rate else f"  build's iterations/s x{base / rate:.2f} this one's"
            if base is None:
                base = rate
            print(f"{program:<22} {name:<10} {rate:>7.0f} ({min(rates):.0f}-{max(rates):.0f}){'':<8}"
                  f" {cpu:>11.0f} µs {faults:>17.1f} {rs[0]['status']:>7}{ratio}")


if __name__ == "__main__":
    main()
