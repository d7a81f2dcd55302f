#!/usr/bin/env bash
# Recordings that make full reports (issue 33, item 3):
#  - stat --json-rows of emon-perf's own rows (--by container,process, the
#    README's recording) records the system row too, each interval: its
#    cpu-clock is the CPUs times the interval (2%); report's cpu% column
#    and the HTML's CPU share chart fill in from it;
#  - a row whose events all ran their whole enabled time (software events
#    always do) has no "ratio" object, and report reads a recording with
#    one (as stat wrote them before) to the same table;
#  - a last partial interval (3 ms after the last -I print) is left out
#    of report's charts, not drawn as a spike: the power chart of 5
#    intervals at 20 W and a last one of 3 ms at 167 W has 5 points a
#    line and its axis ends below 100 W.
# counter pass: what it checks (rows recorded, the report) is the same on either path
. "$(dirname "$0")/lib.sh"

"$EMON" stat -a --by container,process -e cpu-clock,context-switches,page-faults \
	-I 500 --json-rows -o "$TMP/run.jsonl" -- sleep 1.2
check "stat exits 0" [ $? -eq 0 ]
"$PY3" - "$TMP/run.jsonl" "$(nproc)" >"$TMP/sys.out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ncpu, bad, prev = int(sys.argv[2]), 0, 0.0
for t in sorted({r["interval"] for r in rows}):
    s = [r for r in rows if r["interval"] == t and r["scope"] == "system"]
    want = (t - prev) * ncpu * 1e9
    got = s[0]["counters"]["cpu-clock"] if s else 0
    ok = len(s) == 1 and abs(got - want) <= 0.02 * want
    print(f"      {t:.3f} s: {len(s)} system row(s), cpu-clock {got / 1e6:.1f} ms vs {ncpu} CPUs x {(t - prev) * 1e3:.1f} ms")
    bad += not ok
    prev = t
sys.exit(bad)
PY
check "a system row each interval, cpu-clock = CPUs x the interval (2%)" [ $? -eq 0 ]
cat "$TMP/sys.out"
check "no \"ratio\" on rows of software events" [ "$(grep -c '"ratio"' "$TMP/run.jsonl")" -eq 0 ]
echo "      $(wc -c <"$TMP/run.jsonl") bytes, $(grep -c . "$TMP/run.jsonl") rows"

"$EMON" report "$TMP/run.jsonl" --by process --top 5 >"$TMP/rep.txt" 2>&1
check "report's cpu% column filled in" \
	[ "$(awk '$4 ~ /^[0-9.]+%$/' "$TMP/rep.txt" | wc -l)" -ge 1 ]
awk '/^pid/ { f = 1 } f' "$TMP/rep.txt" | head -4 | sed 's/^/      /'
"$EMON" report "$TMP/run.jsonl" --by container --html "$TMP/rep.html" >/dev/null 2>&1
check "the HTML's CPU share chart has its bars (no n/a)" "$PY3" -c '
import re, sys
h = open(sys.argv[1]).read()
if "<h2>CPU share" not in h:
    sys.exit(1)
s = h[h.index("<h2>CPU share"):]
s = s[:s.index("</section>")]
sys.exit("n/a" in s or "<rect" not in s)' "$TMP/rep.html"

# a recording as stat wrote them before: every row with its "ratio"
"$PY3" -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    r["ratio"] = {e: 1.0 for e in r["counters"]}
    print(json.dumps(r))' "$TMP/run.jsonl" >"$TMP/old.jsonl"
"$EMON" report "$TMP/old.jsonl" --by process --top 0 >"$TMP/old.txt" 2>&1
"$EMON" report "$TMP/run.jsonl" --by process --top 0 >"$TMP/new.txt" 2>&1
check "report reads the old layout (with \"ratio\") to the same table" \
	diff <(tail -n +2 "$TMP/old.txt") <(tail -n +2 "$TMP/new.txt")

# 5 intervals at 20 W, then 3 ms at 167 W: a spike if drawn
for t in 1 2 3 4 5 5.003; do
	j=$([ "$t" = 5.003 ] && echo 0.5 || echo 20)
	printf '{"interval":%s,"scope":"system","key":"all","counters":{"cpu-clock":%s},"energy_j":%s,"energy_source":"powercap"}\n' \
		"$t" 2000000000 "$j"
	printf '{"interval":%s,"scope":"process","key":7,"comm":"w","counters":{"cpu-clock":%s},"energy_j":%s}\n' \
		"$t" 1000000000 "$(awk "BEGIN { print $j / 2 }")"
done >"$TMP/partial.jsonl"
"$EMON" report "$TMP/partial.jsonl" --by process --html "$TMP/partial.html" >/dev/null 2>&1
"$PY3" - "$TMP/partial.html" >"$TMP/partial.out" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
s = h[h.index("Power per"):]
s = s[:s.index("</section>")]
pts = [len(p.split()) for p in re.findall(r'<polyline[^>]* points="([^"]*)"', s)]
ticks = [float(t) for t in re.findall(r'text-anchor="end">([0-9.]+)</text>', s)]
print(f"      points per line {pts}, power axis up to {max(ticks)} W")
sys.exit(not pts or any(n != 5 for n in pts) or max(ticks) >= 100)
PY
check "a last interval of 3 ms is left out of the charts" [ $? -eq 0 ]
cat "$TMP/partial.out"
"$EMON" report "$TMP/partial.jsonl" --by process >"$TMP/partial.txt" 2>&1
check "and counted in the table: 100.5 J" grep -q '100\.5' "$TMP/partial.txt"
finish
