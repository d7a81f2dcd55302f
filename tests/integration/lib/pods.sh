# Sourced by tests/integration/lib.sh (its functions and variables are
# in scope): containers and pods: the runtimes' fixtures and their cgroups.

# pod_fixtures: tests/fixtures/runtimes copied to $TMP/rt, with a second
# pod of namespace kv (cache-1, its container redis, as containerd's CRI
# plugin writes it, id 44...4) beside the fixtures' own; ROOTS: the
# --runtime-root options for them. fixture_id C: a fixture's id, C x 64.
fixture_id() { printf "%064d" 0 | tr 0 "$1"; }
pod_fixtures() {
	local b4=$TMP/rt/containerd/io.containerd.runtime.v2.task/k8s.io/$(fixture_id 4)
	cp -a tests/fixtures/runtimes "$TMP/rt" && mkdir -p "$b4" || return 1
	cat >"$b4/config.json" <<'JSON'
{"ociVersion": "1.1.0", "annotations": {
 "io.kubernetes.cri.container-type": "container",
 "io.kubernetes.cri.sandbox-name": "cache-1",
 "io.kubernetes.cri.sandbox-namespace": "kv",
 "io.kubernetes.cri.container-name": "redis",
 "io.kubernetes.cri.image-name": "docker.io/library/redis:7"}}
JSON
	ROOTS=()
	for r in docker containerd cri-o podman; do ROOTS+=(--runtime-root "$r=$TMP/rt/$r"); done
}
# pod_cgroups: the fixtures' containers' cgroups, made as their runtimes
# name them, into the caller's associative array cg: cache0 and cache1
# (namespace kv's two pods, containerd's CRI plugin under the systemd
# driver), pg (CRI-O), cart (podman); the pods' uids in the fixtures are
# 0f1e2d3c-... and 1a2b3c4d-...
pod_cgroups() {
	local pods=kubepods.slice/kubepods-burstable.slice
	local uid=0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0 uid2=1a2b3c4d_5e6f_4a0b_8c1d_2e3f4a5b6c7d
	cg[cache0]=$(cg_new "$pods/kubepods-burstable-pod$uid.slice/cri-containerd-$(fixture_id 2).scope")
	cg[cache1]=$(cg_new "$pods/kubepods-burstable-pod$uid2.slice/cri-containerd-$(fixture_id 4).scope")
	cg[pg]=$(cg_new "kubepods.slice/kubepods-besteffort.slice/crio-$(fixture_id 1).scope")
	cg[cart]=$(cg_new "machine.slice/libpod-$(fixture_id 0).scope")
}
