"""Tests of the clmatch Python package against Python's own LIKE: each pattern translated to
a regular expression over bytes (no fnmatch), on random columns with NULLs.

    python3 python/tests/test_clmatch.py          (tests/python.sh runs it: needs pyarrow,
                                                   numpy and build/libclmatch.so)
Prints "ok - NAME" / "not ok - NAME" per test and "N passed, M failed" last.
CLMATCH_TEST_SEED fixes the random columns (the seed is printed).
"""
import os
import random
import re
import subprocess
import sys
import unittest

import numpy as np
import pyarrow as pa

import clmatch

SEED = int(os.environ.get("CLMATCH_TEST_SEED") or random.randrange(1 << 30))
# Bytes that LIKE treats specially, a case pair, and a two-byte UTF-8 character ('_' is one
# byte to the library, so the reference works on bytes too).
ALPHABET = ["a", "b", "c", "A", "%", "_", "\\", " ", "\u00e9"]


def small_values(rng, rows, longest):
    """rows strings of up to longest - 1 bytes over "abcA", one in ten None (NULL)."""
    return [None if rng.random() < 0.1 else
            "".join(rng.choice("abcA") for _ in range(rng.randrange(longest)))
            for _ in range(rows)]


def like_regex(pattern, escape=None, ilike=False):
    """The compiled regex of a LIKE pattern (bytes): '%' any run, '_' one byte, the escape
    byte makes the next one literal."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i:i + 1]
        if escape is not None and c == escape:
            out.append(re.escape(pattern[i + 1:i + 2]))
            i += 2
            continue
        out.append(b".*" if c == b"%" else b"." if c == b"_" else re.escape(c))
        i += 1
    # re's IGNORECASE on bytes is ASCII-only, as ILIKE is
    return re.compile(b"".join(out), re.DOTALL | (re.IGNORECASE if ilike else 0))


def reference(values, patterns, escape=None, ilike=False, negate=False):
    """Per row: selected by any pattern (NULL: never), as SQL says."""
    n = len(patterns)
    ilike = ilike if isinstance(ilike, list) else [ilike] * n
    negate = negate if isinstance(negate, list) else [negate] * n
    esc = bytes([escape]) if isinstance(escape, int) else \
        escape.encode() if isinstance(escape, str) else escape
    res = [like_regex(p.encode() if isinstance(p, str) else p, esc, i)
           for p, i in zip(patterns, ilike)]
    out = []
    for v in values:
        if v is None:
            out.append(False)
            continue
        b = v.encode() if isinstance(v, str) else v
        out.append(any((r.fullmatch(b) is not None) != neg for r, neg in zip(res, negate)))
    return out


def random_values(rng, rows, null_rate=0.15, longest=12):
    return [None if rng.random() < null_rate else
            "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(longest + 1)))
            for _ in range(rows)]


def random_pattern(rng, escape=None):
    """A LIKE pattern of the alphabet's letters, '%' and '_'; with escape, some escaped
    specials (never a trailing escape)."""
    parts = []
    for _ in range(rng.randrange(1, 6)):
        r = rng.random()
        if r < 0.25:
            parts.append("%")
        elif r < 0.35:
            parts.append("_")
        elif escape is not None and r < 0.45:
            parts.append(escape + rng.choice(["%", "_", escape]))
        else:
            parts.append("".join(rng.choice("abcA \u00e9") for _ in range(rng.randrange(1, 3))))
    return "".join(parts)


def within(text, sub, k, mismatches_only=False, ilike=False):
    """Whether bytes text hold sub within k errors: every alignment counted (mismatches), or
    Sellers' dynamic programming, d[i] the fewest edits between sub[:i] and a substring
    ending at the current byte (edits)."""
    if ilike:
        text, sub = text.lower(), sub.lower()
    m = len(sub)
    if mismatches_only:
        return any(sum(a != b for a, b in zip(text[e - m:e], sub)) <= k
                   for e in range(m, len(text) + 1))
    d = list(range(m + 1))
    for c in text:
        prev, d[0] = d[0], 0
        for i in range(1, m + 1):
            prev, d[i] = d[i], min(prev + (sub[i - 1] != c), d[i] + 1, d[i - 1] + 1)
        if d[m] <= k:
            return True
    return False


def approx_reference(values, subs, k, mismatches_only=False, ilike=False, negate=False):
    """Per row: any substring within k errors (negate: none), NULL never."""
    enc = [s.encode() if isinstance(s, str) else s for s in subs]
    return [v is not None and any(within(v.encode() if isinstance(v, str) else v, s, k,
                                         mismatches_only, ilike) != negate for s in enc)
            for v in values]


def selected_ids(flags):
    return [i for i, f in enumerate(flags) if f]


class Like(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dev = clmatch.default_device()
        cls.rng = random.Random(SEED)

    def check(self, column, values, patterns, **kw):
        """like() (bitmap, ids) and count() on column against the reference over values."""
        want = reference(values, patterns, **kw)
        got = clmatch.like(column, patterns, **kw)
        if isinstance(got, pa.ChunkedArray):
            got = got.combine_chunks()
        self.assertIsInstance(got, pa.BooleanArray)
        self.assertEqual(got.null_count, 0)
        self.assertEqual(got.to_pylist(), want, "patterns %r %r" % (patterns, kw))
        ids = clmatch.like(column, patterns, ids=True, **kw)
        self.assertEqual(ids.dtype, np.int64)
        self.assertEqual(ids.tolist(), selected_ids(want))
        self.assertEqual(clmatch.count(column, patterns, **kw), sum(want))

    def test_random_columns(self):
        for _ in range(3):
            values = random_values(self.rng, self.rng.randrange(1, 300))
            col = pa.array(values, pa.string())
            for _ in range(4):
                self.check(col, values, [random_pattern(self.rng)])

    def test_fixed_shapes(self):
        values = ["special requests", "", None, "requests special", "special", "x_y", "50%",
                  "Special Requests"]
        col = pa.array(values)
        for p in ["%special%requests%", "special%", "%special", "special", "", "%", "_",
                  "%_%", "_%_", "%s%s%"]:
            self.check(col, values, [p])

    def test_slice(self):
        values = random_values(self.rng, 200)
        col = pa.array(values)
        for start, length in [(3, 50), (13, 0), (1, 199), (77, 100)]:
            part = col.slice(start, length)
            self.assertNotEqual(part.offset, 0)
            for _ in range(3):
                self.check(part, values[start:start + length], [random_pattern(self.rng)])

    def test_chunked(self):
        values = random_values(self.rng, 150)
        chunks = [pa.array(values[:40]), pa.array([], pa.string()),
                  pa.array(values[40:]).slice(5, 90), pa.array(values[135:])]
        flat = values[:40] + values[45:135] + values[135:]
        col = pa.chunked_array(chunks)
        got = clmatch.like(col, "%a%")
        self.assertIsInstance(got, pa.ChunkedArray)
        self.assertEqual([len(c) for c in got.chunks], [len(c) for c in chunks])
        for _ in range(3):
            self.check(col, flat, [random_pattern(self.rng)])

    def test_large_string(self):
        values = random_values(self.rng, 120)
        col = pa.array(values, pa.large_string())
        for _ in range(3):
            self.check(col, values, [random_pattern(self.rng)])
        self.check(col.slice(7, 60), values[7:67], ["%a%b%"])

    def test_string_view(self):
        if not hasattr(pa, "string_view"):
            self.skipTest("pyarrow %s has no string_view" % pa.__version__)
        # longer rows too: a view keeps 12 bytes inline, longer ones in a data buffer
        values = random_values(self.rng, 120, longest=30)
        col = pa.array(values, pa.string_view())
        for _ in range(3):
            self.check(col, values, [random_pattern(self.rng)])
        self.check(col.slice(9, 50), values[9:59], ["%a%"])

    def test_binary(self):
        values = [None if v is None else v.encode() for v in random_values(self.rng, 80)]
        values.append(b"\xff\x00a")  # not UTF-8: LIKE compares bytes
        for t in (pa.binary(), pa.large_binary()):
            col = pa.array(values, t)
            self.check(col, values, ["%a%"])
            self.check(col, values, ["%\xff%".encode("latin-1")])

    def test_python_lists(self):
        values = ["abc", None, "xbz", ""]
        self.check(values, values, ["%b%"])
        raw = [b"abc", None, b"\xffb"]
        self.check(raw, raw, [b"%b"])

    def test_ilike(self):
        values = random_values(self.rng, 200)
        col = pa.array(values)
        for _ in range(4):
            self.check(col, values, [random_pattern(self.rng)], ilike=True)
        self.assertEqual(clmatch.like(["ABC", "abc", "\u00c9"], "a%", ilike=True).to_pylist(),
                         [True, True, False])

    def test_not_like(self):
        values = random_values(self.rng, 200, null_rate=0.3)
        col = pa.array(values)
        for _ in range(4):
            self.check(col, values, [random_pattern(self.rng)], negate=True)
        # NULL rows: neither LIKE nor NOT LIKE
        both = [clmatch.like(col, "%", negate=n).to_pylist() for n in (False, True)]
        for v, a, b in zip(values, *both):
            self.assertEqual((a, b), (False, False) if v is None else (True, False))

    def test_escape(self):
        values = ["50%", "50x", "a_b", "axb", "back\\slash", "!%", None]
        col = pa.array(values)
        for p in ["%\\%", "a\\_b", "%\\\\%", "50\\%"]:
            self.check(col, values, [p], escape="\\")
        self.check(col, values, ["%!%"], escape="!")
        self.check(col, values, ["%!%"], escape=ord("!"))
        for _ in range(6):
            vals = random_values(self.rng, 150)
            self.check(pa.array(vals), vals, [random_pattern(self.rng, "\\")], escape="\\")

    def test_or(self):
        values = random_values(self.rng, 250)
        col = pa.array(values)
        for _ in range(4):
            pats = [random_pattern(self.rng) for _ in range(self.rng.randrange(2, 6))]
            ilike = [self.rng.random() < 0.5 for _ in pats]
            negate = [self.rng.random() < 0.2 for _ in pats]
            self.check(col, values, pats, ilike=ilike, negate=negate)

    def test_contains(self):
        values = ["50% off", "50 off", "a_b", "axb", "a\\b", None]
        col = pa.array(values)
        self.assertEqual(clmatch.contains(col, "%").to_pylist(),
                         [True, False, False, False, False, False])
        self.assertEqual(clmatch.contains(col, "_", ids=True).tolist(), [2])
        self.assertEqual(clmatch.contains(col, "\\", ids=True).tolist(), [4])
        self.assertEqual(clmatch.contains(col, ["OFF", "X"], ilike=True, ids=True).tolist(),
                         [0, 1, 3])

    def check_approx(self, column, values, subs, k, **kw):
        """contains(k) (bitmap, ids) on column against the reference over values."""
        want = approx_reference(values, subs, k, **kw)
        got = clmatch.contains(column, subs, k, **kw)
        if isinstance(got, pa.ChunkedArray):
            got = got.combine_chunks()
        self.assertEqual(got.to_pylist(), want, "substrings %r k %d %r" % (subs, k, kw))
        self.assertEqual(clmatch.contains(column, subs, k, ids=True, **kw).tolist(),
                         selected_ids(want))

    def test_contains_approx(self):
        rng = random.Random(SEED + 19)
        values = small_values(rng, 400, 30)
        col = pa.array(values)
        for k in range(4):
            for mism in (False, True):
                sub = "".join(rng.choice("abc") for _ in range(rng.randrange(k + 1, 9)))
                self.check_approx(col, values, [sub], k, mismatches_only=mism)
        self.check_approx(col, values, ["abca", "cccc"], 1, ilike=True)
        self.check_approx(col, values, ["abcab"], 2, negate=True)
        self.check_approx(pa.chunked_array([values[:150], values[150:]]), values, ["bcab"], 1)
        with self.dev.upload(col) as res:
            self.check_approx(res, values, ["aaab"], 1, mismatches_only=True)
            self.assertEqual(res.contains("aaab", 1).to_pylist(),
                             approx_reference(values, ["aaab"], 1))

    def test_any_of(self):
        rng = random.Random(SEED + 23)
        values = small_values(rng, 500, 30)
        col = pa.array(values)
        parts = [clmatch.Predicate(self.dev, ["%abca%", "c%"]),
                 clmatch.Predicate(self.dev, "cbcb", errors=1),
                 clmatch.Predicate(self.dev, "aaab", errors=1, mismatches_only=True,
                                   ilike=True)]
        want = [any(bits) for bits in zip(*(p.select(col).to_pylist() for p in parts))]
        both = clmatch.Predicate.any_of(*parts)
        self.assertEqual(both.select(col).to_pylist(), want)
        self.assertEqual(both.count(col), sum(want))
        self.assertTrue(0 < sum(want) < len(values))
        self.assertEqual(len(both.patterns), 4)
        parts[0].close()  # the OR keeps its own copy
        self.assertEqual(both.count(col), sum(want))
        with self.assertRaises(ValueError):
            clmatch.Predicate.any_of()
        with self.assertRaises(ValueError):
            clmatch.Predicate.any_of(parts[1], parts[0])  # closed
        with self.assertRaises(TypeError):
            clmatch.Predicate.any_of(parts[1], "abc")

    def test_pivot(self):
        rng = random.Random(SEED + 29)
        values = small_values(rng, 300, 60)
        col = pa.array(values)
        want = clmatch.like(col, "%ab%ca%", ids=True).tolist()
        for w in (4, 8, 16):
            with self.dev.upload(col, pivot=w) as res:
                self.assertEqual(res.like("%ab%ca%", ids=True).tolist(), want)
        with self.assertRaises(clmatch.Error) as e:
            self.dev.upload(col, pivot=3)
        self.assertIn("4, 8 or 16", e.exception.detail)
        with self.assertRaises(ValueError):
            self.dev.upload(col, pivot="8")

    def test_self_pivot(self):
        rng = random.Random(SEED + 31)
        values = small_values(rng, 300, 200)
        col = pa.array(values)
        want = clmatch.like(col, "%ab%ca%", ids=True).tolist()
        for spec in ((4, 4, 16), (8, 8, 32)):
            with self.dev.upload(col, self_pivot=spec) as res:
                self.assertEqual(res.like("%ab%ca%", ids=True).tolist(), want)
        with self.assertRaises(clmatch.Error) as e:
            self.dev.upload(col, self_pivot=(4, 3, 16))
        self.assertIn("segments", e.exception.detail)
        for bad in ((4, 4), [4, 4, 16], (4, 4, "16")):
            with self.assertRaises(ValueError):
                self.dev.upload(col, self_pivot=bad)
        with self.assertRaises(ValueError):
            self.dev.upload(col, pivot=4, self_pivot=(4, 4, 16))

    def test_contains_approx_known(self):
        col = pa.array(["kitten", "sitting", "mitten", None, "KITTEN", ""])
        self.assertEqual(clmatch.contains(col, "kitten", 1, ids=True).tolist(), [0, 2])
        self.assertEqual(clmatch.contains(col, "kitten", 1, ilike=True, ids=True).tolist(),
                         [0, 2, 4])
        self.assertEqual(clmatch.contains(col, "kitten", 3, ids=True).tolist(), [0, 1, 2])
        # "kitten", "sittin" and "mitten" are a substitution away; "KITTEN" is not
        self.assertEqual(clmatch.contains(col, "sitten", 1, mismatches_only=True,
                                          ids=True).tolist(), [0, 1, 2])
        self.assertEqual(clmatch.contains(col, "sitxxn", 1, mismatches_only=True,
                                          ids=True).tolist(), [])
        # NOT: NULL rows are selected by neither
        self.assertEqual(clmatch.contains(col, "kitten", 1, negate=True).to_pylist(),
                         [False, True, False, False, True, True])
        # k = 0 is today's literal contains: '%' and '_' are bytes
        self.assertEqual(clmatch.contains(["a%b", "axb"], "a%b", ids=True).tolist(), [0])
        with self.assertRaises(clmatch.Error) as e:
            clmatch.contains(col, "ab", 2)
        self.assertEqual(e.exception.status, -1)  # CLM_E_INVALID: k not below the length
        self.assertIn("below its length", e.exception.detail)
        with self.assertRaises(clmatch.Error):
            clmatch.contains(col, "a" * 65, 1)  # CLM_E_PATTERN_TOO_LONG
        with self.assertRaises(clmatch.Error):
            clmatch.contains(col, "abcdefghijkl", 9)
        with self.assertRaises(ValueError):
            clmatch.contains(col, "abc", -1)
        with self.assertRaises(ValueError):
            clmatch.Predicate(self.dev, "abc", escape="\\", errors=1)

    def test_empty(self):
        for col in (pa.array([], pa.string()), pa.array([None, None], pa.string())):
            self.check(col, col.to_pylist(), ["%"])

    def test_capsule_producers(self):
        """Objects that are not pyarrow's: only __arrow_c_array__, or only
        __arrow_c_stream__ (as Polars' Series)."""
        values = random_values(self.rng, 60)
        base = pa.array(values)

        class OnlyArray:
            def __arrow_c_array__(self, requested_schema=None):
                return base.__arrow_c_array__(requested_schema)

        class OnlyStream:
            def __arrow_c_stream__(self, requested_schema=None):
                return pa.chunked_array([base.slice(0, 25), base.slice(25)]) \
                    .__arrow_c_stream__(requested_schema)

        class Once:
            """A stream offered once, as a DuckDB relation with its result open."""

            def __init__(self, data):
                self.data = data

            def __arrow_c_stream__(self, requested_schema=None):
                data, self.data = self.data, None
                if data is None:
                    raise RuntimeError("the stream was asked for twice")
                return data.__arrow_c_stream__(requested_schema)

        self.check(OnlyArray(), values, ["%b%"])
        self.check(OnlyStream(), values, ["%b%"])
        # a table of one column and a binary column are read from the stream once
        for data in (pa.table({"c": values}), pa.chunked_array([values], pa.binary())):
            self.assertEqual(clmatch.like(Once(data), "%b%").combine_chunks().to_pylist(),
                             reference(values, ["%b%"]))

    def test_tables(self):
        """A table or record batch of one column is that column."""
        values = random_values(self.rng, 60)
        table = pa.table({"c": pa.chunked_array([values[:20], values[20:]])})
        self.check(table, values, ["%a%"])
        self.check(pa.record_batch({"c": values}), values, ["%a%"])
        with self.assertRaises(TypeError):
            clmatch.like(pa.table({"a": ["x"], "b": ["y"]}), "%")

    def test_duckdb(self):
        try:
            import duckdb
        except ImportError:
            self.skipTest("duckdb not installed")
        con = duckdb.connect()
        con.execute("create table t as select case when i % 7 = 0 then null else 'row ' || "
                    "i::varchar || repeat(' special', i % 3) end as c from range(500) r(i)")
        for p in ["%special%", "%1_ special%", "row 4%"]:
            want = [r[0] for r in con.execute(
                "select i from (select row_number() over () - 1 as i, c from t) "
                "where c like '%s' order by i" % p).fetchall()]
            self.assertEqual(clmatch.like(con.sql("select c from t"), p, ids=True).tolist(),
                             want)
            self.assertEqual(clmatch.like(con.sql("select c from t").to_arrow_table()["c"], p,
                                          ids=True).tolist(), want)

    def test_polars(self):
        try:
            import polars as pl
        except ImportError:
            self.skipTest("polars not installed")
        values = random_values(self.rng, 100, longest=20)
        self.check(pl.Series(values), values, ["%a%b%"])
        self.check(pl.DataFrame({"c": values})["c"], values, ["%c"], ilike=True)

    def test_resident(self):
        values = random_values(self.rng, 300)
        with self.dev.upload(pa.array(values)) as res:
            self.assertEqual(len(res), 300)
            for _ in range(4):
                self.check(res, values, [random_pattern(self.rng)])
            self.check(res, values, ["%a%", "B%"], ilike=[False, True])
            pred = self.dev.compile("%c%")
            self.assertEqual(pred.select(res).to_pylist(), reference(values, ["%c%"]))
            self.assertEqual(pred.count(res), pred.count(pa.array(values)))
            pred.close()
        self.assertTrue(res.closed)
        with self.assertRaises(ValueError):
            clmatch.like(res, "%")
        with self.assertRaises(ValueError):
            pred.count(values)
        chunked = pa.chunked_array([values[:100], values[100:]])
        res = self.dev.upload(chunked)
        self.assertIsInstance(res.like("%"), pa.ChunkedArray)
        self.check(res, values, ["%a"])
        res.close()
        res.close()  # a second close does nothing

    def test_device(self):
        found = clmatch.devices()
        self.assertTrue(found)
        d = found[0]
        with clmatch.Device(d["platform"], d["device"]) as dev:
            self.assertEqual(dev.info["name"], d["name"])
            res = dev.upload(["ab", "b"])
            pred = dev.compile("%b")
            self.assertEqual(dev.count(["ab", "ba"], "%b"), 1)
        # closing the device released what was made for it first
        self.assertTrue(res.closed and pred.closed)
        # its handle is gone: refused, never passed to the library
        with self.assertRaises(ValueError):
            dev.compile("%")
        with self.assertRaises(ValueError):
            dev.upload(["a"])
        with self.assertRaises(ValueError):
            clmatch.like(["a"], "a", device=dev)

    def test_errors(self):
        with self.assertRaises(clmatch.Error) as e:
            clmatch.like(["a"], "ab\\", escape="\\")
        self.assertEqual(e.exception.status, -14)  # CLM_E_PATTERN_SYNTAX
        self.assertIn("offset 2", str(e.exception))
        with self.assertRaises(clmatch.Error) as e:
            clmatch.like(pa.array([1, 2]), "%")
        self.assertEqual(e.exception.status, -1)  # CLM_E_INVALID
        self.assertIn("format", e.exception.detail)
        with self.assertRaises(clmatch.Error) as e:
            clmatch.Device(platform=999)
        self.assertEqual(e.exception.status, -4)  # CLM_E_PLATFORM_INDEX
        with self.assertRaises(ValueError):
            clmatch.like(["a"], "a", escape="ab")
        with self.assertRaises(ValueError):
            clmatch.like(["a"], [])
        with self.assertRaises(ValueError):
            clmatch.like(["a"], ["a", "b"], ilike=[True])
        with self.assertRaises(TypeError):
            clmatch.like("abc", "a")
        with self.assertRaises(clmatch.Error):
            clmatch.like(["a"], "a", escape=300)


class Library(unittest.TestCase):
    def test_library_env(self):
        """$CLMATCH_LIBRARY names the library, and only it is tried."""
        here = os.path.dirname(os.path.abspath(clmatch.__file__))
        code = "import clmatch, clmatch._lib as l; print(l.lib.path)"
        env = dict(os.environ, PYTHONPATH=os.path.dirname(here))
        env["CLMATCH_LIBRARY"] = clmatch._lib.lib.path
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True)
        self.assertEqual(out.stdout.strip(), clmatch._lib.lib.path, out.stderr)
        env["CLMATCH_LIBRARY"] = os.path.join(here, "no-such-libclmatch.so")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("libclmatch.so not found", out.stderr)
        self.assertIn("no-such-libclmatch.so (missing)", out.stderr)


# Run in a child: PoCL reads POCL_DEVICES once, when the library first lists devices.
DEVICE_SET_CHILD = r"""
import random, re, sys
import numpy as np, pyarrow as pa
import clmatch
cpus = {}
for d in clmatch.devices():
    if d["type"] == "cpu" and d["device"] < 2:
        cpus.setdefault(d["platform"], []).append(d["device"])
pairs = None
for p, ds in cpus.items():
    if len(ds) == 2:
        pairs = [(p, 0), (p, 1)]
if pairs is None:
    print("SKIP no platform with two CPU devices")
    sys.exit(0)
r = random.Random(int(sys.argv[1]))
rows = [None if r.random() < 0.1 else "".join(r.choice("abc") for _ in range(r.randrange(14)))
        for _ in range(6000)]
col = pa.array(rows)
def ref(pattern):
    rx = re.compile(pattern.replace("%", ".*").replace("_", "."), re.DOTALL)
    return [x is not None and rx.fullmatch(x) is not None for x in rows]
one = clmatch.Device(*pairs[0])
with clmatch.DeviceSet(pairs) as ds:
    assert len(ds) == 2 and ds.speeds == [0.0, 0.0], ds.speeds
    for speeds in (None, [1, 20], [20, 0.001]):
        ds.speeds = speeds
        for pat in ("%ab%", "a%c", "%b_c%", "_"):
            got = ds.like(col, pat).to_pylist()
            assert got == ref(pat), (pat, speeds)
            ids = ds.like(col, pat, ids=True)
            assert list(ids) == [i for i, v in enumerate(got) if v], (pat, speeds)
        assert ds.count(col, ["%cc%", "b%"]) == one.count(col, ["%cc%", "b%"])
        near = ds.contains(col, "abcab", 1, ids=True)
        assert (near == one.contains(col, "abcab", 1, ids=True)).all()
        chunked = pa.chunked_array([rows[:2500], rows[2500:]])
        assert ds.like(chunked, "%ab%").to_pylist() == ref("%ab%")
    try:
        ds.like(one.upload(col), "%a%")
        raise AssertionError("a resident column was taken")
    except ValueError:
        pass
try:
    ds.like(col, "%a%")
    raise AssertionError("a closed set selected")
except ValueError:
    pass
try:
    clmatch.DeviceSet([pairs[0], pairs[0]])
    raise AssertionError("a device listed twice was taken")
except clmatch.Error:
    pass
print("OK")
"""


class DeviceSets(unittest.TestCase):
    def test_device_set(self):
        """DeviceSet shares the rows out over two PoCL devices: the reference's selection,
        with equal and unequal speeds, ids, counts, approximate contains and chunks; a
        resident column, a closed set and a repeated device refused."""
        here = os.path.dirname(os.path.abspath(clmatch.__file__))
        env = dict(os.environ, PYTHONPATH=os.path.dirname(here),
                   POCL_DEVICES="pthread pthread")
        out = subprocess.run([sys.executable, "-c", DEVICE_SET_CHILD, str(SEED)], env=env,
                             capture_output=True, text=True)
        if out.stdout.startswith("SKIP"):
            self.skipTest(out.stdout.strip())
        self.assertEqual(out.returncode, 0, out.stderr[-2000:])
        self.assertEqual(out.stdout.strip(), "OK", out.stderr[-2000:])


class Result(unittest.TextTestResult):
    """One "ok - python: NAME" / "not ok - python: NAME" line per test."""

    def addSuccess(self, test):
        super().addSuccess(test)
        print("ok - python: %s" % test.id().split(".", 1)[1], flush=True)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print("ok - python: %s # skipped: %s" % (test.id().split(".", 1)[1], reason),
              flush=True)

    def _fail(self, test, what):
        print("not ok - python: %s (%s)" % (test.id().split(".", 1)[1], what), flush=True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, "failed")

    def addError(self, test, err):
        super().addError(test, err)
        self._fail(test, "error")


def main():
    print("# python %s, pyarrow %s, numpy %s, libclmatch %s (%s), seed %d (CLMATCH_TEST_SEED)"
          % (sys.version.split()[0], pa.__version__, np.__version__, clmatch.version(),
             clmatch._lib.lib.path, SEED), flush=True)
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    runner = unittest.TextTestRunner(stream=sys.stderr, resultclass=Result, verbosity=0)
    result = runner.run(suite)
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed" % (result.testsRun - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
