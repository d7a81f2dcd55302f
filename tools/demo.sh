#!/usr/bin/env bash
# A per-container energy demo on any machine, RAPL or not: three cgroups
# named like docker, containerd (Kubernetes) and CRI-O containers run
# burners of different sizes while a fake powercap tree advances at 35 W;
# emon-perf records them every second, then `report` draws the page.
#   tools/demo.sh [OUTDIR]      (root; OUTDIR defaults to build/demo)
# Writes OUTDIR/run.jsonl, OUTDIR/stat.txt, OUTDIR/report.txt,
# OUTDIR/report.html and, with chromium, OUTDIR/report.png. OUTDIR is
# relative to where it is run from, or absolute.
set -eu
out=${1:-}
if [ -n "$out" ]; then
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
fi
cd "$(dirname "$0")/.."
out=${out:-$PWD/build/demo}
tools=${OUTPUT:-build}/tools
mkdir -p "$out"
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
top=$cgroot/emon-demo
rapl=$(mktemp -d)
id() { printf '%s%056x' "$1" "$2"; }
cgs=("$top/system.slice/docker-$(id 3f2a9c1e 1).scope"
     "$top/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0f1e2d3c_4b5a_6978_8796_a5b4c3d2e1f0.slice/cri-containerd-$(id 9c04b7d2 2).scope"
     "$top/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod11111111_2222_3333_4444_555555555555.slice/crio-$(id 51e0aa47 3).scope")
cleanup() {
	kill "$fake" 2>/dev/null || true
	find "$top" -depth -type d -exec rmdir {} + 2>/dev/null || true
	rm -rf "$rapl"
}
trap cleanup EXIT
mkdir -p "${cgs[@]}"
"$tools/fake-rapl" "$rapl" 35 --period-ms 10 &
fake=$!
while [ ! -e "$rapl/.ready" ]; do sleep 0.01; done

run() { # CGROUP SECONDS...: burners in the cgroup, one after the other
	local cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs"; for s in "$@"; do '"$tools"'/burn "$s"; done' "$cg" "$@"
}
./emon-perf stat -a -e cpu-clock,context-switches --by system,socket,container,process \
	--powercap-root "$rapl" -I 1000 --json-rows -o "$out/run.jsonl" -- sh -c "
	$(declare -f run); tools=$tools
	run '${cgs[0]}' 2.5 2.5 & run '${cgs[0]}' 2 & run '${cgs[1]}' 1.5 1.5 & run '${cgs[2]}' 0.8 &
	wait"
run "${cgs[0]}" 0.6 & b1=$!
run "${cgs[1]}" 0.3 & b2=$!
./emon-perf stat -a -e cpu-clock,context-switches --by container --powercap-root "$rapl" \
	>"$out/stat.txt" 2>&1 -- sleep 1
wait $b1 $b2
./emon-perf report "$out/run.jsonl" --by container >"$out/report.txt"
./emon-perf report "$out/run.jsonl" --by container --html "$out/report.html" >/dev/null
if command -v chromium >/dev/null; then
	profile=$(mktemp -d)
	timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --hide-scrollbars --window-size=1200,1500 \
		--screenshot="$out/report.png" "file://$out/report.html" >"$out/chromium.log" 2>&1 || true
	rm -rf "$profile"
	[ -s "$out/report.png" ] || echo "demo: chromium wrote no screenshot ($out/chromium.log)" >&2
fi
ls -l "$out"
