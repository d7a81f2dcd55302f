#!/usr/bin/env bash
# emon-perf report --prometheus --by namespace, pod and container against
# a real Prometheus server (Debian prometheus) scraping emon-perf serve
# every second. Burners of a fixed CPU time run in cgroups named as
# containerd under Kubernetes (two pods of namespace kv), CRI-O (data)
# and podman (shop) name them, their names from copies of
# tests/fixtures/runtimes/ (--runtime-root); the cgroups are made after
# the report's window starts and are done before it ends, so that the
# kernel's truth for the window is their whole cpu.stat usage: each
# namespace's and pod's cpu_ms in the report is the sum of its
# containers' cgroups' usage (1% + steal + untraced), each container's
# row carries its names, and a window with no pod says so and exits 2.
# sanitizer pass: its subject is a Prometheus server's answers; report's Prometheus client is fuzzed (fuzz_report_prom)
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || skip "no prometheus (apt-get install prometheus)"

pod_fixtures || exit 1
roots=("${ROOTS[@]}")

MPORT=$(free_port) PPORT=$(free_port)
PROM=http://127.0.0.1:$PPORT
serve_start "$TMP/run/emon.sock" "$TMP/serve.err" -e cpu-clock \
	--listen 127.0.0.1:$MPORT "${roots[@]}" || finish
prom_conf "$TMP/prom.yml" $MPORT
prom_start $PPORT "$TMP/prom.yml" || finish

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
# sample_t T: the time of the daemon's sample at T (its last at or
# before), 0 when there is none
sample_t() {
	promql "timestamp(emon_system_cpu_clock_seconds_total)" "$1" |
		"$PY3" -c 'import json, sys; r = json.load(sys.stdin); print(r[0]["value"][1] if r else 0)'
}
for _ in $(seq 100); do [ "$(sample_t "$(date +%s)")" != 0 ] && break; sleep 0.2; done
START=$(date +%s)
for _ in $(seq 50); do [ "$(sample_t $START)" != 0 ] && break; sleep 0.2; done
check "Prometheus has the daemon's samples at the window's start" [ "$(sample_t $START)" != 0 ] || finish
sleep 1.5	# a whole step with no container: the containers are born in the window

declare -A cg
pod_cgroups
st0=$(steal_ns) un0=$(metrics_untraced_ns $MPORT)
burners=()
for c in cache0 cache1 pg cart; do cg_bg "${cg[$c]}" "$BURN" 0.8; burners+=($CG_BG_PID); done
wait "${burners[@]}"
steal=$(($(steal_ns) - st0))
sleep 2.5	# the scrapes after the burners' end are in
unt=$(($(metrics_untraced_ns $MPORT) - un0))
END=$(date +%s)
sleep 1.2
for _ in $(seq 5); do [ "$(sample_t $END)" != 0 ] && break; END=$((END - 1)); done
echo "      window $START..$END, steal $((steal / 1000000)) ms, untraced $((unt / 1000000)) ms"
declare -A use
for c in "${!cg[@]}"; do use[$c]=$(cg_usage_ns "${cg[$c]}"); done

# report BY: the text table of --by BY over the window
report() {
	"$EMON" report --prometheus "$PROM" --range $((END - START))s --step 1s \
		--end $END --by "$1" --top 0 >"$TMP/$1.txt" 2>"$TMP/$1.err"
	local rc=$?
	cat "$TMP/$1.txt" "$TMP/$1.err"
	check "report --by $1 exits 0 (got $rc)" [ $rc -eq 0 ]
}
report namespace
report pod
report container

"$PY3" - "$TMP" $steal $unt cache0=${use[cache0]} cache1=${use[cache1]} \
	pg=${use[pg]} cart=${use[cart]} <<'PY'
import sys
tmp, steal, unt = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
use = {k: float(v) for k, v in (a.split("=") for a in sys.argv[4:])}
def table(by):
    lines = open(f"{tmp}/{by}.txt").read().splitlines()
    head = next(i for i, l in enumerate(lines) if l.split()[:1] == [by])
    cols = lines[head].split()
    return {l.split()[0]: dict(zip(cols, l.split())) for l in lines[head + 1:]
            if len(l.split()) == len(cols)}
bad = 0
def say(ok, what):
    global bad
    print(("ok    " if ok else "FAIL  ") + what)
    bad += not ok
def near(by, key, members):
    row = table(by).get(key)
    ref = sum(use[m] for m in members)
    tol = 0.01 * ref + steal + unt
    got = float(row["cpu_ms"]) * 1e6 if row else -1
    say(row is not None and abs(got - ref) <= tol,
        f"--by {by} {key}: cpu_ms {got / 1e6:.2f} vs cpu.stat {ref / 1e6:.2f} ms of "
        f"{'+'.join(members)} (1% + steal + untraced: {tol / 1e6:.2f} ms)")
near("namespace", "kv", ["cache0", "cache1"])
near("namespace", "data", ["pg"])
near("namespace", "shop", ["cart"])
near("pod", "kv/cache-0", ["cache0"])
near("pod", "kv/cache-1", ["cache1"])
near("pod", "data/pg-0", ["pg"])
near("pod", "shop/cart-5c", ["cart"])
cont = table("container")
for cid, names, member in (("2" * 12, "kv/cache-0/redis", "cache0"), ("4" * 12, "kv/cache-1/redis", "cache1"),
                           ("1" * 12, "data/pg-0/db", "pg"), ("0" * 12, "shop/cart-5c/cart", "cart")):
    r = cont.get(cid, {})
    say(r.get("name") == names, f"--by container {cid}: name {r.get('name')} (want {names})")
    near("container", cid, [member])
sys.exit(bad != 0)
PY
check "pods, namespaces and containers from Prometheus against cpu.stat" [ $? -eq 0 ]

# a window before any container: no pod rows, said in one line, exit 2
"$EMON" report --prometheus "$PROM" --range 2s --step 1s --end $((START + 1)) \
	--by pod >/dev/null 2>"$TMP/none.err"
rc=$?
check "no pod in the window: exit 2 (got $rc), one line: $(head -c 150 "$TMP/none.err")" \
	bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$TMP/none.err') -eq 1 ] && grep -q 'no pod rows' '$TMP/none.err'"
finish
