#!/usr/bin/env bash
# The Grafana dashboard (deploy/grafana/emon-perf.json) against a real
# Prometheus server (Debian prometheus) scraping the daemon every second,
# while burners run in a docker container's cgroup and in a Kubernetes
# pod's, and a fake powercap tree advances at 20 W per package:
#  - the dashboard is well formed: unique panel ids, each panel with a
#    PromQL target on the ${datasource} variable;
#  - every PromQL expression of it returns data (the ones that need a PMU,
#    instructions or cycles, are skipped with the reason where the daemon
#    counts neither);
#  - "Host power" is the fake tree's 20 W x packages within 3%; each
#    container has its series (ids alike but for two digits); the
#    power per pod is its container's;
#  - the legends name them as people know them: the docker container by
#    its name, the pod's container as namespace/pod/container, the pod as
#    namespace/pod (their runtimes' files, --runtime-root).
# counter pass: it checks the dashboard's queries and a fake RAPL tree's watts, no counter read
# sanitizer pass: its subject is the dashboard's queries against a Prometheus server
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || skip "no prometheus (apt-get install prometheus)"
DASH=deploy/grafana/emon-perf.json
[ -f "$DASH" ] || { echo "FAIL  $DASH missing"; exit 1; }

MPORT=$(free_port) PPORT=$(free_port)
# ids and a pod of this run's own (its pid in them): another test's
# containers on the machine are not ours to count
# (unlike in their first 32 digits too: the daemon keeps names by those,
# the chance that two real ids share them is 2^-128)
id() { printf '%016x%016x%016x%016x' $$ "$1" $$ "$1"; }
uid=$(printf '0f1e2d3c-4b5a-6978-8796-%012x' $$)
docker=$(cg_new "system.slice/docker-$(id 7).scope")
pod=$(cg_new "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice/cri-containerd-$(id 8).scope")

# their names, as docker and containerd's CRI plugin write them
mkdir -p "$TMP/rt/docker/containers/$(id 7)" "$TMP/rt/containerd/io.containerd.runtime.v2.task/k8s.io/$(id 8)"
echo '{"Name": "/gweb", "Config": {"Image": "nginx:1.25"}}' >"$TMP/rt/docker/containers/$(id 7)/config.v2.json"
echo '{"annotations": {"io.kubernetes.cri.container-type": "container",
 "io.kubernetes.cri.sandbox-name": "gpod-0", "io.kubernetes.cri.sandbox-namespace": "gns",
 "io.kubernetes.cri.container-name": "gapp"}}' \
	>"$TMP/rt/containerd/io.containerd.runtime.v2.task/k8s.io/$(id 8)/config.json"

fake_rapl "$TMP/pc" 20 --period-ms 1 || finish
serve_start "$TMP/run/emon.sock" "$TMP/serve.err" -e cycles,instructions,cpu-clock \
	--powercap-root "$TMP/pc" --listen 127.0.0.1:$MPORT \
	--runtime-root "docker=$TMP/rt/docker" --runtime-root "containerd=$TMP/rt/containerd" || exit 1
prom_conf "$TMP/prom.yml" $MPORT
prom_start $PPORT "$TMP/prom.yml" || exit 1
cg_bg "$docker" "$BURN" 100000
cg_bg "$pod" "$BURN" 100000
npkg=$(ls -d "$TMP"/pc/intel-rapl:[0-9]* | wc -l)
curl -s "http://127.0.0.1:$MPORT/metrics" >"$TMP/scrape.txt"

"$PY3" - "$DASH" "$PPORT" "$TMP/scrape.txt" "$npkg" "$(id 8)" "$(id 7)" "$uid" <<'PY'
import json, math, sys, time, urllib.parse, urllib.request
dash_file, port, scrape, npkg, pod_cid, docker_cid, pod_uid = sys.argv[1:8]
npkg = int(npkg)
dash = json.load(open(dash_file))
families = {l.split()[2] for l in open(scrape) if l.startswith("# TYPE ")}
bad = 0
def say(ok, what):
    global bad
    print(("ok    " if ok else "FAIL  ") + what)
    bad += not ok

panels = dash.get("panels", [])
ids = [p.get("id") for p in panels]
say(len(panels) > 0 and len(set(ids)) == len(ids), f"the dashboard has {len(panels)} panels with unique ids")
targets = [(p["title"], t["expr"]) for p in panels for t in p.get("targets", []) if t.get("expr")]
say(all(p.get("targets") for p in panels) and
    all(p["datasource"]["uid"] == "${datasource}" for p in panels),
    "every panel has a PromQL target on the ${datasource} variable")

def query(q, at=None):
    args = {"query": q} if at is None else {"query": q, "time": f"{at:.3f}"}
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode(args)
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)["data"]["result"]
def promql(expr):	# as Grafana sends it: its variables filled in
    return expr.replace("$__rate_interval", "5s").replace("$instance", ".*")

# until 8 s of scrapes of the burning containers are in
deadline = time.time() + 60
while time.time() < deadline:
    try:
        r = query('count_over_time(emon_container_cpu_clock_seconds_total{container_id="%s"}[10s])' % pod_cid)
        if r and float(r[0]["value"][1]) >= 8:
            break
    except Exception:
        pass
    time.sleep(0.5)
else:
    say(False, "Prometheus has 8 s of the containers' samples within 60 s")

pmu = {"emon_container_instructions_total", "emon_container_cycles_total"}
for title, expr in targets:
    need = [f for f in pmu if f.rsplit("_total", 1)[0] in expr or f in expr]
    missing = [f for f in need if f not in families and f.rsplit("_total", 1)[0] not in families]
    if missing:
        print(f"      skip  {title}: the daemon counts no {', '.join(m.split('_')[2] for m in missing)} here (no PMU)")
        continue
    try:
        res = query(promql(expr))
    except Exception as e:
        say(False, f"{title}: the query runs ({e})"); continue
    vals = [float(s["value"][1]) for s in res]
    say(bool(vals) and all(math.isfinite(v) for v in vals), f"{title}: {len(vals)} series, e.g. {vals[:3]}")

# the comparisons below, all at one instant: a scrape landing between two
# queries would change a rate
at = time.time() - 1
def one(title):
    expr = [e for t, e in targets if t == title][0]
    return {json.dumps(s["metric"], sort_keys=True): float(s["value"][1]) for s in query(promql(expr), at)}
host = sum(one("Host power").values())
say(abs(host - 20 * npkg) <= 0.03 * 20 * npkg, f"Host power {host:.2f} W is the fake tree's 20 W x {npkg} within 3%")
per = one("Power per container")
# (other containers on a shared machine may have series too)
ids = [json.loads(k)["container_id"] for k in per]
say(ids.count(pod_cid) == 1 and ids.count(docker_cid) == 1,
    f"Power per container: a series for each burning container, ids alike but for two digits ({len(ids)} series)")
pods = [v for k, v in one("Power per pod").items() if json.loads(k).get("pod_uid") == pod_uid]
cont = {k: v for k, v in one("Power per container").items() if pod_cid in k}
say(len(pods) == 1 and len(cont) == 1 and abs(pods[0] - list(cont.values())[0]) <= 1e-6 * max(1, pods[0]),
    f"the pod's power ({pods}) is its one container's ({list(cont.values())})")
# the legends ({{label}}): names, not ids
label = {json.loads(k)["container_id"]: json.loads(k).get("label") for k in per}
say(label.get(docker_cid) == "gweb" and label.get(pod_cid) == "gns/gpod-0/gapp",
    f"Power per container's legends: the docker container's name, the pod's container's namespace/pod/container "
    f"({label.get(docker_cid)}, {label.get(pod_cid)})")
plabel = [json.loads(k).get("label") for k in one("Power per pod") if json.loads(k).get("pod_uid") == pod_uid]
say(plabel == ["gns/gpod-0"], f"Power per pod's legend: namespace/pod ({plabel})")
sys.exit(bad != 0)
PY
check "the dashboard's PromQL against a real Prometheus" [ $? -eq 0 ]
finish
