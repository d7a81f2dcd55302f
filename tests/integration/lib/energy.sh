# Sourced by tests/integration/lib.sh (its functions and variables are
# in scope): energy: a fake powercap tree advancing in the background, and the
# partitions of a recording's energy.

# fake_rapl DIR WATTS [ARGS...]: a powercap tree advancing at WATTS per
# package in the background, ready when this returns
fake_rapl() {
	local dir=$1
	mkdir -p "$dir"
	# real-time priority: a starved helper would lag and then catch up,
	# moving energy between intervals (and past the ends of a run)
	if command -v chrt >/dev/null; then
		chrt -f 50 "$TOOLS/fake-rapl" "$@" &
	else
		"$TOOLS/fake-rapl" "$@" &
	fi
	BG_PIDS+=($!)
	local e0 e
	for _ in $(seq 200); do
		[ -e "$dir/.ready" ] && break
		sleep 0.01
	done
	[ -e "$dir/.ready" ] || { echo "FAIL  fake-rapl did not start"; FAILS=$((FAILS + 1)); return 1; }
	# and its writer is running: a baseline read before a starved writer's
	# first update would give the first intervals energy from before it
	e0=$(cat "$dir/intel-rapl:0/energy_uj")
	for _ in $(seq 200); do
		e=$(cat "$dir/intel-rapl:0/energy_uj")
		[ "$e" != "$e0" ] && return 0
		sleep 0.01
	done
	echo "FAIL  fake-rapl's energy does not advance"
	FAILS=$((FAILS + 1))
	return 1
}

# energy_partitions FILE SCOPE...: in every interval of a --json-rows recording,
# the energy rows of each SCOPE add up to the system row's (1e-6)
energy_partitions() {
	local f=$1
	shift
	"$PY3" - "$f" "$@" <<'PY'
import json, sys, collections
by = collections.defaultdict(lambda: collections.defaultdict(float))
for l in open(sys.argv[1]):
    r = json.loads(l)
    by[r["interval"]][r["scope"]] += r["energy_j"]
bad = 0
for t, s in sorted(by.items()):
    for scope in sys.argv[2:]:
        if abs(s[scope] - s["system"]) > 1e-6 * max(1, s["system"]):
            print(f"FAIL  t={t}: {scope} rows {s[scope]:.9f} J != system {s['system']:.9f} J")
            bad += 1
print(f"      {len(by)} intervals, each partition adds up to the system energy" if not bad else "")
sys.exit(bad != 0)
PY
}

# fake_hwmon DIR KIND ARGS...: a fake hwmon tree (fake_hwmon.py) in the
# background, at real-time priority as fake_rapl, ready when this returns
fake_hwmon() {
	local dir=$1
	mkdir -p "$dir"
	if command -v chrt >/dev/null; then
		chrt -f 50 "$PY3" "$(dirname "${BASH_SOURCE[0]}")/../fake_hwmon.py" "$@" &
	else
		"$PY3" "$(dirname "${BASH_SOURCE[0]}")/../fake_hwmon.py" "$@" &
	fi
	BG_PIDS+=($!)
	for _ in $(seq 300); do
		[ -e "$dir/.ready" ] && return 0
		sleep 0.01
	done
	echo "FAIL  fake_hwmon.py did not start"
	FAILS=$((FAILS + 1))
	return 1
}

# in_hwmon DIR CMD...: CMD where /sys/class/hwmon is DIR (lib/in_hwmon.sh)
in_hwmon() {
	"$(dirname "${BASH_SOURCE[0]}")/in_hwmon.sh" "$@"
}
