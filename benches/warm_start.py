#!/usr/bin/env python3
"""Process start to the first list_tables answer, over `--starts` starts of a server on an
index already built (a warm start), as an MCP client over stdio sees it.

    python3 benches/warm_start.py --cmd "target/release/printdex serve --index-dir /tmp/idx" \\
        --cwd /tmp/printdex-scale-10000 [--starts 10]
"""
import argparse
import statistics
import time

from mcp_client import Client


def start_once(cmd, cwd):
    started = time.perf_counter()
    client = Client(cmd, cwd)
    client.request("tools/call", {"name": "list_tables", "arguments": {}})
    elapsed = (time.perf_counter() - started) * 1000
    client.close()
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--starts", type=int, default=10)
    args = ap.parse_args()
    # One start first, so the index is warm and the page cache holds it.
    start_once(args.cmd, args.cwd)
    times = sorted(start_once(args.cmd, args.cwd) for _ in range(args.starts))
    print(f"start to first list_tables answer: median {statistics.median(times):.0f} ms, "
          f"min {times[0]:.0f} ms, max {times[-1]:.0f} ms ({args.starts} starts)")


if __name__ == "__main__":
    main()
