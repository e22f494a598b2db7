#!/usr/bin/env python3
"""Write a scaled print's diff.yaml as scale_print.py does, with libyaml's dumper.

    python3 benches/scale_diff.py PRINT_ROOT TABLES

scale_print.py dumps diff.yaml with PyYAML's pure-Python dumper, which takes longer than
the rest of a 100,000-table print (809,099 events, 228 MB). This writes the same document
(every clone's copy of every change of fixtures/library's diff, summary counts scaled)
with CSafeDumper when PyYAML has it, into PRINT_ROOT/diff.yaml (through a temporary file).
Needs PyYAML and the harness's scale_print.py (SCALE_PRINT, default
/work/shared/conformance/scale_print.py).
"""

import math
import os
import sys
from pathlib import Path

scale = Path(os.environ.get("SCALE_PRINT", "/work/shared/conformance/scale_print.py"))
sys.path.insert(0, str(scale.parent))
import yaml  # noqa: E402
import scale_print  # noqa: E402

src = Path(__file__).resolve().parent.parent / "fixtures/library/prints/library"
dst, tables = Path(sys.argv[1]), int(sys.argv[2])
manifest = yaml.safe_load((src / "manifest.yaml").read_text(encoding="utf-8"))
entries = {k: v for k, v in (manifest.get("tables") or {}).items() if isinstance(v, dict)}
schemas = sorted({tuple(fqn.split(".")[:2]) for fqn in entries})
clones = math.ceil(tables / len(entries))
diff = yaml.safe_load((src / "diff.yaml").read_text(encoding="utf-8")) or {}
changes = diff.get("changes") or []
out = []
for j in range(1, clones + 1):
    out.extend(scale_print.deep(changes, scale_print.rewriter(schemas, j)))
diff["changes"] = out
for key, value in list((diff.get("summary") or {}).items()):
    if isinstance(value, int):
        diff["summary"][key] = value * clones
dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
print(f"{len(out)} events, {dumper.__name__}", file=sys.stderr)
temporary = dst / ".diff.yaml.writing"
with open(temporary, "w", encoding="utf-8") as fh:
    yaml.dump(diff, fh, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100)
temporary.rename(dst / "diff.yaml")
