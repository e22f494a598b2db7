#!/usr/bin/env python3
"""What a session costs, as issue 27's table counts it, for sessions started together on one
warm index (Linux: it reads /proc):

    python3 benches/sessions.py --exe target/release/printdex \\
        --project /tmp/printdex-scale-100000 --index /tmp/idx-100000 [--sessions 3] [--settling]

The index must be built already (`printdex index rebuild --project P --index-dir I`). Each
round starts `--sessions` servers at once over the same index and reports, per session:
process start to the first list_tables answer; the first call of every kind right after
(issue 27's "no warm-up" row); CPU seconds burnt from the start until the process has been
idle for `--idle` seconds; RSS and PSS (from /proc/<pid>/smaps_rollup, where pages the
sessions share, such as a mapped index, count once) once idle; and whether it fell back to
a private temporary index (a `printdex-private-index-<pid>-*` directory in its TMPDIR).
With `--settling`, one session is started first and the others as soon as it answered,
while it settles (the reproduction of issue 27: none may fall back).
The sum of the sessions' PSS is the row "three concurrent sessions ... together".

Sessions serve in-process (`PRINTDEX_SHARED=off`) unless `--shared`: then they share one
server per index (the default of `printdex serve` over stdio, on Unix), whose host process
is measured too (its CPU to idle, RSS and PSS, counted once in the sum), with its sockets
in a runtime directory of the bench's own; the host is stopped at the end.
"""
import argparse
import glob
import os
import signal
import shutil
import tempfile
import threading
import time

from mcp_client import Client

FIRST_CALLS = [
    ("get_diff table", "tools/call",
     {"name": "get_diff", "arguments": {"table": "stacks.lending_c0001.loans"}}),
    ("get_table_context query md", "tools/call",
     {"name": "get_table_context",
      "arguments": {"table": "stacks.lending_c0001.loans", "purpose": "query"}}),
    ("search_columns text legacy", "tools/call",
     {"name": "search_columns", "arguments": {"text": "legacy"}}),
    ("search_columns pattern *email*", "tools/call",
     {"name": "search_columns", "arguments": {"pattern": "*email*"}}),
    ("validate_sql", "tools/call",
     {"name": "validate_sql", "arguments": {"sql": (
         "SELECT l.loan_id, p.full_nam FROM stacks.lending_c0001.loans l "
         "JOIN stacks.members_c0001.patrons p ON p.patron_id = l.patron_id")}}),
    ("resources/list", "resources/list", {}),
    ("resources/read statistics", "resources/read",
     {"uri": "dbprint://library/stacks.catalog_c0001.books/statistics"}),
]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # utime and stime: fields 14 and 15 of stat(5), 12 and 13 after the name.
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_kib(pid):
    """(RSS, PSS) in KiB, from smaps_rollup."""
    found = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("Rss", "Pss"):
                found[key] = int(rest.split()[0])
    return found.get("Rss", 0), found.get("Pss", 0)


def wait_idle(pid, idle):
    """CPU seconds once the process has burnt less than 2% of a core for `idle` seconds."""
    last = cpu_seconds(pid)
    quiet_since = time.monotonic()
    while time.monotonic() - quiet_since < idle:
        time.sleep(0.25)
        now = cpu_seconds(pid)
        if now - last > 0.005:
            quiet_since = time.monotonic()
        last = now
    return last


def host_pids(runtime):
    pids = []
    for path in glob.glob(os.path.join(runtime, "*.pid")):
        try:
            with open(path) as f:
                pids.append(int(f.read().strip()))
        except (OSError, ValueError):
            pass
    return pids


class Session:
    def __init__(self, exe, project, index, tmp, stderr=None, env=None):
        self.tmp = tmp
        self.stderr = stderr
        self.env = env or {}
        self.pause = 0.0
        self.result = {}
        self.cmd = f"{exe} serve --project {project} --index-dir {index}"

    def run(self):
        started = time.perf_counter()
        self.client = Client(self.cmd, cwd=".",
                             env=dict(os.environ, TMPDIR=self.tmp, **self.env),
                             stderr=self.stderr)
        self.client.result("tools/call", {"name": "list_tables", "arguments": {}})
        self.result["start to first list_tables (ms)"] = (time.perf_counter() - started) * 1000

    def first_calls(self):
        time.sleep(self.pause)
        for label, method, params in FIRST_CALLS:
            t = time.perf_counter()
            self.client.request(method, params)
            self.result[f"first {label} (ms)"] = (time.perf_counter() - t) * 1000

    def settle(self, idle):
        pid = self.client.pid
        self.result["CPU to idle (s)"] = wait_idle(pid, idle)
        rss, pss = memory_kib(pid)
        self.result["RSS (MB)"] = rss / 1024
        self.result["PSS (MB)"] = pss / 1024
        private = [n for n in os.listdir(self.tmp)
                   if n.startswith(f"printdex-private-index-{pid}-")]
        self.result["private index"] = "yes" if private else "no"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--index", required=True)
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--idle", type=float, default=3.0)
    ap.add_argument("--settling", action="store_true")
    ap.add_argument("--pause", type=float, default=0.0,
                    help="seconds each session waits after its first list_tables before "
                    "its first calls (an agent reading the listing)")
    ap.add_argument("--later", action="store_true",
                    help="with --shared: start the rest once the first session's shared "
                    "server is idle (a new session on a project already served)")
    ap.add_argument("--shared", action="store_true",
                    help="sessions share one server per index (the stdio default)")
    ap.add_argument("--stderr-dir", help="keep each session's stderr here (session-N.log); "
                    "PRINTDEX_LOG=debug says whether a start read beside a live writer")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="printdex-sessions-bench-")
    runtime = os.path.join(tmp, "run")
    os.mkdir(runtime, 0o700)
    env = ({"PRINTDEX_SHARED": "on", "PRINTDEX_RUNTIME_DIR": runtime} if args.shared
           else {"PRINTDEX_SHARED": "off"})
    # A thread per session: they start at once.
    logs = []
    if args.stderr_dir:
        os.makedirs(args.stderr_dir, exist_ok=True)
        logs = [open(os.path.join(args.stderr_dir, f"session-{i + 1}.log"), "w")
                for i in range(args.sessions)]
    sessions = [Session(args.exe, os.path.abspath(args.project), os.path.abspath(args.index),
                        tmp, logs[i] if logs else None, env) for i in range(args.sessions)]
    for s in sessions:
        s.pause = args.pause
    try:
        def whole(s):
            s.run()
            s.first_calls()

        if args.later:
            # The rest start once the first and its shared server are idle.
            whole(sessions[0])
            sessions[0].settle(args.idle)
            for pid in host_pids(runtime):
                wait_idle(pid, args.idle)
            threads, rest = [], sessions[1:]
        elif args.settling:
            # The rest start as soon as the first answered, while it settles.
            sessions[0].run()
            threads = [threading.Thread(target=sessions[0].first_calls)]
            rest = sessions[1:]
        else:
            threads, rest = [], sessions
        threads += [threading.Thread(target=whole, args=(s,)) for s in rest]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for s in sessions:
            s.settle(args.idle)
        hosts = host_pids(runtime)
        host_pss = 0.0
        for pid in hosts:
            cpu = wait_idle(pid, args.idle)
            rss, pss = memory_kib(pid)
            host_pss += pss / 1024
            print(f"shared server {pid}: CPU to idle {cpu:.1f} s, RSS {rss / 1024:.0f} MB, "
                  f"PSS {pss / 1024:.0f} MB\n")
        keys = list(sessions[0].result)
        print("| measure | " + " | ".join(f"session {i + 1}" for i in range(len(sessions))) + " |")
        print("|---" * (len(sessions) + 1) + "|")
        for key in keys:
            cells = []
            for s in sessions:
                v = s.result.get(key)
                cells.append(f"{v:.1f}" if isinstance(v, float) else str(v))
            print(f"| {key} | " + " | ".join(cells) + " |")
        total_pss = sum(s.result["PSS (MB)"] for s in sessions) + host_pss
        print(f"\nPSS of the {len(sessions)} sessions together"
              f"{' (and their shared server)' if hosts else ''}: {total_pss:.0f} MB")
    finally:
        for s in sessions:
            client = getattr(s, "client", None)
            if client is not None:
                client.close()
        for pid in host_pids(runtime):
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
        shutil.rmtree(tmp, ignore_errors=True)
        for log in logs:
            log.close()


if __name__ == "__main__":
    main()
