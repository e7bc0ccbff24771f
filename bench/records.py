"""The records suite's driver (bench/records.sh runs it; bench/README.md, "Records").

Given the TPC-H columns that records.sh extracted (one value a line), it synthesizes the
long- and mixed-length columns, times every query with DuckDB (the column in memory, best of
--duckdb-reps) and with clmatch (records_bench on each device: resident column and host
column, best of --reps), checks that every engine selected the same rows (count, and the sums
of the row ids and of their squares), and writes <out>/<name>.md and .csv.
Exit status: 0, 1 when the engines disagree or clmatch failed (the report is still
written), 2 bad arguments or input.
"""
import argparse
import csv
import datetime
import os
import random
import socket
import subprocess
import sys
import time

# The 10-way OR: words of TPC-H's comment grammar (the "OR of 10 LIKE '%word%'").
OR10 = ["special", "pending", "unusual", "express", "furious",
        "sly", "careful", "blithe", "quick", "fluffy"]

# id: (what it is, NOT LIKE?, patterns). A query is a disjunction of its patterns.
QUERIES = {
    "q13": ("TPC-H Q13", False, ["%special%requests%"]),
    "special": ("contains", False, ["%special%"]),
    "not-q13": ("Q13's NOT LIKE", True, ["%special%requests%"]),
    "or10": ("OR of 10 contains", False, ["%" + w + "%" for w in OR10]),
    "regular-pending-deposits": ("3 segments", False, ["%regular%pending%deposits%"]),
    "furious": ("prefix", False, ["furious%"]),
    "s_ecial": ("contains with _", False, ["%s_ecial%"]),
    "q16": ("TPC-H Q16 (on s_comment there)", False, ["%Customer%Complaints%"]),
    "q9": ("TPC-H Q9", False, ["%green%"]),
    "q20": ("TPC-H Q20", False, ["forest%"]),
    "q14": ("TPC-H Q14, Q19", False, ["PROMO%"]),
    "q2": ("TPC-H Q2", False, ["%BRASS"]),
    "a8": ("KMP's worst case", False, ["%aaaaaaaa%"]),
    "a7c": ("a near miss, then a match", False, ["%aaaaaaac%"]),
}

TPCH_TABLES = ["orders.", "lineitem.", "part."]
COMMENT_QUERIES = ["q13", "special", "not-q13", "or10", "regular-pending-deposits",
                   "furious", "s_ecial", "q16"]
# The columns, in report order: (name, what it is, queries). The TPC-H ones are files that
# records.sh wrote; long and mixed are synthesized here from orders.o_comment.
COLUMNS = [
    ("orders.o_comment", "TPC-H", COMMENT_QUERIES),
    ("lineitem.l_comment", "TPC-H", COMMENT_QUERIES),
    ("part.p_name", "TPC-H", ["q9", "q20"]),
    ("part.p_type", "TPC-H", ["q14", "q2"]),
    ("long.o_comment", "o_comment rows joined by a space until each is >= 1 KiB",
     ["q13", "special", "not-q13", "or10", "s_ecial"]),
    ("mixed.o_comment", "o_comment rows, 3 in 4 alone, else 2-64 joined by a space",
     ["q13", "special", "not-q13", "or10", "s_ecial"]),
    ("huge.o_comment", "o_comment rows joined by a space until each is >= 64 KiB",
     ["q13", "special"]),
    ("adversarial.a7b", "rows of 1 KiB of 'aaaaaaab' repeated, 1 in 64 ending 'aaaaaaac' "
     "(seed 004's worst case for KMP and a first-byte scan: 7 bytes match at every place)",
     ["a8", "a7c"]),
]

CSV_FIELDS = ["label", "date", "host", "sf", "column", "column_rows", "string_bytes",
              "offset_bits", "query", "predicate", "engine", "device", "device_name", "mode",
              "threads", "reps", "count", "best_s", "median_s", "gbs", "mrows_s",
              "vs_duckdb", "kernel", "data_path", "upload_s", "agree"]


def die(msg, status=2):
    print("records.py: " + msg, file=sys.stderr)
    sys.exit(status)


def sql_predicate(query_id):
    _, negate, pats = QUERIES[query_id]
    op = "NOT LIKE" if negate else "LIKE"
    return " OR ".join("s %s '%s'" % (op, p.replace("'", "''")) for p in pats)


def short_predicate(query_id):
    """The predicate as the markdown shows it: a long OR is abbreviated."""
    _, negate, pats = QUERIES[query_id]
    if len(pats) <= 2:
        return sql_predicate(query_id)
    return "s %s '%s' OR ... (%d patterns)" % ("NOT LIKE" if negate else "LIKE", pats[0],
                                               len(pats))


def synthesize(src, dst, min_bytes):
    """long, huge or mixed.o_comment from the o_comment file (kept when newer); min_bytes:
    the least bytes of a row (0: mixed)."""
    if os.path.exists(dst) and os.path.getmtime(dst) >= os.path.getmtime(src):
        return
    rng = random.Random(4)  # fixed: the same column every run
    tmp = dst + ".tmp"
    with open(src, "rb") as fin, open(tmp, "wb") as fout:
        parts, size = [], 0
        want = 0 if min_bytes else (1 if rng.random() < 0.75 else rng.randint(2, 64))
        for line in fin:
            value = line.rstrip(b"\n")
            parts.append(value)
            size += len(value) + 1
            if (min_bytes and size > min_bytes) or (not min_bytes and len(parts) == want):
                fout.write(b" ".join(parts) + b"\n")
                parts, size = [], 0
                if not min_bytes:
                    want = 1 if rng.random() < 0.75 else rng.randint(2, 64)
        if parts:
            fout.write(b" ".join(parts) + b"\n")
    os.replace(tmp, dst)


def synthesize_adversarial(src, dst):
    """adversarial.a7b: as many bytes as the o_comment file, in rows of 1 KiB."""
    if os.path.exists(dst) and os.path.getmtime(dst) >= os.path.getmtime(src):
        return
    row = b"aaaaaaab" * 128
    near = row[:-8] + b"aaaaaaac"
    rows = max(1, os.path.getsize(src) // len(row))
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        block = b"\n".join([row] * 63 + [near]) + b"\n"
        for _ in range(rows // 64):
            f.write(block)
        for _ in range(rows % 64):
            f.write(row + b"\n")
    os.replace(tmp, dst)


def file_shape(path):
    """(rows, string bytes) of a file of one value a line, as records_bench counts them."""
    rows = newlines = size = 0
    last = b"\n"
    with open(path, "rb") as f:
        while True:
            block = f.read(1 << 24)
            if not block:
                break
            newlines += block.count(b"\n")
            size += len(block)
            last = block[-1:]
    rows = newlines + (1 if last != b"\n" else 0)
    return rows, size - newlines


def duckdb_column(con, path, rows, nbytes):
    """Load the file into table t(s), checked against the file's rows and bytes."""
    con.execute("DROP TABLE IF EXISTS t")
    # Delimiter \x01 and no quoting: each line is one value, bytes as they are.
    con.execute("CREATE TABLE t AS SELECT s FROM read_csv(?, columns={'s': 'VARCHAR'}, "
                "header=false, delim='\x01', quote='', escape='', auto_detect=false, "
                "new_line='\\n')", [path])
    got = con.execute("SELECT count(*), coalesce(sum(strlen(s)), 0), count(*) - count(s) "
                      "FROM t").fetchone()
    if tuple(got) != (rows, nbytes, 0):
        die("%s: DuckDB read %d rows, %d bytes, %d NULLs; the file has %d rows, %d bytes"
            % (path, got[0], got[1], got[2], rows, nbytes))


def duckdb_query(con, query_id, reps):
    """(count, id_sum, id_sq_sum, best_s, median_s) of one query on table t."""
    where = sql_predicate(query_id)
    # rowid is the line's index: the table was created in file order (DuckDB preserves
    # insertion order). Sums modulo 2^64, as records_bench computes them.
    check = con.execute("SELECT count(*), coalesce(sum(rowid), 0) %% 18446744073709551616, "
                        "coalesce(sum(rowid::HUGEINT * rowid), 0) %% 18446744073709551616 "
                        "FROM t WHERE %s" % where).fetchone()
    sql = "SELECT count(*) FROM t WHERE " + where
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        count = con.execute(sql).fetchone()[0]
        times.append(time.perf_counter() - t0)
        if count != check[0]:
            die("DuckDB counted %d then %d rows for %s" % (check[0], count, query_id), 1)
    times.sort()
    return int(check[0]), int(check[1]), int(check[2]), times[0], median(times)


def median(xs):
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def run_clmatch(args, device, column_path, query_ids, qfile, kernels):
    """records_bench on one device: {'device':..., 'upload': s, 'rows': [(id, mode, row)]}."""
    with open(qfile, "w") as f:
        for q in query_ids:
            _, negate, pats = QUERIES[q]
            f.write("\t".join([q, "not" if negate else "-"] + pats) + "\n")
    cmd = [args.records_bench, "-d", device, "--mode", args.mode, "--reps", str(args.reps),
           "--max-time", str(args.max_time), column_path, qfile]
    if kernels:
        cmd.insert(1, "--kernels=" + args.methods if args.methods else "--kernels")
    for w in args.pivot or []:
        cmd[1:1] = ["--pivot", str(w)]
    for spec in args.self_pivot or []:
        cmd[1:1] = ["--self-pivot", spec]
    print("records: %s on %s" % (os.path.basename(column_path), device), file=sys.stderr)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    out = {"device": device, "name": "", "upload": None, "rows": [], "error": None,
           "offset_bits": ""}
    for line in proc.stdout.splitlines():
        f = line.split("\t")
        if f[0] == "device":
            out["name"] = f[3]
        elif f[0] == "column":
            out["offset_bits"] = f[3]
        elif f[0] == "upload":
            out["upload"] = float(f[1])
        elif f[0] == "query":
            out["rows"].append((f[1], f[2], {
                "count": int(f[3]), "best": float(f[4]), "median": float(f[5]),
                "reps": int(f[6]), "kernel": f[7], "path": f[8],
                "id_sum": int(f[9]), "id_sq": int(f[10])}))
    if proc.returncode != 0:
        out["error"] = proc.stderr.strip() or "exit status %d" % proc.returncode
        sys.stderr.write(proc.stderr)
    return out


def fmt(x, spec):
    return "" if x is None else format(x, spec)


def summary_table(rows_out):
    """Markdown lines: per column and query, GB/s and x DuckDB of every device and mode."""
    engines = []
    for r in rows_out:
        key = (r["device"], r["mode"])
        if r["engine"] == "clmatch" and key not in engines:
            engines.append(key)
    md = ["## Summary: GB/s of string bytes (x DuckDB)", "",
          "| column | query | rows | DuckDB | " + " | ".join("%s %s" % e for e in engines)
          + " |", "|---|---|---:|---:|" + "---:|" * len(engines)]
    cells = {}
    for r in rows_out:
        cells[(r["column"], r["query"], r["engine"], r["device"], r["mode"])] = r
    for r in rows_out:
        if r["engine"] != "duckdb":
            continue
        line = "| %s | %s | %d | %.2f |" % (r["column"], r["query"], r["count"], r["gbs"])
        for dev, mode in engines:
            c = cells.get((r["column"], r["query"], "clmatch", dev, mode))
            line += " %.2f (%.2fx)%s |" % (c["gbs"], c["vs_duckdb"], "" if c["agree"] == "yes"
                                           else " DISAGREE") if c else " |"
        md.append(line)
    return md + [""]


def write_report(args, st, duckdb_version, pending):
    """<out>/<name>.md and .csv of the rows so far; pending: the columns still to run (a run
    cut short keeps the columns it finished, marked incomplete). Returns the markdown."""
    rows_out, problems, devices = st["rows"], st["problems"], st["devices"]
    shapes, uploads = st["shapes"], st["uploads"]
    os.makedirs(args.out, exist_ok=True)
    csv_path = os.path.join(args.out, args.name + ".csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, restval="", lineterminator="\n")
        w.writeheader()
        for r in rows_out:
            w.writerow({k: (format(v, ".6g") if isinstance(v, float) else v)
                        for k, v in r.items()})

    md = ["# clmatch records suite: SQL LIKE on TPC-H string columns beside DuckDB", "",
          "- label `%s`, host `%s`, %s, commit `%s`" % (args.label, st["host"], st["date"],
                                                        args.commit),
          "- TPC-H scale factor %s (`%s`)" % (args.sf, args.tpchgen_version),
          "- DuckDB %s, `SET threads=%d`, column in memory (a table of one VARCHAR), "
          "`SELECT count(*) ... WHERE`, best of %d after a check query"
          % (duckdb_version, args.threads, args.duckdb_reps),
          "- clmatch (`bench/records/records_bench`): `clm_like_select` count only, best of "
          "%d (at most %g s a row) after a warm-up; *resident*: the column uploaded once "
          "(`clm_column_upload`), *host*: from host memory, the transfer in every call"
          % (args.reps, args.max_time),
          "- GB/s: string bytes (no terminators) / best time; M rows/s: column rows / best "
          "time; x DuckDB: DuckDB's best time / this one's",
          "- or10: `LIKE '%%w%%'` for w in %s" % ", ".join(OR10),
          "- kernel: *item* a work-item per row, *group* a work-group per row, *filter* "
          "filter and verify, *automaton* one Aho-Corasick walk per row (an OR of "
          "contains), *segment* seed 004's Seg-k-t (`segment:T:K`: T work-items a row, "
          "slices of K places); a mode `resident/item`, `resident/group`, ... forces it "
          "(`clm_selection.kernel`), `/kmp_basic`, `/kmp_step`, `/kmp_hybrid`, `/wide` the way a "
          "row's segments are found (`clm_selection.find`; else the first-byte scan), the "
          "other rows take `CLM_ROWS_AUTO`",
          "- every row's selection is checked against DuckDB's: count, sum of row ids and "
          "of their squares", ""]
    if pending:
        md.append("**INCOMPLETE**: the run stopped before column(s) %s" % ", ".join(pending))
        md.append("")
    md.append("Devices: " + ", ".join("`%s` %s" % (d, n) for d, n in devices.items()))
    md.append("")
    if problems:
        md += ["## DISAGREEMENTS AND FAILURES", ""] + ["- " + p for p in problems] + [""]
    md += summary_table(rows_out)
    for name, (nrows, nbytes, what) in shapes.items():
        md.append("## %s" % name)
        md.append("")
        md.append("%s: %d rows, %d bytes of strings (%.1f B a row)%s" % (
            what, nrows, nbytes, nbytes / max(nrows, 1),
            "".join("; upload to %s %.3f s" % (d, uploads[(name, d)])
                    for d in devices if uploads.get((name, d)) is not None)))
        md.append("")
        md.append("| query | predicate | rows | engine | where | best s | median s | GB/s "
                  "| M rows/s | x DuckDB | kernel, path | agree |")
        md.append("|---|---|---:|---|---|---:|---:|---:|---:|---:|---|---|")
        for r in rows_out:
            if r["column"] != name:
                continue
            where = ("%d threads" % r["threads"] if r["engine"] == "duckdb"
                     else "%s %s" % (r["device"], r["mode"]))
            md.append("| %s | `%s` | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                r["query"], short_predicate(r["query"]), r["count"], r["engine"],
                where, fmt(r["best_s"], ".4f"), fmt(r["median_s"], ".4f"),
                fmt(r["gbs"], ".2f"), fmt(r["mrows_s"], ".1f"), fmt(r["vs_duckdb"], ".2f"),
                ", ".join(x for x in (r.get("kernel"), r.get("data_path")) if x),
                r["agree"]))
        md.append("")
    md_path = os.path.join(args.out, args.name + ".md")
    with open(md_path, "w") as f:
        f.write("\n".join(md) + "\n")
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True, help="directory of the column files")
    ap.add_argument("--records-bench", required=True)
    ap.add_argument("--sf", required=True)
    ap.add_argument("--device", action="append", default=[], help="P:D (repeatable)")
    ap.add_argument("--mode", default="both", choices=["resident", "host", "both"])
    ap.add_argument("--pivot", type=int, action="append", choices=[4, 8, 16],
                    help="also a resident column pivoted in pieces of W bytes (mode pivotW)")
    ap.add_argument("--self-pivot", action="append",
                    help="W:S:L: also a resident column self-pivoted, S segments of L bytes a "
                    "chunk in pieces of W bytes (mode selfpivotW:S:L)")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--max-time", type=float, default=10.0)
    ap.add_argument("--kernels", default="long", choices=["none", "long", "all"],
                    help="also time each kernel forced (item, group, filter, automaton): on no "
                    "column, the synthesized ones (long, mixed), every column")
    ap.add_argument("--methods", default="",
                    help="with --kernels: the methods to force (records_bench --kernels=LIST: "
                    "item, group, filter, automaton, segment[:T:K], each optionally "
                    "/kmp_basic, /kmp_step, /kmp_hybrid, /wide or /first_byte)")
    ap.add_argument("--duckdb-reps", type=int, default=4)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--column", action="append", default=[],
                    help="only the columns whose name starts with this (repeatable)")
    ap.add_argument("--query", action="append", default=[],
                    help="only these query ids (repeatable)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", required=True, help="report file name, without .md/.csv")
    ap.add_argument("--label", required=True)
    ap.add_argument("--tpchgen-version", default="")
    ap.add_argument("--commit", default="")
    args = ap.parse_args()
    try:
        import duckdb
    except ImportError as e:
        die("cannot import duckdb (%s): pip install duckdb, or --python-path DIR" % e)
    for q in args.query:
        if q not in QUERIES:
            die("unknown query %s (known: %s)" % (q, ", ".join(QUERIES)))

    columns = [c for c in COLUMNS
               if not args.column or any(c[0].startswith(p) for p in args.column)]
    if not columns:
        die("no column selected")
    src = os.path.join(args.data, "orders.o_comment.txt")
    for name, _, _ in columns:
        if name.startswith("long."):
            synthesize(src, os.path.join(args.data, name + ".txt"), 1024)
        elif name.startswith("huge."):
            synthesize(src, os.path.join(args.data, name + ".txt"), 65536)
        elif name.startswith("mixed."):
            synthesize(src, os.path.join(args.data, name + ".txt"), 0)
        elif name.startswith("adversarial."):
            synthesize_adversarial(src, os.path.join(args.data, name + ".txt"))

    con = duckdb.connect()
    con.execute("SET threads=%d" % args.threads)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    host = socket.gethostname()
    rows_out, problems, devices, shapes, uploads = [], [], {}, {}, {}
    st = dict(rows=rows_out, problems=problems, devices=devices, shapes=shapes,
              uploads=uploads, date=date, host=host)
    selected = [c[0] for c in columns if not args.query or set(c[2]) & set(args.query)]
    done = []
    for name, what, qids in columns:
        qids = [q for q in qids if not args.query or q in args.query]
        if not qids:
            continue
        path = os.path.join(args.data, name + ".txt")
        nrows, nbytes = file_shape(path)
        shapes[name] = (nrows, nbytes, what)
        print("records: %s, %d rows, %d bytes: DuckDB" % (name, nrows, nbytes),
              file=sys.stderr)
        duckdb_column(con, path, nrows, nbytes)
        ref = {q: duckdb_query(con, q, args.duckdb_reps) for q in qids}
        kernels = args.kernels == "all" or (args.kernels == "long" and
                                            not name.startswith(tuple(TPCH_TABLES)))
        runs = [run_clmatch(args, d, path, qids, os.path.join(args.data, "queries.tsv"),
                            kernels) for d in args.device]
        base = dict(label=args.label, date=date, host=host, sf=args.sf, column=name,
                    column_rows=nrows, string_bytes=nbytes)
        for run in runs:
            devices[run["device"]] = run["name"]
            uploads[(name, run["device"])] = run["upload"]
            if run["error"]:
                problems.append("%s on %s: records_bench failed: %s"
                                % (name, run["device"], run["error"].splitlines()[-1]))
        for q in qids:
            count, id_sum, id_sq, best, med = ref[q]
            common = dict(base, query=q, predicate=sql_predicate(q))
            rows_out.append(dict(common, engine="duckdb", device="", device_name="",
                                 mode="memory", threads=args.threads,
                                 reps=args.duckdb_reps, count=count, best_s=best,
                                 median_s=med, gbs=nbytes / best / 1e9,
                                 mrows_s=nrows / best / 1e6, vs_duckdb=1.0, agree="ref"))
            for run in runs:
                for rq, mode, r in run["rows"]:
                    if rq != q:
                        continue
                    same = (r["count"], r["id_sum"], r["id_sq"]) == (count, id_sum % 2**64,
                                                                     id_sq % 2**64)
                    if not same:
                        problems.append(
                            "%s %s on %s (%s): clmatch selected %d rows, DuckDB %d%s"
                            % (name, q, run["device"], mode, r["count"], count,
                               "" if r["count"] != count else " (other row ids)"))
                    rows_out.append(dict(
                        common, engine="clmatch", device=run["device"],
                        device_name=run["name"], mode=mode, threads="", reps=r["reps"],
                        count=r["count"], best_s=r["best"], median_s=r["median"],
                        gbs=nbytes / r["best"] / 1e9, mrows_s=nrows / r["best"] / 1e6,
                        vs_duckdb=best / r["best"], kernel=r["kernel"], data_path=r["path"],
                        offset_bits=run["offset_bits"],
                        upload_s=run["upload"] if mode == "resident" else None,
                        agree="yes" if same else "DISAGREE"))

        done.append(name)
        write_report(args, st, duckdb.__version__, [c for c in selected if c not in done])

    md = write_report(args, st, duckdb.__version__, [])
    sys.stdout.write("\n".join(md) + "\n")
    print("records: wrote %s.md and .csv in %s" % (args.name, args.out), file=sys.stderr)
    if problems:
        print("records.py: THE ENGINES DISAGREE OR FAILED:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
