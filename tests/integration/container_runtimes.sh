#!/usr/bin/env bash
# Containers of real runtimes, started here with state of their own under
# $TMP (a private dockerd, socket, data and exec root; podman with its own
# storage), from an image imported from a busybox-static root file system:
#  - docker (cgroupfs driver: /docker/ID) with the labels cri-dockerd sets,
#    and one below a pod's cgroup as cri-dockerd puts it with the cgroupfs
#    driver (/kubepods/besteffort/podUID/ID: a bare id, as containerd's,
#    named docker from docker's files),
#    podman (runc, /libpod_parent/libpod-ID) with the annotations
#    containerd's CRI plugin writes: each container's JSON row carries its
#    name, image, namespace, pod and container, and the cpu-clock its
#    cgroup's cpu.stat says (1% + steal + untraced);
#  - --by pod,namespace: two pods of one namespace, one of another: each
#    namespace row is the sum of its containers' rows and of their
#    cgroups' cpu.stat (1%);
#  - serve scraped by a real Prometheus: sum by (namespace)
#    (emon_container_cpu_clock_seconds_total) holds both namespaces, with
#    one series per container.
# On this machine's hybrid layout runc puts a container in the v1
# hierarchies and in the cgroup2 one alike ("0::/docker/ID"), which is the
# one BPF sees. podman needs --ulimit at or below the hard limits here: as
# root it raises RLIMIT_NOFILE and RLIMIT_NPROC to 1048576, which needs
# CAP_SYS_RESOURCE where the hard limits are lower (runc: "error setting
# rlimit type 7: operation not permitted"), and a sandbox may lack it.
# sanitizer pass: its subject is docker's and podman's layouts; the container names' parser is fuzzed (fuzz_container)
. "$(dirname "$0")/lib.sh"

for c in dockerd docker containerd runc podman busybox prometheus; do
	command -v $c >/dev/null || {
		echo "FAIL  no $c (tools/install-deps.sh --with-test installs it)"
		exit 1
	}
done
DK=$TMP/docker PM=$TMP/podman
pre_cg=$(ls -d "$CGROOT"/docker "$CGROOT"/libpod_parent "$CGROOT"/kubepods \
	/sys/fs/cgroup/*/docker /sys/fs/cgroup/*/libpod_parent /sys/fs/cgroup/*/kubepods 2>/dev/null)
docker() { command docker -H "unix://$DK/docker.sock" "$@"; }
podman() {
	command podman --root "$PM/root" --runroot "$PM/run" --storage-driver overlay \
		--cgroup-manager cgroupfs --runtime runc --events-backend file "$@"
}
runtimes_down() {
	docker ps -aq 2>/dev/null | xargs -r command docker -H "unix://$DK/docker.sock" rm -f >/dev/null 2>&1
	[ -f "$DK/docker.pid" ] && kill "$(cat "$DK/docker.pid")" 2>/dev/null
	for _ in $(seq 100); do [ -e "$DK/docker.pid" ] || break; sleep 0.1; done
	podman rm -a -f -t 0 >/dev/null 2>&1
	grep -o " $TMP/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null
	# the parents the runtimes made, when this test made them
	for d in "$CGROOT"/docker "$CGROOT"/libpod_parent "$CGROOT"/kubepods \
		/sys/fs/cgroup/*/docker /sys/fs/cgroup/*/libpod_parent /sys/fs/cgroup/*/kubepods; do
		# (conmon's cgroup below libpod_parent outlives its container)
		[ -d "$d" ] && ! grep -qx "$d" <<<"$pre_cg" &&
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	cleanup
}
trap runtimes_down EXIT

mkdir -p "$DK/root" "$DK/exec" "$PM" "$TMP/rootfs/bin"
cp "$(command -v busybox)" "$TMP/rootfs/bin/busybox" &&
	chroot "$TMP/rootfs" /bin/busybox --install -s /bin || exit 1
dockerd --iptables=false --bridge=none --exec-opt native.cgroupdriver=cgroupfs \
	--storage-driver vfs --data-root "$DK/root" --exec-root "$DK/exec" \
	-H "unix://$DK/docker.sock" --pidfile "$DK/docker.pid" >"$DK/dockerd.log" 2>&1 &
for _ in $(seq 300); do docker info >/dev/null 2>&1 && break; sleep 0.1; done
if ! docker info >/dev/null 2>&1; then
	tail -5 "$DK/dockerd.log"
	grep -qi "operation not permitted\|permission denied" "$DK/dockerd.log" &&
		skip "dockerd cannot run in this sandbox (above)"
	echo "FAIL  dockerd did not start"
	exit 1
fi
echo "      docker: $(docker info --format '{{.CgroupDriver}} driver, cgroup v{{.CgroupVersion}}')"
tar -C "$TMP/rootfs" -c . | docker import - emon-test:1 >/dev/null &&
	tar -C "$TMP/rootfs" -c . | podman import - emon-test:1 >/dev/null ||
	{ echo "FAIL  the image does not import"; exit 1; }

# idle containers (sleep): the burners come with docker/podman exec
dk_run() {	# NAME NAMESPACE POD CONTAINER [DOCKER-RUN-OPTIONS]
	docker run -d --network none --name "$1" --label io.kubernetes.pod.namespace="$2" \
		--label io.kubernetes.pod.name="$3" --label io.kubernetes.container.name="$4" \
		"${@:5}" emon-test:1 sleep 1000
}
POD_UID=$(cat /proc/sys/kernel/random/uuid)
dk_web=$(dk_run emon-web-$$ prod shop-0 web) &&
	dk_api=$(dk_run emon-api-$$ prod shop-1 api) &&
	dk_pg=$(dk_run emon-pg-$$ data pg-0 pg) &&
	dk_kv=$(dk_run emon-kv-$$ data kv-0 kv --cgroup-parent "/kubepods/besteffort/pod$POD_UID") ||
	{ echo "FAIL  docker run"; exit 1; }
pm_cart=$(podman run -d --network none --ulimit nofile=1024:1024 \
	--ulimit nproc=1024:1024 --name emon-cart-$$ \
	--annotation io.kubernetes.cri.sandbox-name=cart-5c \
	--annotation io.kubernetes.cri.sandbox-namespace=shop \
	--annotation io.kubernetes.cri.container-name=cart \
	localhost/emon-test:1 sleep 1000) || { echo "FAIL  podman run"; exit 1; }
declare -A cg
# the cgroup2 cgroup of each container's first process: what BPF sees
for c in $dk_web $dk_api $dk_pg $dk_kv $pm_cart; do
	if [ $c = $pm_cart ]; then
		pid=$(podman inspect -f '{{.State.Pid}}' $c)
	else
		pid=$(docker inspect -f '{{.State.Pid}}' $c)
	fi
	cg[$c]=$(sed -n 's/^0:://p' "/proc/${pid:-none}/cgroup")
	echo "      ${c:0:12}: cgroup2 ${cg[$c]}"
	[ -n "${cg[$c]}" ] && [ "${cg[$c]}" != / ] ||
		{ echo "FAIL  no cgroup2 cgroup of its own for ${c:0:12}"; exit 1; }
done
check "cri-dockerd's cgroupfs form: a bare id below the pod (${cg[$dk_kv]})" \
	[ "${cg[$dk_kv]}" = "/kubepods/besteffort/pod$POD_UID/$dk_kv" ]
roots=(--runtime-root "docker=$DK/root" --runtime-root "podman=$PM/root")
# a busy loop of about 0.3 s in a container
LOOP='i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done'
usage() { for c in "$@"; do cg_usage_ns "${cg[$c]}"; done | awk '{ s += $1 } END { printf "%.0f\n", s }'; }

declare -A u0
for c in "${!cg[@]}"; do u0[$c]=$(usage $c); done
st0=$(steal_ns)
"$EMON" stat -a -e cpu-clock --by system,container,pod,namespace --json-rows \
	-o "$TMP/out.jsonl" "${roots[@]}" -- sh -c "
	docker() { command docker -H unix://$DK/docker.sock \"\$@\"; }
	$(declare -f podman); PM=$PM
	for c in $dk_web $dk_api $dk_pg $dk_kv; do docker exec \$c sh -c '$LOOP' & done
	podman exec $pm_cart sh -c '$LOOP' & wait" 2>"$TMP/err"
check "stat exits 0" [ $? -eq 0 ] || cat "$TMP/err"
steal=$(($(steal_ns) - st0))
unt=$(untraced_ns "$TMP/out.jsonl")
args=()
for c in "${!cg[@]}"; do args+=("$c=$(($(usage $c) - ${u0[$c]}))"); done

"$PY3" - "$TMP/out.jsonl" $steal $unt $$ "${args[@]}" <<'PY'
import json, sys
f, steal, unt, pid = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
ns = {k: float(v) for k, v in (a.split("=") for a in sys.argv[5:])}
rows = [json.loads(l) for l in open(f)]
by = lambda s: {str(r["key"]): r for r in rows if r["scope"] == s}
cont, pods, nss = by("container"), by("pod"), by("namespace")
want = {"web": ("prod", "shop-0", "web"), "api": ("prod", "shop-1", "api"),
        "pg": ("data", "pg-0", "pg"), "kv": ("data", "kv-0", "kv"),
        "cart": ("shop", "cart-5c", "cart")}
runtime = {"cart": "podman"}
bad = 0
def say(ok, what):
    global bad
    print(("ok    " if ok else "FAIL  ") + what)
    bad += not ok
def near(a, b, what):
    say(abs(a - b) <= 0.01 * b + steal + unt,
        f"{what}: {a / 1e9:.4f} s vs cpu.stat {b / 1e9:.4f} s (1% + steal + untraced {(steal + unt) / 1e6:.3f} ms)")
clk = lambda r: r["counters"]["cpu-clock"] if r else 0
name_of = {}
for cid, use in ns.items():
    r = cont.get(cid)
    if not r:
        say(False, f"a row for container {cid[:12]}"); continue
    short = r.get("container")
    name_of[cid] = short
    exp_name = f"emon-{short}-{pid}"
    got = (r.get("name"), r.get("namespace"), r.get("pod"), r.get("container"))
    say(short in want and got == (exp_name,) + want[short] and
        (r.get("image") or "").endswith("emon-test:1") and
        r["runtime"] == runtime.get(short, "docker"),
        f"{r['runtime']} {cid[:12]}: name, image, namespace, pod, container {got + (r.get('image'),)}")
    near(clk(r), use, f"{r['runtime']} {short} cpu-clock")
for key, members in (("prod", ["web", "api"]), ("data", ["pg", "kv"]), ("shop", ["cart"])):
    r = nss.get(key)
    cids = [c for c in ns if name_of.get(c) in members]
    rsum = sum(clk(cont.get(c)) for c in cids)
    say(r is not None and len(cids) == len(members) and abs(clk(r) - rsum) <= 1e-9 * rsum + 1,
        f"namespace {key}: the sum of its containers' rows ({clk(r) / 1e9:.4f} s, {len(cids)} containers)")
    near(clk(r), sum(ns[c] for c in cids), f"namespace {key}")
for key in ("prod/shop-0", "prod/shop-1", "data/pg-0", "data/kv-0", "shop/cart-5c"):
    r = pods.get(key)
    say(r is not None and r.get("namespace") == key.split("/")[0] and r.get("pod") == key.split("/")[1],
        f"pod row {key}")
sysr = by("system").get("all")
for s, t in (("pod", pods), ("namespace", nss)):
    tot = sum(clk(r) for r in t.values())
    say(sysr and abs(tot - clk(sysr)) <= 1e-6 * clk(sysr) + 1, f"{s} rows add up to the system ({len(t)} rows)")
sys.exit(bad != 0)
PY
check "the runtimes' containers in stat's rows" [ $? -eq 0 ]

# serve, scraped by a real Prometheus while the containers burn
MPORT=$(free_port) PPORT=$(free_port)
serve_start "$TMP/run/emon.sock" "$TMP/serve.err" -e cpu-clock "${roots[@]}" \
	--listen 127.0.0.1:$MPORT || finish
prom_conf "$TMP/prom.yml" $MPORT
prom_start $PPORT "$TMP/prom.yml" || finish
loops=()
for c in $dk_web $dk_pg; do docker exec $c sh -c "$LOOP" & loops+=($!); done
podman exec $pm_cart sh -c "$LOOP" &
wait ${loops[@]} $!	# (dockerd, serve and prometheus run on)
# (the ones that ran: an idle container's cgroup never runs, has no series)
"$PY3" - "$PPORT" $dk_web $dk_pg $pm_cart <<'PY'
import json, sys, time, urllib.parse, urllib.request
port, ids = sys.argv[1], sys.argv[2:]
def query(q):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": q})
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)["data"]["result"]
q = "sum by (namespace) (emon_container_cpu_clock_seconds_total)"
deadline, got = time.time() + 30, {}
while time.time() < deadline:
    got = {s["metric"].get("namespace", ""): float(s["value"][1]) for s in query(q)}
    if {"prod", "data", "shop"} <= set(got):
        break
    time.sleep(0.5)
ok = {"prod", "data", "shop"} <= set(got) and all(got[n] > 0 for n in ("prod", "data", "shop"))
print(("ok    " if ok else "FAIL  ") + f"{q}: {got}")
per = query('count by (container_id) (emon_container_cpu_clock_seconds_total{container_id=~"%s"})' % "|".join(ids))
one = len(per) == len(ids) and all(s["value"][1] == "1" for s in per)
print(("ok    " if one else "FAIL  ") + f"one series per container ({len(per)} containers)")
sys.exit(not (ok and one))
PY
check "Prometheus sums the containers by namespace" [ $? -eq 0 ]
finish
