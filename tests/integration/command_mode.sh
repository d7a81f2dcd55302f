#!/usr/bin/env bash
# Command mode: the whole tree of the command is counted, children
# included, exited or not, and the command's exit status comes back.
. "$(dirname "$0")/lib.sh"

# a parent and a child that exits first, each burning a known 0.4 s
"$EMON" stat -e cpu-clock,context-switches -j -o "$TMP/out.jsonl" -- \
	sh -c "$BURN 0.4 & $BURN 0.4; wait; exit 7"
check "the command's exit status (7) comes back" [ $? -eq 7 ]
e=$(jrow "$TMP/out.jsonl" command "$(python3 -c "
import json; print([json.loads(l)['key'] for l in open('$TMP/out.jsonl')][0])")" cpu-clock)
echo "      command cpu-clock: $e ns for 0.8 s of known work"
# cpu-clock (wall time on a CPU) and CPU time differ by a few percent in
# a busy VM (see README, "Reading the numbers"): 0.97x .. 1.10x
check "both processes counted: >= 0.8 s - 3%" [ "$e" -ge 776000000 ]
check "and nothing else: <= 0.8 s + 10%" [ "$e" -le 880000000 ]

# an orphan: its parent sh exits without waiting; it finishes first
"$EMON" stat -e cpu-clock -j -o "$TMP/out2.jsonl" -- sh -c "( $BURN 0.3 & ); $BURN 0.6"
e=$(python3 -c "
import json
for l in open('$TMP/out2.jsonl'):
    r = json.loads(l)
    if r['scope'] == 'command': print(r['counters']['cpu-clock'])")
echo "      command cpu-clock: $e ns for 0.9 s of known work, an orphaned grandchild included"
check "the orphaned grandchild is counted: >= 0.9 s - 3%" [ "$e" -ge 873000000 ]
check "and nothing else: <= 0.9 s + 10%" [ "$e" -le 990000000 ]

# a signal ends the command: 128 + signal
"$EMON" stat -e cpu-clock -o /dev/null -- sh -c 'kill -TERM $$'
check "a command killed by SIGTERM gives 143" [ $? -eq 143 ]
finish
