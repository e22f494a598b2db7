#!/usr/bin/env python3
"""Write crates/compat/fixtures/py/*.jsonl: what Python 3.13 itself answers, for the
Rust `compat::py` tests to compare against (CI runs without Python).

    /opt/dbp313/bin/python crates/compat/gen/py_expectations.py

Deterministic (fixed seed), so rerunning reproduces the committed files.
"""
import datetime
import fnmatch
import hashlib
import json
import math
import os
import random
import struct
import sys

CRATE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(CRATE, "fixtures", "py")
R = random.Random(20240101)


def bits(f):
    return "%016x" % struct.unpack("<Q", struct.pack("<d", f))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def write(name, rows):
    with open(os.path.join(OUT, name), "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"{name}: {len(rows)} rows", file=sys.stderr)


def exc(e):
    return f"!{type(e).__name__}: {e}"


# ---------------------------------------------------------------- floats

def interesting_floats():
    out = [0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 0.1 + 0.2, 0.1, 0.2, 0.3,
           5e-324, -5e-324, 1e-323, 2.2250738585072014e-308, 2.225073858507201e-308,
           1.7976931348623157e308, 1e16, 1e15, 9999999999999998.0, 1e16 - 2, 1e16 + 2,
           1e-4, 1e-5, 0.0001, 0.00009999999999999999, 123456789012345678.0, 1e22, 1e23,
           2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 63, 2.0 ** 64, 100.0, 1.5, 2.5, 1 / 3, 2 / 3,
           math.pi, math.e, 1e100, 1e-100, 1e300, 1e-300, 4.35, 2.675, 0.125, 0.375]
    for e in range(-330, 310):
        p = float("1e%d" % e)
        out += [p, math.nextafter(p, math.inf), math.nextafter(p, -math.inf)]
    for e in (-5, -4, -3, 15, 16, 17):
        for m in ("1", "9.999999999999999", "1.2345", "5"):
            out.append(float(f"{m}e{e}"))
    return out


def random_floats(n):
    out = []
    for _ in range(n):
        kind = R.randrange(6)
        if kind == 0:
            out.append(from_bits(R.getrandbits(64)))
        elif kind == 1:  # short decimals over the whole range
            digits = str(R.randrange(1, 10 ** R.randint(1, 17)))
            out.append(float(f"{digits}e{R.randint(-340, 300)}"))
        elif kind == 2:  # subnormals
            out.append(from_bits(R.getrandbits(52) | (R.getrandbits(1) << 63)))
        elif kind == 3:  # everyday magnitudes
            out.append(R.uniform(-1e6, 1e6) * 10 ** R.randint(-8, 8))
        elif kind == 4:  # integral values
            out.append(float(R.getrandbits(R.randint(1, 70))))
        else:  # near the positional/exponent switch points
            out.append(R.choice([1e16, 1e-4, 1e15, 1e-5]) * R.uniform(0.5, 2))
    return out


def tie_prone_floats(n):
    """Values whose exact expansion is one digit longer than their repr
    often sits exactly between two shortest candidates (dtoa picks even)."""
    out = []
    for _ in range(n):
        e = R.randint(48, 75)
        out.append(float(R.randrange(2 ** 52, 2 ** 53)) * 2.0 ** (e - 52) / 4)
    return out


def gen_floats():
    floats = interesting_floats() + random_floats(6500) + tie_prone_floats(1500)
    rows = [[bits(f), repr(f)] for f in floats]
    write("floats.jsonl", rows)


def gen_round():
    rows = []
    xs = interesting_floats()[:60] + random_floats(800)
    xs += [k / 8 for k in range(-80, 80)] + [k + 0.5 for k in range(-10, 10)]
    xs += [round(R.uniform(0, 100), 3) for _ in range(500)]  # e.g. ages
    xs += [R.randrange(0, 10 ** 6) / 10 ** R.randint(1, 5) + 5 * 10 ** -R.randint(2, 7)
           for _ in range(1000)]
    xs += [days / 365.25 for days in R.sample(range(0, 40000), 300)]
    nds = list(range(-5, 8)) + [-20, -100, -300, -307, -308, -309, 15, 16, 17, 20, 300, 322, 323, 324]
    for x in xs:
        # [x bits, round(x) or error, [ndigits, repr(round(x, ndigits)) or error]...]
        try:
            row = [bits(x), str(round(x))]
        except Exception as e:
            row = [bits(x), exc(e)]
        for nd in sorted(set(R.sample(nds, 3) + [0, 1, 2])):
            try:
                row.append([nd, repr(round(x, nd))])
            except Exception as e:
                row.append([nd, exc(e)])
        rows.append(row)
    write("round.jsonl", rows)


# ---------------------------------------------------------------- strings

POOL = (
    list("abcXYZ019 '\"\\/.-_~") + ["\t", "\n", "\r", "\x0b", "\x0c", "\x00", "\x01", "\x08",
                                  "\x1b", "\x1c", "\x1d", "\x1e", "\x1f", "\x7f", "\x80",
                                  "\x85", "\x9f", "\xa0", "\xad", "\xe9", "\xff", "\xdf"]
    + ["\u0100", "\u0130", "\u0131", "\u017f", "\u0345", "\u03a3", "\u03c3", "\u03c2", "\u0399",
       "\u1e9e", "\ufb01", "\ufb03", "\u1680", "\u2000", "\u200b", "\u200d", "\u200e", "\u2028",
       "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", "\ufffd", "\uffff", "\ue000", "\u0378",
       "\u0301", "\u05d0", "\u0627", "\u4e2d", "\u1f88", "\u2126", "\u212a", "\u0587", "\u1c89",
       "\U0001f600", "\U00010400", "\U0001d400", "\U000e0001", "\U000f0000", "\U0010ffff",
       "\U00010428", "\U0001e900", "\U0001f1e6", "\U00020000", "\u00b5", "\u1e9b", "\u0149"]
)


def rand_char():
    if R.random() < 0.75:
        return R.choice(POOL)
    while True:  # any non-surrogate code point, weighted to the BMP
        cp = R.randrange(0x10000) if R.random() < 0.7 else R.randrange(0x110000)
        if not 0xD800 <= cp <= 0xDFFF:
            return chr(cp)


def gen_strings():
    strings = ["", " ", "'", '"', "'\"", "a'b", 'a"b', "\\", "\u2028", "ß", "ﬁ", "İ", "ΣΑΣ",
               "ὈΔΥΣΣΕΎΣ", "Σ", "aΣ", "aΣb", "a\u0301Σ", "aΣ\u0301", "aΣ\u0301b", "a'Σ", "ʰΣ",
               "  a  b\t\nc\x1c\x1dd\x85e\u3000 ", "a\r\nb\rc\n\nd\x0be\x0cf\x1cg\u2028h\u2029",
               "x\r", "\r\n", "\n\r", "end\n"]
    for _ in range(1400):
        strings.append("".join(rand_char() for _ in range(R.randint(0, 10))))
    rows = []
    for s in strings:
        rows.append({"s": s, "repr": repr(s), "json": json.dumps(s), "lower": s.lower(),
                     "fold": s.casefold(), "split": s.split(), "strip": s.strip(),
                     "lines": s.splitlines(keepends=True)})
    write("strings.jsonl", rows)
    # Final sigma in context: mostly Greek, case-ignorables and separators.
    sig_pool = ["\u03a3", "\u03a3", "A", "\u03b1", "a", "1", " ", "'", ".", "\u0301", "\u0345",
                "\u02b0", "\u00ad", "\u200d", "\u2019", ":", "\u1d2c", "\U0001e900", "\u0130"]
    rows = []
    for _ in range(1500):
        s = "".join(R.choice(sig_pool) for _ in range(R.randint(1, 8)))
        rows.append([s, s.lower()])
    write("sigma.jsonl", rows)


def gen_unicode_digest():
    """Per 0x1000-block digests of every code point's per-char behaviour."""
    rows = []
    for block in range(0x110):
        h = hashlib.sha256()
        for cp in range(block << 12, (block + 1) << 12):
            if 0xD800 <= cp <= 0xDFFF:
                continue
            c = chr(cp)
            line = "%x\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n" % (
                cp, c.lower(), c.casefold(), c.isprintable(), c.isspace(),
                len(("a" + c + "b").splitlines()) == 2, repr(c), json.dumps(c))
            h.update(line.encode("utf-8", "surrogatepass"))
        rows.append(["%x" % block, h.hexdigest()])
    write("unicode_digest.jsonl", rows)


# ---------------------------------------------------------------- fnmatch

GLOB_CHARS = list("[]!-\\^&~|az*?.b/") + ["\n", "A", "\u00e9", "\U0001f600", "0", "9", "]", "["]
NAME_CHARS = list("azb.-!][\\^/&|~A09 ") + ["\n", "\u00e9", "\U0001f600", "\U0001f601", "Z"]


def sample_match(pat):
    """A name likely to match pat: wildcards replaced by random chars."""
    out = []
    for ch in pat:
        if ch == "*":
            out.append("".join(R.choice(NAME_CHARS) for _ in range(R.randint(0, 3))))
        elif ch in "?[]!":
            out.append(R.choice(NAME_CHARS))
        else:
            out.append(ch if R.random() < 0.9 else R.choice(NAME_CHARS))
    return "".join(out)


def gen_glob():
    pats = ["*", "**", "*.*", "?", "??", "[!a]", "[", "[a", "[]", "[]]", "[!]]", "[!]", "[z-a]",
            "[a-z]", "[!a-z]", "*.yaml", "a*b*c", "a*a*a*a*b", "[a-]", "[-a]", "[!-a]", "[a-c-e]",
            "[z-a-c]", "[!z-a]", "[]-a]", "[\\]", "[\\-a]", "[a\\-z]", "[&&]", "[~~a]", "[||]",
            "[^a]", "[[]", "[a-b-a]", "*\n*", "?\U0001f600", "[\U0001f600-\U0001f601]", "[é]",
            "\\*", "a/*/b", "*.[ch]", "[!.]*", "{a,b}", "[--0]", "[!--0]", "[a--]", "[!a-]",
            "[]a-]", "[!]a-]", "[]-]", "[!]-]", "[---]", "[------]", "[a-a]", "[b-a]", "[!b-a]"]
    for _ in range(2200):
        pats.append("".join(R.choice(GLOB_CHARS) for _ in range(R.randint(0, 9))))
    fixed_names = ["", "a", "b", "z", "-", "!", "]", "[", "\\", "^", "&", ".", "\n", "ab", "a.b",
                   "abc", "aaaab", "x.yaml", "\U0001f600", "\u00e9", "a/x/b", "[]", "{a,b}", "*"]
    rows = []
    for p in pats:
        names = R.sample(fixed_names, 6)
        names += [sample_match(p) for _ in range(8)]
        names += ["".join(R.choice(NAME_CHARS) for _ in range(R.randint(0, 6))) for _ in range(2)]
        names = list(dict.fromkeys(names))
        rows.append({"p": p, "n": names,
                     "m": "".join("1" if fnmatch.fnmatchcase(n, p) else "0" for n in names)})
    write("glob.jsonl", rows)


# ---------------------------------------------------------------- values

UTC = datetime.timezone.utc


def rand_scalar(for_key=False):
    k = R.randrange(11)
    if k == 0:
        return None
    if k == 1:
        return R.random() < 0.5
    if k == 2:
        return R.choice([0, 1, -1, 42, 2 ** 63 - 1, -2 ** 63, 2 ** 63, -2 ** 63 - 1, 10 ** 30,
                         -(10 ** 40), R.randrange(-10 ** 6, 10 ** 6)])
    if k == 3:
        return R.choice(interesting_floats()[:50] + random_floats(5))
    if k in (4, 5):
        return "".join(rand_char() for _ in range(R.randint(0, 6)))
    if k == 6:
        return bytes(R.choice([0, 9, 10, 13, 34, 39, 92, 127, 128, 255, 97, 32])
                     for _ in range(R.randint(0, 5)))
    if k == 7:
        return datetime.date(R.randint(1, 9999), R.randint(1, 12), R.randint(1, 28))
    if k in (8, 9):
        tz = R.choice([None, None, UTC,
                       datetime.timezone(datetime.timedelta(hours=R.randint(-12, 14),
                                                            minutes=R.choice([0, 30, 45]))),
                       datetime.timezone(datetime.timedelta(seconds=R.randint(-86399, 86399)))])
        return datetime.datetime(R.randint(1, 9999), R.randint(1, 12), R.randint(1, 28),
                                 R.randint(0, 23), R.randint(0, 59),
                                 R.choice([0, 0, R.randint(0, 59)]),
                                 R.choice([0, 0, R.randint(0, 999999)]), tzinfo=tz)
    return R.choice(["", "key", "k'ey", "é", "\u2028"])


def rand_value(depth):
    if depth <= 0 or R.random() < 0.45:
        return rand_scalar()
    if R.random() < 0.5:
        return [rand_value(depth - 1) for _ in range(R.randint(0, 4))]
    d = {}
    for _ in range(R.randint(0, 4)):
        key = rand_scalar(True)
        # Mostly JSON-able keys, so most rows test json output too.
        if isinstance(key, (bytes, datetime.date)) and R.random() < 0.7:
            key = str(key)
        d[key] = rand_value(depth - 1)
    return d


def tag(v):
    if v is None:
        return ["N"]
    if isinstance(v, bool):
        return ["B", v]
    if isinstance(v, int):
        return ["I", str(v)]
    if isinstance(v, float):
        return ["F", bits(v)]
    if isinstance(v, str):
        return ["S", v]
    if isinstance(v, bytes):
        return ["Y", v.hex()]
    if isinstance(v, datetime.datetime):
        off = v.utcoffset()
        return ["T", v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond,
                None if off is None else int(off.total_seconds())]
    if isinstance(v, datetime.date):
        return ["D", v.year, v.month, v.day]
    if isinstance(v, list):
        return ["L", [tag(x) for x in v]]
    if isinstance(v, dict):
        return ["M", [[tag(k), tag(x)] for k, x in v.items()]]
    raise TypeError(type(v))


def dumps_or_exc(v, **kw):
    try:
        return json.dumps(v, default=str, **kw)
    except Exception as e:
        return exc(e)


def gen_values():
    hand = [
        None, True, False, 0, -1, 2 ** 100, -(2 ** 64), 1.0, -0.0, math.nan, math.inf, -math.inf,
        "", "a\"b\\c/\x7f\x1f\b\f\n\r\t\u2028\U0001f600", b"", b"\x00abc'", b"'\"", b'"',
        datetime.date(5, 1, 1), datetime.datetime(2024, 1, 1, 10, 0),
        datetime.datetime(2024, 1, 1, 10, 0, 0, 5),
        datetime.datetime(2024, 1, 1, 0, 0, 7, tzinfo=UTC),
        datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30))),
        datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone(-datetime.timedelta(hours=5, seconds=7))),
        datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(seconds=-86399))),
        [], {}, [[]], {"a": {}}, [{}, []], {"": []},
        {1: "a", 1.5: "b", True if False else 2: "c", None: "d", math.nan: 1, math.inf: 2,
         -math.inf: 3, 2 ** 70: 4, "s": [1, 2.5, None, True, {"x": []}]},
        {True: 1, False: 0}, {datetime.date(2024, 1, 1): 1}, {b"k": 1},
        {"a": 1, datetime.datetime(2024, 1, 1): 2}, {"k": datetime.date(2024, 1, 1)},
        ["a", 1, {"k": 1}], {"k'": "v\""},
    ]
    vals = hand + [rand_value(4) for _ in range(700)]
    rows = []
    for v in vals:
        rows.append({"v": tag(v), "indent": dumps_or_exc(v, indent=2), "compact": dumps_or_exc(v),
                     "repr": repr(v), "str": str(v)})
    write("values.jsonl", rows)


def main():
    os.makedirs(OUT, exist_ok=True)
    gen_floats()
    gen_round()
    gen_strings()
    gen_unicode_digest()
    gen_glob()
    gen_values()


if __name__ == "__main__":
    main()
