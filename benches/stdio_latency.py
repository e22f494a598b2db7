#!/usr/bin/env python3
"""Wall-clock latency of a server over stdio, as an MCP client sees it.

    python3 benches/stdio_latency.py --cmd "target/release/printdex serve --index-dir /tmp/idx" \
        --cwd /tmp/printdex-scale-2000 [--runs 50]

Prints: time from process start to the first list_tables answer (a warm start when the
index exists), then the median and p95 of `--runs` calls of each measured request, the
first call's time (a tool's first call may build what later calls reuse), and the server's
resident set (now and peak) after them.

Every paged call (list_tables, get_manifest, get_diff, resources/list, resources/read) is
measured at page 1 and at page `--page-n` (reached once by following its cursors, then
asked `--runs` times with that cursor; the last page, which may be short, only when it is
the second), so a page deep in a large print is measured too.
`--only REGEX` measures the matching cases alone.
"""
import argparse
import json
import re
import statistics
import time

from mcp_client import Client

CALLS = {
    "list_tables": {"name": "list_tables", "arguments": {}},
    "list_tables detail": {"name": "list_tables", "arguments": {"detail": True}},
    "get_manifest": {"name": "get_manifest", "arguments": {}},
    "get_manifest pattern": {"name": "get_manifest", "arguments": {"pattern": "*_c0001.*"}},
    "search_columns pattern": {"name": "search_columns", "arguments": {"pattern": "*email*"}},
    "search_columns text": {"name": "search_columns", "arguments": {"text": "legacy"}},
    "search_columns looks_like": {"name": "search_columns",
                                  "arguments": {"looks_like": "email"}},
    # The fixture's notes no longer say `legacy` (it matches nothing here); these match
    # as broadly as issue 27's held-out print does (a clone holds 3 of each): a needle in
    # names, notes and value notes, and a name glob.
    "search_columns text broad": {"name": "search_columns", "arguments": {"text": "status"}},
    "search_columns pattern broad": {"name": "search_columns",
                                     "arguments": {"pattern": "*date*"}},
    "resolve_value": {"name": "resolve_value",
                      "arguments": {"table": "stacks.members_c0001.patrons",
                                    "column": "status", "text": "Active"}},
    # find: free words, a misspelling and a value; the scale print's clones share every
    # word, so each query matches thousands of documents.
    "find words": {"name": "find", "arguments": {"query": "overdue loans"}},
    "find misspelling": {"name": "find", "arguments": {"query": "patrn emial adress"}},
    "find value": {"name": "find", "arguments": {"query": "suspended", "kinds": ["value"]}},
    "find json 50": {"name": "find", "arguments": {"query": "fines balance", "limit": 50,
                                                  "format": "json"}},
    "get_diff table": {"name": "get_diff", "arguments": {"table": "stacks.lending_c0001.loans"}},
    "get_diff kind": {"name": "get_diff", "arguments": {"kind": "relationship_added"}},
    "get_diff": {"name": "get_diff", "arguments": {}},
    "get_table_context profile md": {"name": "get_table_context", "arguments": {
        "table": "stacks.catalog_c0001.books"}},
    "get_table_context profile json": {"name": "get_table_context", "arguments": {
        "table": "stacks.members_c0001.patrons", "format": "json"}},
    "get_table_context profile yaml": {"name": "get_table_context", "arguments": {
        "table": "stacks.members_c0001.patrons", "format": "yaml"}},
    "get_table_context query md": {"name": "get_table_context", "arguments": {
        "table": "stacks.lending_c0001.loans", "purpose": "query"}},
    "validate_sql": {"name": "validate_sql", "arguments": {"sql": (
        "SELECT l.loan_id, p.full_nam FROM stacks.lending_c0001.loans l "
        "JOIN stacks.members_c0001.patrons p ON p.patron_id = l.patron_id "
        "WHERE l.status = 'overdue' AND p.status = 'Activ'")}},
    "plan_joins 4 tables": {"name": "plan_joins", "arguments": {"tables": [
        "stacks.lending_c0001.fines", "stacks.catalog_c0001.authors",
        "stacks.members_c0001.branches", "stacks.lending_c0001.holds"]}},
    # A clone of the library print holds 11 tables; these are the 9 its edges connect
    # (series joins nothing, a person rejected activity_log's one edge).
    "plan_joins 9 tables": {"name": "plan_joins", "arguments": {"tables": [
        "stacks.lending_c0001.loans", "stacks.lending_c0001.copies",
        "stacks.catalog_c0001.books", "stacks.catalog_c0001.authors",
        "stacks.members_c0001.patrons",
        "stacks.members_c0001.branches", "stacks.lending_c0001.fines",
        "stacks.lending_c0001.holds", "stacks.lending_c0001.v_open_loans"]}},
    "plan_joins 6 tables json": {"name": "plan_joins", "arguments": {"format": "json", "tables": [
        "stacks.lending_c0001.fines", "stacks.catalog_c0001.authors",
        "stacks.members_c0001.branches", "stacks.lending_c0001.holds",
        "stacks.lending_c0001.v_open_loans", "stacks.lending_c0001.copies"]}},
}
# Calls other than tools/call: (method, params).
METHODS = {
    "resources/list": ("resources/list", {}),
    "resources/read statistics": ("resources/read", {
        "uri": "dbprint://library/stacks.catalog_c0001.books/statistics"}),
    "resources/read manifest": ("resources/read", {"uri": "dbprint://library/manifest"}),
    "resources/read diff": ("resources/read", {"uri": "dbprint://library/diff"}),
    "resources/read erd": ("resources/read", {
        "uri": "printdex://library/erd/stacks.lending_c0001.loans?depth=2"}),
}
PAGED_TOOLS = {"list_tables", "get_manifest", "get_diff"}


def bench_cases():
    """Every measured case as (label, method, params): the tool calls, then the rest."""
    cases = [(label, "tools/call", params) for label, params in CALLS.items()]
    return cases + [(label, method, params) for label, (method, params) in METHODS.items()]


def next_cursor(method, params, result):
    """The cursor of the page after `result`, and the params that ask for it."""
    if method == "tools/call":
        if params["name"] not in PAGED_TOOLS:
            return None
        text = result["content"][0]["text"]
        try:
            cursor = json.loads(text).get("next_cursor")
        except ValueError:
            return None
        if cursor is None:
            return None
        return {"name": params["name"], "arguments": {**params["arguments"], "cursor": cursor}}
    if method == "resources/list":
        cursor = result.get("nextCursor")
        return None if cursor is None else {"cursor": cursor}
    if method == "resources/read":
        meta = result["contents"][0].get("_meta", {})
        page, pages = meta.get("page", 1), meta.get("pages", 1)
        if page >= pages:
            return None
        base = params["uri"].split("?")[0]
        return {"uri": f"{base}?page={page + 1}&version={meta['version']}"}
    return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--page-n", type=int, default=10,
                    help="the deep page measured for paged calls (the last when fewer)")
    ap.add_argument("--only", default=None, help="measure only the cases matching this regex")
    ap.add_argument("--settle", type=float, default=0.0,
                    help="seconds to wait after the first answer, so the work a start leaves "
                         "in the background (the diff's warm-up, the watchers' walks) is done")
    args = ap.parse_args()
    started = time.perf_counter()
    client = Client(args.cmd, args.cwd)
    request = client.request
    request("tools/call", CALLS["list_tables"])
    print(f"start to first list_tables answer: {(time.perf_counter() - started) * 1000:.1f} ms")
    time.sleep(args.settle)

    def measure(label, method, params):
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            msg = request(method, params)
            times.append((time.perf_counter() - t) * 1000)
        if "error" in msg:
            raise SystemExit(f"{label}: {msg['error']}")
        first = times[0]
        times.sort()
        p95 = times[int(len(times) * 0.95) - 1]
        print(f"{label}: median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms ({args.runs} calls, first {first:.2f} ms)")
        return msg["result"]

    for label, method, params in bench_cases():
        if args.only and not re.search(args.only, label):
            continue
        result = measure(label, method, params)
        # Page N: follow the cursors once, then measure that page. The last page may be
        # short, so a walk that reaches it measures the one before (a full page) instead.
        page, deeper = 1, next_cursor(method, params, result)
        if deeper is None:
            continue
        before, at = None, None
        while deeper is not None and page < args.page_n:
            before, at = at, deeper
            result = request(method, at)["result"]
            page += 1
            deeper = next_cursor(method, at, result)
        if deeper is None and before is not None:
            at, page = before, page - 1
        measure(f"{label} page {page}", method, at)
    with open(f"/proc/{client.pid}/status") as status:
        for line in status:
            if line.startswith(("VmRSS", "VmHWM")):
                print(" ".join(line.split()))
    client.close()


if __name__ == "__main__":
    main()
