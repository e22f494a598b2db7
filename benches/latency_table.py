#!/usr/bin/env python3
"""Side by side: the page-1 (and page-N) medians of `stdio_latency.py` runs on prints of
different sizes, as a Markdown table with each size's ratio to the first.

    python3 benches/latency_table.py 2000=/tmp/bench-2000.txt 10000=/tmp/bench-10000.txt
"""
import re
import sys

LINE = re.compile(r"^(?P<label>.+?)(?: page \d+)?: median (?P<median>[\d.]+) ms, p95 (?P<p95>[\d.]+) ms")


def read(path):
    cases, start = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("start to first list_tables answer:"):
                start = float(line.split(":")[1].split()[0])
                continue
            m = LINE.match(line)
            if m:
                deep = " page " in line.split(":")[0]
                key = m["label"] + (" (page N)" if deep else "")
                cases[key] = float(m["median"])
    return start, cases


def main():
    runs = [(size, *read(path)) for size, path in (a.split("=", 1) for a in sys.argv[1:])]
    sizes = [r[0] for r in runs]
    print("| call | " + " | ".join(f"{s} tables" for s in sizes) + " | " +
          " | ".join(f"{s} / {sizes[0]}" for s in sizes[1:]) + " |")
    print("|---" * (1 + 2 * len(sizes) - 1) + "|")
    print("| start to first list_tables answer | " +
          " | ".join(f"{r[1]:.0f} ms" for r in runs) + " |" + " |" * (len(sizes) - 1))
    for key in runs[0][2]:
        values = [r[2].get(key) for r in runs]
        if any(v is None for v in values):
            continue
        ratios = [f"{v / values[0]:.2f}" for v in values[1:]]
        print(f"| {key} | " + " | ".join(f"{v:.2f} ms" for v in values) + " | " +
              " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()
