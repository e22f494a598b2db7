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
import subprocess
import time

from mcp_client import Client
from stdio_latency import CALLS, bench_cases, next_cursor


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pages", type=int, default=3, help="pages of each paged call")
    ap.add_argument("--edit", default=None, help="a shell command run before the calls")
    ap.add_argument("--settle", type=float, default=3.0)
    args = ap.parse_args()
    client = Client(args.cmd, args.cwd, name="answers")
    request = client.request
    request("tools/call", CALLS["list_tables"])
    if args.edit:
        subprocess.run(args.edit, shell=True, check=True, cwd=args.cwd)
    time.sleep(args.settle)
    with open(args.out, "w") as out:
        for label, method, params in bench_cases():
            page, at = 1, params
            while at is not None and page <= args.pages:
                msg = request(method, at)
                answer = msg.get("result", msg.get("error"))
                out.write(json.dumps({"call": label, "page": page, "answer": answer},
                                     sort_keys=True) + "\n")
                at = next_cursor(method, at, msg["result"]) if "result" in msg else None
                page += 1
    client.close()


if __name__ == "__main__":
    main()
