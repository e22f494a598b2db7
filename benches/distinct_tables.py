#!/usr/bin/env python3
"""get_table_context over distinct tables, as an agent reading one table after another asks:

    python3 benches/distinct_tables.py --cmd "target/release/printdex serve --index-dir I" \\
        --cwd /tmp/printdex-scale-100000 [--settle 12] [--seconds 12] [--clones 9091]

`stdio_latency.py` asks for one table again and again (its cache answers); this asks for
`stacks.lending_cNNNN.loans` with NNNN counting up from 1 (the scale print's clones: 9,091
at 100,000 tables, 910 at 10,000), each table once, for `--seconds` after the server
settled for `--settle` or until every clone was asked, and prints how many calls it made
and their mean wall time. Serves in-process unless PRINTDEX_SHARED is set
(`mcp_client.py`).
"""
import argparse
import time

from mcp_client import Client


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--settle", type=float, default=12.0)
    ap.add_argument("--seconds", type=float, default=12.0)
    ap.add_argument("--clones", type=int, default=9091)
    args = ap.parse_args()
    client = Client(args.cmd, cwd=args.cwd)
    try:
        client.result("tools/call", {"name": "list_tables", "arguments": {}})
        time.sleep(args.settle)
        started = time.perf_counter()
        calls = 0
        while time.perf_counter() - started < args.seconds and calls < args.clones:
            calls += 1
            table = f"stacks.lending_c{calls:04d}.loans"
            client.request("tools/call", {"name": "get_table_context",
                                          "arguments": {"table": table, "purpose": "query"}})
        elapsed = time.perf_counter() - started
        print(f"get_table_context query md over {calls} distinct tables: "
              f"mean {elapsed * 1000 / calls:.2f} ms")
    finally:
        client.close()


if __name__ == "__main__":
    main()
