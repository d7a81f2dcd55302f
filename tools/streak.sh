#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/streak.sh N: make test N times in a row on a fresh clone of this
# repository's committed HEAD (what a new checkout builds and runs, not
# the working tree), in a temporary directory that keeps each run's log;
# then a table of the runs (wall time, how busy the machine was: its CPUs'
# busy share over the run and the load average at its end; the tests
# passed, failed and skipped, summed over tests/run.sh's summary lines)
# and one of the tests that failed, by name, across the runs. Exit 0 only
# when every run was green: make test's status 0 and no test failed.
#   STREAK_CMD  what each run runs in the clone (default: make test; a
#               shorter command to try this script)
#   STREAK_DIR  where to clone (default: a new mktemp -d)
set -u
n=${1:-}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "usage: tools/streak.sh N" >&2; exit 2; }
cmd=${STREAK_CMD:-make test}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || exit 2
dir=${STREAK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/emon-streak.XXXXXX")}
git clone -q "$repo" "$dir/src" || exit 2
echo "streak: $n x '$cmd' in $dir/src, at $(git -C "$dir/src" log --oneline -1 | cut -c1-72)"

# cpu_ticks: busy and all jiffies of every CPU so far (idle and iowait
# are not busy)
cpu_ticks() { awk '$1 == "cpu" { for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }

: >"$dir/runs"
: >"$dir/failures"
for i in $(seq "$n"); do
	log=$dir/run-$i.log
	read -r b0 t0 < <(cpu_ticks)
	s0=$SECONDS
	(cd "$dir/src" && eval "$cmd") >"$log" 2>&1
	rc=$?
	read -r b1 t1 < <(cpu_ticks)
	read -r pass fail skip < <(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped in .*/\1 \2 \3/p' "$log" |
		awk '{ p += $1; f += $2; s += $3 } END { print p + 0, f + 0, s + 0 }')
	# the tests that failed (tests/run.sh's "FAIL  NAME (exit N)"), the
	# load's own verdict, or make's status when no test said why
	{
		sed -n -e 's/^FAIL  \([^ ]*\) (exit .*/\1/p' -e 's/^test-loaded: FAIL .*/test-loaded/p' "$log" | sort -u
		[ $rc -ne 0 ] && [ "$fail" -eq 0 ] && ! grep -q '^test-loaded: FAIL' "$log" && echo "(make exit $rc)"
	} | sed "s/^/$i /" >>"$dir/failures"
	green=no
	[ $rc -eq 0 ] && [ "$fail" -eq 0 ] && green=yes
	echo "$i $((SECONDS - s0)) $(( (b1 - b0) * 100 / (t1 - t0 > 0 ? t1 - t0 : 1) )) $(cut -d' ' -f1-3 /proc/loadavg) $pass $fail $skip $rc $green" >>"$dir/runs"
	echo "streak: run $i of $n: $pass passed, $fail failed, $skip skipped, exit $rc ($log)"
done

echo
printf '%-4s %8s %5s  %-16s %7s %7s %7s %5s %6s\n' run wall busy "load 1/5/15 min" passed failed skipped exit green
while read -r i s busy l1 l5 l15 pass fail skip rc green; do
	printf '%-4s %5d:%02d %4s%%  %-16s %7s %7s %7s %5s %6s\n' "$i" $((s / 60)) $((s % 60)) "$busy" \
		"$l1 $l5 $l15" "$pass" "$fail" "$skip" "$rc" "$green"
done <"$dir/runs"
echo
if [ -s "$dir/failures" ]; then
	echo "failures by test across the $n runs:"
	awk -v n="$n" '{ t = substr($0, length($1) + 2); k[t]++; r[t] = r[t] (r[t] == "" ? "" : ",") $1 }
		END { for (t in k) printf "  %-40s %d of %d (run %s)\n", t, k[t], n, r[t] }' "$dir/failures" | sort
else
	echo "no test failed in the $n runs"
fi
ngreen=$(grep -c ' yes$' "$dir/runs")
echo "streak: $ngreen of $n runs green; logs in $dir"
[ "$ngreen" -eq "$n" ]
