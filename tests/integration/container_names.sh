#!/usr/bin/env bash
# Containers' names from their runtimes' files (copies of
# tests/fixtures/runtimes/ given with --runtime-root), on cgroups named as
# docker, containerd under Kubernetes, CRI-O and podman name them: each
# JSON row carries name, image, namespace, pod and container, and the CPU
# time its cgroup's cpu.stat says; a container without files keeps its id
# and -v says why once. Then a daemon: an attached stat gets the names
# too, those of a container whose config.v2.json came after its cgroup
# included (read again a second later).
. "$(dirname "$0")/lib.sh"

id() { printf "%064d" 0 | tr 0 "$1"; }	# the fixtures' ids
uid=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0
cp -a tests/fixtures/runtimes "$TMP/rt" || exit 1
roots=()
for r in docker containerd cri-o podman; do roots+=(--runtime-root "$r=$TMP/rt/$r"); done
declare -A cg
cg[docker]=$(cg_new "system.slice/docker-$(id a).scope")
cg[containerd]=$(cg_new "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice/cri-containerd-$(id 2).scope")
cg[crio]=$(cg_new "kubepods.slice/kubepods-besteffort.slice/crio-$(id 1).scope")
cg[podman]=$(cg_new "machine.slice/libpod-$(id 0).scope")
cg[nofiles]=$(cg_new "system.slice/docker-$(id 9).scope")

# rows.py FILE USE...: each container's names and cpu-clock (USE: key=ns)
cat >"$TMP/rows.py" <<'PY'
import json, sys
want = {
    "a": ("web", "nginx:1.25", None, None, None),
    "2": (None, "docker.io/library/redis:7", "kv", "cache-0", "redis"),
    "1": ("k8s_db_pg-0_data_11111111-2222-3333-4444-555555555555_0",
          "docker.io/library/postgres:16", "data", "pg-0", "db"),
    "0": ("cart-box", "localhost/cart:2", "shop", "cart-5c", "cart"),
    "9": (None, None, None, None, None),
    "8": ("late", "busybox:1", None, None, None),
}
steal, unt = float(sys.argv[2]), float(sys.argv[3])
use = dict(a.split("=") for a in sys.argv[4:])
rows = [json.loads(l) for l in open(sys.argv[1])]
cont = {r["key"]: r for r in rows if r["scope"] == "container"}
bad = 0
for c, ns in use.items():
    r = cont.get(c * 64)
    if not r:
        print(f"FAIL  no row for container {c * 12}"); bad += 1; continue
    got = tuple(r.get(k, "missing") for k in ("name", "image", "namespace", "pod", "container"))
    clk, ns = r["counters"]["cpu-clock"], float(ns)
    ok = got == want[c] and (ns < 0 or abs(clk - ns) <= ns * 0.01 + steal + unt)
    print(f"{'ok   ' if ok else 'FAIL '} {r['runtime']:10} {c * 12}... {got}" +
          (f" cpu-clock {clk / 1e9:.4f} s, cpu.stat {ns / 1e9:.4f} s" if ns >= 0 else ""))
    bad += not ok
sys.exit(bad != 0)
PY

st0=$(steal_ns)
"$EMON" stat -v -a -e cpu-clock --by system,container --json-rows -o "$TMP/out.jsonl" "${roots[@]}" -- sh -c "
	$(declare -f cg_run); CGROOT=$CGROOT
	for c in ${cg[*]}; do cg_run \$c $BURN 0.2 & done; wait" 2>"$TMP/err"
check "stat exits 0" [ $? -eq 0 ]
steal=$(($(steal_ns) - st0))
unt=$(untraced_ns "$TMP/out.jsonl")
python3 "$TMP/rows.py" "$TMP/out.jsonl" "$steal" "$unt" \
	a="$(cg_usage_ns "${cg[docker]}")" 2="$(cg_usage_ns "${cg[containerd]}")" \
	1="$(cg_usage_ns "${cg[crio]}")" 0="$(cg_usage_ns "${cg[podman]}")" \
	9="$(cg_usage_ns "${cg[nofiles]}")"
check "own engine: names and CPU time of each container" [ $? -eq 0 ]
n=$(grep -c "container $(id 9 | cut -c1-12) (docker): no names: .*No such file" "$TMP/err")
check "-v says once why a container has no names ($n)" [ "$n" -eq 1 ]

# the daemon: a container whose files come a while after its cgroup
sock=$TMP/emon.sock
serve_start "$sock" "$TMP/serve.log" -e cpu-clock "${roots[@]}" || finish
cg[late]=$(cg_new "system.slice/docker-$(id 8).scope")
cg_run "${cg[late]}" $BURN 0.3 &
sleep 0.5
mkdir -p "$TMP/rt/docker/containers/$(id 8)"
printf '{"Name": "/late", "Config": {"Image": "busybox:1", "Labels": {}}}' \
	>"$TMP/rt/docker/containers/$(id 8)/config.v2.json.tmp"
mv "$TMP/rt/docker/containers/$(id 8)/config.v2.json.tmp" \
	"$TMP/rt/docker/containers/$(id 8)/config.v2.json"
for c in docker containerd crio podman; do cg_run "${cg[$c]}" $BURN 0.3 & done
sleep 1.5
"$EMON" stat --socket "$sock" -a -e cpu-clock --by container --json-rows -o "$TMP/att.jsonl" \
	-- sh -c "$(declare -f cg_run); CGROOT=$CGROOT
	for c in ${cg[*]}; do cg_run \$c $BURN 0.1 & done; wait" 2>"$TMP/att.err"
check "attached stat exits 0" [ $? -eq 0 ]
check "stat attached to the daemon" grep -q "daemon" "$TMP/att.err"
python3 "$TMP/rows.py" "$TMP/att.jsonl" 0 0 a=-1 2=-1 1=-1 0=-1 9=-1 8=-1
check "attached: the daemon's names, the late container's included" [ $? -eq 0 ]
kill "$DPID"; wait "$DPID" 2>/dev/null
finish
