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
import time
from pathlib import Path

from mcp_client import Client
from stdio_latency import bench_cases


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
    client = Client(args.cmd, args.cwd, name="after_edit",
                    stderr=open(args.log, "w") if args.log else None)

    def ask(method, params):
        start = time.perf_counter()
        client.request(method, params)
        return (time.perf_counter() - start) * 1000

    cases = [c for c in bench_cases() if args.only is None or args.only in c[0]]
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
    client.close()


if __name__ == "__main__":
    main()
