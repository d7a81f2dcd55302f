#!/usr/bin/env bash
# containerd itself, driven through ctr with no registry: a private
# containerd (its root, state and socket under $TMP, runc, the cgroupfs
# driver), an image imported from a tar made here of a busybox-static
# root file system, and three containers run as containerd's CRI plugin
# runs a pod's: the annotations it writes (io.kubernetes.cri.sandbox-name,
# sandbox-namespace, container-name, image-name) and the cgroupfs form of
# its cgroups, a bare id below the pod's (/kubepods/besteffort/podUID/ID,
# here below the test's cgroup). The bundle containerd writes
# (STATE/io.containerd.runtime.v2.task/k8s.io/ID/config.json) is where
# emon-perf reads the names: each container's JSON row carries runtime
# containerd, its image, namespace, pod and container, and the cpu-clock
# its cgroup's cpu.stat says (1% + steal + untraced); a namespace of two
# pods is the sum of their containers and of their cpu.stat (1%).
. "$(dirname "$0")/lib.sh"

for c in containerd ctr runc busybox; do
	command -v $c >/dev/null || {
		echo "FAIL  no $c (tools/install-deps.sh --with-test installs it)"
		exit 1
	}
done
CT=$TMP/ctd
ctr() { command ctr -a "$CT/c.sock" -n k8s.io "$@"; }
ids=()
ctr_down() {
	for i in "${ids[@]}"; do
		ctr task kill -s KILL "$i" >/dev/null 2>&1
		for _ in $(seq 50); do ctr task rm "$i" >/dev/null 2>&1 && break; sleep 0.1; done
		ctr container rm "$i" >/dev/null 2>&1
	done
	[ -f "$CT/pid" ] && kill "$(cat "$CT/pid")" 2>/dev/null && sleep 0.5
	grep -o " $TMP/[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null
	# runc made the cgroups in the v1 hierarchies too (hybrid layout)
	for d in /sys/fs/cgroup/*"$TESTCG"; do
		[ -d "$d" ] && [ "$d" != "$CGROOT$TESTCG" ] &&
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	cleanup
}
trap ctr_down EXIT

mkdir -p "$CT/root" "$CT/state" "$TMP/rootfs/bin"
cat >"$CT/config.toml" <<EOF
version = 2
root = "$CT/root"
state = "$CT/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$CT/c.sock"
EOF
containerd --config "$CT/config.toml" >"$CT/containerd.log" 2>&1 &
echo $! >"$CT/pid"
for _ in $(seq 100); do ctr version >/dev/null 2>&1 && break; sleep 0.1; done
if ! ctr version >/dev/null 2>&1; then
	tail -5 "$CT/containerd.log"
	grep -qi "operation not permitted\|permission denied" "$CT/containerd.log" &&
		skip "containerd cannot run in this sandbox: $(grep -i -m1 'operation not permitted\|permission denied' "$CT/containerd.log")"
	echo "FAIL  containerd did not start"
	exit 1
fi
echo "      $(command ctr --version), runc $(runc --version | head -1 | awk '{ print $3 }')"

# the image: a docker-archive tar of one layer, the busybox-static root
cp "$(command -v busybox)" "$TMP/rootfs/bin/busybox" &&
	chroot "$TMP/rootfs" /bin/busybox --install -s /bin || exit 1
"$PY3" - "$TMP/rootfs" "$TMP/image.tar" docker.io/library/emon-test:1 <<'PY' || exit 1
import hashlib, io, json, sys, tarfile
root, out, ref = sys.argv[1:4]
lb = io.BytesIO()
with tarfile.open(fileobj=lb, mode="w") as t:
    t.add(root, arcname=".")
layer = lb.getvalue()
cfg = json.dumps({"architecture": "amd64", "os": "linux", "config": {"Cmd": ["sh"]},
                  "rootfs": {"type": "layers",
                             "diff_ids": ["sha256:" + hashlib.sha256(layer).hexdigest()]}}).encode()
cname = hashlib.sha256(cfg).hexdigest() + ".json"
man = json.dumps([{"Config": cname, "RepoTags": [ref], "Layers": ["layer.tar"]}]).encode()
with tarfile.open(out, "w") as t:
    for n, b in ((cname, cfg), ("layer.tar", layer), ("manifest.json", man)):
        i = tarfile.TarInfo(n)
        i.size = len(b)
        t.addfile(i, io.BytesIO(b))
PY
ctr image import --snapshotter native "$TMP/image.tar" >"$CT/import.log" 2>&1 ||
	{ cat "$CT/import.log"; echo "FAIL  ctr image import"; exit 1; }

# ct_run NAME NAMESPACE POD UID: an idle container of pod NAMESPACE/POD
# (uid UID), its id in $CT_ID
ct_run() {
	CT_ID=$(printf '%s' "$1-$$" | sha256sum | cut -c1-64)
	ids+=("$CT_ID")
	ctr run -d --snapshotter native --cgroup "$TESTCG/kubepods/besteffort/pod$4/$CT_ID" \
		--annotation io.kubernetes.cri.container-type=container \
		--annotation io.kubernetes.cri.sandbox-name="$3" \
		--annotation io.kubernetes.cri.sandbox-namespace="$2" \
		--annotation io.kubernetes.cri.container-name="$1" \
		--annotation io.kubernetes.cri.image-name=docker.io/library/emon-test:1 \
		docker.io/library/emon-test:1 "$CT_ID" sleep 1000 >"$CT/run.log" 2>&1
}
declare -A cid cg
for spec in "web prod shop-0 $(cat /proc/sys/kernel/random/uuid)" \
	"api prod shop-1 $(cat /proc/sys/kernel/random/uuid)" \
	"pg data pg-0 $(cat /proc/sys/kernel/random/uuid)"; do
	set -- $spec
	if ! ct_run "$@"; then
		cat "$CT/run.log"
		grep -qi "operation not permitted\|permission denied" "$CT/run.log" &&
			skip "ctr cannot run a container here: $(grep -i -m1 'operation not permitted\|permission denied' "$CT/run.log")"
		echo "FAIL  ctr run $1"
		exit 1
	fi
	cid[$1]=$CT_ID
	pid=$(ctr task ls | awk -v i="$CT_ID" '$1 == i { print $2 }')
	cg[$1]=$(sed -n 's/^0:://p' "/proc/${pid:-none}/cgroup")
	echo "      $1 ${CT_ID:0:12}: cgroup2 ${cg[$1]}"
	check "$1: containerd's cgroupfs form, a bare id below its pod" \
		[ "${cg[$1]}" = "$TESTCG/kubepods/besteffort/pod$4/$CT_ID" ]
	check "$1: its bundle at STATE/io.containerd.runtime.v2.task/k8s.io/ID/config.json" \
		grep -q "io.kubernetes.cri.sandbox-name" "$CT/state/io.containerd.runtime.v2.task/k8s.io/$CT_ID/config.json"
done

LOOP='i=0; while [ $i -lt 200000 ]; do i=$((i + 1)); done'
declare -A u0
for c in "${!cg[@]}"; do u0[$c]=$(cg_usage_ns "${cg[$c]}"); done
st0=$(steal_ns)
"$EMON" stat -a -e cpu-clock --by system,container,pod,namespace --json-rows -o "$TMP/out.jsonl" \
	--runtime-root containerd="$CT/state" -- sh -c "
	for c in ${cid[*]}; do
		ctr -a '$CT/c.sock' -n k8s.io task exec --exec-id burn-\$c \$c sh -c '$LOOP' &
	done; wait" 2>"$TMP/err"
check "stat exits 0" [ $? -eq 0 ] || cat "$TMP/err"
steal=$(($(steal_ns) - st0))
unt=$(untraced_ns "$TMP/out.jsonl")
args=()
for c in "${!cg[@]}"; do args+=("${cid[$c]}=$c=$(($(cg_usage_ns "${cg[$c]}") - ${u0[$c]}))"); done

"$PY3" - "$TMP/out.jsonl" $steal $unt "${args[@]}" <<'PY'
import json, sys
f, steal, unt = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
conts = {i: (n, float(u)) for i, n, u in (a.split("=") for a in sys.argv[4:])}
rows = [json.loads(l) for l in open(f)]
by = lambda s: {str(r["key"]): r for r in rows if r["scope"] == s}
cont, pods, nss = by("container"), by("pod"), by("namespace")
want = {"web": ("prod", "shop-0"), "api": ("prod", "shop-1"), "pg": ("data", "pg-0")}
bad = 0
def say(ok, what):
    global bad
    print(("ok    " if ok else "FAIL  ") + what)
    bad += not ok
def near(a, b, what):
    say(abs(a - b) <= 0.01 * b + steal + unt,
        f"{what}: {a / 1e9:.4f} s vs cpu.stat {b / 1e9:.4f} s (1% + steal + untraced {(steal + unt) / 1e6:.3f} ms)")
clk = lambda r: r["counters"]["cpu-clock"] if r else 0
for i, (n, use) in conts.items():
    r = cont.get(i)
    if not r:
        say(False, f"a row for container {n} {i[:12]}"); continue
    got = (r.get("runtime"), r.get("image"), r.get("namespace"), r.get("pod"), r.get("container"))
    say(got == ("containerd", "docker.io/library/emon-test:1") + want[n] + (n,),
        f"{n} {i[:12]}: runtime, image, namespace, pod, container {got}")
    near(clk(r), use, f"{n} cpu-clock")
for key, members in (("prod", ["web", "api"]), ("data", ["pg"])):
    r = nss.get(key)
    ids = [i for i, (n, _) in conts.items() if n in members]
    rsum = sum(clk(cont.get(i)) for i in ids)
    say(r is not None and abs(clk(r) - rsum) <= 1e-9 * rsum + 1,
        f"namespace {key}: the sum of its containers' rows ({clk(r) / 1e9:.4f} s)")
    near(clk(r), sum(conts[i][1] for i in ids), f"namespace {key}")
for key in ("prod/shop-0", "prod/shop-1", "data/pg-0"):
    say(key in pods, f"pod row {key}")
sys.exit(bad != 0)
PY
check "containerd's containers in stat's rows" [ $? -eq 0 ]
finish
