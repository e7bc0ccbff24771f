#!/bin/sh
# Plots of the bench CSVs with gnuplot, written next to each CSV (bench/README.md, "plots").
#
# Usage: sh bench/plot.sh CSV...        e.g. sh bench/plot.sh bench/results/*.csv
#        sh bench/plot.sh --combine STEM COMPARE_CSV...
#                                      compare CSVs of several runs (e.g. 1G,4G in one run and
#                                      10G in another) joined into STEM.csv and plotted as one
#
# clmatch-bench CSVs (bench/run.sh; they have a read_bw_gbs column): per device,
#   <csv>-<P>_<D>.png   kernel GB/s (median) per scenario, one bar per algorithm (the best
#                       variant and table memory of each, and auto), against a line at the
#                       device's read bandwidth; log scale.
# compare CSVs (bench/compare.sh; they have a time_min_s column):
#   <csv>-gbs.png       GB/s (file bytes / min wall time) of every tool, per pattern, at the
#                       largest size
#   <csv>-<id>-time.png wall time vs file size per tool, log-log (when the CSV has several sizes)
# Other CSVs are skipped with a note. Without gnuplot (Debian: gnuplot-nox) nothing is plotted
# and the exit status is 0 with a note; 1 when a plot failed, 2 on bad arguments.
set -u
LC_ALL=C
export LC_ALL
me=bench/plot.sh
[ $# -gt 0 ] || { echo "usage: sh $me CSV..." >&2; exit 2; }
case $1 in -h|--help) sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;; esac
if [ "$1" = --combine ]; then
    [ $# -ge 3 ] || { echo "usage: sh $me --combine STEM CSV..." >&2; exit 2; }
    stem=${2%.csv}; shift 2
    for f in "$@"; do
        [ -r "$f" ] || { echo "$me: cannot read $f" >&2; exit 2; }
        case $(head -n 1 "$f") in *,time_min_s,*) ;; *) echo "$me: $f is not a compare.sh CSV" >&2; exit 2 ;; esac
        [ "$(head -n 1 "$f")" = "$(head -n 1 "$1")" ] || { echo "$me: $f has other columns than $1" >&2; exit 2; }
    done
    { head -n 1 "$1"; for f in "$@"; do tail -n +2 "$f"; done; } > "$stem.csv.part" && mv "$stem.csv.part" "$stem.csv" || exit 2
    echo "$stem.csv"
    set -- "$stem.csv"
fi
GNUPLOT=${GNUPLOT:-gnuplot}
if ! command -v "$GNUPLOT" >/dev/null 2>&1; then
    echo "$me: gnuplot not found: no plots (apt-get install gnuplot-nox, or GNUPLOT=...)" >&2
    exit 0
fi
term="pngcairo noenhanced font ',10'"
"$GNUPLOT" -e "set terminal $term" >/dev/null 2>&1 || term="png noenhanced"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clmatch-plot.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
status=0

# CSV (RFC 4180 quoting) to TSV; a tab or newline inside a field becomes a space.
csv2tsv() {
    awk '
        {
            line = $0
            while (gsub(/"/, "\"", line) % 2 == 1 && (getline more) > 0) line = line " " more
            out = ""; i = 1; n = length(line); field = ""; q = 0
            while (i <= n) {
                c = substr(line, i, 1)
                if (q) {
                    if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { field = field "\""; i++ } else q = 0 }
                    else field = field (c == "\t" ? " " : c)
                } else if (c == "\"") q = 1
                else if (c == ",") { out = out field "\t"; field = "" }
                else field = field (c == "\t" ? " " : c)
                i++
            }
            sub(/\r$/, "", field)
            print out field
        }' "$1"
}

# kernel GB/s per algorithm and scenario, one PNG per device.
plot_bench() {  # csv tsv stem
    csv=$1; tsv=$2; stem=$3
    awk -F'\t' '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        {
            dev = $c["device"]; st = $c["status"]
            scen = ("scenario" in c) ? $c["scenario"] : "exact-" $c["m"]
            alg = $c["algorithm"]; v = $c["kernel_gbs_median"] + 0
            if (st != "ok" || v <= 0) next
            print dev "\t" $c["device_type"] "\t" $c["device_name"] "\t" $c["read_bw_gbs"] "\t" scen "\t" alg "\t" v
        }' "$tsv" > "$tmp/bench.rows"
    if [ ! -s "$tmp/bench.rows" ]; then
        echo "$me: $csv: no measured rows" >&2
        return
    fi
    for dev in $(cut -f1 "$tmp/bench.rows" | awk '!s[$0]++'); do
        png="$stem-$(echo "$dev" | tr ':' '_').png"
        # scenario, then the best GB/s of each algorithm in a fixed order ("?" = not measured)
        awk -F'\t' -v dev="$dev" -v dat="$tmp/bench.dat" -v gp="$tmp/bench.gp" -v png="$png" -v term="$term" '
            $1 == dev {
                if (!($5 in seen)) { seen[$5] = 1; scen[++ns] = $5 }
                k = $5 SUBSEP $6; if (!(k in best) || $7 > best[k]) best[k] = $7
                used[$6] = 1; type = $2; name = $3; rbw = $4
            }
            END {
                na = split("naive kmp dfa bitap bmh witness auto", all, " ")
                for (a = 1; a <= na; a++) if (all[a] in used) algo[++n] = all[a]
                printf "scenario" > dat; for (a = 1; a <= n; a++) printf "\t%s", algo[a] > dat; print "" > dat
                for (s = 1; s <= ns; s++) {
                    printf "%s", scen[s] > dat
                    for (a = 1; a <= n; a++) { k = scen[s] SUBSEP algo[a]; printf "\t%s", (k in best) ? best[k] : "?" > dat }
                    print "" > dat
                }
                w = 300 + ns * (18 * n + 20); if (w < 900) w = 900; if (w > 4000) w = 4000
                print "set terminal " term " size " w ",600" > gp
                print "set output \"" png "\"" > gp
                printf "set title \"%s %s (%s): kernel GB/s per algorithm (best variant and table memory), read bandwidth %.1f GB/s\"\n", dev, name, type, rbw > gp
                print "set datafile separator \"\\t\"; set datafile missing \"?\"" > gp
                print "set style data histograms; set style histogram clustered gap 1" > gp
                print "set style fill solid 0.85 border -1; set boxwidth 0.9" > gp
                print "set logscale y; set ylabel \"kernel GB/s (median, log scale)\"; set grid ytics" > gp
                print "set xtics rotate by -40 nomirror; set key outside right top" > gp
                printf "rbw = %s\nplot", rbw > gp
                for (a = 1; a <= n; a++) printf "%s \"%s\" using %d%s title columnheader(%d)", (a > 1 ? "," : ""), dat, a + 1, (a == 1 ? ":xtic(1)" : ""), a + 1 > gp
                print ", rbw with lines lw 2 dt 2 lc rgb \"black\" title sprintf(\"read BW %.1f GB/s\", rbw)" > gp
            }' "$tmp/bench.rows"
        if "$GNUPLOT" "$tmp/bench.gp" 2> "$tmp/gp.err"; then
            echo "$png"
        else
            echo "$me: gnuplot failed for $png: $(head -n 3 "$tmp/gp.err")" >&2
            status=1
        fi
    done
}

# compare.sh CSVs: GB/s bars at the largest size, and time vs size per pattern.
plot_compare() {  # csv tsv stem
    csv=$1; tsv=$2; stem=$3
    awk -F'\t' '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["status"] == "ok" {
            t = $c["tool"]; d = $c["device_name"]; sub(/^.*\(/, "", d); sub(/[,)].*$/, "", d)
            s = t == "clmatch" ? t " " $c["device"] " " d : (t == "hs" || t == "memmem") ? t " -t " $c["threads"] : t
            s = s " (" $c["counts"] ")"
            print s "\t" $c["pattern_id"] "\t" $c["size_bytes"] "\t" $c["time_min_s"] "\t" $c["gbs_best"] "\t" $c["label"]
        }' "$tsv" > "$tmp/cmp.rows"
    if [ ! -s "$tmp/cmp.rows" ]; then
        echo "$me: $csv: no measured rows" >&2
        return
    fi
    # GB/s per tool (rows) and pattern (clusters) at the largest size.
    awk -F'\t' -v dat="$tmp/gbs.dat" -v gp="$tmp/gbs.gp" -v png="$stem-gbs.png" -v term="$term" '
        { if ($3 + 0 > max) max = $3 + 0; r[NR] = $0 }
        END {
            for (i = 1; i <= NR; i++) {
                split(r[i], f, "\t"); if (f[3] + 0 != max) continue
                if (!(f[1] in st)) { st[f[1]] = 1; tool[++nt] = f[1] }
                if (!(f[2] in sp)) { sp[f[2]] = 1; pat[++np] = f[2] }
                v[f[1], f[2]] = f[5]; label = f[6]
            }
            printf "tool" > dat; for (p = 1; p <= np; p++) printf "\t%s", pat[p] > dat; print "" > dat
            for (t = 1; t <= nt; t++) {
                printf "%s", tool[t] > dat
                for (p = 1; p <= np; p++) printf "\t%s", ((tool[t], pat[p]) in v) ? v[tool[t], pat[p]] : "?" > dat
                print "" > dat
            }
            print "set terminal " term " size 1100,650" > gp
            print "set output \"" png "\"" > gp
            printf "set title \"%s: whole-process GB/s (file bytes / min wall time), %.0f MiB, warm page cache\"\n", label, max / 1048576 > gp
            print "set datafile separator \"\\t\"; set datafile missing \"?\"" > gp
            print "set style data histograms; set style histogram clustered gap 1" > gp
            print "set style fill solid 0.85 border -1; set grid ytics; set yrange [0:*]" > gp
            print "set ylabel \"GB/s\"; set xtics rotate by -30 nomirror; set key outside right top title \"pattern\"" > gp
            printf "plot" > gp
            for (p = 1; p <= np; p++) printf "%s \"%s\" using %d%s title columnheader(%d)", (p > 1 ? "," : ""), dat, p + 1, (p == 1 ? ":xtic(1)" : ""), p + 1 > gp
            print "" > gp
        }' "$tmp/cmp.rows"
    if "$GNUPLOT" "$tmp/gbs.gp" 2> "$tmp/gp.err"; then echo "$stem-gbs.png"
    else echo "$me: gnuplot failed for $stem-gbs.png: $(head -n 3 "$tmp/gp.err")" >&2; status=1; fi

    nsizes=$(cut -f3 "$tmp/cmp.rows" | sort -u | wc -l)
    if [ "$nsizes" -lt 2 ]; then
        echo "$me: $csv: one file size only: no time-vs-size plot (compare.sh --size A,B,...)" >&2
        return
    fi
    for pid in $(cut -f2 "$tmp/cmp.rows" | awk '!s[$0]++'); do
        png="$stem-$pid-time.png"
        rm -f "$tmp"/series.*
        awk -F'\t' -v pid="$pid" -v dir="$tmp" -v gp="$tmp/time.gp" -v png="$png" -v term="$term" '
            $2 == pid {
                if (!($1 in id)) { id[$1] = ++n; name[n] = $1 }
                printf "%.6f\t%s\n", $3 / 1073741824, $4 > (dir "/series." id[$1]); label = $6
            }
            END {
                nc = split("#e41a1c #377eb8 #4daf4a #984ea3 #ff7f00 #a65628 #f781bf #222222 #66c2a5 #b8860b #1f78b4 #999999", col, " ")
                print "set terminal " term " size 1000,650" > gp
                print "set output \"" png "\"" > gp
                printf "set title \"%s: wall time vs file size, pattern %s (whole process, warm page cache, min of the runs)\"\n", label, pid > gp
                print "set datafile separator \"\\t\"; set logscale xy; set grid" > gp
                print "set xlabel \"file size (GiB, log)\"; set ylabel \"wall time (s, log)\"; set key outside right top" > gp
                printf "plot" > gp
                for (i = 1; i <= n; i++) {
                    close(dir "/series." i)
                    printf "%s \"< sort -g %s/series.%d\" using 1:2 with linespoints lw %d dt %d lc rgb \"%s\" title \"%s\"", (i > 1 ? "," : ""),
                        dir, i, (name[i] ~ /^clmatch/ ? 3 : 2), (name[i] ~ /[(]lines[)]$/ ? 2 : 1), col[(i - 1) % nc + 1], name[i] > gp
                }
                print "" > gp
            }' "$tmp/cmp.rows"
        if "$GNUPLOT" "$tmp/time.gp" 2> "$tmp/gp.err"; then echo "$png"
        else echo "$me: gnuplot failed for $png: $(head -n 3 "$tmp/gp.err")" >&2; status=1; fi
    done
}

for csv in "$@"; do
    if [ ! -r "$csv" ]; then
        echo "$me: cannot read $csv" >&2
        status=1
        continue
    fi
    stem=${csv%.csv}
    csv2tsv "$csv" > "$tmp/in.tsv"
    header=$(head -n 1 "$tmp/in.tsv")
    case "	$header	" in
        *"	read_bw_gbs	"*) plot_bench "$csv" "$tmp/in.tsv" "$stem" ;;
        *"	time_min_s	"*) plot_compare "$csv" "$tmp/in.tsv" "$stem" ;;
        *) echo "$me: $csv: neither a clmatch-bench nor a compare.sh CSV: skipped" >&2 ;;
    esac
done
exit $status
