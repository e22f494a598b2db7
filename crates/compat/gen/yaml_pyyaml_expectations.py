#!/usr/bin/env python3
"""Writes crates/compat/fixtures/yaml-pyyaml/cases.jsonl: what PyYAML's CSafeLoader makes of many
YAML texts, for the Rust loader's differential test (crates/compat/src/yaml/tests.rs).

Run with the reference interpreter (PyYAML 6.0.4 with libyaml):

    /opt/dbp313/bin/python crates/compat/gen/yaml_pyyaml_expectations.py

Each line is {"name", "yaml", and one of "expect" (tagged value), "expect_flat"
(the same, flattened, for values nested too deep for a JSON reader), "error"
({"kind": "yaml"|"other", "text": str(exc)}) or "recursive" (Python built an
object that contains itself, which the Rust loader reports as an error)}. The
output is deterministic.

For a longer local run, `--extra COUNT FILE [SEED]` writes that many random
cases to FILE, checked by
`YAML_EXTRA_CASES=FILE cargo test --release -p compat yaml::tests::extra -- --ignored`.
"""

from __future__ import annotations

import datetime
import json
import random
import sys
from pathlib import Path

import yaml

assert yaml.__with_libyaml__, "needs PyYAML built with libyaml"

sys.setrecursionlimit(100_000)

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "yaml-pyyaml" / "cases.jsonl"

# Nesting deeper than this is written flat (serde_json stops at 128 levels).
MAX_NESTED = 60


class Recursive(Exception):
    """The value contains itself; the Rust loader reports this as an error."""


def tag(value, active=None):
    """The value as JSON with every type spelled out."""

    active = active if active is not None else set()
    if value is None:
        return {"none": True}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": str(value)}
    if isinstance(value, float):
        return {"float": repr(value)}
    if isinstance(value, str):
        return {"str": value}
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, datetime.datetime):
        off = value.utcoffset()
        return {
            "datetime": [
                value.year,
                value.month,
                value.day,
                value.hour,
                value.minute,
                value.second,
                value.microsecond,
                None if off is None else int(off.total_seconds()),
            ]
        }
    if isinstance(value, datetime.date):
        return {"date": value.isoformat()}
    if id(value) in active:
        raise Recursive()
    active.add(id(value))
    try:
        if isinstance(value, list):
            return {"list": [tag(v, active) for v in value]}
        if isinstance(value, tuple):
            return {"tuple": [tag(v, active) for v in value]}
        if isinstance(value, dict):
            return {"map": [[tag(k, active), tag(v, active)] for k, v in value.items()]}
        if isinstance(value, set):
            items = [tag(v, active) for v in value]
            items.sort(key=lambda t: json.dumps(t, sort_keys=True))
            return {"set": items}
    finally:
        active.discard(id(value))
    raise TypeError(f"unexpected type {type(value)!r}")


def depth(t) -> int:
    """Nesting depth of a tagged value, without recursion."""

    best = 0
    stack = [(t, 1)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        if isinstance(node, dict):
            for v in node.values():
                stack.append((v, d + 1))
        elif isinstance(node, list):
            for v in node:
                stack.append((v, d + 1))
    return best


def flatten(value) -> list:
    """Prefix form: a collection is a header {"list": n} / {"map": n} / ... then its items."""

    out = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            out.append({"list": len(v)})
            stack.extend(reversed(v))
        elif isinstance(v, tuple):
            out.append({"tuple": len(v)})
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            out.append({"map": len(v)})
            for k, item in reversed(list(v.items())):
                stack.append(item)
                stack.append(k)
        elif isinstance(v, set):
            raise TypeError("sets are not flattened")
        else:
            out.append(tag(v))
    return out


def run(name: str, text: str) -> dict:
    case = {"name": name, "yaml": text}
    try:
        value = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as exc:
        case["error"] = {"kind": "yaml", "text": str(exc)}
        return case
    except Exception as exc:  # noqa: BLE001 - every other exception is data here
        case["error"] = {"kind": "other", "text": str(exc)}
        return case
    try:
        tagged = tag(value)
    except Recursive:
        case["recursive"] = True
        return case
    except RecursionError:
        case["expect_flat"] = flatten(value)
        return case
    if depth(tagged) > MAX_NESTED:
        case["expect_flat"] = flatten(value)
    else:
        case["expect"] = tagged
    return case


CASES: list[tuple[str, str]] = []


def add(name: str, text: str) -> None:
    CASES.append((name, text))


# ---------------------------------------------------------------- plain scalars

PLAIN = """
yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF
y Y n N yES tRUE oN nO fALSE Yes! truex
~ null Null NULL nULL nul Nil none None
0 -0 +0 1 -1 +1 12_345 1__2 _1 1_ 0b1010 0b_1 -0b11 +0b1 0b 0b2 0B1 0x1F 0xff -0x_ff 0x 0xg 0X1F
0o17 017 -017 0_17 08 09 00 0_ 007 0:30 1:30 -1:30 +1:30 190:20:30 1:60 1:5:7 1:05:07 01:30 1:305 1::30
123456789012345678901234567890 -123456789012345678901234567890
9223372036854775807 9223372036854775808 -9223372036854775808 -9223372036854775809
18446744073709551615 18446744073709551616
0x7fffffffffffffff 0x8000000000000000 0xffffffffffffffffffff -0x8000000000000000
0777777777777777777777777 0b11111111111111111111111111111111111111111111111111111111111111111111
1_000_000_000_000_000_000_000 99999:59:59
1.0 -1.5 +1.5 1. -1. .5 -.5 +.5 1.5e5 1.5e+5 1.5E-5 1e+5 1.e+5 .5e+3 1e5 1E5 1.5e5.0
1_000.5 1_._5 1__.__ 0.1 0.30000000000000004 1.0e+400 1.0e-400 -1.0e+400
2.5e-324 4.9e-324 1.7976931348623157e+308 1.7976931348623159e+308 2.2250738585072014e-308
123456789.123456789 3.141592653589793238462643 9007199254740993.0 0.1e-0 00.5 1.2.3 ._ . .e5 .5e
.inf -.inf +.inf .Inf .INF .iNf -.Inf .nan .NaN .NAN -.nan +.nan .nAn inf nan NaN
1:30.5 190:20:30.15 -1:30.5 +1:30.5 1:60.5 1:30. 1:30.5e5 0:30.5 0.0 -0.0 +0.0 0. -0.
2001-12-14 2002-12-14 2001-1-14 2001-01-1 2024-02-29 2023-02-29 2024-02-30 2024-13-01 2024-00-10
2024-01-00 0000-01-01 9999-12-31 10000-01-01 2024-01-01x 20240101
2001-12-14t21:59:43.10-05:00 2001-12-14T21:59:43.10Z 2001-12-15T02:59:43.1Z
2001-12-14T21:59:43.1234567Z 2001-12-14T21:59:43.Z 2001-12-14T21:59:43+05:30
2001-12-14T21:59:43+0530 2001-12-14T21:59:43-0 2001-12-14T21:59:43+00:00 2001-12-14T21:59:43-00:00
2001-1-1T1:00:00 2001-01-01T24:00:00 2001-01-01T23:60:00 2001-01-01T23:59:60
2001-01-01T10:00:00+24 2001-01-01T10:00:00-23:59 2001-01-01T10:00:00+99:99 2001-01-01T10:00:00+5:30
2001-01-01T10:00:00z 2001-01-01T10:00:00.000001 2001-01-01T10:00:00.999999999 2001-01-01T100:00:00
2001-01-01t10:00:00 2001-13-01T10:00:00 2001-02-29T10:00:00 2001-01-01T10:0:00
<< <<< < = == =x ~x -x -- --x -1x 1x 0b2 x1 _ __ + - +- -+ .. ... ...x
é 日本語 😀 naïve café ﬁ Ωmega ª
foo bar foo#bar foo:bar http://x.y/z a,b a]b a}b a!b a&b a*b a|b a>b a'b a"b a%b a@b
"""

for i, s in enumerate(PLAIN.split()):
    add(f"plain {i:03d} {s}", f"- {s}\n")

SPACED_PLAIN = [
    "2001-12-14 21:59:43.10 -5",
    "2001-12-15 2:59:43.10",
    "2001-12-14 21:59:43.10 +05:30",
    "2001-12-14 21:59:43 +0530",
    "2001-12-14  21:59:43",
    "2001-12-14 21:59:43   Z",
    "2001-12-14 21:59:43 Z",
    "2001-12-14 21:59:43 z",
    "2001-12-14 21:59:43.",
    "2001-12-14 21:59:43 -0",
    "2024-1-1 1:00:00",
    "2024-01-01 10:00:00 +24",
    "2024-02-30 10:00:00",
    "a b c",
    "yes please",
    "1 2",
    "1.5 e5",
    "- x",
    "null null",
]
for i, s in enumerate(SPACED_PLAIN):
    add(f"spaced plain {i:02d}", f"v: {s}\n")
add("tab separated timestamp", "v: 2001-12-14\t21:59:43\n")

# Quoted scalars are never resolved, unless tagged with the non-specific `!`.
for i, s in enumerate(["yes", "1", "1.5", "~", "", "2001-12-14", "<<", "=", ".nan", "0x10"]):
    add(f"double quoted {i}", f'- "{s}"\n')
    add(f"single quoted {i}", f"- '{s}'\n")
    add(f"bang plain {i}", f"- ! {s}\n" if s else "- !\n")
    add(f"bang quoted {i}", f'- ! "{s}"\n')
add("bang quoted trailing newline int", '! "123\\n"')
add("bang quoted trailing newline bool", '! "true\\n"')
add("bang quoted trailing newline float", '! "1.5\\n"')
add("bang quoted trailing newline null", '! "null\\n"')
add("bang quoted trailing newline date", '! "2024-01-01\\n"')
add("bang quoted trailing newline merge", '{! "<<\\n": {a: 1}}')
add("bang quoted two newlines", '! "123\\n\\n"')
add("bang on sequence", "! [1, 2]")
add("bang on mapping", "! {a: 1}")

# ---------------------------------------------------------------- explicit tags

TAGGED = {
    "str": ["123", "yes", "~", "''", "[1]", "{a: 1}", "{=: x}", "{a: x}", "{=: [1]}", "{=: {=: deep}}"],
    "int": [
        "0o17", "0b0b1", "' 12 '", "0XFF", "1::2", "''", "'-'", "'+'", "1:-30", "1:a", "abc", "0x-10",
        "'１２'", "12\u00a0", "'\u3000 12'", "1e3", "'0b'", "'0x'", "'-0'", "'_'", "'__1__'", "1.5",
        "0o8", "0b12", "'00'", "'-0b0'", "{=: 5}", "[1]", "99" * 2200, "9" * 4300, "9" * 4301,
        "0x" + "f" * 300, "-" + "1" * 100, "1:" + "9" * 30, "'1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21:22:23:24:25'",
        "'\\x85 12'", "'\\x1c12'",
    ],
    "float": [
        "abc", "''", "'-'", "' 1.5 '", "infinity", "-nan", "'nan'", "1_0.5", "1:x", "1e500", "1", "-0",
        "'.inf'", "'-.inf'", "'+.NaN'", "INF", "'1.5.5'", "'1,5'", "'0x10'", "'1e'", "'e5'", "'.'",
        "'1:30:'", "'1: 30'", "'-1:-30'", "'1_'", "x" * 300, "'é'", "'ΣΑΣ'", "1:2:3:4:5:6:7:8:9:10:11:12:13:14:15",
        "'1:' " , "'1e308:1'", "{=: 2.5}", "[1]", "'-_-'",
    ],
    "bool": ["x", "'True\\n'", "yes", "'YES'", "'yEs'", "1", "'ON'", "'İ'", "[1]", "{=: off}", "''"],
    "null": ["x", "''", "[1]", "{a: 1}", "{=: x}", "'null'"],
    "timestamp": [
        "x", "2024-1-1", "'2024-01-01 10:00:00Z'", "{=: 2024-01-01}", "[1]", "''", "2024-02-30",
        "'2024-01-01\\n'", "'2024-01-01 10:00:00 +0530'", "2024-01-01T10:00:00.5",
    ],
    "binary": [
        "aGVsbG8=", "abcde", "abc", "ab", "a", "'a=b=c'", "'ab=c'", "'ab==c'", "'ab=='", "'abc='",
        "'abcd===='", "'a b c d'", "'!!!!'", "'é'", "'aéb'", "'aéè'", "'a😀'", "''", "'===='",
        "'ab=cd'", "'abc=d'", "'a\\nb\\tc\\rd'", "[1]", "{=: aGk=}",
        "|\n  aGVs\n  bG8=\n",
    ],
    "omap": ["[a: 1, b: 2]", "{a: 1}", "[a, b]", "[{a: 1, b: 2}]", "[{=: 1}]", "[]", "[[1]: 2]", "[a: 1, a: 2]", "x"],
    "pairs": ["[a: 1, a: 2]", "{a: 1}", "[a]", "[{}]", "[{<<: {a: 1}}]", "x"],
    "set": ["{a, b, a}", "[a]", "{1, 1.0, true}", "{[1]}", "{}", "x", "{a: 1, <<: {b: 2}}"],
    "seq": ["{a: 1}", "[1, 2]", "x", "[]"],
    "map": ["[1]", "{a: 1}", "x", "{}"],
    "merge": ["x", "[1]"],
    "value": ["x"],
    "foo": ["x", "[1]", "{a: 1}"],
}
for t, values in TAGGED.items():
    for i, v in enumerate(values):
        add(f"tag !!{t} {i:02d}", f"!!{t} {v}")
        if i < 6:
            add(f"tag !!{t} {i:02d} in list", f"- !!{t} {v}\n- after\n")

add("local tag", "!foo x")
add("local tag on seq", "!foo [1]")
add("verbatim tag", "!<tag:x> 1")
add("verbatim yaml tag", "!<tag:yaml.org,2002:int> '12'")
add("verbatim local", "!<!bar> 1")
add("tag directive", "%TAG !e! tag:example.com,2000:\n---\n!e!x 1")
add("tag directive yaml", "%TAG !y! tag:yaml.org,2002:\n---\n!y!int '7'")
add("tag directive primary", "%TAG ! tag:yaml.org,2002:\n---\n!int '7'")
add("tag escaped", "!!str%20x 1")
add("tag unicode escape", "!e%C3%A9 1")
add("tag with quote", "!a'b 1")
add("undefined tag handle", "!e!x 1")
add("duplicate tag directive", "%TAG !e! a:\n%TAG !e! b:\n--- 1")
add("yaml directive 1.1", "%YAML 1.1\n--- 1")
add("yaml directive 1.2", "%YAML 1.2\n--- 1")
add("yaml directive 2.0", "%YAML 2.0\n--- 1")
add("yaml directive twice", "%YAML 1.1\n%YAML 1.1\n--- 1")
add("unknown directive", "%FOO bar\n--- 1")
add("directive without document", "%YAML 1.1\n")
add("tag on alias", "a: &x 1\nb: !!str *x")
PROPERTY_CASES = [
    "%TAG !e! tag:e.com,2000:\n--- !e!a 1\n--- !e!b 2",
    "--- !e!a 1\n...\n%TAG !e! x:\n--- 2",
    "%TAG !e! x:\n--- 1\n...\n--- !e!a 2",
    "%TAG !! tag:other:\n--- !!int 1",
    "%TAG ! !foo-\n--- !bar 1",
    "%YAML 1.1\n%TAG !e! x:\n--- !e!y 1",
    "%YAML 1.1\n...\n",
    "%TAG !e! x:\n%YAML 1.1\n--- !e!y 1",
    "--- &a\n...",
    "!!str\n",
    "!!int\n",
    "&x\n",
    "- &x\n- *x\n",
    "- !!null\n",
    "? !!str\n: !!int\n",
    "{!!str : x}",
    "[!!str , x]",
    "--- !",
    "a: !\n",
    "a: ! \nb: 1\n",
    "a: &x !\n",
    "[&a , *a]",
    "{&a : 1}",
    "{? &a : 1, *a : 2}",
    "- ! [1]\n",
    "- !<tag:yaml.org,2002:str> 1\n",
    "- !<!> 1\n",
    "!<> x\n",
    "- !!str &a x\n- *a\n",
    "a: !!str\n  b\n",
    "a: !!map\n  b: c\n",
    "a: !!seq\n- b\n",
    "- !!seq\n  - a\n",
    "? - a\n  - b\n: c\n",
    "- ? a\n  : b\n",
    "a:\n  - b\n  -\nc: d\n",
    "- a\n-\n- c\n",
    "key:\n- a\n- b\nother: 1\n",
    "? a\n? b\n",
    ": a\n",
    "[a, b]: c\n",
    "{a: b}: c\n",
    "[? a, ? b : c, d: e]",
    "{? a, b, c: }",
    "[a: [b: c]]",
    "---\n---\n",
    "...\n---\na\n",
    "a\n...\n%YAML 1.1\n---\nb\n",
]
for i, text in enumerate(PROPERTY_CASES):
    add(f"parser {i:02d}", text)
add("anchor and tag", "a: &x !!str 1\nb: *x")
add("tag then anchor", "a: !!str &x 1\nb: *x")

# ---------------------------------------------------------------- merge keys

MERGES = {
    "simple": "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  c: 3\n",
    "override": "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  a: 9\n",
    "override before": "base: &b {a: 1, b: 2}\nx:\n  a: 9\n  <<: *b\n",
    "list": "m1: &m1 {a: 1, x: 1}\nm2: &m2 {a: 2, y: 2}\nx:\n  <<: [*m1, *m2]\n",
    "list long keys": "m1: &m1 {ab: 1}\nm2: &m2 {ab: 2}\nx:\n  <<: [*m1, *m2]\n",
    "list latin1 key": "m1: &m1 {é: 1}\nm2: &m2 {é: 2}\nx:\n  <<: [*m1, *m2]\n",
    "list non latin1 key": "m1: &m1 {ā: 1}\nm2: &m2 {ā: 2}\nx:\n  <<: [*m1, *m2]\n",
    "list empty key": "m1: &m1 {'': 1}\nm2: &m2 {'': 2}\nx:\n  <<: [*m1, *m2]\n",
    "list int keys": "m1: &m1 {1: a}\nm2: &m2 {1: b, 22: c}\nm3: &m3 {22: d}\nx:\n  <<: [*m1, *m2, *m3]\n",
    "two merge keys": "m1: &m1 {a: 1}\nm2: &m2 {a: 2}\nx:\n  <<: *m1\n  <<: *m2\n",
    "inline": "x: {<<: {a: 1, b: 2}, c: 3}",
    "nested": "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b, z: 3}\n",
    "nested inline": "c: {<<: {<<: {<<: {deep: 1}, mid: 2}, top: 3}}",
    "same twice": "a: &a {x: 1, yy: 2}\nc: {<<: [*a, *a]}\n",
    "self": "a: &a {x: 1, <<: *a}\n",
    "scalar": "x: {<<: 1}",
    "seq of scalar": "x: {<<: [1]}",
    "seq second bad": "x: {<<: [{a: 1}, 2]}",
    "seq of seq": "x: {<<: [[{a: 1}]]}",
    "empty map": "x: {<<: {}}",
    "empty list": "x: {<<: []}",
    "null": "x: {<<: ~}",
    "as value": "a: <<",
    "quoted key": "x: {'<<': {a: 1}}",
    "tagged key": "x: {!!merge x: {a: 1}}",
    "in list item": "- &a {x: 1}\n- <<: *a\n  y: 2\n",
    "in set": "!!set {<<: {a: 1}, b}",
    "value key": "{=: 1, a: 2}",
    "value key merged": "x: {<<: {=: 1}}",
    "value key in value": "a: =",
    "merge into key order": "x:\n  z: 0\n  <<: {b: 1, a: 2}\n  a: 3\n",
    "merge with dup keys": "x:\n  <<: {a: 1, a: 2}\n",
    "merge unhashable": "x: {<<: {[1]: 2}}",
    "merged alias list": "l: &l [{a: 1}, {b: 2}]\nx: {<<: *l}\n",
    "deep chain": "".join(f"m{i}: &m{i} {{k{i}: {i}, <<: *m{i-1}}}\n" if i else "m0: &m0 {k0: 0}\n" for i in range(30)) + "x: {<<: *m29}\n",
}
for name, text in MERGES.items():
    add(f"merge {name}", text)

# ---------------------------------------------------------------- keys and duplicates

KEYS = {
    "dup": "{a: 1, a: 2}",
    "dup block": "a: 1\nb: 2\na: 3\n",
    "numeric": "{1: a, 1.0: b, true: c}",
    "zeros": "{0: a, false: b, 0.0: c, -0.0: d}",
    "float int distinct": "{1.5: a, 1: b}",
    "str vs int": "{'1': a, 1: b}",
    "null keys": "{~: a, null: b, : c}",
    "empty key block": ": a\n",
    "nan shared": "? .nan\n: 1\n? .nan\n: 2\n",
    "nan fresh": "? !!float nan\n: 1\n? !!float nan\n: 2\n",
    "nan alias": "? &n !!float nan\n: 1\n? *n\n: 2\n",
    "nan mixed": "? .nan\n: 1\n? !!float nan\n: 2\n? .NaN\n: 3\n",
    "inf keys": "{.inf: a, !!float inf: b, -.inf: c}",
    "aware equal": "{2024-01-01 10:00:00+01:00: a, 2024-01-01 09:00:00Z: b}",
    "naive vs aware": "{2024-01-01 10:00:00: a, 2024-01-01 10:00:00Z: b}",
    "date vs datetime": "{2024-01-01: a, 2024-01-01 00:00:00: b}",
    "big vs float": "{18446744073709551616: a, 18446744073709551616.0: b}",
    "2**53+1 vs float": "{9007199254740993: a, 9007199254740993.0: b}",
    "big int equal forms": "{0x10000000000000000: a, 18446744073709551616: b, 0b10000000000000000000000000000000000000000000000000000000000000000: c}",
    "hex dup": "{0x10: a, 16: b, 020: c, 0b10000: d, 0:16: e}",
    "bytes key": "{!!binary aGk=: a, hi: b}",
    "seq key": "{[1]: 2}",
    "map key": "? {a: 1}\n: 2\n",
    "set key": "? !!set {a}\n: 2\n",
    "omap key": "? !!omap [a: 1]\n: 2\n",
    "alias seq key": "a: &a [1]\n? *a\n: 2\n",
    "complex key second": "{a: 1, [b]: 2}",
    "unhashable after bad value": "{a: !!int x, [b]: 2}",
    "bad key then bad value": "{!!int x: !!bad y}",
    "many keys": "\n".join(f"k{i % 40}: {i}" for i in range(100)) + "\n",
    "many numeric keys": "\n".join(f"{v}: {i}" for i, v in enumerate(["1", "1.0", "true", "2", "2.0", "0x2", "3", "03", "0b11", "4"] * 3)) + "\n",
    "many mixed keys": "\n".join(f"{k}: {i}" for i, k in enumerate([f"s{j}" for j in range(20)] + ["1", "1.0", "yes", "~", "null", "2024-01-01", "'2024-01-01'"])) + "\n",
    "explicit keys": "? a\n: 1\n? b\n? c\n: 3\n",
    "flow pair in seq": "[a: 1, b: 2, c]",
    "flow pair explicit": "[? a : 1]",
    "long key ascii": "k" * 1100 + ": 1\n",
    "long key 1024": "k" * 1024 + ": 1\n",
    "long key 1023": "k" * 1023 + ": 1\n",
    "long flow key": "{" + "k" * 1100 + ": 1}",
}
for name, text in KEYS.items():
    add(f"keys {name}", text)

# ---------------------------------------------------------------- anchors

ANCHORS = {
    "scalar": "a: &x 1\nb: *x\n",
    "seq": "a: &x [1, 2]\nb: *x\nc: *x\n",
    "map": "a: &x {k: v}\nb: *x\n",
    "nested": "a: &x {k: &y [1, {z: 2}]}\nb: *y\nc: *x\n",
    "undefined": "a: *y\n",
    "duplicate": "a: &x 1\nb: &x 2\n",
    "duplicate seq": "a: &x [1]\nb: &x [2]\n",
    "before definition": "a: *x\nb: &x 1\n",
    "self seq": "a: &a [*a]\n",
    "self map": "a: &a {x: *a}\n",
    "self deep": "a: &a [1, [2, *a]]\n",
    "alias as key": "a: &k key\n*k : v\n",
    "alias key flow": "{&k a: 1, *k : 2}",
    "anchor on empty": "a: &x\nb: *x\n",
    "anchor names": "a: &a-b.c 1\nb: *a-b.c\n",
    "anchor unicode": "a: &é 1\nb: *é\n",
    "anchor then alias in flow": "[&a x, *a, *a]",
    "alias bad char": "a: *\n",
    "anchor bad char": "a: & 1\n",
    "many uses": "a: &a [1, 2, 3]\nb: [*a, *a, *a, *a]\n",
    "shared scalar key": "a: &k x\nm: {*k : 1, x: 2}\n",
    "laughs": "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n",
}
for name, text in ANCHORS.items():
    add(f"anchor {name}", text)

# ---------------------------------------------------------------- styles

STYLES = {
    "block nested": "a:\n  b:\n    - 1\n    - c: 2\n      d: [3, {e: 4}]\n  f: g\n",
    "indentless seq": "a:\n- 1\n- 2\nb: 3\n",
    "compact nested seq": "- - - a\n    - b\n  - c\n- d\n",
    "flow nested": "{a: [1, {b: 2}], c: {d: [e, f]}, g: []}",
    "flow multiline": "{a: 1,\n b: [2,\n  3],\n c: d\n}",
    "flow trailing comma": "[1, 2, ]",
    "flow map trailing comma": "{a: 1, }",
    "flow empty entries": "[1, , 2]",
    "flow map no value": "{a, b: , c: 1}",
    "flow plain multiword": "[a b, c d e]",
    "flow colon adjacent": '{"a":1, "b":[2]}',
    "flow url": "[http://x.y, a:b]",
    "flow question": "[a?b, ?c]",
    "multiline plain": "a: one\n  two\n\n  three\n   four\nb: x\n",
    "multiline plain top": "one\ntwo\n\nthree",
    "literal": "a: |\n  line1\n  line2\n\n  line4\n\n\nb: x\n",
    "literal strip": "a: |-\n  text\n\n\nb: x\n",
    "literal keep": "a: |+\n  text\n\n\nb: x\n",
    "literal keep end": "a: |+\n  text\n\n",
    "literal indent indicator": "a: |2\n   lead\n  text\n",
    "literal indent indicator strip": "a: |-2\n    x\n",
    "literal more indented": "a: |\n  x\n    y\n  z\n",
    "literal leading blank": "a: |\n\n  x\n",
    "literal empty": "a: |\nb: 1\n",
    "literal tabs": "a: |\n  x\ty\n  \tz\n",
    "folded": "a: >\n  one\n  two\n\n  three\n    indented\n  four\n",
    "folded strip": "a: >-\n  one\n  two\n",
    "folded keep": "a: >+\n  one\n\n",
    "folded top": "--- >\n one\n two\n",
    "literal top": "--- |\n one\n two\n",
    "literal zero indent": "a: |0\n  x\n",
    "literal comment": "a: | # note\n  x\n",
    "literal bad header": "a: |x\n  x\n",
    "double escapes": r'a: "\x41\u00e9\U0001F600\n\t\\\"\0\a\b\e\f\v\N\_\L\P\ \/"' + "\n",
    "double bad escape": r'a: "\q"' + "\n",
    "double bad hex": r'a: "\xZZ"' + "\n",
    "double bad unicode": r'a: "\uD800"' + "\n",
    "double big unicode": r'a: "\U00110000"' + "\n",
    "double line folding": 'a: "one\n  two\n\n  three\\\n  four"\n',
    "double escaped newline": 'a: "x\\\n  y"\n',
    "double multiline leading": 'a: "\n  x\n  "\n',
    "single quotes": "a: 'it''s'\n",
    "single multiline": "a: 'one\n  two\n\n  three'\n",
    "quoted keys": "'a b': 1\n\"c\\td\": 2\n",
    "comments": "# top\na: 1 # trailing\n# between\nb: [1, # in flow\n  2]\n",
    "hash in value": "a: b#c\nd: e #f\n",
    "colon in value": "a: b:c\nd: e: f\n",
    "empty values": "a:\nb: \nc: ~\n",
    "empty seq items": "-\n- \n-  # c\n",
    "explicit document": "--- \na: 1\n...\n",
    "document end only": "a: 1\n...\n",
    "document start with value": "--- a\n",
    "document start flow": "--- [1, 2]\n",
    "two documents": "--- 1\n--- 2\n",
    "second document empty": "a: 1\n---\n",
    "second document bad": "a: 1\n---\nb: [\n",
    "doc end then doc": "a\n...\n---\nb\n",
    "doc end twice": "a\n...\n...\n",
    "empty": "",
    "only comment": "# nothing\n",
    "only start": "---",
    "only start newline": "---\n",
    "only end": "...",
    "only whitespace": "   \n\n  ",
    "start end": "---\n...\n",
    "bom": "\ufeffa: 1\n",
    "bom only": "\ufeff",
    "bom in middle": "a: 1\n\ufeffb: 2\n",
    "crlf": "a: 1\r\nb:\r\n  - x\r\n  - y\r\n",
    "cr only": "a: 1\rb: 2\r",
    "crlf literal": "a: |\r\n  x\r\n  y\r\n",
    "nel line break": "a: 1\x85b: 2\n",
    "line separator": "a: x\u2028y\n",
    "tab after colon": "a:\t1\n",
    "tab in value": "a: x\ty\n",
    "tab indent": "a:\n\tb: 1\n",
    "tab before seq": "a:\n\t- 1\n",
    "tab in flow": "[\t1,\t2\t]",
    "trailing spaces": "a: 1   \nb: 2\t\n",
    "key no space": "a:1\n",
    "unicode keys": "é: 1\n日本: 2\n😀: 3\n",
    "astral": "- \U0001F600\U0001F601\n",
    "question mark plain": "? \n",
    "question in plain": "a?b: 1\n",
    "dash plain": "-a: 1\n- b\n",
    "percent plain": "a: %x\n",
    "at start": "@x\n",
    "backtick start": "`x\n",
    "pipe in flow": "[|]",
    "deep flow 50": "[" * 50 + "]" * 50,
    "deep block 50": "".join(" " * i + "k:\n" for i in range(50)) + " " * 50 + "v\n",
    "deep seq 100": "- " * 100 + "x\n",
    "sequence of maps": "- a: 1\n  b: 2\n- c: 3\n",
    "map of seqs": "a:\n  - 1\n  - 2\nb:\n- 3\n",
    "wide": "[" + ", ".join(str(i) for i in range(500)) + "]",
    "long string": "a: " + "x" * 5000 + "\n",
    "long nonascii": "a: " + "é" * 3000 + "\n",
}
for name, text in STYLES.items():
    add(f"style {name}", text)

# ---------------------------------------------------------------- nesting limits (libyaml 0.2.6)

NESTING = {
    "flow 1000": "[" * 1000 + "]" * 1000,
    "flow 1001": "[" * 1001 + "]" * 1001,
    "flow 1001 multiline": "[\n" * 1001 + "]\n" * 1001,
    "flow map 1001": "{a: " * 1001 + "}" * 1001,
    "block seq 999": "- " * 999 + "x",
    "block seq 1000": "- " * 1000 + "x",
    # Deep block mappings, kept linear in size: a chain of compact sequences,
    # then mappings opened by simple keys.
    "block map 999": "- " * 997 + "a:\n" + " " * 1995 + "b: 1\n",
    "block map 1000": "- " * 998 + "a:\n" + " " * 1997 + "b: 1\n",
    "block map 300 lines": "".join(" " * i + "a:\n" for i in range(300)),
    "block 999 flow 1": "- " * 999 + "[x]",
    "block 999 flow 2": "- " * 999 + "[[x]]",
    "block 600 flow 400": "- " * 600 + "[" * 400 + "]" * 400,
    "block 600 flow 401": "- " * 600 + "[" * 401 + "]" * 401,
    "explicit keys 1000": "? " * 1000 + "x",
    "flow 1001 after error": "[" * 1001 + "]" * 1001 + "\n: : :",
    "flow 1001 then undefined alias": "[*nope, " + "[" * 1001 + "]" * 1001 + "]",
    "flow then shallow": "[" * 999 + "]" * 999 + "\n",
    "flow 1001 in second doc": "a\n--- " + "[" * 1001 + "]" * 1001,
    "flow 1001 with bom": "\ufeff" + "[" * 1001 + "]" * 1001,
    "flow 1001 crlf": "a:\r\n  " + "[\r\n" * 1001,
    "flow 1001 after nonascii": "é: " + "[" * 1001,
    "flow 1001 then control char": "[" * 1001 + "]" * 1001 + "\x01",
    "flow 1001 then far control char": "[" * 1001 + "x" * 20000 + "\x01",
    "block 1000 then far control char": "- " * 1000 + "x" * 20000 + "\x01",
    "flow 1001 late in big text": "a: " + "x" * 20000 + "\nb: " + "[" * 1001,
    "flow 1001 straddling chunk": "a: " + "é" * 8190 + "\nb: " + "[" * 1001,
    "block map 1000 simple keys": "- " * 998 + "kk:\n" + " " * 1997 + "kkk: 1\n",
    "flow 1001 then unterminated quote": "[" * 1001 + ' "abc',
    "flow 1001 then bad escape": "[" * 1001 + ' "\\q"',
    "flow 1001 then tab error": "[" * 1001 + "]" * 5 + "\n\t- x",
    "flow 1000 then unterminated quote": "[" * 1000 + ' "abc',
    "block 1000 then bad anchor": "- " * 999 + "- &",
    "block 999 then bad anchor": "- " * 998 + "- &",
    "flow 1001 far after long scalar": "[" * 1001 + "x" * 3000 + " \"",
    "value key chain 990": "!!str " + "{=: " * 990 + "x" + "}" * 990,
    "merge chain 990": "x: " + "{<<: " * 990 + "{a: 1}" + "}" * 990,
    "merge list chain 400": "x: " + "{<<: [" * 400 + "{a: 1}" + "]}" * 400,
    "block map 1000 flow key": "- " * 998 + "a:\n" + " " * 1997 + "[x, y]: 1\n",
}
for name, text in NESTING.items():
    add(f"nesting {name}", text)

# ---------------------------------------------------------------- malformed

MALFORMED = {
    "unclosed flow seq": "[1, 2",
    "unclosed flow map": "{a: 1",
    "unclosed double": 'a: "abc',
    "unclosed single": "a: 'abc",
    "extra close": "[1]]",
    "bad indent": "a:\n  b: 1\n c: 2\n",
    "mapping in value": "a: b: c\n",
    "seq then map": "- a\nb: c\n",
    "map then seq": "a: b\n- c\n",
    "block seq in flow": "[- a]",
    "key in flow seq": "[a, ? b: c]",
    "colon start": ": a\n: b\n",
    "alias then text": "a: *x y\n",
    "anchor only": "&a\n",
    "alias only": "*a\n",
    "star space": "* a\n",
    "ampersand": "a: &\n",
    "empty tag": "!<> x\n",
    "bad verbatim": "!<x\n",
    "bad tag char": "!a{b x\n",
    "tag handle only": "!!\n",
    "bad tag directive": "%TAG !e\n--- x\n",
    "bad yaml directive": "%YAML 1\n--- x\n",
    "long version": "%YAML 1.12345678901\n--- x\n",
    "directive no dashes": "%YAML 1.1\nx\n",
    "document in flow": "[---]",
    "doc end in flow": "[\n...\n]",
    "control char": "- \x01\n",
    "control char later": "a: 1\nb: \x07\n",
    "control after nonascii": "é: \x02\n",
    "del char": "a: \x7f\n",
    "nul char": "a: \x00\n",
    "c1 control": "a: \x9f\n",
    "fffe": "a: \ufffe\n",
    "unpaired bracket in key": "a]: 1\n",
    "flow map missing comma": "{a: 1 b: 2}",
    "flow seq missing comma": '["a" "b"]',
    "literal in flow": "[|\n x]",
    "quoted then text": '"a" b\n',
    "quoted key then text": '"a" b: c\n',
    "dedent literal": "a: |\n    x\n  y\n",
    "bad folded indent": "a: >\n  x\n y\n",
    "tab indented map": "a:\n  b: 1\n\tc: 2\n",
    "block entry after value": "a: - b\n",
    "key after seq": "- a\n  b: c\n",
    "mixed indentation": "a:\n  - b\n   - c\n",
    "question then dash": "? - a\n- b\n",
    "reserved at": "a: @b\n",
    "reserved backtick": "a: `b\n",
    "unexpected end in quoted": '"a\\',
    "escape at end": '"a\\\n',
    "simple key too long": "a" * 1100 + "\n: 1\n",
    "multiline key": "a\nb: 1\n",
    "flow map in block key bad": "{a: 1}}: 2\n",
    "double colon flow": "{a: : b}",
    "question in flow map": "{? }",
    "empty flow explicit key seq": "[?]",
    "explicit key seq spaced": "[ ? ]",
    "explicit key value seq": "[? : b]",
    "explicit key comma seq": "[? , b]",
    "explicit key then close nested": "[[? ], 1]",
}
for name, text in MALFORMED.items():
    add(f"malformed {name}", text)

# Long keys: libyaml gives up on a simple key after 1024 characters on a line.
add("long key nonascii 600", "é" * 600 + ": 1\n")
add("long key nonascii 1100", "é" * 1100 + ": 1\n")
LONG_KEYS = {
    "500 two-byte": "é" * 500 + ": 1\n",
    "1024 two-byte": "é" * 1024 + ": 1\n",
    "1025 two-byte": "é" * 1025 + ": 1\n",
    "400 three-byte": "日" * 400 + ": v\n",
    "300 four-byte": "😀" * 300 + ": v\n",
    "carets mixed": ("é^" * 300) + ": x^é\n",
    "nested": "a:\n  " + "ü" * 700 + ":\n    " + "ö" * 600 + ": deep\n",
    "flow": "{" + "é" * 700 + ": 1, b: 2}",
    "flow seq pair": "[" + "é" * 700 + ": 1]",
    "quoted": '"' + "é" * 700 + '": 1\n',
    "single quoted": "'" + "é" * 700 + "''x': 1\n",
    "escaped caret": '"' + "é" * 700 + '\\x5e^": 1\n',
    "escaped nonascii": '"' + "é" * 700 + '\\u00e9": 1\n',
    "value only": "k: " + "é" * 2000 + "\n",
    "long value line then key": "k: " + "é^" * 700 + "\n" + "é" * 600 + ": 2\n",
    "required stale": "a: 1\n" + "é" * 700 + "\n",
    "literal": "k: |\n  " + "é" * 1500 + "\n  ^x\n",
    "mid-line bom": "\ufeff" * 400 + "x: 1\n" + "a\ufeffb" * 200 + ": 2\n",
    "nel separated": "a: " + "é" * 600 + "\x85" + "é" * 600 + ": 1\n",
    "anchor": "&a " + "é" * 700 + ": 1\n",
    "tagged": "!!str " + "é" * 700 + ": 1\n",
    "complex": "? " + "é" * 700 + "\n: 1\n",
}
for name, text in LONG_KEYS.items():
    add(f"long key {name}", text)

# ---------------------------------------------------------------- print-like artifacts


def statistics_like(rng: random.Random, columns: int) -> str:
    lines = [
        "format_version: 1",
        "table: dev.sales.orders",
        "type: table",
        "profiled_at: '2026-11-29T18:27:31Z'",
        f"row_count: {rng.randint(0, 10**7)}",
        "row_count_method: exact",
        "null_patterns:",
        f"  coverage: {rng.random():.6f}",
        "  patterns:",
    ]
    for _ in range(rng.randint(0, 6)):
        lines.append("  - columns:")
        for j in range(rng.randint(0, 3)):
            lines.append(f"    - col_{j}")
        lines.append(f"    count: {rng.randint(1, 900)}")
    lines.append("columns:")
    for c in range(columns):
        lines += [
            f"  col_{c}:",
            f"    type: {rng.choice(['INTEGER', 'VARCHAR(255)', 'DATE', 'TIMESTAMP', 'DOUBLE', 'BOOLEAN'])}",
            f"    nullable: {rng.choice(['true', 'false'])}",
            f"    null_count: {rng.randint(0, 100)}",
            f"    distinct_count: {rng.randint(0, 10**6)}",
            f"    min: {rng.choice([str(rng.randint(-10**9, 10**9)), repr(rng.uniform(-1e6, 1e6)), '2024-01-01', '\'2024-01-01T00:00:00Z\'', 'null'])}",
            f"    max: {rng.choice([str(rng.randint(-10**9, 10**9)), repr(rng.uniform(-1e6, 1e6)), '2099-12-31', 'yes'])}",
            f"    mean: {rng.uniform(-1e3, 1e3)!r}",
            f"    stddev: {rng.expovariate(0.01)!r}",
            "    top:",
        ]
        for _ in range(rng.randint(0, 4)):
            value = rng.choice(["N", "P", "S", "'001'", "\"a \\\"quoted\\\" one\"", "café", "''", "~", "1.5", "on"])
            lines += [f"    - value: {value}", f"      count: {rng.randint(1, 5000)}"]
        lines.append(f"    values: {''.join(rng.choice('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') for _ in range(rng.randint(0, 200)))}=")
    return "\n".join(lines) + "\n"


def relationships_like(rng: random.Random) -> str:
    out = [
        "format_version: 1",
        "table: dev.sales.orders",
        "profiled_at: '2026-11-29T18:27:31Z'",
        "eligible_target: true",
        "refers_to:",
    ]
    for i in range(rng.randint(1, 4)):
        out += [
            "- column:",
            f"  - c{i}",
            f"  target_table: dev.crm.t{i}",
            "  target_column:",
            f"  - id{i}",
            "  detection: inferred",
            "  observed:",
            f"    fanout_avg: {rng.random() * 3:.6f}",
            f"    target_coverage: {rng.random():.4f}",
            "    scope_compatible: true",
            f"    fanout_max: {rng.randint(1, 9)}",
            "    containment: 1.0",
        ]
    out.append("referenced_by: []")
    return "\n".join(out) + "\n"


def manifest_like() -> str:
    return (
        "format_version: 1\n"
        "notes: |\n"
        "  Conventions true of every table here:\n"
        "\n"
        "  - A DATE of `2099-12-31` means \"open-ended\". Never compare it as a real date.\n"
        "  - `-1` in a count column means \"not recorded\", not zero.\n"
        "tables:\n"
        "  dev.sales.orders: {kind: table, rows: 3400, described: yes}\n"
        "  dev.sales.returns: {kind: view, rows: ~, described: no}\n"
        "generated: 2026-11-29 18:27:31.123456+00:00\n"
        "checksum: !!binary |\n"
        "  aGVsbG8gd29ybGQ=\n"
    )


rng = random.Random(20240601)
add("artifact statistics small", statistics_like(rng, 3))
add("artifact statistics large", statistics_like(rng, 40))
add("artifact relationships", relationships_like(rng))
add("artifact manifest", manifest_like())

# ---------------------------------------------------------------- random mutations

SEEDS = [text for _, text in CASES if 10 < len(text) < 400]
ALPHABET = list("-:?[]{},#&*!|>'\"%@` \t\n\r.~=<0123456789abcxyzé😀\\") + ["\n  ", ": ", "- ", "---", "...", "\x00", "\x85"]
fuzz = random.Random(7)
for i in range(600):
    text = fuzz.choice(SEEDS)
    for _ in range(fuzz.randint(1, 3)):
        op = fuzz.random()
        pos = fuzz.randint(0, len(text))
        if op < 0.35:
            text = text[:pos] + fuzz.choice(ALPHABET) + text[pos:]
        elif op < 0.65:
            end = min(len(text), pos + fuzz.randint(1, 4))
            text = text[:pos] + text[end:]
        elif op < 0.8:
            text = text[:pos]
        else:
            lines = text.split("\n")
            a, b = fuzz.randrange(len(lines)), fuzz.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
    add(f"fuzz {i:03d}", text)


SCALAR_POOL = PLAIN.split() + ['"a b"', "'c''d'", '"\\u00e9"', "!!str 1", "!!int '7'", "! 5", "|\n  lit", ">-\n  fold", '""', "''"]


def random_doc(rng: random.Random) -> str:
    """A random document built from YAML constructs, often valid."""

    anchors: list[str] = []

    def scalar() -> str:
        s = rng.choice(SCALAR_POOL)
        if s.startswith(("|", ">")):
            return rng.choice(["x", "y z", "1"])
        r = rng.random()
        if r < 0.08 and anchors:
            return "*" + rng.choice(anchors)
        if r < 0.14:
            name = f"a{len(anchors)}"
            anchors.append(name)
            return f"&{name} {s}"
        return s

    def flow(d: int) -> str:
        if d > 3 or rng.random() < 0.4:
            return scalar()
        if rng.random() < 0.5:
            return "[" + ", ".join(flow(d + 1) for _ in range(rng.randint(0, 4))) + "]"
        items = []
        for _ in range(rng.randint(0, 4)):
            k = rng.choice(["k", "<<", "=", "1", "1.0", "true", "~", "'k'", "x y", "2024-01-01"]) if rng.random() < 0.6 else flow(d + 1)
            items.append(f"{k}: {flow(d + 1)}")
        return "{" + ", ".join(items) + "}"

    def block(d: int, indent: int) -> list[str]:
        pad = " " * indent
        lines: list[str] = []
        if d > 4 or rng.random() < 0.2:
            return [pad + flow(d)]
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 4)):
                if rng.random() < 0.5:
                    lines.append(pad + "- " + flow(d + 1))
                else:
                    lines.append(pad + "-")
                    lines += block(d + 1, indent + rng.choice([1, 2, 4]))
        else:
            for _ in range(rng.randint(1, 5)):
                key = rng.choice(["k", "key", "<<", "=", "1", "yes", "~", "'q'", "a b", "? x", "[1, 2]", "{a: 1}", "&ka kk", "*a0"])
                if key.startswith("? "):
                    lines.append(pad + key)
                    lines.append(pad + ": " + flow(d + 1))
                elif rng.random() < 0.5:
                    lines.append(pad + key + ": " + flow(d + 1))
                else:
                    lines.append(pad + key + ":")
                    lines += block(d + 1, indent + rng.choice([0, 1, 2, 4]))
        return lines

    text = "\n".join(block(0, 0)) + "\n"
    if rng.random() < 0.15:
        text = "--- " + text if rng.random() < 0.5 else "%YAML 1.1\n---\n" + text
    return text


def mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        op = rng.random()
        pos = rng.randint(0, len(text))
        if op < 0.35:
            text = text[:pos] + rng.choice(ALPHABET) + text[pos:]
        elif op < 0.65:
            end = min(len(text), pos + rng.randint(1, 4))
            text = text[:pos] + text[end:]
        elif op < 0.8:
            text = text[:pos]
        else:
            lines = text.split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
    return text


grammar = random.Random(11)
for i in range(400):
    doc = random_doc(grammar)
    add(f"grammar {i:03d}", doc if i % 3 else mutate(grammar, doc))


def extra(count: int, seed: int, out: Path) -> None:
    """Many more random cases for a local run (not committed)."""

    rng = random.Random(seed)
    with out.open("w", encoding="utf-8") as fh:
        for i in range(count):
            if rng.random() < 0.2:
                # Long lines of multi-byte text: keys near libyaml's 1024-character limit.
                text = random_doc(rng)
                lines = text.split("\n")
                for _ in range(rng.randint(1, 3)):
                    j = rng.randrange(len(lines))
                    chunk = "".join(rng.choice("éü日😀^ab \ufeff") for _ in range(rng.randint(250, 1100)))
                    pos = rng.randint(0, len(lines[j]))
                    lines[j] = lines[j][:pos] + chunk + lines[j][pos:]
                text = "\n".join(lines)
            elif rng.random() < 0.5:
                text = random_doc(rng)
                if rng.random() < 0.5:
                    text = mutate(rng, text)
            else:
                text = mutate(rng, rng.choice(SEEDS))
            fh.write(json.dumps(run(f"extra {i}", text), ensure_ascii=True, allow_nan=False) + "\n")
    print(f"wrote {count} extra cases to {out}")


def main() -> None:
    if len(sys.argv) in (4, 5) and sys.argv[1] == "--extra":
        # --extra COUNT OUT [SEED]: random cases for YAML_EXTRA_CASES=OUT cargo test ... -- --ignored
        seed = int(sys.argv[4]) if len(sys.argv) == 5 else 99
        extra(int(sys.argv[2]), seed, Path(sys.argv[3]))
        return
    OUT.parent.mkdir(parents=True, exist_ok=True)
    seen = set()
    with OUT.open("w", encoding="utf-8") as fh:
        for name, text in CASES:
            assert name not in seen, name
            seen.add(name)
            fh.write(json.dumps(run(name, text), ensure_ascii=True, allow_nan=False) + "\n")
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
