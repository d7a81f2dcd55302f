#!/usr/bin/env bash
# A daemon a multi-tenant host can trust (docs/security.md): root starts
# it; nobody and a second user made here, both in --socket-group, each
# see their own processes and cgroups and none of root's or each other's,
# are refused the system view with the rule named (perf_event_paranoid 2
# here), and still count their own commands; root and an --admin-group
# member see everything. A silent client is closed after --idle-timeout;
# one uid gets no more than its share of connections and thread slots. A
# socket or pin directory another user made first is refused, named. A
# process and a cgroup named with escape sequences print no control byte
# in text or CSV. Each user's registered threads read their own counts,
# and no other user's: not through the slot array's fd they got, past its
# end, by map id or through the pin.
. "$(dirname "$0")/lib.sh"

command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
command -v useradd >/dev/null || skip "no useradd"
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ] ||
	skip "perf_event_paranoid <= 0: every user may count CPU-wide here"
CHECK=${OUTPUT:-build}/tools/selfmon/check
grp=emonten$$ adm=emonadm$$ u2=emonusr$$
PIN=/sys/fs/bpf/emon-tenants-$$ NPIN=/sys/fs/bpf/emon-nobody-$$
groupadd -f "$grp" 2>/dev/null && groupadd -f "$adm" 2>/dev/null ||
	skip "cannot add a group (groupadd)"
useradd -M -N -g "$grp" -s /bin/false "$u2" 2>/dev/null || {
	groupdel "$grp"; groupdel "$adm"; skip "cannot add a user (useradd)"; }
# the user goes after its processes (cleanup kills them), -f: at once
trap 'cleanup; rmdir "$NPIN" 2>/dev/null; userdel -f "$u2" 2>/dev/null
	groupdel "$grp" 2>/dev/null; groupdel "$adm" 2>/dev/null' EXIT
gid=$(getent group "$grp" | cut -d: -f3) agid=$(getent group "$adm" | cut -d: -f3)
uid2=$(id -u "$u2")
chmod 755 "$TMP"
mkdir "$TMP/w" && chmod 1777 "$TMP/w"	# the tenants' output
as_nobody() { setpriv --reuid=65534 --regid=65534 --groups="$gid" "$@"; }
as_u2() { setpriv --reuid="$uid2" --regid="$gid" --groups="$gid" "$@"; }
as_admin() { setpriv --reuid="$uid2" --regid="$gid" --groups="$gid,$agid" "$@"; }

# --- directories another user made first ---------------------------------
mkdir -p "$TMP/nd/run" && chown 65534 "$TMP/nd/run"	# above it: serve_dirs.sh
mkdir -p "$TMP/real" && ln -s "$TMP/real" "$TMP/link"
mkdir -p "$NPIN" && chown 65534 "$NPIN"
for c in "--socket $TMP/nd/run/e.sock|$TMP/nd/run|owned by uid 65534" \
	"--socket $TMP/link/e.sock|$TMP/link|a symlink" \
	"--socket $TMP/ok/e.sock --threads 4 --pin-dir $NPIN|$NPIN|owned by uid 65534"; do
	IFS='|' read -r args dir why <<<"$c"
	# shellcheck disable=SC2086
	timeout 10 "$EMON" serve -e cpu-clock --listen none $args 2>"$TMP/dir.err" >/dev/null
	rc=$?
	check "a directory not the daemon's ($why): exit 2, named ($rc: $(head -1 "$TMP/dir.err"))" \
		bash -c "[ $rc -eq 2 ] && grep -q -- '$dir: $why' '$TMP/dir.err'"
done
check "nothing was put in them" [ -z "$(find "$TMP/nd/run" "$TMP/real" "$NPIN" -mindepth 1)" ]

# --- the daemon, and each tenant's workload -------------------------------
S=$TMP/run/emon.sock
# a docker container of root's, named from a fixture's config.v2.json
# (name /web, image nginx:1.25)
cp -a tests/fixtures/runtimes/docker "$TMP/docker" || exit 1
cid=$(printf '%064d' 0 | tr 0 a)
# -v: its reads' untraced time, for the tenants' own counts (untraced_v_ns)
serve_start "$S" "$TMP/serve.err" -v -e cpu-clock --listen none --socket-group "$grp" \
	--admin-group "$adm" --idle-timeout 2 --max-clients 8 --threads 8 --max-tids 4096 --max-trees-per-uid 1 \
	--pin-dir "$PIN" --runtime-root "docker=$TMP/docker" || exit 1
cr=$(cg_new root) cu=$(cg_new "u2") ce=$(cg_new $'\e[31mred\e[0m')
cd_=$(cg_new "docker-$cid.scope")
chown "$uid2" "$CGROOT$cu" "$CGROOT$cu/cgroup.procs"
# spawn CG CMD...: CMD in cgroup CG, in the background; its pid
spawn() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROOT$1" "${@:2}" >/dev/null 2>&1 &
	echo $!
}
rpid=$(spawn "$cr" "$BURN" 30)
# a name that clears the screen and retitles the terminal
epid=$(spawn "$ce" "$PY3" -c '
import ctypes, time
ctypes.CDLL(None).prctl(15, b"\x1b[2J\x1b]0;x\x07", 0, 0, 0)
t = time.process_time()
while time.process_time() - t < 30: pass')
dpid=$(spawn "$cd_" "$BURN" 30)
upid=$(spawn "$cu" setpriv --reuid="$uid2" --regid="$gid" --groups="$gid" "$BURN" 30)
BG_PIDS+=($rpid $epid $upid $dpid)
sleep 0.5

# keys KIND FILE: the keys of FILE's CSV rows of that scope
# keys process|cgroup FILE: the pids or cgroup paths of a stat -x, file, in
# perf's layout: process rows lead with COMM-PID, cgroup rows carry their
# path after the event's name
keys() {
	"$PY3" - "$1" "$2" <<'PY'
import csv, re, sys
kind, out = sys.argv[1], set()
for r in csv.reader(open(sys.argv[2])):
    if "cpu-clock" not in r:
        continue
    i = r.index("cpu-clock")
    if kind == "process" and i == 3:
        m = re.search(r"-(\d+)$", r[0])
        if m:
            out.add(m.group(1))
    elif kind == "cgroup" and i == 2 and len(r) > 3 and r[3].startswith("/"):
        out.add(r[3])
print("\n".join(sorted(out)))
PY
}
# stat_csv WHO FILE ARGS...: a --by process,cgroup CSV stat as WHO
stat_csv() {
	local who=$1 f=$2
	shift 2
	$who "$EMON" stat -e cpu-clock --socket "$S" --by process,cgroup -x, \
		--timeout 300 -o "$TMP/w/out" "$@" 2>"$TMP/w/err" >/dev/null
	local rc=$?
	mv "$TMP/w/out" "$f" 2>/dev/null || : >"$f"
	return $rc
}

stat_csv as_nobody "$TMP/nobody.csv" -a
rc=$?
check "nobody's process view: exit 0 ($rc)" [ $rc -eq 0 ]
keys process "$TMP/nobody.csv" >"$TMP/nobody.pids"
keys cgroup "$TMP/nobody.csv" >"$TMP/nobody.cgs"
check "nobody sees none of root's processes" bash -c "! grep -qx -e $rpid -e $epid -e 1 '$TMP/nobody.pids'"
check "nor the other tenant's" bash -c "! grep -qx $upid '$TMP/nobody.pids'"
others=0
while read -r p; do
	[ -d "/proc/$p" ] && [ "$(stat -c %u "/proc/$p")" != 65534 ] && others=$((others + 1))
done <"$TMP/nobody.pids"
check "every process it sees is its own ($(wc -l <"$TMP/nobody.pids") seen, $others not)" [ $others -eq 0 ]
check "nor any cgroup of root's or the other tenant's" \
	bash -c "! grep -q -e '^/\$' -e emon-test '$TMP/nobody.cgs'"

stat_csv as_u2 "$TMP/u2.csv" -a
keys process "$TMP/u2.csv" >"$TMP/u2.pids"
keys cgroup "$TMP/u2.csv" >"$TMP/u2.cgs"
check "the second user sees its own process" grep -qx "$upid" "$TMP/u2.pids"
check "and its own (delegated) cgroup" grep -qx "$cu" "$TMP/u2.cgs"
check "but none of root's processes or cgroups" \
	bash -c "! grep -qx -e $rpid -e 1 '$TMP/u2.pids' && ! grep -qx -e '$cr' -e / '$TMP/u2.cgs'"

# the system view beside its own: its own rows, no system row of zeros,
# and said once
as_u2 "$EMON" stat -e cpu-clock --socket "$S" -a --by system,process -x, -I 100 \
	--timeout 350 -o "$TMP/w/mixed.csv" 2>"$TMP/mixed.err" >/dev/null
rc=$?
check "system and processes as the second user: exit 0 ($rc), its process there" \
	bash -c "[ $rc -eq 0 ] && grep -q -- '-$upid,' '$TMP/w/mixed.csv'"
check "but no system row (zeros are not counts): $(grep -vc -- '-[0-9]*,' "$TMP/w/mixed.csv") rows without a pid" \
	bash -c "! grep -v -- '-[0-9]*,' '$TMP/w/mixed.csv' | grep -q cpu-clock"
check "and why, said once: $(head -c 150 "$TMP/mixed.err")" \
	bash -c "[ \$(grep -c 'its own processes and cgroups only' '$TMP/mixed.err') -eq 1 ]"

as_nobody "$EMON" stat -e cpu-clock --socket "$S" -a --timeout 200 >/dev/null 2>"$TMP/sys.err"
rc=$?
check "the system view as nobody: exit 2, the rule named ($rc: $(tail -1 "$TMP/sys.err"))" \
	bash -c "[ $rc -eq 2 ] && grep -q 'perf_event_paranoid 2' '$TMP/sys.err' && grep -q -- '--admin-group' '$TMP/sys.err'"

# its own command, against the tree's rusage (the kernel's CPU time of
# it): 3% + steal + the time whose owner emon-perf estimated after
# switches this sandbox keeps out of the tracepoint (untraced_ns in lib.sh:
# a system row's figure, which a tenant does not get; here the daemon's
# -v log's over the stat's run, untraced_v_ns)
st0=$(steal_ns) m0=$(wc -l <"$TMP/serve.err")
as_nobody "$EMON" stat -e cpu-clock --socket "$S" --json-rows -o "$TMP/w/cmd.jsonl" -- \
	"${RUSAGE_RUN[@]}" "$TMP/w/cmd.ru" "$BURN" 0.3 2>"$TMP/cmd.err"
rc=$?
# (the stat's last snapshot is a read of the daemon's, said before it ends)
steal=$(($(steal_ns) - st0)) unt=$(untraced_v_ns "$TMP/serve.err" "$m0" "$(wc -l <"$TMP/serve.err")")
ns=$(jcommand "$TMP/w/cmd.jsonl" cpu-clock)
ns=${ns%.*} ru=$(cat "$TMP/w/cmd.ru" 2>/dev/null)
check "nobody's own command counts, attached: exit $rc, cpu-clock ${ns} ns vs its tree's rusage ${ru:-none} ns" \
	bash -c "[ $rc -eq 0 ] && grep -q attached '$TMP/cmd.err'" &&
	check "  within 3% + steal + untraced" near_steal "${ns:-0}" "${ru:-1}" 3 $((steal + unt))

# another's target: refused with the rule, as perf refuses what the
# kernel would not let it count (zeros would be no counts)
refused() { # WHAT GREP ARGS...: stat ARGS as nobody exits 2, one error line matching GREP
	local what=$1 want=$2
	shift 2
	as_nobody "$EMON" stat -e cpu-clock --socket "$S" --timeout 200 "$@" >/dev/null 2>"$TMP/ref.err"
	local rc=$?
	check "$what as nobody: exit 2, one line, the rule named ($rc: $(grep -v '^emon-perf: attached' "$TMP/ref.err" | head -c 200))" \
		bash -c '[ "$1" -eq 2 ] && [ $(grep -vc "^emon-perf: attached" "$2") -eq 1 ] &&
			 grep -q -e "$3" "$2" && grep -q -- --admin-group "$2"' _ $rc "$TMP/ref.err" "$want"
}
refused "-p of root's process" "uid 0's process.*ptrace" -p "$rpid"
refused "-p of the other tenant's" "uid $uid2's process" -p "$upid"
refused "-G of root's cgroup" "uid 0's cgroup.*cgroups it owns" -G "$cr"
refused "-t of a thread" "may not see thread rows" -t "$rpid"
# and its own: a gated thread of the second user's (lib.sh: it burns
# only while the gate is open, and stat's window holds the gate's whole)
# in a cgroup it owns; -p of its process and -G of that cgroup, each
# against the thread's schedstat runtime over the gate (5% + steal + the
# daemon's untraced time over the gate, the two truths, as targets'
# attached -p)
gd=$TMP/w/gate cg2=$(cg_new u2gate)
mkdir -m 777 "$gd" && chown "$uid2" "$CGROOT$cg2" "$CGROOT$cg2/cgroup.procs"
sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROOT$cg2" \
	setpriv --reuid="$uid2" --regid="$gid" --groups="$gid" "$TOOLS/threads" -g "$gd" 60 100 &
WPID=$!
BG_PIDS+=($WPID)
for _ in $(seq 500); do [ -s "$gd/tids" ] && break; sleep 0.02; done
gt=$(cat "$gd/tids")
for t in "-p $WPID" "-G $cg2"; do
	s0=$(steal_ns)
	# shellcheck disable=SC2086
	as_u2 "$EMON" stat -e cpu-clock --socket "$S" -x, $t -o "$TMP/w/own.csv" -- \
		sh -c "$(GATE_LOG=$TMP/serve.err gate_cmd "$gd" "$gt" 1)" 2>"$TMP/own.err"
	rc=$?
	steal=$(($(steal_ns) - s0)) unt=$(untraced_gate "$gd" "$TMP/serve.err")
	e=$(csv_val "$TMP/w/own.csv" cpu-clock) k=$(awk '{ print $2 - $1 }' "$gd/w" 2>/dev/null)
	check "the second user's ${t% *} of its own: exit $rc, cpu-clock $e ns" [ $rc -eq 0 ] ||
		sed 's/^/      /' "$TMP/own.err"
	check "  within 5% + steal + untraced of its gated thread's schedstat runtime ($k ns)" \
		near_steal "$e" "${k:-1}" 5 $((steal + unt))
done

stat_csv "" "$TMP/root.csv" -a
keys process "$TMP/root.csv" >"$TMP/root.pids"
check "root sees everyone's processes" bash -c "grep -qx $rpid '$TMP/root.pids' && grep -qx $upid '$TMP/root.pids'"
stat_csv as_admin "$TMP/adm.csv" -a
rc=$?
keys process "$TMP/adm.csv" >"$TMP/adm.pids"
keys cgroup "$TMP/adm.csv" >"$TMP/adm.cgs"
check "an --admin-group member sees root's processes and cgroups (exit $rc)" \
	bash -c "[ $rc -eq 0 ] && grep -qx $rpid '$TMP/adm.pids' && grep -qx '$cr' '$TMP/adm.cgs'"

# --- names are data: a container's name only to whom may see it ---------
for who in as_u2 as_admin; do
	$who "$EMON" stat -e cpu-clock --socket "$S" -a --by container,process,cgroup --json-rows \
		--timeout 300 -o "$TMP/w/cont.jsonl" 2>/dev/null >/dev/null
	mv "$TMP/w/cont.jsonl" "$TMP/cont.$who.jsonl" 2>/dev/null || : >"$TMP/cont.$who.jsonl"
done
check "the admin sees root's container named (/web, nginx:1.25)" \
	bash -c "grep '\"key\":\"$cid\"' '$TMP/cont.as_admin.jsonl' | grep -q 'nginx:1.25'"
check "the tenant learns neither its name nor its image, nor its id" \
	bash -c "[ -s '$TMP/cont.as_u2.jsonl' ] && ! grep -qE 'nginx|\"web\"|$cid' '$TMP/cont.as_u2.jsonl'"

# --- names with escape sequences ------------------------------------------
for fmt in text csv; do
	a=(-a) && [ $fmt = csv ] && a=(-a -x,)
	"$EMON" stat -e cpu-clock --socket "$S" --by process,cgroup --timeout 300 "${a[@]}" \
		-o "$TMP/names.$fmt" 2>/dev/null
	check "$fmt: the escape-named process and cgroup are there, escaped" \
		grep -q 'x1b\[31mred' "$TMP/names.$fmt"
	check "$fmt: no control byte but newlines" \
		bash -c "! LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <'$TMP/names.$fmt')"
done
grep -q "pid $epid" "$TMP/names.text" &&
	check "text: the process's comm is escaped" grep -q "pid $epid (\\\\x1b\[2J" "$TMP/names.text"

# --- the socket's bounds ---------------------------------------------------
as_nobody env PYTHONPATH="$(dirname "$0")" "$PY3" - "$S" >"$TMP/bounds.out" 2>&1 <<'PY'
import socket, struct, sys, time
import emon_client
from emon_client import HDR, MAGIC, V, recv_msg, say

def conn():
    return emon_client.conn(sys.argv[1])

def req(s):	# a command's (EMON_SNAP_REQ_OWN): answered for anyone
    s.sendall(HDR.pack(MAGIC, V, 2, 16, 1) + struct.pack("<IIiI", 2, 0, -1, 1))
    return recv_msg(s)

silent, talker = conn(), conn()
recv_msg(silent), recv_msg(talker)
m = req(talker)
say(m is not None and m[0] == 3, "a request of nobody's own is answered")
third = conn()
m = recv_msg(third)
say(m is not None and m[0] == 6 and struct.unpack("<i", m[2][:4])[0] == 87 and
    b"--max-clients-per-uid" in m[2],
    "a third connection of one uid (--max-clients 8: 2 each): EUSERS, named")
t0 = time.time()
silent.settimeout(5)
try:
    gone = silent.recv(1) == b""
except (ConnectionResetError, socket.timeout):
    gone = False
say(gone and 1.5 < time.time() - t0 < 4,
    f"a client that sent nothing: closed after {time.time() - t0:.1f} s (--idle-timeout 2)")
m = req(talker)
say(m is not None and m[0] == 3, "one that spoke is kept")
sys.exit(1 if emon_client.failed else 0)
PY
rc=$?
cat "$TMP/bounds.out"
check "the socket's bounds as nobody held" [ $rc -eq 0 ]

# command trees (--max-trees-per-uid 1): nobody's second command at once
# is refused while its first runs, and not started (it would run
# uncounted); root's is not held to it
# (the first's command starts only once its tree is followed: its file
# says the tree is held, however slow the machine)
as_nobody "$EMON" stat -e cpu-clock --socket "$S" -o /dev/null -- \
	sh -c 'touch "$0"; sleep 3' "$TMP/w/first" 2>"$TMP/tree1.err" &
t1=$!
for _ in $(seq 200); do [ -e "$TMP/w/first" ] && break; sleep 0.05; done
as_nobody "$EMON" stat -e cpu-clock --socket "$S" -o /dev/null -- touch "$TMP/w/ran" 2>"$TMP/tree2.err"
rc=$?
"$EMON" stat -e cpu-clock --socket "$S" -o /dev/null -- true 2>"$TMP/tree3.err"
rc3=$?
wait $t1
rc1=$?
check "a uid's second command tree at once (--max-trees-per-uid 1): refused, named, one line (exit $rc: $(grep -v attached "$TMP/tree2.err" | head -c 160))" \
	bash -c "[ $rc -eq 1 ] && grep -q -- '--max-trees-per-uid' '$TMP/tree2.err' &&
		 [ \$(grep -vc '^emon-perf: attached' '$TMP/tree2.err') -eq 1 ]"
check "  and its command did not run" [ ! -e "$TMP/w/ran" ]
check "the first ran whole (exit $rc1), root's at the same time too (exit $rc3)" \
	bash -c "[ $rc1 -eq 0 ] && [ $rc3 -eq 0 ]"

as_nobody "$CHECK" threads "$S" 3 0.2 >"$TMP/slots.out" 2>&1
cat "$TMP/slots.out"
check "a uid's third thread slot (--threads 8: 2 each): EUSERS, the other two read" \
	bash -c "[ \$(grep -c '^thread .*error Too many users' '$TMP/slots.out') -eq 1 ] &&
		 [ \$(grep -c '^thread .*cpu_clock' '$TMP/slots.out') -eq 2 ]"
"$CHECK" threads "$S" 3 0.2 >"$TMP/rslots.out" 2>&1
check "root's three threads all get one" \
	bash -c "[ \$(grep -c '^thread .*cpu_clock' '$TMP/rslots.out') -eq 3 ]"

# --- thread slots: each uid reads its own counts and no other uid's -------
# (docs/security.md, "Thread slots"). cpu-clock (the daemon's one event
# here) against the kernel's for the same window: the thread's
# CLOCK_THREAD_CPUTIME_ID, the run time /proc/self/task/TID/schedstat
# starts with (selfmon.sh checks the switches too).
own_counts() {	# WHO FILE: every thread's counts of FILE are its own
	local who=$1 k clk ref n=0
	while read -r k clk ref; do
		n=$((n + 1))
		check "$who's thread $k: cpu-clock = its CLOCK_THREAD_CPUTIME_ID change (1%)" \
			near "$clk" "$ref" 1
	done < <(sed -n 's/^thread \([0-9]*\): cpu_clock \([0-9]*\) vs cputime \([0-9]*\) ns, .*/\1 \2 \3/p' "$2")
	check "$who: both threads read their counts" [ $n -eq 2 ]
}
as_u2 "$CHECK" threads "$S" 2 0.5 >"$TMP/u2threads.out" 2>&1
cat "$TMP/u2threads.out"
own_counts "$u2" "$TMP/u2threads.out"
as_nobody "$CHECK" threads "$S" 2 0.5 >"$TMP/nbthreads.out" 2>&1
cat "$TMP/nbthreads.out"
own_counts nobody "$TMP/nbthreads.out"

# one registered thread of each (the victims), then each spies: the fd it
# got, a mapping past its array, every array's map id, the pins
as_u2 "$CHECK" hold "$S" >"$TMP/u2hold.out" 2>&1 &
BG_PIDS+=($!)
as_nobody "$CHECK" hold "$S" >"$TMP/nbhold.out" 2>&1 &
BG_PIDS+=($!)
for _ in $(seq 250); do
	grep -q registered "$TMP/u2hold.out" && grep -q registered "$TMP/nbhold.out" && break
	sleep 0.02
done
tu2=$(sed -n 's/^registered tid //p' "$TMP/u2hold.out")
tnb=$(sed -n 's/^registered tid //p' "$TMP/nbhold.out")
check "a thread of each user registered (${tu2:-none}, ${tnb:-none})" [ -n "$tu2" -a -n "$tnb" ]
ids=$(bpftool map dump pinned "$PIN/self_arrays" -j 2>/dev/null | "$PY3" -c '
import json, sys
print(" ".join(str(int.from_bytes(bytes(int(b, 16) for b in e["value"]), "little"))
               for e in json.load(sys.stdin)))')
check "root reads every slot array's map id from the pin (${ids:-none})" [ -n "$ids" ]
# shellcheck disable=SC2086
as_nobody "$CHECK" spy "$S" "$PIN" $ids >"$TMP/nbspy.out" 2>&1
# shellcheck disable=SC2086
as_u2 "$CHECK" spy "$S" "$PIN" $ids >"$TMP/u2spy.out" 2>&1
cat "$TMP/nbspy.out" "$TMP/u2spy.out"
# spied WHO FILE OWN OTHER: FILE's spy saw OWN and nothing of OTHER's
spied() {
	local who=$1 f=$2 own=$3 other=$4 seen t bad=0 me
	me=$(sed -n 's/^own tid \([0-9]*\),.*/\1/p' "$f")	# the spy, gone now
	for how in "the mapping" "bpf() lookups"; do
		seen=$(sed -n "s/^seen in $how://p; s/^seen by $how://p" "$f")
		check "$who sees its own registered thread $own through $how" \
			bash -c "grep -qw -- '$own' <<<'$seen'"
		check "$who sees none of the other user's (thread $other) through $how ($seen)" \
			bash -c "! grep -qw -- '$other' <<<'$seen'"
		for t in $seen; do
			[ "$t" = "$me" ] ||
				[ "$(awk '/^Uid:/ { print $2 }' /proc/"$t"/status 2>/dev/null)" = "$5" ] ||
				bad=$((bad + 1))
		done
	done
	check "every slot $who sees is a thread of its own uid ($bad not)" [ $bad -eq 0 ]
	check "$who maps nothing past its array: EINVAL at a length or offset beyond it" \
		bash -c "grep -q '^mmap a page past the array: Invalid argument' '$f' &&
			 grep -q '^mmap at an offset past the array: Invalid argument' '$f'"
	check "$who opens no array by map id: BPF_MAP_GET_FD_BY_ID needs CAP_SYS_ADMIN (EPERM)" \
		bash -c "[ \$(grep -c '^map id .*: Operation not permitted' '$f') -eq $(wc -w <<<"$ids") ] &&
			 grep -q '^BPF_MAP_GET_NEXT_ID: Operation not permitted' '$f'"
	check "$who cannot list the pin directory nor open the array of arrays there (0700: EACCES)" \
		bash -c "grep -q '^listing the pin directory: Permission denied' '$f' &&
			 grep -q '^the pin self_arrays by BPF_OBJ_GET: Permission denied' '$f' &&
			 ! grep -q '^the pin .*: opened' '$f'"
	check "$who's fd maps for reading only, writes nothing (mmap, mprotect, bpf(), write())" \
		bash -c "grep -q '^mmap for writing: Operation not permitted' '$f' &&
			 grep -q '^mprotect to write: Permission denied' '$f' &&
			 grep -q '^bpf() update: Operation not permitted' '$f' &&
			 grep -q '^write(): Invalid argument' '$f'"
}
spied nobody "$TMP/nbspy.out" "$tnb" "$tu2" 65534
spied "$u2" "$TMP/u2spy.out" "$tu2" "$tnb" "$uid2"

kill -TERM "$DPID"
wait "$DPID"
check "SIGTERM: exit 0, socket and pin gone" bash -c "[ $? -eq 0 ] && [ ! -e '$S' ] && [ ! -e '$PIN' ]"
finish
