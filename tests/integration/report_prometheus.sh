#!/usr/bin/env bash
# emon-perf report --prometheus against a real Prometheus server (Debian
# prometheus) that scrapes emon-perf serve every second, twice, as two
# hosts (host="alpha" and host="beta"), while burners run in a docker
# container's cgroup and a Kubernetes pod's, and a fake powercap tree
# advances at 20 W per package. Over a window that the test picks:
#  - each container's energy in the report (alpha alone, --match) is the
#    difference of emon_container_energy_joules_total between the
#    window's ends, asked of Prometheus here, within 1%;
#  - the system's energy is the fake tree's 20 W x packages x the time
#    between the samples the window's ends fall on (the last scrape at or
#    before each), within 1% + what 20 W gives in those two scrapes'
#    durations (a sample's time is its scrape's start; the daemon reads
#    the energy somewhere in the scrape);
#  - both hosts: a host column, each container once per host, alpha's
#    figures the same as alone;
#  - the HTML page renders in headless Chromium (lib.sh chromium_shot);
#  - across a daemon restart inside a window (a counter reset), the
#    system's energy is what the raw samples' increases add up to, as
#    increase() counts them, within 1%, and 20 W x both daemons' time;
#  - a server that is no Prometheus, one without emon-perf metrics, a
#    window without data, a bad --match, a bad duration, step, time or
#    URL: exit 2 with one line naming it; an unreachable server, a
#    runtime failure: exit 1, one line.
# sanitizer pass: its subject is a Prometheus server's timing (a 60 s run); report's Prometheus client is fuzzed (fuzz_report_prom)
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || skip "no prometheus (apt-get install prometheus)"

MPORT=$(free_port) PPORT=$(free_port)
PROM=http://127.0.0.1:$PPORT
R=20 STEP=2	# the window and its step, seconds
id() { printf '%s%060x' "$1$1$1$1" "$1"; }	# 64 hex, told apart by 12
uid=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
docker=$(cg_new "system.slice/docker-$(id 7).scope")
pod=$(cg_new "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice/cri-containerd-$(id 8).scope")

fake_rapl "$TMP/pc" 20 --period-ms 1 || finish
npkg=$(ls -d "$TMP"/pc/intel-rapl:[0-9]* | wc -l)
serve_start "$TMP/run/emon.sock" "$TMP/serve.err" -e cpu-clock,context-switches \
	--powercap-root "$TMP/pc" --listen 127.0.0.1:$MPORT || exit 1
cg_bg "$docker" "$BURN" 100000
cg_bg "$pod" "$BURN" 100000
cat >"$TMP/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: alpha
    static_configs:
      - targets: ["127.0.0.1:$MPORT"]
        labels: {host: alpha}
  - job_name: beta
    static_configs:
      - targets: ["127.0.0.1:$MPORT"]
        labels: {host: beta}
EOF
prom_start $PPORT "$TMP/prom.yml" || exit 1

# promql QUERY [TIME]: an instant query's result, as JSON
promql() {
	"$PY3" - "$PROM" "$@" <<'PY'
import json, sys, urllib.parse, urllib.request
p = {"query": sys.argv[2]}
if len(sys.argv) > 3:
    p["time"] = sys.argv[3]
with urllib.request.urlopen(sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode(p), timeout=10) as r:
    print(json.dumps(json.load(r)["data"]["result"]))
PY
}
# the window ends 2 s ago (or up to 10 s before, see below), once both
# hosts have had samples for R + 14 s (so its start has one before it)
have() {
	promql "emon_container_energy_joules_total{container_id=\"$(id 7)\",zone=\"package\"}[60s]" |
		"$PY3" -c "
import json, sys, time
r = json.load(sys.stdin)
sys.exit(len(r) < 2 or max(float(s['values'][0][0]) for s in r) > time.time() - $((R + 14)))"
}
for _ in $(seq 120); do have && break; sleep 0.5; done
check "Prometheus has $((R + 14)) s of both hosts' container samples within 60 s" have || finish
# sample_t T: the time of alpha's sample at T (its last at or before),
# 0 when there is none (a scrape that timed out on a busy machine marks
# the series stale until the next one)
sample_t() {
	promql "timestamp(emon_system_energy_joules_total{host=\"alpha\",zone=\"package\"})" "$1" |
		"$PY3" -c 'import json, sys; r = json.load(sys.stdin); print(r[0]["value"][1] if r else 0)'
}
END=$(($(date +%s) - 2))
sleep 2.5	# the scrapes up to END are in
# both ends on a sample: the test's differences need one at each
for _ in $(seq 10); do
	START=$((END - R))
	[ "$(sample_t $START)" != 0 ] && [ "$(sample_t $END)" != 0 ] && break
	END=$((END - 1))
done
echo "      window $START..$END, $npkg package(s), step $STEP s"

# -- one host (alpha): the figures against Prometheus's own --
out=$TMP/alpha.txt
"$EMON" report --prometheus "$PROM" --range ${R}s --step ${STEP}s --end $END \
	--match 'host="alpha"' --by container --top 0 --html "$TMP/alpha.html" >"$out" 2>"$TMP/alpha.err"
rc=$?
cat "$out" "$TMP/alpha.err"
check "report --prometheus exits 0 (got $rc)" [ $rc -eq 0 ]
check "header: the window and 1 host" grep -q "(Unix $START.000 to $END.000), step 2 s, --match host=\"alpha\", 1 host" "$out"
check "header: energy from powercap, split by cpu-clock (the metrics' HELP)" \
	grep -q "energy: powercap, split by cpu-clock" "$out"

# each container: the report's energy against emon_container_energy_joules_total
# at END minus at START (instant queries: the same samples' lookback)
promql 'emon_container_energy_joules_total{host="alpha",zone="package"}' $END >"$TMP/e_end.json"
promql 'emon_container_energy_joules_total{host="alpha",zone="package"}' $START >"$TMP/e_start.json"
"$PY3" - "$out" "$TMP/e_start.json" "$TMP/e_end.json" "$(id 7)" "$(id 8)" <<'PY'
import json, sys
out, fs, fe, c7, c8 = sys.argv[1:6]
def by_id(f):
    return {s["metric"]["container_id"]: float(s["value"][1]) for s in json.load(open(f))}
a, b = by_id(fs), by_id(fe)
lines = open(out).read().splitlines()
head = next(i for i, l in enumerate(lines) if l.split()[:1] == ["container"])
cols = lines[head].split()
rows = {l.split()[0]: dict(zip(cols, l.split())) for l in lines[head + 1:] if l.strip() and not l.startswith("(")}
bad = 0
for cid in (c7, c8):
    want = b.get(cid, 0) - a.get(cid, 0)
    got = rows.get(cid[:12] if len(cid) == 64 else cid, {}).get("energy_j")
    ok = got is not None and want > 0 and abs(float(got) - want) <= 0.01 * want
    print(f"{'ok   ' if ok else 'FAIL '} container {cid[:12]}: report {got} J, PromQL {want:.4f} J (tolerance 1%)")
    bad += not ok
# containers of other tests on a shared machine come and go (one may
# be removed and made again under the same id, a reset): shown only
for cid in set(b) - {c7, c8}:
    got = rows.get(cid[:12] if len(cid) == 64 else cid, {}).get("energy_j")
    print(f"      (another container {cid[:12]}: report {got} J, PromQL difference {b[cid] - a.get(cid, 0):.4f} J)")
sys.exit(bad != 0)
PY
check "each container's energy = the PromQL difference over the window within 1%" [ $? -eq 0 ]

# the system: the fake tree's wattage over the time between the two
# samples the window's ends fall on (the last scrape at or before each,
# up to a scrape interval before it: Prometheus's timestamp())
sys_j=$(sed -n 's/.*; system \([0-9.]*\) J, \([0-9.]*\) W mean.*/\1/p' "$out")
# how long the scrape of that sample took: the daemon read the energy
# somewhere in it
scrape_s() {
	promql "scrape_duration_seconds{host=\"alpha\"}" "$1" |
		"$PY3" -c 'import json, sys; r = json.load(sys.stdin); print(r[0]["value"][1] if r else 1)'
}
"$PY3" - "${sys_j:-0}" "$npkg" "$(sample_t $START)" "$(sample_t $END)" \
	"$(scrape_s $START)" "$(scrape_s $END)" <<'PY'
import sys
got, npkg = float(sys.argv[1]), int(sys.argv[2])
t0, t1, d0, d1 = map(float, sys.argv[3:7])
want = 20 * npkg * (t1 - t0)
tol = 0.01 * want + 20 * npkg * (d0 + d1)
print(f"      system {got:.3f} J, want 20 W x {npkg} x {t1 - t0:.3f} s (samples at {t0:.3f}, {t1:.3f}) = {want:.3f} J, "
      f"tolerance 1% + 20 W x {npkg} x those scrapes' durations ({d0 * 1e3:.1f} + {d1 * 1e3:.1f} ms) = {tol:.3f} J")
sys.exit(not t0 or abs(got - want) > tol)
PY
check "the system's energy is 20 W x packages x the time between the window's samples" [ $? -eq 0 ]

# -- both hosts: a host column, every container once per host --
"$EMON" report --prometheus "$PROM" --range ${R}s --step ${STEP}s --end $END \
	--by container --top 0 >"$TMP/both.txt" 2>&1
rc=$?
cat "$TMP/both.txt"
check "both hosts: exit 0 (got $rc), 2 hosts, a host column" \
	bash -c "[ $rc -eq 0 ] && grep -q ', 2 hosts$' '$TMP/both.txt' && grep -qE '^host +container ' '$TMP/both.txt'"
"$PY3" - "$out" "$TMP/both.txt" "$(id 7)" <<'PY'
import sys
def rows(f, hosted):
    lines = open(f).read().splitlines()
    head = next(i for i, l in enumerate(lines) if l.split()[:1] in (["container"], ["host"]))
    cols = lines[head].split()
    out = {}
    for l in lines[head + 1:]:
        if not l.strip() or l.startswith("("):
            continue
        r = dict(zip(cols, l.split()))
        out[(r["host"] if hosted else "alpha", r["container"])] = float(r["energy_j"])
    return out
one, both = rows(sys.argv[1], False), rows(sys.argv[2], True)
c = sys.argv[3][:12]
bad = 0
for h in ("alpha", "beta"):
    ok = (h, c) in both
    print(f"{'ok   ' if ok else 'FAIL '} {h} has a row for container {c}")
    bad += not ok
for k, v in one.items():
    ok = abs(both.get(k, -1) - v) <= 1e-3
    print(f"{'ok   ' if ok else 'FAIL '} alpha {k[1]}: {both.get(k)} J with both hosts, {v} J alone")
    bad += not ok
sys.exit(bad != 0)
PY
check "both hosts: alpha's rows are alpha's alone, beta has its own" [ $? -eq 0 ]

# -- the page --
html=$TMP/alpha.html
# (the server's URL is on the page as text, not as a link)
check "the page is written, self-contained" bash -c "[ -s '$html' ] && ! grep -qiE '<script|src=|href=|url\(' '$html'"
nbars=$(grep -o 'class="bar"' "$html" | wc -l) nlines=$(grep -o '<polyline' "$html" | wc -l)
nkeys=$(awk '$1 == "container" { on = 1; next } on && NF && !/^\(/ { n++ } END { print n + 0 }' "$out")
check "2 bars per key (energy, share: $nkeys keys, $nbars bars), a line per key and the system's ($nlines)" \
	[ "$nbars" -eq $((2 * nkeys)) -a "$nlines" -eq $((nkeys + 1)) ]
if command -v chromium >/dev/null 2>&1; then
	if chromium_shot "$html" "$TMP/shot.png"; then
		mkdir -p "${OUTPUT:-build}" && cp "$TMP/shot.png" "${OUTPUT:-build}/report-prometheus-shot.png"
		# the first key's bars and line, the second's drawn at all
		# (other containers on a shared machine may dwarf it)
		png_check "$TMP/shot.png" blue:4e79a7 orange:f28e2b:300
		check "the screenshot shows the page and its first two keys' colours" [ $? -eq 0 ]
	fi
else
	echo "      no chromium: the page is not rendered (apt-get install chromium)"
fi

# -- a counter reset: the daemon restarts inside a window --
# Its counters start again from zero; the report counts the new
# daemon's first value in full (a counter that went down restarted),
# and what the old one gained after the last step before the restart
# (its peak in that step). Two checks of the system's energy:
#  - against every raw sample of the window, asked of Prometheus here,
#    summed as increase() does (a value below the one before it counts
#    from zero), without its extrapolation: within 1%;
#  - against the fake tree: 20 W x (the old daemon's time from the
#    window's first sample to its last + the new daemon's time from its
#    start, between its launch and its "serving" line, to the window's
#    last sample), within 1% + 20 W x those scrapes' durations.
# 6 s steps placed so that one point comes 2 s before the kill and the
# next 4 s after it: the old daemon's last 2 s of samples are in no
# point's value, only in that step's peak.
# last_after T: wait (up to 30 s) until alpha's latest sample is 3 s
# past T; print its time
last_after() {
	local t
	for _ in $(seq 60); do
		t=$(promql 'timestamp(emon_system_energy_joules_total{host="alpha",zone="package"})' |
			"$PY3" -c 'import json, sys; r = json.load(sys.stdin); print(r[0]["value"][1] if r else 0)')
		"$PY3" -c "import sys; sys.exit(not $t >= $1 + 3)" && { echo "$t"; return 0; }
		sleep 0.5
	done
	return 1
}
K=$(date +%s)
kill -TERM $DPID
wait $DPID
launch=$("$PY3" -c 'import time; print(time.time())')
serve_start "$TMP/run/emon.sock" "$TMP/serve2.err" -e cpu-clock,context-switches \
	--powercap-root "$TMP/pc" --listen 127.0.0.1:$MPORT || exit 1
serving=$("$PY3" -c 'import time; print(time.time())')
# some of the new daemon's samples, and 10 s past the kill
t=$(last_after "$("$PY3" -c "print(max($serving, $K + 7))")") ||
	{ check "Prometheus scrapes the new daemon" false; finish; }
END2=$((K - 2 + (${t%.*} - K + 2) / 6 * 6))	# a point at K - 2, and at K + 4
START2=$((END2 - (END2 - K + 8 + 5) / 6 * 6))	# and 8 s or more before K
"$EMON" report --prometheus "$PROM" --range $((END2 - START2))s --step 6s --end $END2 \
	--match 'host="alpha"' --by system >"$TMP/reset.txt" 2>&1
rc=$?
cat "$TMP/reset.txt"
check "across a restart: exit 0 (got $rc)" [ $rc -eq 0 ]
"$PY3" - "$PROM" "$TMP/reset.txt" "$launch" "$serving" "$npkg" "$K" <<'PY'
import json, re, sys, urllib.parse, urllib.request
prom, out = sys.argv[1], open(sys.argv[2]).read()
launch, serving, npkg, kill = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
m = re.search(r"\(Unix ([0-9.]+) to ([0-9.]+)\)", out)
g = re.search(r"; system ([0-9.]+) J", out)
if not m or not g:
    print("FAIL  the report's header names its window and the system's energy"); sys.exit(1)
start, end, got = float(m[1]), float(m[2]), float(g[1])
def raw(q):	# every raw sample up to the window's end: [(time, value)]
    p = {"query": f"{q}[{end - start + 10:.0f}s]", "time": end}
    with urllib.request.urlopen(prom + "/api/v1/query?" + urllib.parse.urlencode(p), timeout=10) as r:
        res = json.load(r)["data"]["result"]
    return [(float(t), float(v)) for t, v in res[0]["values"]] if res else []
e = raw('emon_system_energy_joules_total{host="alpha",zone="package"}')
dur = dict(raw('scrape_duration_seconds{host="alpha"}'))
born = max(v for t, v in raw('emon_start_time_seconds{host="alpha"}'))
drops = [i for i in range(1, len(e)) if e[i][1] < e[i - 1][1]]
first = max(i for i, (t, v) in enumerate(e) if t <= start)
if len(drops) != 1 or not first < drops[0]:
    print(f"FAIL  one reset, inside the window (resets at samples {drops}, the window's first {first})"); sys.exit(1)
t0, t_old, t1 = e[first][0], e[drops[0] - 1][0], e[-1][0]
if not launch <= born <= serving:
    print(f"FAIL  the new daemon's start {born:.3f} lies between its launch {launch:.3f} and its serving line {serving:.3f}")
    sys.exit(1)
seen = max(t for t, v in e if t <= kill - 2)	# the last point's old sample
print(f"      the points at {kill - 2} and {kill + 4} miss the old daemon's samples {seen:.3f}..{t_old:.3f}: "
      f"{e[drops[0] - 1][1] - dict(e)[seen]:.3f} J only the step's peak has")
bad = 0
inc = sum(b - a if b >= a else b for (_, a), (_, b) in zip(e[first:], e[first + 1:]))
ok = abs(got - inc) <= 0.01 * inc
print(f"{'ok   ' if ok else 'FAIL '} across a restart: the report {got:.3f} J, the raw samples' increases {inc:.3f} J (tolerance 1%)")
bad += not ok
lo = 20 * npkg * ((t_old - t0) + (t1 - serving))
hi = 20 * npkg * ((t_old - t0) + (t1 - launch))
tol = 0.01 * hi + 20 * npkg * sum(dur.get(t, 1) for t in (t0, t_old, t1))
ok = lo - tol <= got <= hi + tol
print(f"{'ok   ' if ok else 'FAIL '} across a restart: the report {got:.3f} J, 20 W x the old daemon's samples "
      f"{t0:.3f}..{t_old:.3f} + the new one's launch {launch:.3f} or serving {serving:.3f} to its sample {t1:.3f}: "
      f"{lo:.3f}..{hi:.3f} J (its start says {20 * npkg * ((t_old - t0) + (t1 - born)):.3f} J; "
      f"tolerance 1% + 20 W x those scrapes' durations = {tol:.3f} J)")
bad += not ok
if bad:
    print("      raw samples: " + ", ".join(f"{t:.3f} {v:.3f} J" for t, v in e if t >= start - 2))
sys.exit(bad != 0)
PY
check "across a restart: the system's energy counts both daemons' (the reset restarts from zero, the old tail from the step's peak)" [ $? -eq 0 ]

# -- errors: exit 2, one line naming the culprit --
# bad ERR_PATTERN ARGS...: report ARGS exits 2 (STATUS=1: 1) with one line matching
bad() {
	local want=$1 rc n st=${STATUS:-2}
	shift
	"$EMON" report "$@" >/dev/null 2>"$TMP/bad.err"
	rc=$? n=$(wc -l <"$TMP/bad.err")
	check "$* -> exit $st (got $rc), one line ($n): $(cat "$TMP/bad.err")" \
		[ $rc -eq $st -a "$n" -eq 1 -a -n "$(grep -F -- "$want" "$TMP/bad.err")" ]
}
NOPORT=$(free_port)
STATUS=1 bad "cannot reach Prometheus at http://127.0.0.1:$NOPORT" --prometheus http://127.0.0.1:$NOPORT --range 1h
bad "http://127.0.0.1:$MPORT does not answer as a Prometheus server" --prometheus http://127.0.0.1:$MPORT --range 1h
bad "no emon-perf data from" --prometheus "$PROM" --range 1h --end $((START - 86400))
bad "(is --match 'host=alpha' right?)" --prometheus "$PROM" --range 1h --match 'host=alpha'
bad "no emon-perf data" --prometheus "$PROM" --range 1h --match 'host="gamma"'
bad "--range wants a duration" --prometheus "$PROM" --range 1hour
bad "--step wants a duration" --prometheus "$PROM" --range 1h --step -5s
bad "--step 1s is too fine for --range 86400s" --prometheus "$PROM" --range 1d --step 1s
bad "--end wants Unix seconds" --prometheus "$PROM" --range 1h --end yesterday
bad "not 'localhost:9090'" --prometheus localhost:9090 --range 1h
bad "--prometheus needs --range" --prometheus "$PROM"
bad "no cpu rows from Prometheus" --prometheus "$PROM" --range 1m --by cpu
# a URL's user and password stay out of the report and the messages
"$EMON" report --prometheus "http://me:secret@127.0.0.1:$PPORT/" --range ${R}s --end $END \
	--match 'host="alpha"' >"$TMP/cred.txt" 2>&1
rc=$?
"$EMON" report --prometheus "http://me:secret@127.0.0.1:$NOPORT/" --range 1h >>"$TMP/cred.txt" 2>&1
check "a URL's password is in neither the report nor its messages (exit $rc)" \
	[ $rc -eq 0 -a -z "$(grep secret "$TMP/cred.txt")" -a -n "$(grep -F "report of http://127.0.0.1:$PPORT:" "$TMP/cred.txt")" \
	  -a -n "$(grep -F "cannot reach Prometheus at http://127.0.0.1:$NOPORT:" "$TMP/cred.txt")" ]
# a Prometheus server that never scraped emon-perf
EPORT=$(free_port)
printf 'global:\n  scrape_interval: 1s\nscrape_configs: []\n' >"$TMP/empty.yml"
if prom_start $EPORT "$TMP/empty.yml"; then
	bad "http://127.0.0.1:$EPORT has no emon-perf metrics" --prometheus http://127.0.0.1:$EPORT --range 1h
fi
finish
