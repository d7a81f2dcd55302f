#!/usr/bin/env bash
# Command mode: the whole tree of the command is counted, children
# included, exited or not, and the command's exit status comes back.
. "$(dirname "$0")/lib.sh"

# tree_vs_rusage FILE WHAT: the command row's cpu-clock in FILE against
# the tree's CPU time from the kernel ($TMP/rusage, RUSAGE_RUN in lib.sh)
# within 3% + steal + untraced time: cpu-clock is wall time on a CPU,
# which in a busy VM includes interrupt time that the scheduler's
# accounting leaves out (docs/stat.md, "Reading the numbers"). On a
# failure: the run's rows, and its -v log (every read: its flush, a CPU whose
# clock fell short, untraced slices) with its warnings
tree_vs_rusage() {
	local e ru unt sys ir
	e=$(jcommand "$1" cpu-clock)
	ru=$(cat "$TMP/rusage") unt=$(untraced_ns "$1")
	# the interrupts that fell on the tree, in proportion (lib/steal.sh)
	sys=$(jrow "$1" system all cpu-clock) ir=$(steal_part "$irq" "$e" "$sys")
	echo "      command cpu-clock $e ns, the tree's rusage $ru ns; steal $((steal / 1000)) us, untraced $((unt / 1000)) us, its part of the interrupts $((ir / 1000)) us"
	check "$2: the command row matches the tree's rusage within 3% (+ steal + untraced + its part of the interrupts)" \
		near_steal "$e" "$ru" 3 $((steal + unt + ir)) || tree_rows "$1"
}

# a parent and a child that exits first
st0=$(steal_ns) irq0=$(irq_ns)
"$EMON" stat -v -e cpu-clock,context-switches --by system,cpu,process --json-rows -o "$TMP/out.jsonl" 2>"$TMP/err1" -- \
	"${RUSAGE_RUN[@]}" "$TMP/rusage" sh -c "$BURN 0.4 & $BURN 0.4; wait; exit 7"
check "the command's exit status (7) comes back" [ $? -eq 7 ]
steal=$(($(steal_ns) - st0)) irq=$(($(irq_ns) - irq0))
tree_vs_rusage "$TMP/out.jsonl" "a parent and its child" || sed 's/^/      stderr: /' "$TMP/err1"

# an orphan: its parent sh exits without waiting, and it is reparented
# (to RUSAGE_RUN's wrapper, a subreaper, so that its rusage is known)
st0=$(steal_ns) irq0=$(irq_ns)
"$EMON" stat -v -e cpu-clock --by system,cpu,process --json-rows -o "$TMP/out2.jsonl" 2>"$TMP/err2" -- \
	"${RUSAGE_RUN[@]}" "$TMP/rusage" sh -c "( $BURN 0.3 & ); $BURN 0.6"
steal=$(($(steal_ns) - st0)) irq=$(($(irq_ns) - irq0))
tree_vs_rusage "$TMP/out2.jsonl" "an orphaned grandchild included" || sed 's/^/      stderr: /' "$TMP/err2"

# an exec from a thread other than the leader: that thread becomes the
# group leader (de_thread()), and the process stays in its tree
st0=$(steal_ns) irq0=$(irq_ns)
"$EMON" stat -v -e cpu-clock --by system,cpu,process --json-rows -o "$TMP/out3.jsonl" 2>"$TMP/err3" -- \
	"${RUSAGE_RUN[@]}" "$TMP/rusage" "$PY3" -c "
import os, threading
threading.Thread(target=os.execv, args=('$BURN', ['$BURN', '0.3'])).start()
threading.Event().wait()"
steal=$(($(steal_ns) - st0)) irq=$(($(irq_ns) - irq0))
tree_vs_rusage "$TMP/out3.jsonl" "a process that execs from a thread other than its leader" ||
	sed 's/^/      stderr: /' "$TMP/err3"

# a signal ends the command: 128 + signal
"$EMON" stat -e cpu-clock -o /dev/null -- sh -c 'kill -TERM $$'
check "a command killed by SIGTERM gives 143" [ $? -eq 143 ]

# How the command ends with emon-perf (front/command.c). With no terminal
# on stdin, stdout or stderr (</dev/null and files here, whatever runs the
# tests), the command has a process group of its own and signals reach
# all of it.
running() { # PATTERN: live (not zombie) processes whose command line matches
	local p
	for p in $(pgrep -f "$1"); do
		grep -q '^State:.*Z' /proc/"$p"/status 2>/dev/null || echo "$p"
	done
}
gone_within() { # MS PID PATTERN: PID ended and nothing matches PATTERN
	local t0=${EPOCHREALTIME/./} left
	while [ $((${EPOCHREALTIME/./} - t0)) -le $(($1 * 1000)) ]; do
		if [ ! -d /proc/"$2" ] || grep -q '^State:.*Z' /proc/"$2"/status 2>/dev/null; then
			left=$(running "$3")
			if [ -z "$left" ]; then
				echo "      gone after $(((${EPOCHREALTIME/./} - t0) / 1000)) ms"
				return 0
			fi
		fi
		sleep 0.02
	done
	echo "      still there: $(ps -o pid=,stat=,args= -p "$(echo $2 $(running "$3") | tr ' ' ,)" | tr '\n' ';')"
	kill -KILL $(running "$3") 2>/dev/null
	return 1
}
m=$((900000 + RANDOM % 1000 * 10))	# sleep arguments nobody else uses

# SIGTERM to emon-perf: the shell and both its children end
"$EMON" stat --energy none -e cpu-clock -o /dev/null -- \
	sh -c "sleep $m & sleep $((m + 1)); wait" </dev/null 2>"$TMP/err" &
pid=$!
wait_attached $pid
for _ in $(seq 250); do
	[ "$(running "^sleep ($m|$((m + 1)))\$" | wc -l)" -eq 2 ] && break
	sleep 0.02
done
kill -TERM $pid
check "SIGTERM, sh -c 'sleep & sleep; wait': emon-perf and both sleeps gone within 3 s" \
	gone_within 3000 $pid "^(sh -c )?sleep ($m|$((m + 1)))"
wait $pid
check "SIGTERM, sh -c 'sleep & sleep; wait': the shell's status 143 comes back" [ $? -eq 143 ]

# a command that ignores SIGTERM, cut by --timeout: SIGKILL 2 s later, so
# 2.5 s after the start, 3.5 s allowing for a loaded machine
m=$((m + 2))
"$EMON" stat --energy none -e cpu-clock --timeout 500 -o /dev/null -- \
	sh -c "trap '' TERM; sleep $m" </dev/null 2>"$TMP/err" &
pid=$!
wait_attached $pid
check "--timeout 500, a command ignoring SIGTERM: emon-perf and the command gone within 3.5 s" \
	gone_within 3500 $pid "^(sh -c trap '' TERM; )?sleep $m\$"
wait $pid

# A terminal on stdin: the command stays in emon-perf's process group (a
# group of its own could not read the terminal), and Ctrl-C, which the
# terminal sends to that whole group, reaches it once, not a second time
# from emon-perf. Its status (how many SIGINTs it got) comes back.
"$PY3" - "$EMON" >"$TMP/tty.txt" 2>&1 <<'PY'
import os, pty, re, select, sys, time
cmd = [sys.argv[1], "stat", "--energy", "none", "-e", "cpu-clock", "-o", "/dev/null", "--",
       sys.executable, "-c", """
import os, signal, sys, time
n = 0
def on_int(sig, frame):
    global n
    n += 1
signal.signal(signal.SIGINT, on_int)
print("groups", os.getpgrp(), os.getpgid(os.getppid()), flush=True)
end = time.time() + 1.5
while time.time() < end:
    time.sleep(0.02)
sys.exit(n)
"""]
pid, fd = pty.fork()
if pid == 0:
    os.execv(cmd[0], cmd)
out, sent, end = b"", False, time.time() + 20
while time.time() < end:
    if select.select([fd], [], [], 0.1)[0]:
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        out += d
    if not sent and re.search(rb"groups \d+ \d+\r?\n", out):	# the whole line
        os.write(fd, b"\x03")
        sent = True
_, st = os.waitpid(pid, 0)
# anywhere in a line: emon-perf's own output shares the terminal
text = out.decode(errors="replace")
g = re.findall(r"groups (\d+) (\d+)", text)
print("same_group", int(bool(g) and g[0][0] == g[0][1]))
if not g or g[0][0] != g[0][1]:
    print("terminal output:", repr(text[-2000:]))
print("status", os.waitstatus_to_exitcode(st))
PY
sed 's/^/      | /' "$TMP/tty.txt"
check "stdin a terminal: the command shares emon-perf's process group" grep -qx 'same_group 1' "$TMP/tty.txt"
check "stdin a terminal: Ctrl-C reaches the command once (its status 1)" grep -qx 'status 1' "$TMP/tty.txt"
finish
