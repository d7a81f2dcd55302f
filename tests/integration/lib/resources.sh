# Sourced by tests/integration/lib.sh (its functions and variables are
# in scope): what a run holds and leaves behind: BPF programs, maps and links,
# perf and BPF fds, its RSS over time, the cgroup tree.

# bpf_ids PID: the BPF programs and links PID holds, "prog N" / "link N"
bpf_ids() {
	grep -hE '^(prog_id|link_id):' /proc/"$1"/fdinfo/* 2>/dev/null |
		sed -e 's/^prog_id:\s*/prog /' -e 's/^link_id:\s*/link /' | sort -u
}

# bpf_gone IDS: none of those programs and links exists any more. The
# kernel frees them after an RCU grace period, so poll for up to 3 s.
bpf_gone() {
	local kind id left
	for _ in $(seq 60); do
		left=
		while read -r kind id; do
			[ -n "$id" ] || continue
			bpftool "$kind" show id "$id" >/dev/null 2>&1 && left="$left $kind $id"
		done <<<"$1"
		[ -z "$left" ] && return 0
		sleep 0.05
	done
	echo "      still there:$left"
	return 1
}

# emon-perf's BPF object names (programs, maps), as bpftool shows them
EMON_BPF_NAMES='on_switch flush on_fork on_exec on_free on_attach events prev cpu_counts flush_ns stats cgrp_data proc_data thrd_data cgrp_idx proc_idx thrd_idx cgrp_parent cgrp_scratch split_scratch tree tree_ovf self_ctl self_slots self_arrays self_task emon_bpf.rodata emon_bpf.bss'

# bpf_list KIND: bpftool KIND show -j, as one JSON list; again while an
# object freed as it is listed makes bpftool print {"error": ...}
bpf_list() {
	"$PY3" -c '
import json, subprocess, sys
for _ in range(10):
    r = subprocess.run(["bpftool", sys.argv[1], "show", "-j"], capture_output=True, text=True)
    try:
        v = json.loads(r.stdout or "[]")
    except ValueError:
        continue
    if isinstance(v, list):
        print(json.dumps([o for o in v if isinstance(o, dict)]))
        sys.exit(0)
print("[]")' "$1"
}

# bpf_max_ids: "prog N", "map N", "link N": the highest ids that exist now
# (ids only grow, so anything above them was made later)
bpf_max_ids() {
	local k
	for k in prog map link; do
		echo "$k $(bpf_list $k | "$PY3" -c '
import json, sys
print(max((o.get("id", 0) for o in json.load(sys.stdin)), default=0))')"
	done
}

# bpf_orphans BASE: BPF programs, maps and links with emon-perf's names,
# made after BASE (bpf_max_ids), that no process holds an fd to and (maps)
# no program uses: left behind, since nothing can ever free them. One
# "kind id name" per line; empty when there are none. Freeing takes an RCU
# grace period, and other runs may be exiting too: polls up to 3 s.
bpf_orphans() {
	local base=$1 out k
	for _ in $(seq 30); do
		for k in prog map link; do bpf_list $k >"$TMP/bpf.$k"; done
		out=$(grep -hE '^(prog_id|map_id|link_id):' /proc/[0-9]*/fdinfo/* 2>/dev/null |
			"$PY3" -c '
import json, sys
base = dict(l.split() for l in sys.argv[1].splitlines())
names = set(sys.argv[2].split())
held = {"prog": set(), "map": set(), "link": set()}
for l in sys.stdin:
    k, v = l.split(":")
    held[k[:-3]].add(int(v))
progs, maps, links = (json.loads(open(f"{sys.argv[3]}.{k}").read()) for k in ("prog", "map", "link"))
used = {m for p in progs for m in p.get("map_ids", [])}
pname = {p.get("id"): p.get("name", "") for p in progs}
for p in progs:
    i = p.get("id", 0)
    if i > int(base["prog"]) and p.get("name") in names and i not in held["prog"]:
        print("prog", i, p.get("name"))
for m in maps:
    i = m.get("id", 0)
    if i > int(base["map"]) and m.get("name") in names and i not in held["map"] and i not in used:
        print("map", i, m.get("name"))
for k in links:
    i = k.get("id", 0)
    if i > int(base["link"]) and pname.get(k.get("prog_id"), "") in names and i not in held["link"]:
        print("link", i, pname.get(k.get("prog_id")))
' "$base" "$EMON_BPF_NAMES" "$TMP/bpf")
		[ -z "$out" ] && return 0
		sleep 0.1
	done
	echo "$out"
}

# perf_fds PID: how many perf_event fds PID holds
perf_fds() {
	ls -l /proc/"$1"/fd 2>/dev/null | grep -c 'anon_inode:\[perf_event\]'
}

# bpf_fds PID: how many BPF (prog, map, link) fds PID holds
bpf_fds() {
	ls -l /proc/"$1"/fd 2>/dev/null | grep -cE 'anon_inode:bpf-(prog|map|link)'
}

# sample_proc PID FILE [PERIOD_S]: in the background, append
# "unix_time rss_kb fds" for PID every PERIOD_S (default 0.5) until it
# exits; the sampler's pid is in BG_PIDS and in $SAMPLER
sample_proc() {
	local pid=$1 file=$2 period=${3:-0.5}
	(
		while [ -d /proc/"$pid" ]; do
			rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/"$pid"/status 2>/dev/null)
			fds=$(ls /proc/"$pid"/fd 2>/dev/null | wc -l)
			[ -n "$rss" ] && echo "$EPOCHREALTIME $rss $fds"
			sleep "$period"
		done
	) >>"$file" &
	SAMPLER=$!
	BG_PIDS+=($SAMPLER)
}

# wait_attached PID: poll until PID has attached its BPF link (up to 10 s)
wait_attached() {
	for _ in $(seq 500); do
		grep -q '^link_id:' /proc/"$1"/fdinfo/* 2>/dev/null && return 0
		[ -d /proc/"$1" ] || return 1
		sleep 0.02
	done
	return 1
}

# cg_tree: every cgroup directory under the cgroup2 mount, one per line,
# relative to it (for before/after comparisons)
cg_tree() {
	(cd "$CGROOT" && find . -mindepth 1 -type d | sort)
}
