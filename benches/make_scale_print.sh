#!/usr/bin/env bash
# Make the large benchmark prints (NOT committed) by cloning the tables of the committed
# fixtures/library print with the conformance harness's scale_print.py:
#
#   benches/make_scale_print.sh            # -> /tmp/printdex-scale-2000 and /tmp/printdex-scale-10000
#   benches/make_scale_print.sh 2000       # only the given sizes
#   benches/make_scale_print.sh 100000     # /tmp/printdex-scale-100000: 409,096 files, 4.9 GB,
#                                          # about 15 min (not made by default)
#
# Each output is a complete project (.dbprint.yaml + prints/library/ + bench_cases.jsonl for
# /work/shared/conformance/mcp_record.py): clone j of every table <db>.<schema>.<table> is
# <db>.<schema>_c<jjjj>.<table>, with every FQN/path inside manifest, statistics,
# relationships, annotation and diff files rewritten to the clone's. The library print has
# 11 tables, so 2000 tables = 182 clones (the last one cut short).
#
# Environment: PYTHON (needs PyYAML; default /opt/dbp313/bin/python), SCALE_PRINT (default
# /work/shared/conformance/scale_print.py), OUT_PREFIX (default /tmp/printdex-scale).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
python="${PYTHON:-/opt/dbp313/bin/python}"
scale="${SCALE_PRINT:-/work/shared/conformance/scale_print.py}"
prefix="${OUT_PREFIX:-/tmp/printdex-scale}"
src="$repo/fixtures/library"

[ -f "$src/.dbprint.yaml" ] || { echo "missing $src/.dbprint.yaml" >&2; exit 1; }
[ -f "$scale" ] || { echo "missing $scale (set SCALE_PRINT)" >&2; exit 1; }

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(2000 10000)

for n in "${sizes[@]}"; do
    out="$prefix-$n"
    start=$(date +%s%N)
    "$python" "$scale" "$src" "$out" --tables "$n" --connection library
    end=$(date +%s%N)
    size=$(du -sh "$out" | cut -f1)
    files=$(find "$out" -type f | wc -l)
    ms=$(( (end - start) / 1000000 ))
    printf '%s: %s tables, %s, %s files, %d.%03d s\n' "$out" "$n" "$size" "$files" \
        $((ms / 1000)) $((ms % 1000)) >&2
done
