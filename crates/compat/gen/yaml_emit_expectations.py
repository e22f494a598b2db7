"""Record what the reference's YAML producers write for many values.

Run with the reference's interpreter:

    /opt/dbp313/bin/python crates/compat/gen/yaml_emit_expectations.py

It writes crates/compat/fixtures/yaml-emit/cases.jsonl, one JSON object a line:
{"name", "value": <tagged value>, "safe_dump", "dbprint_dump", "inline"}, where an output is
null when the reference raises for that value. Only synthetic values are recorded.

With `--real DIR OUT`, it instead records every relationships/diff/statistics/manifest
.yaml under DIR, parsed with CSafeLoader, into OUT (for a by-hand check outside the repo),
adding the file's own text as `file_text` when the reference re-dumps it to the same bytes.

Tagged values: {"t": "null"} | {"t": "bool", "v": b} | {"t": "int", "v": "<decimal>"} |
{"t": "float", "v": "<repr>"} | {"t": "str", "v": s} | {"t": "bytes", "v": "<base64>"} |
{"t": "date", "v": [y, m, d]} | {"t": "datetime", "v": [y, m, d, H, M, S, us, offset_s|null]} |
{"t": "list", "v": [...]} | {"t": "dict", "v": [[k, v], ...]}.
"""

from __future__ import annotations

import base64
import datetime
import glob
import json
import math
import os
import random
import sys

import yaml

from dbprint.engine.yaml_dumper import dump_yaml, spell_inline

OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "yaml-emit", "cases.jsonl"
)


def enc(v):
    if v is None:
        return {"t": "null"}
    if isinstance(v, bool):
        return {"t": "bool", "v": v}
    if isinstance(v, int):
        return {"t": "int", "v": str(v)}
    if isinstance(v, float):
        return {"t": "float", "v": repr(v)}
    if isinstance(v, str):
        return {"t": "str", "v": v}
    if isinstance(v, bytes):
        return {"t": "bytes", "v": base64.b64encode(v).decode("ascii")}
    if isinstance(v, datetime.datetime):
        off = v.utcoffset()
        return {
            "t": "datetime",
            "v": [v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond,
                  None if off is None else int(off.total_seconds())],
        }
    if isinstance(v, datetime.date):
        return {"t": "date", "v": [v.year, v.month, v.day]}
    if isinstance(v, list):
        return {"t": "list", "v": [enc(x) for x in v]}
    if isinstance(v, dict):
        return {"t": "dict", "v": [[enc(k), enc(x)] for k, x in v.items()]}
    raise TypeError(type(v))


def dec(t):
    kind = t["t"]
    if kind == "null":
        return None
    if kind in ("bool", "str"):
        return t["v"]
    if kind == "int":
        return int(t["v"])
    if kind == "float":
        return float(t["v"])
    if kind == "bytes":
        return base64.b64decode(t["v"])
    if kind == "date":
        return datetime.date(*t["v"])
    if kind == "datetime":
        *parts, off = t["v"]
        tz = None if off is None else datetime.timezone(datetime.timedelta(seconds=off))
        return datetime.datetime(*parts, tzinfo=tz)
    if kind == "list":
        return [dec(x) for x in t["v"]]
    if kind == "dict":
        return {dec(k): dec(x) for k, x in t["v"]}
    raise TypeError(kind)


def attempt(fn, v):
    try:
        return fn(v)
    except Exception:  # the reference raising is itself the expectation
        return None


def record(name, value):
    tagged = enc(value)
    fresh = lambda: dec(tagged)  # a tree with no shared nodes, so no anchors appear
    return {
        "name": name,
        "value": tagged,
        "safe_dump": yaml.safe_dump(fresh(), sort_keys=False, default_flow_style=False),
        "dbprint_dump": attempt(dump_yaml, fresh()),
        "inline": attempt(spell_inline, fresh()),
    }


def strings():
    s = [
        "", " ", "  ", "a", "abc", " a", "a ", " a ", "a  b", "a\tb", "\t", "- x", "-x", "-", "--",
        "---", "--- x", "...", "... x", "a---", ":", ": x", "a:", "a:b", "a: b", "a :b", "#", "# x",
        "a#b", "a #b", "a# b", "?", "? x", "?x", "a?", "a,b", "[x]", "a[b]", "{x}", "a{b}", "&a",
        "*a", "!a", "|", ">", "'", '"', "%", "@", "`", "a'b", 'a"b', "'quoted'", '"quoted"', "\\",
        "a\\b", "\\n", "yes", "Yes", "YES", "no", "No", "NO", "y", "n", "Y", "N", "on", "off", "On",
        "OFF", "true", "True", "TRUE", "false", "False", "null", "Null", "NULL", "nULL", "~", "~a",
        "1e3", "1E3", "1e+3", "1.0e+3", "1.5", ".5", "5.", "+.5", "-1.5e-3", "1_000", "1_000.5",
        "010", "0o17", "0x1F", "0X1F", "-0x1F", "+0x1F", "0b101", "-0b1", "0", "-0", "+0", "00",
        "08", "09", "0_7", "12:30", "12:30:45", "1:2:3", "-1:30", "12:30.5", "190:20:30.15",
        "12:60", "2024-01-01", "2024-1-1", "2024-01-01 10:00:00", "2024-01-01T10:00:00Z",
        "2024-01-01t10:00:00.5 +05:30", "2024-01-01  10:00:00 -5", "2024-13-45", "20240101",
        ".inf", "-.inf", "+.inf", ".Inf", ".INF", ".nan", ".NaN", "-.nan", ".NAN", "inf", "nan",
        "NaN", "-inf", "<<", "<", "=", "==", "!", "&", "*", "yes\n", "null\n", "~\n", "1\n", "1\n\n",
        "12\n", "a\n", "\n", "\n\n", "a\nb", "a\n\nb", "a\n\n\nb", "a\n b", "a \nb", "a\n", "a\n\n",
        " a\nb", "\na", "line one\nline two\n", "x\r\ny", "\r", "a\x00b", "\x07\x08\x0b\x0c\x1b",
        "\x01\x1f\x7f", "\x80\x9f", "nel\x85here", "\x85", "a\x85", "ls\u2028ps\u2029", "\u2028",
        "nbsp\xa0here", "\xa0", "bom\ufeff", "\ufeff", "zw\u200bsp", "\u200d", "é", "café",
        "naïve résumé", "日本語", "中文 字符", "emoji 😀", "😀", "\U0001F600\U0001F4A9", "\ue000",
        "\uf8ff", "\ufffd", "\ufffe", "\uffff", "\U0010FFFF", "\U0010FFFE", "\U000E0001",
        "\u3000", "\u2009thin", "\u00ad", "a\u0301", "Ω≈ç√", "\u0378", "tab\tend\t",
        "trailing space ", " leading space", "two  spaces", "ends with colon:", "key: value",
        "a - b", "a -b", "-a b", "100%", "@home", "`tick`", "C:\\path", "http://x.y/z?a=b&c=d#f",
        "<tag>", "a|b", "a>b", "a!b", "a&b", "a*b", "a%b", "a@b", "'", "''", "It's",
        "say \"hi\"", "mixed 'single' and \"double\"",
    ]
    # Folding: lengths around the 80-column width, with and without spaces.
    for n in (76, 77, 78, 79, 80, 81, 82, 120, 200, 400):
        s.append("x" * n)
        s.append(("word " * n)[:n])
        s.append(("ab cd  " * n)[:n])
        s.append("é" * n)
        s.append(("ü " * n)[:n])
    s.append(("word " * 40) + "\n" + ("next " * 30))
    s.append(("long line with words " * 8).strip() + "\n\n" + "second paragraph " * 6)
    s.append(("quote's here " * 12) + "\n" + "x")
    s.append(("tab\there " * 12))
    s.append(("esc\x01 " * 30))
    s.append(("😀 " * 50))
    s.append(("a" * 79) + " " + ("b" * 10))
    s.append(("a" * 78) + "  " + ("b" * 10))
    s.append(("a" * 77) + "\\" + ("b" * 10))
    s.append(("a " * 39) + "\x01" + " b" * 10)
    s.append(("a " * 39) + "  " + "\x01" * 5 + " b" * 10)
    s.append(("a" * 120) + " " + ("b" * 120))
    s.append(" " * 100)
    s.append(("x" * 100) + " ")
    s.append("k" * 122)
    s.append("k" * 123)
    s.append("k" * 127)
    s.append("k" * 128)
    return s


def random_strings(rng, count):
    alphabet = list("abcxyz     -:#,?[]{}'\"\\!&*|>%@`.~01239eE+_\n\t\r\x00\x85\xa0\u2028\ufeffé日😀")
    out = []
    for _ in range(count):
        n = rng.choice([1, 2, 3, 5, 8, 20, 60, 85, 130, 250])
        out.append("".join(rng.choice(alphabet) for _ in range(n)))
    return out


def floats():
    return [
        0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1.5, 2.5, 100.0, 123.456, 1e-4, 1e-5, 1.5e-5, 0.00012345,
        1e15, 1e16, 1.5e16, 1e17, 12345678901234567.0, 1e22, 1e100, 1.7976931348623157e308,
        5e-324, 2.2250738585072014e-308, 3.141592653589793, 1 / 3, 2 / 3, 9007199254740993.0,
        float("nan"), float("inf"), float("-inf"), 1e300 * 10, 0.30000000000000004, 1e-7,
        123456789.123, -1e-10, 4.35, 0.07, 999999999999999.9, 9999999999999998.0,
        # Exact ties between two shortest candidates: repr keeps the even digit.
        -1020459894256335.2, 1681079236813270.2, 24454174918413.312, 20211339773002.312,
        1918521134515.0938, 126696282637657.88, 907717727730771.2, 1677297523074418.8,
    ]


def random_floats(rng, count):
    out = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.3:
            out.append(rng.uniform(-1000, 1000))
        elif kind < 0.6:
            out.append(rng.random() * 10 ** rng.randint(-30, 30))
        else:
            bits = rng.getrandbits(64)
            f = __import__("struct").unpack("<d", bits.to_bytes(8, "little"))[0]
            if math.isfinite(f):
                out.append(f)
    return out


def random_value(rng, depth, pool):
    r = rng.random()
    if depth <= 0 or r < 0.45:
        return rng.choice(pool)
    if r < 0.7:
        return [random_value(rng, depth - 1, pool) for _ in range(rng.randint(0, 4))]
    d = {}
    for _ in range(rng.randint(0, 4)):
        k = rng.choice(pool)
        if isinstance(k, (list, dict)):
            continue
        d[k] = random_value(rng, depth - 1, pool)
    return d


def synthetic():
    cases = []
    add = lambda name, v: cases.append((name, v))
    rng = random.Random(20240101)

    add("none", None)
    add("true", True)
    add("false", False)
    for i in (0, 1, -1, 42, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 10**40, -(10**40)):
        add(f"int {i}", i)
    for f in floats():
        add(f"float {f!r}", f)
    for f in random_floats(rng, 200):
        add(f"random float {f!r}", f)
    for i in range(40):
        add(f"random float list {i}", random_floats(rng, 50))
    for i, s in enumerate(strings()):
        add(f"str {i} {s[:30]!r}", s)
    for i, s in enumerate(random_strings(rng, 300)):
        add(f"random str {i}", s)
    for b in (b"", b"a", b"hello", bytes(range(256)), b"x" * 57, b"x" * 58, b"y" * 200):
        add(f"bytes {len(b)}", b)
    for d in (datetime.date(2024, 1, 1), datetime.date(1, 1, 1), datetime.date(999, 12, 31),
              datetime.date(9999, 12, 31)):
        add(f"date {d}", d)
    tz = lambda s: datetime.timezone(datetime.timedelta(seconds=s))
    for dt in (
        datetime.datetime(2024, 1, 1, 10, 0, 0),
        datetime.datetime(2024, 1, 1, 10, 0, 0, 123456),
        datetime.datetime(2024, 1, 1, 10, 0, 0, 500000),
        datetime.datetime(2024, 1, 1, 0, 0, 0, tzinfo=datetime.timezone.utc),
        datetime.datetime(2024, 6, 30, 23, 59, 59, 1, tzinfo=tz(19800)),
        datetime.datetime(2024, 6, 30, 23, 59, 59, tzinfo=tz(-18000)),
        datetime.datetime(2024, 6, 30, 23, 59, 59, tzinfo=tz(-1)),
        datetime.datetime(2024, 6, 30, 23, 59, 59, tzinfo=tz(3723)),
        datetime.datetime(1, 1, 1, 0, 0, 0),
    ):
        add(f"datetime {dt.isoformat()}", dt)

    # Collections.
    add("empty list", [])
    add("empty dict", {})
    add("list of scalars", [1, "a", None, True, 1.5, "yes", ""])
    add("nested empties", {"a": [], "b": {}, "c": [[], {}], "d": [{}]})
    add("dict of lists", {"k": [1, 2, [3, [4, []]]], "m": {"n": {"o": ["p"]}}})
    add("list of dicts", [{"a": 1, "b": 2}, {"c": [1, 2]}, {}, [{"d": None}]])
    add("list of lists", [[1, 2], [[3]], [], [[], [[]]]])
    add("non-string keys", {1: "int", None: "none", True: "bool", 1.5: "float", -2: [1],
                            datetime.date(2024, 1, 1): "date", "": "empty", "yes": "y",
                            "a b": 1, "x: y": 2, "- z": 3, "#h": 4, 2**70: "big"})
    add("datetime key", {datetime.datetime(2024, 1, 1, 1, 2, 3): 1})
    add("bytes key", {b"k": b"v"})
    add("bytes in list", [b"abc", {"b": b""}])
    add("long keys", {"k" * 122: 1, "k" * 123: 2, "k" * 127: 3, "k" * 200: {"x": 1},
                      "é" * 130: [1, 2]})
    add("multiline key", {"a\nb": 1, "tail\n": [1], "x": "y"})
    add("empty string key", {"": ""})
    add("special values in dict", {f"k{i}": s for i, s in enumerate(strings()[:120])})
    add("special keys", {s: i for i, s in enumerate(strings()[:200])})
    add("special values in list", strings()[:160])
    add("nested deep", {"a": {"b": {"c": {"d": {"e": ["f", {"g": "h" * 90}]}}}}})
    add("long values nested", {"level1": {"level2": [("word " * 30).strip(),
                                                     {"level3": ("text " * 40) + "\nnl"}]}})
    add("root list of long strings", ["x " * 60, "y" * 100, "é " * 60, "multi\nline\n"])
    add("float variety", [0.1, 1e16, 1e-05, float("nan"), -0.0, float("inf"), float("-inf"),
                          1e300, 12.0, 2**0.5])
    add("big ints", [2**64, -(2**64), 10**30, {"n": 2**100}])
    add("manifest-like", {
        "format_version": 1,
        "generated_at": "2026-11-29T18:27:31Z",
        "connection": "shop",
        "profile": {"read": {"tables": {"mode": "full"}}, "percentiles": [1, 25, 50],
                    "ratio": 0.25, "tiny": 1.5e-7, "huge": 1.5e20},
        "selectors": {"include": ["*"], "exclude": []},
        "tables": [{"name": "orders", "columns": ["id", "total"], "comment": None}],
    })
    add("yaml12 strings", ["1e3", "1E3", "1e-3", "+1", "-1", "0o17", "0x1F", "1.", ".5",
                           "TRUE", "~", "", "0b1", "1_0", "-.inf", "-.nan", "+0x1"])
    for i in range(150):
        pool = [None, True, False, 0, -7, 1.5, float("nan"), 1e-05, 2**65]
        pool += rng.sample(strings(), 40) + random_strings(rng, 10)
        pool += [datetime.date(2020, 2, 29), datetime.datetime(2020, 2, 29, 1, 2, 3)]
        add(f"random tree {i}", random_value(rng, 4, pool))
    return cases


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--real":
        names = {"relationships.yaml", "diff.yaml", "statistics.yaml", "manifest.yaml"}
        with open(sys.argv[3], "w", encoding="utf-8") as out:
            for path in sorted(glob.glob(os.path.join(sys.argv[2], "**", "*.yaml"),
                                         recursive=True)):
                if os.path.basename(path) not in names:
                    continue
                text = open(path, encoding="utf-8").read()
                try:
                    value = yaml.load(text, Loader=yaml.CSafeLoader)
                except yaml.YAMLError:
                    print("skipped, does not parse:", path)
                    continue
                row = record(path, value)
                # Only a file the reference itself re-dumps to the same bytes is a round-trip case.
                if row["dbprint_dump"] == text:
                    row["file_text"] = text
                else:
                    print("reference does not round-trip:", path)
                out.write(json.dumps(row, ensure_ascii=True) + "\n")
        return
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as out:
        for name, value in synthetic():
            out.write(json.dumps(record(name, value), ensure_ascii=True) + "\n")


if __name__ == "__main__":
    main()
