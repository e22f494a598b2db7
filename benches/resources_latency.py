#!/usr/bin/env python3
"""Wall-clock latency of resources/list and resources/read over stdio, as a client sees it.

    python3 benches/resources_latency.py --cmd "target/release/printdex serve --index-dir /tmp/idx" \
        --cwd /tmp/printdex-scale-2000 --uri dbprint://library/stacks.catalog_c0001.books/statistics

Prints the median and p95 of `--runs` calls of: resources/list page 1, a middle page of
the list (following its cursors), pages 1, the middle one and the last of `--uri`, and a
small resource.
"""
import argparse
import statistics
import time

from mcp_client import Client


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--uri", required=True, help="a large resource to page through")
    ap.add_argument("--small", default="dbprint://library/manifest_annotations")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    client = Client(args.cmd, args.cwd)
    request = client.result

    # Walk the list once for its page count and a middle cursor.
    cursors = [None]
    total = 0
    while True:
        params = {} if cursors[-1] is None else {"cursor": cursors[-1]}
        page = request("resources/list", params)
        total += len(page["resources"])
        if "nextCursor" not in page:
            break
        cursors.append(page["nextCursor"])
    middle_cursor = cursors[len(cursors) // 2]
    first = request("resources/read", {"uri": args.uri})["contents"][0]["_meta"]
    pages, version = first["pages"], first["version"]
    print(f"resources/list: {total} entries in {len(cursors)} pages; {args.uri}: {pages} pages")

    def page_uri(n):
        return args.uri if n == 1 else f"{args.uri}?page={n}&version={version}"

    measured = {
        "resources/list page 1": ("resources/list", {}),
        f"resources/list page {len(cursors) // 2 + 1}": ("resources/list", {"cursor": middle_cursor}),
        "read large, page 1": ("resources/read", {"uri": page_uri(1)}),
        f"read large, page {pages // 2 + 1}": ("resources/read", {"uri": page_uri(pages // 2 + 1)}),
        f"read large, page {pages}": ("resources/read", {"uri": page_uri(pages)}),
        "read small": ("resources/read", {"uri": args.small}),
    }
    for label, (method, params) in measured.items():
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            request(method, params)
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        p95 = times[max(int(len(times) * 0.95) - 1, 0)]
        print(f"{label}: median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms ({args.runs} calls)")
    client.close()


if __name__ == "__main__":
    main()
