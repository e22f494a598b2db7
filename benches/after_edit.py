#!/usr/bin/env python3
"""What each bench call costs right after an edit to the print: for every case of
`stdio_latency.py`, a line is appended to `--file` (so its content changes), the server is
given `--settle` seconds to hear of it, and the case is asked once.

    python3 benches/after_edit.py --cmd "target/release/printdex serve --index-dir /tmp/idx" \\
        --cwd /tmp/printdex-scale-10000 \\
        --file prints/library/stacks/catalog_c0001/authors/statistics.annotations.yaml

Edits a print in place (the lines it appends are YAML comments): run it over a copy.
"""
import argparse
import json
import shlex
import subprocess
import time
from pathlib import Path

from stdio_latency import CALLS, METHODS


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--file", required=True, help="the print file edited, relative to --cwd")
    ap.add_argument("--settle", type=float, default=2.0)
    ap.add_argument("--log", default=None, help="where the server's stderr goes")
    ap.add_argument("--only", default=None, help="the cases whose label holds this text")
    ap.add_argument("--warm", type=float, default=30.0, help="seconds after start before the first edit")
    args = ap.parse_args()
    edited = Path(args.cwd) / args.file
    proc = subprocess.Popen(shlex.split(args.cmd), cwd=args.cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=open(args.log, "w") if args.log else subprocess.DEVNULL, text=True)
    ids = iter(range(1, 1 << 30))

    def ask(method, params):
        rid = next(ids)
        start = time.perf_counter()
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                     "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id") == rid:
                return (time.perf_counter() - start) * 1000

    ask("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "after_edit", "version": "1"}})
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    cases = [(label, "tools/call", params) for label, params in CALLS.items()]
    cases += [(label, method, params) for label, (method, params) in METHODS.items()]
    cases = [c for c in cases if args.only is None or args.only in c[0]]
    for _, method, params in cases:
        ask(method, params)
    time.sleep(args.warm)
    for n, (label, method, params) in enumerate(cases):
        steady = ask(method, params)
        with open(edited, "a") as f:
            f.write(f"# after_edit {n} {time.time()}\n")
        time.sleep(args.settle)
        print(f"{label}: {ask(method, params):.2f} ms after the edit ({steady:.2f} ms before)",
              flush=True)
    proc.stdin.close()
    proc.wait()


if __name__ == "__main__":
    main()
