#!/usr/bin/env python3
"""Every answer of the latency bench's calls, written out for comparison: the same print
served from two indexes (say one kept current by the watcher through edits, and one
rebuilt fresh) must answer byte for byte alike.

    python3 benches/answers.py --cmd "target/release/printdex serve --index-dir /tmp/a" \\
        --cwd /tmp/printdex-scale-10000 --out /tmp/a.jsonl [--pages 3] [--edit SCRIPT]
    cmp /tmp/a.jsonl /tmp/b.jsonl

`--edit SCRIPT` runs a shell command once the server answers (edits to the print), then
waits `--settle` seconds, so the answers are those of a server that followed the edits.
"""
import argparse
import json
import shlex
import subprocess
import time

from stdio_latency import CALLS, METHODS, next_cursor


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pages", type=int, default=3, help="pages of each paged call")
    ap.add_argument("--edit", default=None, help="a shell command run before the calls")
    ap.add_argument("--settle", type=float, default=3.0)
    args = ap.parse_args()
    proc = subprocess.Popen(shlex.split(args.cmd), cwd=args.cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ids = iter(range(1, 10**9))

    def request(method, params):
        rid = next(ids)
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                     "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            msg = json.loads(proc.stdout.readline())
            if msg.get("id") == rid:
                return msg

    request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "answers", "version": "1"}})
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    request("tools/call", CALLS["list_tables"])
    if args.edit:
        subprocess.run(args.edit, shell=True, check=True, cwd=args.cwd)
    time.sleep(args.settle)
    cases = [(label, "tools/call", params) for label, params in CALLS.items()]
    cases += [(label, method, params) for label, (method, params) in METHODS.items()]
    with open(args.out, "w") as out:
        for label, method, params in cases:
            page, at = 1, params
            while at is not None and page <= args.pages:
                msg = request(method, at)
                answer = msg.get("result", msg.get("error"))
                out.write(json.dumps({"call": label, "page": page, "answer": answer},
                                     sort_keys=True) + "\n")
                at = next_cursor(method, at, msg["result"]) if "result" in msg else None
                page += 1
    proc.stdin.close()
    proc.wait()


if __name__ == "__main__":
    main()
