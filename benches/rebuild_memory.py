#!/usr/bin/env python3
"""Row 6 of issue 27: `printdex index rebuild`'s wall time and peak memory, phase by phase.

Runs `EXE index rebuild --project P --index-dir I` (I is removed first) with the debug log
on, reads the process's /proc/<pid>/status every --every seconds (VmHWM, RssAnon,
RssFile) and reports the wall time, the peak (VmHWM), and the time and highest resident
memory (anonymous and mapped files) of each phase the log marks: the scan (until
`scanned`), the keeping of the head and image (until the index's table keys are read),
indexing (until `indexed`), closing the rebuilt index, and keeping what a session's first
calls read (a start of its own on the rebuilt index), then what follows. Several
executables run in turn, --runs times each:

    python3 benches/rebuild_memory.py --project /tmp/printdex-scale-100000 \\
        --index /tmp/idx-rebuild --exe target/release/printdex --exe /tmp/printdex-before

Linux only (it reads /proc). The print comes from benches/make_scale_print.sh.
"""

import argparse
import datetime
import os
import shutil
import subprocess
import tempfile
import time

PHASES = [
    ("scan", "printdex::ingest: scanned"),
    ("keep head and image", "the index's table keys read"),
    ("index", "printdex::store::search: indexed"),
    ("close", "keeping what a session's first calls read"),
    ("keep first calls", "kept what a session's first calls read"),
]


def status(pid):
    found = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("VmHWM", "RssAnon", "RssFile"):
                    found[key] = int(rest.split()[0]) // 1024
    except OSError:
        return None
    return found if len(found) == 3 else None


def stamp(line):
    """The UTC time a tracing line begins with, as seconds since the epoch."""
    text = line.split(" ", 1)[0].rstrip("Z")
    try:
        at = datetime.datetime.fromisoformat(text[:26])
    except ValueError:
        return None
    return at.replace(tzinfo=datetime.timezone.utc).timestamp()


def one_run(exe, project, index, every):
    shutil.rmtree(index, ignore_errors=True)
    env = dict(os.environ, PRINTDEX_LOG="debug")
    with tempfile.TemporaryFile(mode="w+") as log:
        started = time.time()
        proc = subprocess.Popen([exe, "index", "rebuild", "--project", project,
                                 "--index-dir", index],
                                stdout=subprocess.DEVNULL, stderr=log, env=env)
        samples = []
        while proc.poll() is None:
            seen = status(proc.pid)
            if seen:
                samples.append((time.time(), seen))
            time.sleep(every)
        wall = time.time() - started
        log.seek(0)
        ends = {}
        for line in log:
            for name, marker in PHASES:
                if marker in line and name not in ends:
                    ends[name] = stamp(line)
    if proc.returncode != 0:
        raise SystemExit(f"{exe}: index rebuild exited {proc.returncode}")
    phases = []
    begun = started
    for name, _ in PHASES + [("after", None)]:
        end = ends.get(name, float("inf")) if name != "after" else float("inf")
        inside = [s for t, s in samples if begun <= t < end]
        if inside:
            top = max(inside, key=lambda s: s["RssAnon"] + s["RssFile"])
            took = (min(end, started + wall) - begun)
            phases.append((name, took, top["RssAnon"] + top["RssFile"], top["RssAnon"],
                           top["RssFile"]))
        begun = end if end != float("inf") else begun
    peak = max((s["VmHWM"] for _, s in samples), default=0)
    return wall, peak, phases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", required=True)
    parser.add_argument("--index", required=True,
                        help="index directory to rebuild into (removed first)")
    parser.add_argument("--exe", action="append", required=True)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--every", type=float, default=0.05,
                        help="seconds between samples")
    args = parser.parse_args()
    for run in range(args.runs):
        for exe in args.exe:
            wall, peak, phases = one_run(exe, args.project, args.index, args.every)
            print(f"## {exe} (run {run + 1}): {wall:.1f} s, peak RSS {peak} MB")
            print("| phase | took (s) | highest resident (MB) | anonymous | mapped files |")
            print("|---|---|---|---|---|")
            for name, took, total, anon, mapped in phases:
                print(f"| {name} | {took:.1f} | {total} | {anon} | {mapped} |")
            print()


if __name__ == "__main__":
    main()
