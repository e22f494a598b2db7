#!/usr/bin/env python3
"""The daemon's figures (issue 7) on a large print, as a client and the disk see them.

    python3 benches/daemon.py --exe /work/target-release/release/printdex \
        --project /tmp/printdex-scale-2000 [--index-dir /tmp/printdex-daemon-index] [--changes 30]

Measures, with the index warm:
  warm start    process start -> first list_tables answer (5 starts)
  next call     a table's statistics.yaml rewritten (atomic rename), then get_table_context
                at once: the time of that call, and whether it answered from the new file
  re-indexed    the same write (no call) -> the watcher's "handled" log line (mirror and
                search index committed), by the line's own timestamp
  watcher idle  CPU time (user+sys, /proc) the serving process spends over --idle seconds
                with no request and no change (the periodic reconcile included)
The print is restored afterwards.
"""
import argparse
import datetime
import json
import os
import re
import select
import shlex
import statistics
import subprocess
import sys
import time

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def rpc(proc, rid, method, params=None):
    msg = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        msg["params"] = params
    proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()
    while True:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("server closed stdout")
        reply = json.loads(line)
        if reply.get("id") == rid:
            return reply


def start(args, log=False):
    env = dict(os.environ)
    # One server process, killed and watched as one (not a session of a shared server).
    env.setdefault("PRINTDEX_SHARED", "off")
    if log:
        env["PRINTDEX_LOG"] = "printdex::store::watch=debug"
    cmd = [args.exe, "serve", "--project", args.project, "--index-dir", args.index_dir]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE if log else subprocess.DEVNULL,
                            text=True, env=env, bufsize=1)
    rpc(proc, 0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "1"}})
    proc.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    proc.stdin.flush()
    rpc(proc, 1, "tools/call", {"name": "list_tables", "arguments": {}})
    return proc, time.perf_counter() - t0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--index-dir", default="/tmp/printdex-daemon-index")
    ap.add_argument("--changes", type=int, default=30)
    ap.add_argument("--idle", type=float, default=60.0)
    args = ap.parse_args()

    # Cold once (a fresh index directory), then warm.
    import shutil
    shutil.rmtree(args.index_dir, ignore_errors=True)
    proc, cold = start(args)
    proc.stdin.close(); proc.wait()
    warm = []
    for _ in range(5):
        proc, t = start(args)
        warm.append(t)
        proc.stdin.close(); proc.wait()
    print(f"cold start (whole ingest) to first answer: {cold*1000:.0f} ms")
    print(f"warm start to first answer: median {statistics.median(warm)*1000:.0f} ms, "
          f"max {max(warm)*1000:.0f} ms")

    proc, _ = start(args, log=True)
    manifest = os.path.join(args.project, "prints/library/manifest.yaml")
    tables = [l.strip()[:-1] for l in open(manifest) if l.startswith("  ") and
              not l.startswith("   ") and l.strip().endswith(":") and l.count(".") == 2]
    root = os.path.join(args.project, "prints/library")
    err = proc.stderr

    def drain(until=None, timeout=5.0):
        """Read stderr lines; return the wall-clock time the server logged the first line
        matching `until` (its own timestamp, so the reading here adds nothing)."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            ready, _, _ = select.select([err], [], [], max(0.0, end - time.perf_counter()))
            if not ready:
                break
            line = ANSI.sub("", err.readline())
            if until and until(line):
                stamp = line.split()[0].replace("Z", "+00:00")
                return datetime.datetime.fromisoformat(stamp).timestamp()
        return None

    drain(timeout=1.0)
    visible, call_ms, reindex_ms = 0, [], []
    rid = 10
    for i in range(args.changes):
        fqn = tables[(i * 37) % len(tables)]
        stats = None
        db, schema, table = fqn.split(".")
        p = os.path.join(root, db, schema, table, "statistics.yaml")
        if os.path.exists(p):
            stats = p
        if not stats:
            continue
        original = open(stats).read()
        marker = 900000 + i
        changed = re.sub(r"^row_count: .*$", f"row_count: {marker}", original, count=1,
                         flags=re.M)
        tmp = stats + f".tmp{os.getpid()}"
        open(tmp, "w").write(changed)
        os.rename(tmp, stats)
        wrote = time.perf_counter()
        wrote_wall = time.time()
        if i % 2 == 0:
            # A call at once: it must answer from the new file.
            rid += 1
            reply = rpc(proc, rid, "tools/call", {"name": "get_table_context",
                                                  "arguments": {"table": fqn, "format": "json"}})
            call_ms.append((time.perf_counter() - wrote) * 1000)
            text = reply["result"]["content"][0]["text"]
            if json.loads(text)["statistics"]["row_count"] == marker:
                visible += 1
            drain(lambda l: "handled" in l and "Changed" in l, timeout=5.0)
        else:
            # No call: the watcher alone brings the mirror and the index up to date.
            done = drain(lambda l: "handled" in l and "Changed" in l, timeout=5.0)
            if done:
                reindex_ms.append((done - wrote_wall) * 1000)
        # Restore, and let that change settle before the next one.
        open(tmp, "w").write(original)
        os.rename(tmp, stats)
        drain(lambda l: "handled" in l and "Changed" in l, timeout=5.0)
        time.sleep(0.2)
        drain(timeout=0.05)
    print(f"single-table change: next call answered from the new file {visible}/{len(call_ms)}; "
          f"that call took median {statistics.median(call_ms):.1f} ms, max {max(call_ms):.1f} ms")
    if reindex_ms:
        print(f"re-indexed by the watcher after the write: median {statistics.median(reindex_ms):.0f} ms, "
              f"p95 {sorted(reindex_ms)[int(len(reindex_ms)*0.95)-1]:.0f} ms, max {max(reindex_ms):.0f} ms "
              f"({len(reindex_ms)} changes)")

    # Idle from here: the first periodic reconcile after the changes notes the identities
    # that settled since; the window starts after it.
    drain(timeout=65.0)
    before, t0 = cpu_seconds(proc.pid), time.perf_counter()
    end = t0 + args.idle
    while time.perf_counter() < end:
        drain(timeout=min(1.0, end - time.perf_counter()))
    used, spent = cpu_seconds(proc.pid) - before, time.perf_counter() - t0
    print(f"watcher idle: {used:.2f} s CPU over {spent:.0f} s = {100*used/spent:.2f}% of one core")
    proc.stdin.close(); proc.wait()


if __name__ == "__main__":
    sys.exit(main())
