# Sourced by tests/integration/lib.sh (its functions and variables are
# in scope): the daemon: started in the background, a stat attached to it, and a
# Prometheus server that scrapes it.

# serve_start SOCKET LOG ARGS...: emon-perf serve in the background on
# SOCKET (its stderr to LOG); $DPID, in BG_PIDS; returns once it says it
# serves (a socket left by a killed daemon is there before that), 1 if
# it ended instead
serve_start() {
	local sock=$1 log=$2
	shift 2
	"$EMON" serve --socket "$sock" "$@" 2>>"$log" &
	DPID=$!
	BG_PIDS+=($DPID)
	for _ in $(seq 500); do
		grep -q "serving .* pid $DPID:" "$log" && return 0
		[ -d /proc/$DPID ] || break
		sleep 0.02
	done
	echo "FAIL  the daemon did not start:"
	FAILS=$((FAILS + 1))
	cat "$log"
	return 1
}

# free_port: a TCP port free on 127.0.0.1 now
free_port() {
	"$PY3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# prom_conf FILE METRICS_PORT: a Prometheus config in FILE that scrapes
# the daemon on 127.0.0.1:METRICS_PORT every second (job "emon")
prom_conf() {
	cat >"$1" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: emon
    static_configs:
      - targets: ["127.0.0.1:$2"]
EOF
}

# prom_start PORT CONFIG: a Prometheus server (Debian prometheus) on
# 127.0.0.1:PORT with the config file CONFIG, its data and log under
# $TMP, in BG_PIDS as $PROM_PID; returns once it is ready (1 if not
# within 60 s)
prom_start() {
	local port=$1 conf=$2
	prometheus --config.file="$conf" --storage.tsdb.path="$TMP/tsdb-$port" \
		--web.listen-address=127.0.0.1:$port >"$TMP/prom-$port.log" 2>&1 &
	PROM_PID=$!
	BG_PIDS+=($PROM_PID)
	for _ in $(seq 600); do
		curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null && return 0
		[ -d /proc/$PROM_PID ] || break
		sleep 0.1
	done
	echo "FAIL  prometheus did not start:"
	FAILS=$((FAILS + 1))
	tail -5 "$TMP/prom-$port.log"
	return 1
}

# attached_burn SOCKET DPID WHAT: a stat attached to the daemon DPID on
# SOCKET counts a 0.3 s burner in a cgroup of its own; two checks: it
# attached, and the cgroup's cpu-clock matches cpu.stat for the same
# window within 2% (+ steal + untraced time). Two truths: cpu-clock is
# the clock, cpu.stat the scheduler's runtime, and on a busy machine the
# clock runs ahead for a burner preempted often (0.60% in make
# test-loaded, 0.9-1.6% under two suites at once, with no steal seen)
attached_burn() {
	local sock=$1 dpid=$2 what=$3 c uc0 st0 uc steal unt
	c=$(cg_new "burn$RANDOM")
	uc0=$(cg_usage_ns "$c") st0=$(steal_ns)
	"$EMON" stat -e cpu-clock -G "$c" --json-rows -o "$TMP/burn.jsonl" --socket "$sock" -- \
		sh -c "$(declare -f cg_run); CGROOT=$CGROOT; cg_run $c $BURN 0.3" 2>"$TMP/burn.err"
	uc=$(($(cg_usage_ns "$c") - uc0)) steal=$(($(steal_ns) - st0))
	check "$what: a stat attaches" grep -q "attached to the daemon (pid $dpid" "$TMP/burn.err"
	unt=$(untraced_ns "$TMP/burn.jsonl")
	check "$what: the cgroup vs cpu.stat within 2% (+ steal + untraced)" near_steal \
		"$(jrow "$TMP/burn.jsonl" cgroup "$c" cpu-clock)" "$uc" 2 $((steal + unt))
}

# two_tenants GROUP USER_A USER_B: a group and two users in it made for
# the test (it skips, saying why, where they cannot be), gone at exit
# with their processes; then $gid is the group's, as USER CMD... runs CMD
# as one of them, and $TMP is readable by them
two_tenants() {
	command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
	command -v useradd >/dev/null || skip "no useradd"
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ] ||
		skip "perf_event_paranoid <= 0: every user may count CPU-wide here"
	TENANT_GRP=$1 TENANTS=("$2" "$3")
	groupadd -f "$1" 2>/dev/null || skip "cannot add a group (groupadd)"
	trap 'for u in "${TENANTS[@]}"; do pkill -KILL -u "$u" 2>/dev/null; done; cleanup
		for u in "${TENANTS[@]}"; do userdel -f "$u" 2>/dev/null; done
		groupdel "$TENANT_GRP" 2>/dev/null' EXIT
	useradd -M -N -g "$1" -s /bin/false "$2" 2>/dev/null &&
		useradd -M -N -g "$1" -s /bin/false "$3" 2>/dev/null || skip "cannot add a user (useradd)"
	gid=$(getent group "$1" | cut -d: -f3)
	chmod 755 "$TMP"
	as() { local u=$1; shift; setpriv --reuid="$(id -u "$u")" --regid="$gid" --init-groups "$@"; }
}
