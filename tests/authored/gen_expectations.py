#!/usr/bin/env python3
"""Write fixtures/authored/admission.jsonl: what dbprint 0.15.0's `authored.malformation`
(Python jsonschema 4.26) answers for annotation files, for src/query/authored.rs's tests.

    /opt/dbp313/bin/python tests/authored/gen_expectations.py

Each line: the kind, the loaded value in printdex's tagged `Value` encoding, and the answer.
"""
import datetime
import json
import os

from dbprint.spec import artifact_yaml, authored

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "fixtures", "authored", "admission.jsonl")


def tagged(v):
    if v is None:
        return {"t": "Null"}
    if isinstance(v, bool):
        return {"t": "Bool", "v": v}
    if isinstance(v, int):
        if -(2**63) <= v < 2**63:
            return {"t": "Int", "v": v}
        return {"t": "BigInt", "v": str(v)}
    if isinstance(v, float):
        return {"t": "Float", "v": v}
    if isinstance(v, str):
        return {"t": "Str", "v": v}
    if isinstance(v, bytes):
        return {"t": "Bytes", "v": list(v)}
    if isinstance(v, datetime.datetime):
        off = v.utcoffset()
        return {"t": "DateTime", "v": {
            "date": {"year": v.year, "month": v.month, "day": v.day},
            "hour": v.hour, "minute": v.minute, "second": v.second,
            "microsecond": v.microsecond,
            "offset_seconds": None if off is None else int(off.total_seconds())}}
    if isinstance(v, datetime.date):
        return {"t": "Date", "v": {"year": v.year, "month": v.month, "day": v.day}}
    if isinstance(v, list):
        return {"t": "Seq", "v": [tagged(x) for x in v]}
    if isinstance(v, dict):
        return {"t": "Map", "v": [[tagged(k), tagged(x)] for k, x in v.items()]}
    raise TypeError(type(v))


S = "statistics_annotations"
R = "relationships_annotations"
M = "manifest_annotations"

CASES = [
    # statistics_annotations
    (S, "format_version: 1\ncolumns: {}\n"),
    (S, "format_version: 1\ncolumns:\n  a: {note: x}\n"),
    (S, "columns: {}\n"),
    (S, "{}\n"),
    (S, "format_version: 2\ncolumns: {}\n"),
    (S, "format_version: 1.0\ncolumns: {}\n"),
    (S, "format_version: true\ncolumns: {}\n"),
    (S, "format_version: '1'\ncolumns: {}\n"),
    (S, "format_version: 1\ncolumns: [not, a, mapping]\n"),
    (S, "format_version: 1\ncolumns: {}\nextra: 1\nanother: 2\n"),
    (S, "format_version: 1\ncolumns: {}\nextra: 1\n"),
    (S, "format_version: 1\ncolumns:\n  a: {note: 7}\n"),
    (S, "format_version: 1\ncolumns:\n  a: null\n"),
    (S, "format_version: 1\ncolumns:\n  a: {bogus: 1, note: x}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    values:\n    - {value: 1}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    values:\n    - {value: [1], note: x}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    values:\n    - {value: {k: 1}, note: x}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    values:\n    - {value: yes, note: x}\n    - {value: 2024-01-01, note: d}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    values: {value: 1}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    derived_from:\n    - {table: '', column: c}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    derived_from:\n    - {table: t}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    claims: [1]\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    claims: {anything: [1, 2]}\n"),
    (S, "format_version: 1\ncolumns: {}\ngrain:\n  keys:\n  - columns: []\n"),
    (S, "format_version: 1\ncolumns: {}\ngrain:\n  keys:\n  - columns: [a, a]\n"),
    (S, "format_version: 1\ncolumns: {}\ngrain:\n  keys:\n  - columns: [1, 1.0]\n"),
    (S, "format_version: 1\ncolumns: {}\ngrain:\n  keys:\n  - columns: [true, 1]\n"),
    (S, "format_version: 1\ncolumns: {}\ngrain:\n  keys:\n  - note: x\n    extra: y\n"),
    (S, "format_version: 1\ncolumns: {}\ngrain:\n  keys:\n  - {}\n"),
    (S, "format_version: 1\ncolumns: {}\ngrain:\n  keys:\n  - columns: ['']\n"),
    (S, "format_version: 1\ncolumns: {}\ngrain: {keys: x, more: 1}\n"),
    (S, "format_version: 1\ncolumns:\n  1: {note: x}\n"),
    (S, "format_version: 1\ncolumns:\n  a: {note: x}\n  2024-01-01: {note: y}\n"),
    (S, "1: x\nformat_version: 1\ncolumns: {}\n"),
    (S, "format_version: 1\ncolumns:\n  a: {note: x}\n  b: {values: [{value: 1, note: 2}]}\n  c: {note: 3}\n"),
    (S, "format_version: 3\ncolumns:\n  a: {note: 5}\n"),
    (S, "columns:\n  a: {note: 5}\nformat_version: 3\n"),
    (S, "format_version: 1\ncolumns:\n  null: {note: x}\n  true: {note: x}\n  1.5: {note: x}\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    note: when\n    values:\n    - value: 2024-01-01 10:00:00\n      note: 7\n"),
    (S, "format_version: 1\ncolumns:\n  a:\n    values:\n    - value: 2024-01-01 10:00:00+00:00\n      extra: 2024-01-02T03:04:05.5-02:30\n      note: x\n"),
    (S, "[1, 2]\n"),
    (S, "just text\n"),
    (S, "42\n"),
    (S, "format_version: 1\ncolumns: null\n"),
    (S, "format_version: 1\ncolumns:\n  a: {note: 'x'}\n  b: 7\n  c: [1]\n"),
    # relationships_annotations
    (R, "format_version: 1\nrefers_to: []\n"),
    (R, "format_version: 1\nrefers_to:\n- column: [a]\n  target_table: t\n  target_column: [b]\n  verdict: rejected\n"),
    (R, "format_version: 1\nrefers_to:\n- column: [a]\n  target_table: t\n  target_column: [b]\n  verdict: nope\n"),
    (R, "format_version: 1\nrefers_to:\n- column: a\n  target_table: t\n  target_column: [b]\n"),
    (R, "format_version: 1\nrefers_to:\n- column: []\n  target_table: ''\n  target_column: ['']\n"),
    (R, "format_version: 1\nrefers_to:\n- target_table: t\n"),
    (R, "format_version: 1\nrefers_to:\n- {column: [a], target_table: t, target_column: [b], foo: 1, bar: 2}\n"),
    (R, "format_version: 1\nrefers_to: {}\n"),
    (R, "format_version: 1\n"),
    (R, "refers_to: []\n"),
    (R, "format_version: 1\nrefers_to:\n- not a mapping\n- 3\n"),
    (R, "format_version: 1\nrefers_to:\n- {column: [a], target_table: t, target_column: [b], claims: 1, note: 2, path: [x], target_path: []}\n"),
    (R, "format_version: 1\nrefers_to:\n- {column: [a], target_table: t, target_column: [b], verdict: null}\n"),
    (R, ""),
    # manifest_annotations
    (M, "format_version: 1\nnotes: hello\n"),
    (M, "format_version: 1\n"),
    (M, "notes: hello\n"),
    (M, "format_version: 1\nnotes: 3\n"),
    (M, "format_version: 1\nnotes: [a]\nextra: 1\n"),
    (M, "format_version: 1\n? [a]\n: 1\n" if False else "format_version: 1\nnotes: x\n7: 1\n"),
    (M, "format_version: 1\nnotes: 2024-05-06\n"),
]


def main():
    with open(OUT, "w", encoding="utf-8") as out:
        for kind, text in CASES:
            data = artifact_yaml.load(text)
            answer = authored.malformation(kind, data)
            admitted = authored.admitted(kind, data)
            out.write(json.dumps({
                "kind": kind,
                "yaml": text,
                "data": tagged(data),
                "malformation": answer,
                "admitted": None if admitted is None else tagged(admitted),
            }, ensure_ascii=False) + "\n")


main()
