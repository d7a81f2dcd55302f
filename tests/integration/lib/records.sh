# Sourced by tests/integration/lib.sh (its functions and variables are
# in scope): what a recording holds: a --json-rows recording's rows (a field, a counter, a
# sum), a CSV's value (perf's or ours).

# jfield FILE SCOPE KEY SECTION FIELD: r[SECTION][FIELD] of the last row of
# that scope and key ("null" for null, "missing" when none); for SECTION
# sched, FIELD hist is the histogram's total count
jfield() {
	python3 -c '
import json, sys
f, scope, key, sec, field = sys.argv[1:6]
val = "missing"
for line in open(f):
    r = json.loads(line)
    if r["scope"] == scope and str(r["key"]) == key:
        s = r.get(sec, {})
        if sec == "sched" and field == "hist":
            val = sum(c for _, c in s["runq_latency_us"])
        else:
            v = s.get(field, "missing")
            val = "null" if v is None else v
print(val)' "$@"
}
# tree_rows FILE: what a --json-rows recording of command mode holds of the tree,
# for a failed check: the system, CPU and command rows and the tree's
# process rows (--by system,cpu,process), their counters; returns 1
tree_rows() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["scope"] in ("system", "cpu", "command", "process"):
        print("      %-8s %-8s %-16s %s" % (r["scope"], r["key"], r.get("comm", ""), r["counters"]))' "$1"
	return 1
}

# jsched FILE SCOPE KEY FIELD: that field of "sched" in the last matching row
jsched() { jfield "$1" "$2" "$3" sched "$4"; }
# jrow FILE SCOPE KEY EVENT: that counter in the last row matching, or "null"
jrow() { jfield "$1" "$2" "$3" counters "$4"; }
# jcommand FILE EVENT: that counter in the command row of the last
# interval, "missing" if none
jcommand() {
	"$PY3" -c '
import json, sys
val = "missing"
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["scope"] == "command":
        val = r["counters"][sys.argv[2]]
print("null" if val is None else val)' "$1" "$2"
}

# jsum FILE SCOPE FIELD: FIELD summed over the rows of SCOPE (all intervals)
jsum() {
	python3 -c '
import json, sys
f, scope, field = sys.argv[1:4]
print(sum(json.loads(l).get(field) or 0 for l in open(f) if json.loads(l)["scope"] == scope))' "$@"
}

# jsum_counter FILE SCOPE KEY EVENT [SECTION]: that counter (or SECTION's
# field: sched) summed over all intervals (with -I each row is a delta),
# 0 when there is no such row
jsum_counter() {
	"$PY3" -c '
import json, sys
f, scope, key, ev = sys.argv[1:5]
sec = sys.argv[5] if len(sys.argv) > 5 else "counters"
s = 0
for line in open(f):
    r = json.loads(line)
    if r["scope"] == scope and str(r["key"]) == key:
        s += r.get(sec, {}).get(ev) or 0
print(s)' "$@"
}

# csv_val FILE EVENT [N]: the value of EVENT on its Nth line (1: the
# first) in perf's CSV or ours: the field before the unit before the
# event's name; msec as ns
csv_val() {
	"$PY3" -c '
import csv, sys
f, ev, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [r for r in csv.reader(open(f)) if ev in r]
if len(rows) < n:
    print("missing"); sys.exit()
r = rows[n - 1]; i = r.index(ev)
v = r[i - 2] if r[i - 1] in ("msec", "") else r[i - 1]
try:
    print("%.0f" % (float(v) * (1e6 if r[i - 1] == "msec" else 1)))
except ValueError:
    print(v)' "$1" "$2" "${3:-1}"
}
