#!/usr/bin/env bash
# A freed command-tree id, from a tenant's side (docs/security.md): tenant
# B's command leaves a loop running (sh -c 'loop & sleep 0.3'), B's stat
# ends and its tree id is freed. A read later (a root client asks), tenant
# A's stat gets the same id for its own sleep. A must see only its own
# process: it was shown B's processes of B's last read (B's shell, the
# loop and its sleeps), whose entries kept the id's bit when the read
# after the release added the slots BPF marked before it.
# counter pass: what it checks (which processes a tree shows) is the same
. "$(dirname "$0")/lib.sh"
grp=emontr$$ ua=emonta$$ ub=emontb$$
two_tenants "$grp" "$ua" "$ub"
W=$TMP/w	# the tenants write their recordings here
mkdir -m 1777 "$W"
printf 'import time\nwhile True:\n    time.sleep(0.0002)\n' >"$W/loop.py"
S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock --energy none --listen none \
	--socket-group "$grp" -v || exit 1

# tree_ids: the trees the daemon gave, in order (its -v lines)
tree_ids() { sed -n 's/.*following pid [0-9]* as tree \([0-9]*\).*/\1/p' "$TMP/serve.err"; }

fails=0
for round in 1 2 3; do
	n0=$(tree_ids | wc -l)
	# B: a loop that outlives its shell, switching every 0.2 ms, so that
	# it runs between B's last read and the release of B's tree
	as "$ub" timeout 20 "$EMON" stat --socket "$S" -e cpu-clock --by process --json-rows \
		-o "$W/b.$round.jsonl" -- sh -c "$PY3 $W/loop.py & echo \$! >$W/bloop.$round; sleep 0.3" \
		2>"$W/b.$round.err"
	check "round $round: B's stat exits 0" [ $? -eq 0 ]
	# a read of the daemon's between (root's snapshot): the id is free
	timeout 20 "$EMON" stat --socket "$S" -e cpu-clock -a --timeout 300 >/dev/null 2>&1
	sleep 1
	as "$ua" timeout 20 "$EMON" stat --socket "$S" -e cpu-clock --by process --json-rows \
		-o "$W/a.$round.jsonl" -- sh -c "echo \$\$ >$W/apid.$round; exec sleep 0.5" \
		2>"$W/a.$round.err"
	check "round $round: A's stat exits 0" [ $? -eq 0 ]
	kill "$(cat "$W/bloop.$round")" 2>/dev/null
	ids=$(tree_ids | tail -n +$((n0 + 1)) | tr '\n' ' ')
	echo "      round $round: tree ids given (B, A): $ids"
	apid=$(cat "$W/apid.$round")
	# every process row A got is its own command's
	others=$("$PY3" -c '
import json, sys
rows = set()
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["scope"] == "process" and str(r["key"]) != sys.argv[2]:
        rows.add("%s %s" % (r["key"], r.get("comm", "")))
print(", ".join(sorted(rows)))' "$W/a.$round.jsonl" "$apid")
	set -- $ids
	if [ "$#" -ge 2 ] && [ "$1" = "$2" ]; then
		check "round $round: A (tree $2, B's before) sees only its own process $apid (others: ${others:-none})" \
			[ -z "$others" ]
	else
		echo "      round $round: A got another id than B's ($ids): not a reuse"
		check "round $round: A sees only its own process $apid (others: ${others:-none})" [ -z "$others" ]
	fi
done
finish
