#!/usr/bin/env bash
# emon-perf serve scraped by a real Prometheus server (Debian prometheus),
# started here on free loopback ports with a generated config, scraping
# every second. After burners in two cgroups stop, PromQL gives each
# cgroup's emon_cgroup_cpu_clock_seconds_total, which must equal the
# kernel's cpu.stat usage within 0.5% (+ steal + the daemon's untraced
# time); promtool check metrics on a scrape prints nothing; the endpoint
# answers only GET /metrics and /; a removed cgroup keeps its totals for
# --retain seconds, then leaves; no counter ever goes backwards.
. "$(dirname "$0")/lib.sh"

command -v prometheus >/dev/null || skip "no prometheus (apt-get install prometheus)"
command -v promtool >/dev/null || skip "no promtool (apt-get install prometheus)"

MPORT=$(free_port) PPORT=$(free_port)
S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock,context-switches \
	--listen 127.0.0.1:$MPORT --retain 3 || exit 1
check "the daemon serves metrics on 127.0.0.1:$MPORT" grep -q "http://127.0.0.1:$MPORT/metrics" "$TMP/serve.err"

prom_conf "$TMP/prom.yml" $MPORT
prom_start $PPORT "$TMP/prom.yml" || exit 1

a=$(cg_new a) b=$(cg_new b)
unt0=$(metrics_untraced_ns $MPORT)	# for the burners' window only
st0=$(steal_ns)
cg_bg "$a" "$BURN" 0.5
p1=$CG_BG_PID
cg_bg "$b" "$BURN" 0.5
p2=$CG_BG_PID
cg_bg "$b" "$BURN" 0.5
p3=$CG_BG_PID
wait $p1 $p2 $p3
ua=$(cg_usage_ns "$a") ub=$(cg_usage_ns "$b")	# their whole lives: the daemon's too
unt=$(($(metrics_untraced_ns $MPORT) - unt0))

# PromQL, once a scrape after the burners' end is in
t_end=$("$PY3" -c 'import time; print(time.time())')
"$PY3" - "$PPORT" "$a" "$b" "$t_end" >"$TMP/promql.out" <<'PY'
import json, sys, time, urllib.parse, urllib.request
port, a, b, t_end = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
def query(q):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)["data"]["result"]
deadline = time.time() + 60
out = {}
while time.time() < deadline:
    try:
        res = query('timestamp(emon_cgroup_cpu_clock_seconds_total{cgroup="%s"})' % a)
        if res and float(res[0]["value"][1]) > t_end + 1:
            for cg in (a, b):
                r = query('emon_cgroup_cpu_clock_seconds_total{cgroup="%s"}' % cg)
                out[cg] = float(r[0]["value"][1]) if r else None
            r = query('emon_system_untraced_seconds_total')
            break
    except Exception as e:
        pass
    time.sleep(0.5)
print(out.get(a, "none"), out.get(b, "none"))
PY
read -r pa pb <"$TMP/promql.out"
steal=$(($(steal_ns) - st0))
echo "      PromQL: a $pa s, b $pb s; cpu.stat: a $ua ns, b $ub ns; steal $((steal / 1000)) us, untraced $((unt / 1000)) us"
check "Prometheus has cgroup a" [ "$pa" != none ]
check "Prometheus has cgroup b" [ "$pb" != none ]
scrape=$(curl -s "http://127.0.0.1:$MPORT/metrics")
if [ "$pa" != none ] && [ "$pb" != none ]; then
	check "cgroup a: PromQL vs cpu.stat within 0.5% (+ steal + untraced)" near_steal \
		"$("$PY3" -c "print(int($pa * 1e9))")" "$ua" 0.5 $((steal + unt))
	check "cgroup b: PromQL vs cpu.stat within 0.5% (+ steal + untraced)" near_steal \
		"$("$PY3" -c "print(int($pb * 1e9))")" "$ub" 0.5 $((steal + unt))
fi

echo "$scrape" >"$TMP/scrape.txt"
promtool check metrics <"$TMP/scrape.txt" >"$TMP/promtool.out" 2>&1
check "promtool check metrics: no complaint" [ ! -s "$TMP/promtool.out" ]
cat "$TMP/promtool.out"
om=$(curl -s -H 'Accept: application/openmetrics-text; version=1.0.0' -o /dev/null \
	-w '%{content_type}' "http://127.0.0.1:$MPORT/metrics")
check "OpenMetrics when asked for ($om)" grep -q openmetrics <<<"$om"
check "only GET /metrics and /: /x is 404" [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/x")" = 404 ]
check "POST is 405" [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$MPORT/metrics")" = 405 ]

# a removed cgroup keeps its final totals for --retain seconds (3 here),
# then leaves the output; the others' totals never went backwards
d=$(cg_new d)
cg_bg "$d" "$BURN" 0.1
wait $CG_BG_PID
rmdir "$CGROOT$d"
has_d() { curl -s "http://127.0.0.1:$MPORT/metrics" | grep -q "cgroup=\"$d\""; }
check "a removed cgroup keeps its totals in /metrics" has_d
gone=0
for _ in $(seq 40); do	# --retain 3 s + a retention pass every 5 s
	has_d || { gone=1; break; }
	sleep 0.5
done
check "and leaves them after --retain" [ $gone = 1 ]
"$PY3" - "$PPORT" >"$TMP/resets.out" <<'PY'
import json, sys, urllib.parse, urllib.request
q = "sum(resets(emon_cgroup_cpu_clock_seconds_total[5m]))"
url = f"http://127.0.0.1:{sys.argv[1]}/api/v1/query?" + urllib.parse.urlencode({"query": q})
r = json.load(urllib.request.urlopen(url, timeout=5))["data"]["result"]
print(r[0]["value"][1] if r else "none")
PY
check "no counter ever went backwards (PromQL resets() = $(cat "$TMP/resets.out"))" \
	[ "$(cat "$TMP/resets.out")" = 0 ]

kill -TERM $DPID
wait $DPID
check "SIGTERM: a clean exit with HTTP on" [ $? -eq 0 ]
finish
