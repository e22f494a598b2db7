#!/usr/bin/env python3
"""Crash and sharing checks of issue 7 on a large print (the same checks run in
`cargo test` on a 300-table print; this runs them where ingest takes long enough for a
kill to land anywhere):

    python3 benches/shared_index.py --exe /work/target-release/release/printdex \
        --project /tmp/printdex-scale-2000

1. kill -9 of `printdex index rebuild` at 10%..90% of its run: the next `serve` on that
   index answers as a server on a fresh index does.
2. 2, then 8 `printdex serve` on one index; a new generation of 200 tables' statistics is
   written under them, every server is asked at once, and the first is killed 150 ms in:
   the others, and a server started afterwards, answer as a fresh index does.
The print is restored afterwards. Compared answers: list_tables detail (ages masked),
search_columns, get_table_context of changed and unchanged tables, resources/list.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

AGE = re.compile(r'"age_days": [0-9.]+')


class Server:
    def __init__(self, exe, project, index):
        self.proc = subprocess.Popen(
            [exe, "serve", "--project", project, "--index-dir", index],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1,
            # Each server a process of its own, killed as one: several processes on one
            # index is what this measures, not sessions of one shared server.
            env=dict(os.environ, PRINTDEX_SHARED=os.environ.get("PRINTDEX_SHARED", "off")))
        self.rid = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def read(self, rid):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("server closed stdout")
            reply = json.loads(line)
            if reply.get("id") == rid:
                return reply

    def request(self, method, params):
        self.rid += 1
        self.send({"jsonrpc": "2.0", "id": self.rid, "method": method, "params": params})
        return self.read(self.rid)

    def call(self, name, arguments):
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        return reply["result"]["content"][0]["text"]

    def answers(self, tables):
        out = [AGE.sub('"age_days": -', self.call("list_tables", {"detail": True})),
               self.call("search_columns", {"text": "name"}),
               self.call("search_columns", {"pattern": "*email*"})]
        out += [self.call("get_table_context", {"table": t}) for t in tables]
        out.append(json.dumps(self.request("resources/list", {})["result"]))
        return out

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def table_names(root):
    manifest = os.path.join(root, "manifest.yaml")
    return [l.strip()[:-1] for l in open(manifest)
            if l.startswith("  ") and not l.startswith("   ") and l.strip().endswith(":")
            and l.count(".") == 2]


def stats_path(root, fqn):
    db, schema, table = fqn.split(".")
    return os.path.join(root, db, schema, table, "statistics.yaml")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--project", required=True)
    args = ap.parse_args()
    root = os.path.join(args.project, "prints/library")
    tables = table_names(root)
    changed = [t for t in tables[::10] if os.path.exists(stats_path(root, t))][:200]
    probe = [changed[0], changed[len(changed) // 2], tables[1]]
    originals = {t: open(stats_path(root, t)).read() for t in changed}
    work = tempfile.mkdtemp(prefix="printdex-shared-")

    def fresh():
        index = tempfile.mkdtemp(dir=work)
        s = Server(args.exe, args.project, index)
        a = s.answers(probe)
        s.close()
        shutil.rmtree(index)
        return a

    def generation(n):
        for t in changed:
            text = re.sub(r"^row_count: .*$", f"row_count: {n}", originals[t], count=1,
                          flags=re.M)
            p = stats_path(root, t)
            open(p + ".tmp", "w").write(text)
            os.rename(p + ".tmp", p)

    try:
        # 1. kill -9 during index rebuild.
        index = os.path.join(work, "rebuilt")
        t0 = time.perf_counter()
        subprocess.run([args.exe, "index", "rebuild", "--project", args.project,
                        "--index-dir", index], check=True, stderr=subprocess.DEVNULL)
        whole = time.perf_counter() - t0
        expected = fresh()
        for fraction in (0.1, 0.3, 0.5, 0.7, 0.9):
            p = subprocess.Popen([args.exe, "index", "rebuild", "--project", args.project,
                                  "--index-dir", index], stderr=subprocess.DEVNULL)
            time.sleep(whole * fraction)
            p.kill(); p.wait()
            t0 = time.perf_counter()
            s = Server(args.exe, args.project, index)
            got = s.answers(probe)
            took = time.perf_counter() - t0
            s.close()
            print(f"rebuild ({whole:.1f} s) killed at {int(fraction*100)}%: next start "
                  f"{'identical' if got == expected else 'DIFFERENT'} answers "
                  f"(start + answers {took:.1f} s)")

        # 2. Servers sharing one index, one killed mid-ingest.
        index = os.path.join(work, "shared")
        Server(args.exe, args.project, index).close()
        for count in (2, 8):
            servers = [Server(args.exe, args.project, index) for _ in range(count)]
            generation(1_000_000 + count)
            for s in servers:
                s.rid += 1
                s.send({"jsonrpc": "2.0", "id": s.rid, "method": "tools/call",
                        "params": {"name": "search_columns", "arguments": {"text": "name"}}})
            time.sleep(0.15)
            servers[0].kill()
            expected = fresh()
            same = 0
            for s in servers[1:]:
                s.read(s.rid)
                same += s.answers(probe) == expected
                s.close()
            late = Server(args.exe, args.project, index)
            late_same = late.answers(probe) == expected
            late.close()
            print(f"{count} servers on one index, one killed 150 ms into ingesting 200 "
                  f"changed tables: {same}/{count - 1} survivors identical to a fresh index; "
                  f"a server started after: {'identical' if late_same else 'DIFFERENT'}")
    finally:
        for t, text in originals.items():
            open(stats_path(root, t), "w").write(text)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
