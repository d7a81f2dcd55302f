#!/usr/bin/env bash
# emon-perf top as a tenant of a shared host (docs/security.md), in a real
# terminal (tmux): root starts the daemon; a user made here, in the
# socket's group and not an administrator, runs top against it. Over
# several repaints its processes view holds its own burner and none of
# root's, its cgroups view its own (delegated) cgroup and not root's; the
# burner's CPU% follows its cgroup's cpu.stat; the header says why the
# host's totals are not shown, and top keeps running (the system view is
# refused, not the whole of top), and so does the energy line (a fake
# powercap tree at 20 W) and no row has power. An administrator
# (--admin-group) sees root's burner in the same daemon.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/top_lib.sh"

command -v tmux >/dev/null || skip "tmux not installed (Debian tmux)"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
command -v useradd >/dev/null || skip "no useradd"
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ] ||
	skip "perf_event_paranoid <= 0: every user may count CPU-wide here"
grp=emontop$$ adm=emontad$$ u2=emontus$$
groupadd -f "$grp" 2>/dev/null && groupadd -f "$adm" 2>/dev/null ||
	skip "cannot add a group (groupadd)"
useradd -M -N -g "$grp" -s /bin/false "$u2" 2>/dev/null || {
	groupdel "$grp"; groupdel "$adm"; skip "cannot add a user (useradd)"; }
trap 'tm kill-server 2>/dev/null; cleanup; userdel -f "$u2" 2>/dev/null
	groupdel "$grp" 2>/dev/null; groupdel "$adm" 2>/dev/null' EXIT
gid=$(getent group "$grp" | cut -d: -f3) agid=$(getent group "$adm" | cut -d: -f3)
uid2=$(id -u "$u2")
chmod 755 "$TMP"

S=$TMP/run/emon.sock
fake_rapl "$TMP/pc" 20 --period-ms 1 || finish
serve_start "$S" "$TMP/serve.err" --listen none --socket-group "$grp" \
	--admin-group "$adm" --powercap-root "$TMP/pc" || exit 1
# two burners told apart by their names (comm): root's and the tenant's,
# each in a cgroup of its own, the tenant's delegated to it
cp "$BURN" "$TMP/rootburn" && cp "$BURN" "$TMP/tenburn" && chmod 755 "$TMP/tenburn"
cr=$(cg_new rootcg) cu=$(cg_new tencg)
chown "$uid2" "$CGROOT$cu" "$CGROOT$cu/cgroup.procs"
cg_bg "$cr" "$TMP/rootburn" 120
rpid=$CG_BG_PID
cg_bg "$cu" setpriv --reuid="$uid2" --regid="$gid" --groups="$gid" "$TMP/tenburn" 120

tm new-session -d -x 160 -y 40 "bash --norc --noprofile" || { echo "FAIL  tmux"; exit 1; }
tm set-option -g status off >/dev/null
tm send-keys "PS1='READY> '; cd '$PWD'" Enter
wait_pane "'READY>' in p" 5 >/dev/null || { echo "FAIL  no shell prompt"; exit 1; }

# --- the tenant ---
TOP_AS="setpriv --reuid=$uid2 --regid=$gid --groups=$gid"
top_start --socket "$S"
check "the tenant's top started ($(head -c 200 "$TMP/top.err"))" [ -n "$TOP_PID" ]
check "  and runs as the tenant ($(stat -c %u "/proc/$TOP_PID" 2>/dev/null))" \
	[ "$(stat -c %u "/proc/$TOP_PID" 2>/dev/null)" = "$uid2" ]
tm send-keys p
t=$(wait_pane "'View: processes' in p and ' tenburn ' in p" 5)
check "processes view: the tenant's burner is there (after ${t:-timeout} s)" [ -n "$t" ]
# seen_in SECONDS WORDS...: every repaint for SECONDS, whether any of
# WORDS was in the table; prints the repaints and the hits
seen_in() {
	"$PY3" - "$TM_SOCK" "$@" <<'PY'
import subprocess, sys, time
sock, secs, words = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
last, n, hits = None, 0, set()
t_end = time.monotonic() + secs
while time.monotonic() < t_end:
    p = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p"], capture_output=True, text=True).stdout
    if p != last:
        n += 1
        last = p
        hits |= {w for w in words if any(w in l.split() for l in p.splitlines())}
    time.sleep(0.05)
print(n, " ".join(sorted(hits)) or "-")
PY
}
# (a repaint is a screen unlike the last: two refreshes in a row can
# print the same figures, 31.3% twice under load, so 4 s of -d 1 give at
# least 2 distinct screens, not always 3)
read -r n hits <<<"$(seen_in 4 rootburn "$rpid" "$DPID")"
check "over $n repaints: none of root's processes (rootburn, the daemon) ($hits)" \
	bash -c "[ $n -ge 2 ] && [ '$hits' = - ]"
against_kernel "tenant's processes view" tenburn -5 usage "$CGROOT$cu/cpu.stat"
hdr=$(pane | sed -n 1,6p)
echo "$hdr" | sed 's/^/      | /'
check "top still runs (the system view refused is not the end of it)" kill -0 "$TOP_PID"
check "the header says the host's CPUs are not the tenant's to see" \
	grep -qE "^CPU: not shown: .*--admin-group.*perf_event_paranoid" <<<"$hdr"
check "nor the energy (RAPL is root's)" grep -qE "^Energy: powercap: not shown" <<<"$hdr"
pw=$(pane | awk '$2 == "tenburn" { print $(NF - 6); exit }')
check "and its burner's row has no power figure ('$pw', not a 0 in place of energy)" [ "$pw" = - ]

tm send-keys g
t=$(wait_pane "'View: cgroups' in p and '${cu##*/}' in p" 5)
check "cgroups view: the tenant's own cgroup ${cu##*/} (after ${t:-timeout} s)" [ -n "$t" ]
read -r n hits <<<"$(seen_in 4 "${cr##*/}")"
check "over $n repaints: not root's cgroup ${cr##*/} ($hits)" bash -c "[ $n -ge 2 ] && [ '$hits' = - ]"
tm send-keys q
t=$(wait_pane "'TOP-EXIT=0' in p" 2)
check "q ends it, exit 0 (${t:-timeout} s)" [ -n "$t" ]

# --- an administrator, in the same daemon ---
TOP_AS="setpriv --reuid=$uid2 --regid=$gid --groups=$gid,$agid"
top_start --socket "$S"
tm send-keys p
t=$(wait_pane "'View: processes' in p and ' rootburn ' in p and ' tenburn ' in p" 5)
check "an --admin-group member sees root's burner and the tenant's (after ${t:-timeout} s)" [ -n "$t" ]
t=$(wait_pane "'CPU: busy' in p and ' W = package 0 ' in p" 3)
check "  and the host's CPUs and power (after ${t:-timeout} s)" [ -n "$t" ]
tm send-keys q
wait_pane "'TOP-EXIT=0' in p" 2 >/dev/null
finish
