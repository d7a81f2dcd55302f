#!/usr/bin/env bash
# Signals at random moments: emon-perf is started SIGNALS_N times (15 here,
# 300 in tests/stress/signals_random.sh), system-wide or in command mode,
# and after a random 0-300 ms from its start (while it loads and attaches:
# no later than its measured attach time) or from its attach (while it
# reads every 10 ms) gets SIGINT, SIGTERM,
# SIGHUP, SIGKILL or SIGPIPE, or its output pipe is closed. Afterwards:
#  - it ended (SIGPIPE by kill is ignored: the run goes on until SIGINT),
#    with status 0 for SIGINT/SIGTERM/SIGHUP (128 + signal if it came
#    before the handlers were in place), 141 for a closed pipe, never a
#    crash (status 1, 134, 139);
#  - none of its BPF programs, maps or links is left (bpf_orphans), so no
#    perf event either (a PERF_EVENT_ARRAY holds the only other reference
#    to them);
#  - no cgroup of its own and nothing pinned or mounted under /sys/fs/bpf;
#  - in command mode, after SIGINT/SIGTERM/SIGHUP or a closed pipe, the
#    command is not left running: neither a command run directly nor the
#    children of a shell command. After SIGKILL of emon-perf the kernel
#    kills the command's first process (PR_SET_PDEATHSIG), so a command
#    run directly is gone; a shell's children go on (orphaned; nothing can
#    stop them): the test says what happened, checks they hold no
#    perf_event or BPF fd, and kills them.
# Then the command-mode cases one by one, after attach: a command run
# directly, a shell's children after SIGTERM and after SIGINT (a shell
# waiting for a child that did not get the SIGINT waits on: only the
# children's end ends it), a command that ignores SIGINT and SIGTERM (a
# second signal ends emon-perf: SIGTERM to the command, SIGKILL 2 s later,
# nothing left), SIGKILL (what is left).
# emon-perf starts with SIGINT at its default, as from an interactive
# shell (a script's background job inherits it ignored, and a SIGINT that
# came before emon-perf's handler would be lost).
. "$(dirname "$0")/lib.sh"

N=${SIGNALS_N:-15}
seed=${SIGNALS_SEED:-$$}
RANDOM=$seed
echo "      $N runs, SIGNALS_SEED=$seed to repeat them"
base=$(bpf_max_ids)
# emon-perf's own cgroups (check makes /emon-check-PID): what other
# software on this host makes meanwhile (a runtime's containers) is not
# ours to judge, nor are the tests' (emon-test-*, emon-bench-*, emon-load-*)
own_cgs() { cg_tree | grep 'emon' | grep -vE '^\./emon-(test|bench|load)-'; }
cg_before=$(own_cgs)
# (other test runs' pins, emon-test-*, emon-tenants-*, emon-nobody-*, aside)
pins() { ls -A /sys/fs/bpf 2>/dev/null | grep -vE '^emon-(test|tenants|nobody)-'; }
pins_before=$(pins)
bpffs_before=$(grep -c ' bpf ' /proc/mounts)
mkfifo "$TMP/fifo"
# how long emon-perf takes to attach here: kills meant for the load phase
# come within it (and within 300 ms)
t0=$EPOCHREALTIME
"$EMON" stat --energy none -e cpu-clock,context-switches -a -o /dev/null &
wait_attached $!
load_ms=$("$PY3" -c "print(max(1, min(300, int(($EPOCHREALTIME - $t0) * 1000))))")
kill -INT $!
wait $!
echo "      emon-perf attaches in about $load_ms ms here (300 at most is used)"

declare -A runs=() bad_rc=() bad_left=() cmd_left=()
survivors=0 survivor_fds=0 direct_survivors=0 phases_attached=0 phases_loading=0
sigs=(INT TERM HUP KILL PIPE CLOSE)
for i in $(seq "$N"); do
	sig=${sigs[RANDOM % ${#sigs[@]}]}
	mode=$((RANDOM % 3))	# 0 system-wide, 1 a command, 2 a shell command with children
	after_attach=$((RANDOM % 10 < 3))
	if [ "$after_attach" = 1 ]; then
		delay=$(printf '0.%03d' $((RANDOM % 300)))
	else
		delay=$(printf '0.%03d' $((RANDOM % load_ms)))
	fi
	mark=$((700000 + i * 10 + RANDOM % 10))	# sleep arguments nobody else uses
	# the counts on stdout: a closed pipe is the reader's
	args=(stat --energy none -e cpu-clock,context-switches -o /dev/stdout)
	# reading every 10 ms: the read path is hit, and a closed pipe is seen
	[ "$after_attach" = 1 ] || [ "$sig" = CLOSE ] && args+=(-I 10)
	case $mode in
	0) args+=(-a) ;;
	1) args+=(-- sleep "$mark") ;;
	2) args+=(-- sh -c "sleep $((mark + 1)) & sleep $mark; wait") ;;
	esac
	if [ "$sig" = CLOSE ]; then
		# the reader opens the fifo, reads nothing and goes after the delay
		(exec 3<"$TMP/fifo"; sleep 0.3; [ "$after_attach" = 1 ] && sleep 0.3; sleep "$delay") &
		reader=$!
		env --default-signal=INT "$EMON" "${args[@]}" >"$TMP/fifo" 2>"$TMP/err" &
		pid=$!
	else
		env --default-signal=INT "$EMON" "${args[@]}" >"$TMP/out" 2>"$TMP/err" &
		pid=$!
		[ "$after_attach" = 1 ] && wait_attached $pid
		sleep "$delay"
		if grep -q '^link_id:' /proc/$pid/fdinfo/* 2>/dev/null; then
			phases_attached=$((phases_attached + 1))
		else
			phases_loading=$((phases_loading + 1))
		fi
		kill -$sig $pid 2>/dev/null
		if [ "$sig" = PIPE ]; then
			# ignored by design (EPIPE on write ends the run instead)
			sleep 0.2
			if [ -d /proc/$pid ] && ! grep -q '^State:.*Z' /proc/$pid/status; then
				kill -INT $pid
			else
				echo "      run $i: SIGPIPE by kill ended emon-perf"
			fi
		fi
	fi
	key="${sig}/$([ $mode -eq 0 ] && echo system || echo command)"
	runs[$key]=$((${runs[$key]:-0} + 1))
	# it must end by itself within 3 s (the command mode waits for the command)
	for _ in $(seq 60); do [ -d /proc/$pid ] && ! grep -q '^State:.*Z' /proc/$pid/status 2>/dev/null || break; sleep 0.05; done
	if [ -d /proc/$pid ] && ! grep -q '^State:.*Z' /proc/$pid/status 2>/dev/null; then
		echo "      run $i ($key, delay $delay, after attach $after_attach, mode $mode): still running 3 s later"
		bad_rc[$key]=$((${bad_rc[$key]:-0} + 1))
		kill -KILL $pid
	fi
	wait $pid
	rc=$?
	[ "$sig" = CLOSE ] && wait $reader 2>/dev/null
	case $sig in
	INT | TERM | HUP) ok_rc="0 $((128 + $(kill -l $sig)))" ;;	# 128 + n: before the handlers
	PIPE) ok_rc="0 130 141" ;;	# ignored, then SIGINT
	KILL) ok_rc=137 ;;
	CLOSE) ok_rc=141 ;;	# EPIPE ends the run as SIGPIPE would
	esac
	if [[ " $ok_rc " != *" $rc "* ]]; then
		echo "      run $i ($key, delay $delay, after attach $after_attach, mode $mode): status $rc (expected one of $ok_rc)"
		sed 's/^/      | /' "$TMP/err" | head -3
		bad_rc[$key]=$((${bad_rc[$key]:-0} + 1))
	fi
	left=$(bpf_orphans "$base")
	if [ -n "$left" ]; then
		echo "      run $i ($key): left behind: $(echo $left)"
		bad_left[$key]=$((${bad_left[$key]:-0} + 1))
	fi
	if [ $mode -ne 0 ]; then
		still=
		for _ in $(seq 20); do
			still=$(pgrep -f "^sleep ($mark|$((mark + 1)))\$")
			[ -z "$still" ] && break
			sleep 0.1
		done
		if [ -n "$still" ]; then
			if [ "$sig" = KILL ]; then
				survivors=$((survivors + 1))
				[ $mode -eq 1 ] && direct_survivors=$((direct_survivors + 1))
				for p in $still; do
					[ "$(perf_fds "$p")" -gt 0 ] || [ "$(bpf_fds "$p")" -gt 0 ] &&
						survivor_fds=$((survivor_fds + 1))
				done
			else
				echo "      run $i ($key, mode $mode): the command is still running: $(ps -o pid=,args= -p "$(echo $still | tr ' ' ,)" | tr '\n' ';')"
				cmd_left[$key/mode$mode]=$((${cmd_left[$key/mode$mode]:-0} + 1))
			fi
			kill -KILL $still 2>/dev/null
		fi
	fi
done

echo "      kills landed while loading: $phases_loading, after attach: $phases_attached (closed pipes not counted)"
for key in $(printf '%s\n' "${!runs[@]}" | sort); do
	check "$key x${runs[$key]}: ended with the expected status" [ "${bad_rc[$key]:-0}" -eq 0 ]
	check "$key x${runs[$key]}: no BPF program, map or link left" [ "${bad_left[$key]:-0}" -eq 0 ]
done
for key in $(printf '%s\n' "${!cmd_left[@]}" | sort); do
	check "$key: the command is not left running (${cmd_left[$key]} runs left it)" false
done
[ ${#cmd_left[@]} -eq 0 ] && check "command mode: the command never left running after SIGINT/SIGTERM/SIGHUP/closed pipe" true
echo "      SIGKILL in command mode: the command survived (orphaned) in $survivors runs"
check "an orphaned command holds no perf_event or BPF fd" [ "$survivor_fds" -eq 0 ]
check "SIGKILL of emon-perf: a command run directly does not survive it ($direct_survivors runs)" \
	[ "$direct_survivors" -eq 0 ]
# command mode, one case at a time, 0.3 s after attach
cmd_start() { # ARGS...: emon-perf in $pid, attached
	env --default-signal=INT "$EMON" stat --energy none -e cpu-clock -o "$TMP/out" "$@" 2>"$TMP/err" &
	pid=$!
	wait_attached $pid
	sleep 0.3
}
ended_within() { # SECONDS: emon-perf ($pid) has exited within that time
	for _ in $(seq $(($1 * 20))); do
		grep -q '^State:.*Z' /proc/$pid/status 2>/dev/null || [ ! -d /proc/$pid ] && return 0
		sleep 0.05
	done
	return 1
}
left_running() { # PATTERN: processes still running 1 s later (then killed)
	local still
	for _ in $(seq 10); do
		still=$(pgrep -f "$1")
		[ -z "$still" ] && return 1
		sleep 0.1
	done
	echo "      left running: $(ps -o pid=,ppid=,args= -p "$(echo $still | tr ' ' ,)" | tr '\n' ';')"
	kill -KILL $still 2>/dev/null
	return 0
}
none_left() { ! left_running "$@"; }
m=$((800000 + RANDOM % 1000 * 10))
cmd_start -- sleep $m
kill -TERM $pid
check "command mode, SIGTERM, a command run directly: emon-perf ends" ended_within 5
wait $pid
check "command mode, SIGTERM, a command run directly: its status 143" [ $? -eq 143 ]
check "command mode, SIGTERM, a command run directly: not left running" none_left "^sleep $m\$"

for sig in TERM INT; do
	m=$((m + 2))
	cmd_start -- sh -c "sleep $((m + 1)) & sleep $m; wait"
	kill -$sig $pid
	check "command mode, SIG$sig, a shell with children: emon-perf ends" ended_within 5
	kill -KILL $pid 2>/dev/null; wait $pid
	check "command mode, SIG$sig, a shell with children: none left running" none_left "^sleep ($m|$((m + 1)))\$"
done

cat >"$TMP/ignore.py" <<'PY'
import signal, time
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
time.sleep(30)
PY
cmd_start -- /usr/bin/python3 "$TMP/ignore.py"
kill -INT $pid
sleep 0.3
kill -INT $pid
# the second SIGINT ends emon-perf, which gives the command SIGTERM and,
# as it ignores that too, SIGKILL 2 s later: 2 s and a bit
check "command mode, a command ignoring SIGINT/SIGTERM: a second SIGINT ends emon-perf within 3 s" ended_within 3
kill -KILL $pid 2>/dev/null; wait $pid
check "command mode, a command ignoring SIGINT/SIGTERM: not left running" none_left "^/usr/bin/python3 $TMP/ignore.py"

m=$((m + 2))
cmd_start -- sh -c "sleep $((m + 1)) & sleep $m; wait"
kill -KILL $pid
wait $pid
check "SIGKILL of emon-perf in command mode: the command's shell is killed with it" \
	none_left "^sh -c sleep $((m + 1)) & sleep $m; wait\$"
if left=$(left_running "^(sh -c )?sleep ($m|$((m + 1)))"); then
	echo "      SIGKILL of emon-perf in command mode: the command goes on, orphaned (then killed here)"
	echo "$left"
else
	echo "      SIGKILL of emon-perf in command mode: the command ended too"
fi

new_cg=$(diff <(echo "$cg_before") <(own_cgs) | grep '^>' || true)
[ -n "$new_cg" ] && echo "      new cgroups: $new_cg"
check "no cgroup of its own left" [ -z "$new_cg" ]
check "nothing pinned under /sys/fs/bpf" [ "$(pins)" = "$pins_before" ]
check "no bpffs mounted" [ "$(grep -c ' bpf ' /proc/mounts)" -eq "$bpffs_before" ]
finish
