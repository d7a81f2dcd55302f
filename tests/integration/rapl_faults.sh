#!/usr/bin/env bash
# RAPL faults with a fake powercap tree advancing at 20 W (tools/fake-rapl,
# paused with SIGSTOP while the fault is put in place and for 0.6 s, then
# resumed: it rewrites energy_uj with the right value): the package's
# energy_uj vanishing, replaced by a directory (unreadable even by root,
# which chmod 000 is not), holding garbage, or jumping back to a small
# number (a reset, not a wrap: fake-rapl started afresh from 1000 uJ, the
# counter counting on from there as after a firmware or driver reset); the
# whole zone vanishing for good; a counter that wraps when
# max_energy_range_uj cannot be read. Each run
# reads every 250 ms for 4 s, the fault lasting 0.6 s from 1 s. For every
# fault: the run goes on and exits 0; a warning on stderr names the
# problem (two at most: no spam; a missing max_energy_range_uj is said at
# the start); no energy is invented: no interval has more than 20 W x its
# length (with a slack for late reads in a busy VM: invented readings are
# far above it), the total is at most 20 W x the run and equals 20 W x
# the intervals that have energy (5% + 6 J: late reads at the edges); the
# affected intervals are few and energy comes back after the fault
# (except when the zone is gone for good).
. "$(dirname "$0")/lib.sh"

W=20
pkg=intel-rapl:0
n=0
# fault NAME ACTION RESTORE [FAKE-RAPL ARGS...]: one run with that fault
fault() {
	local name=$1 action=$2 restore=$3 dir=$TMP/pc$n out=$TMP/f$n.jsonl err=$TMP/f$n.err
	shift 3
	n=$((n + 1))
	fake_rapl "$dir" $W --period-ms 1 "$@" || return
	local fpid=${BG_PIDS[-1]}
	# a starved fake-rapl leaves stale values: keep it on time
	chrt -f -p 10 "$fpid" >/dev/null 2>&1
	[ "$name" = "wrap, max_energy_range_uj unreadable" ] && rm "$dir/$pkg/max_energy_range_uj"
	"$EMON" stat -a -e cpu-clock --energy powercap --powercap-root "$dir" --by system,socket \
		-I 250 --timeout 4000 --json-rows -o "$out" 2>"$err" &
	local pid=$!
	wait_attached $pid
	sleep 1
	local f=$dir/$pkg/energy_uj
	if [ "$action" != : ]; then
		kill -STOP "$fpid"
		eval "$action"
		sleep 0.6
		eval "$restore"
		kill -CONT "$fpid" 2>/dev/null
	fi
	wait $pid
	check "$name: the run goes on and exits 0" [ $? -eq 0 ]
	kill "$fpid" 2>/dev/null
	wait "$fpid" 2>/dev/null
	sed 's/^/      | /' "$err"
	local nw
	nw=$(grep -c 'energy' "$err")
	check "$name: a warning on stderr, no spam ($nw lines)" [ "$nw" -ge 1 -a "$nw" -le 2 ]
	check "$name: nothing else on stderr" [ "$(grep -vc 'energy' "$err")" -eq 0 ]
	"$PY3" - "$out" $W "$name" <<'PY'
import json, sys, math
f, w, name = sys.argv[1], float(sys.argv[2]), sys.argv[3]
rows = sorted((json.loads(l) for l in open(f) if json.loads(l)["scope"] == "system"),
              key=lambda r: r["interval"])
prev = total = valid_t = elapsed = 0.0
invented = null = back = 0
for r in rows:
    t = r["interval"]
    dt, prev = t - prev, t
    elapsed += dt
    e = r.get("energy_j")
    if e is None or (isinstance(e, float) and math.isnan(e)):
        null += 1
        back = 0
        continue
    total += e
    valid_t += dt
    back += null > 0
    # the energy is read a little after the interval's timestamp, and in a
    # busy VM (steal) the fake tree and the reads both run late: 20% + 4 J
    # (200 ms at 20 W) of slack; an invented reading is far above that
    if e > w * dt * 1.20 + 4.0:
        print(f"      t={t:.3f}: {e:.3f} J in {dt * 1e3:.1f} ms: more than 20 W gives ({w * dt:.3f} J)")
        invented += 1
per = []
p = 0.0
for r in rows:
    e = r.get("energy_j")
    per.append("-" if e is None else f"{e / (r['interval'] - p):.1f}")
    p = r["interval"]
print(f"      watts per interval ('-' no energy): {' '.join(per)}")
print(f"      {name}: {len(rows)} intervals, {null} without energy; {total:.3f} J measured; "
      f"20 W x {valid_t:.3f} s with energy = {w * valid_t:.3f} J; 20 W x {elapsed:.3f} s run = {w * elapsed:.3f} J")
# a stretch of intervals with energy starts and ends with a read that
# may come late (see above): 5% + 6 J (300 ms at 20 W) for the edges
ok_total = total <= w * elapsed * 1.03 + 1 and abs(total - w * valid_t) <= 0.05 * w * valid_t + 6
open(f + ".res", "w").write(f"{int(invented == 0)} {int(ok_total)} {null} {back}\n")
PY
	read -r each total nulls back <"$out.res"
	check "$name: no interval has more than 20 W x its length (nothing invented)" [ "$each" = 1 ]
	check "$name: total <= 20 W x run, = 20 W x the intervals with energy (5% + 6 J)" [ "$total" = 1 ]
	if [ "$name" = "zone gone for good" ]; then
		check "$name: no energy from the fault on ($nulls intervals), none comes back" [ "$nulls" -ge 8 -a "$back" -eq 0 ]
	elif [ "$name" = "wrap, max_energy_range_uj unreadable" ]; then
		# two wraps: the interval with one has no energy, no other
		check "$name: one interval without energy per wrap (2 wraps: $nulls)" [ "$nulls" -ge 1 -a "$nulls" -le 3 ]
	else
		check "$name: some intervals have no energy, not all ($nulls)" [ "$nulls" -ge 1 -a "$nulls" -le 8 ]
		check "$name: energy comes back after the fault ($back intervals after the last gap)" [ "$back" -ge 3 ]
	fi
	if [ "$name" = "wrap, max_energy_range_uj unreadable" ]; then
		check "$name: the start warns that wraps cannot be told from errors" grep -q max_energy_range_uj "$err"
	fi
	if [ "$name" = "energy_uj jumps back (a reset, not a wrap)" ]; then
		check "$name: the warning names the file and says reset" grep -q "$pkg/energy_uj: .*counter reset" "$err"
	fi
}

fault "energy_uj vanishes" 'rm -f "$f"' ':'
fault "energy_uj becomes a directory" 'rm -f "$f"; mkdir "$f"' 'rmdir "$f"'
fault "garbage in energy_uj" 'echo "garbage" >"$f.g"; mv "$f.g" "$f"' ':'
# (not 1000 written over the paused tree: fake-rapl would then put the old
# count back, a second jump of tens of J a real 20 W package could draw)
fault "energy_uj jumps back (a reset, not a wrap)" \
	'kill -KILL "$fpid"; wait "$fpid" 2>/dev/null; rm -f "$dir/.ready"
	fake_rapl "$dir" $W --period-ms 1 --start-uj 1000 && fpid=${BG_PIDS[-1]}
	chrt -f -p 10 "$fpid" >/dev/null 2>&1' ':'
fault "zone gone for good" 'rm -rf "${f%/energy_uj}"' 'kill -KILL $fpid'
# a 60 J range from 59 J: the counter wraps at 0.05 s and 3.05 s (reads
# must come at least once a lap, 3 s: room for a busy VM's late reads)
fault "wrap, max_energy_range_uj unreadable" ':' ':' --max-range 60000000 --start-uj 59000000
finish
