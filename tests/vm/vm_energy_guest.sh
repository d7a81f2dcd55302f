#!/usr/bin/env bash
# The guest's half of tests/vm/vm_energy.sh: in a guest whose /share is
# the host's serve --vm-energy directory, burners in cgroups /a and /b
# under emon-perf stat -a --powercap-root /share -G /a,/b; its rows, the
# host counter's values (polled), and the cgroups' cpu.stat go to /out.
set -u
EMON=${EMON:-$PWD/emon-perf}
TOOLS=${TOOLS:-${OUTPUT:-build}/tools}
z=/share/intel-rapl:0/energy_uj
cg=/sys/fs/cgroup
[ -e $cg/cgroup.procs ] || cg=$cg/unified
[ -r $z ] || { echo "vm_energy: no $z in the guest"; exit 1; }
[ -d /out ] || { echo "vm_energy: no /out in the guest"; exit 1; }
mkdir -p $cg/a $cg/b || exit 1
# /b at 30% of a CPU, /a a whole one, both for the whole run: steady
# shares, for the host's energy comes in steps a second apart, each
# split by what ran when it came
echo "30000 100000" >$cg/b/cpu.max || exit 1
usage() { awk '$1 == "usage_usec" { print $2 }' "$cg/$1/cpu.stat"; }
# the counter as the guest sees it, every 0.1 s: its steps are the host's
while :; do cat $z; sleep 0.1; done >/out/counter &
poll=$!
sleep 0.5
ua0=$(usage a) ub0=$(usage b)
# the counter read first and last by stat's command: within stat's reads
"$EMON" stat -a --powercap-root /share -G /a,/b -I 1000 --json-rows -o /out/rows -- bash -c '
	cat $3 >/out/e0
	sh -c "echo \$\$ >$1/a/cgroup.procs && exec $2/burn 3" &
	sh -c "echo \$\$ >$1/b/cgroup.procs && exec $2/burn 0.9" &
	wait
	cat $3 >/out/e1' burners $cg "$TOOLS" $z 2>/out/stat.err
rc=$?
e0=$(cat /out/e0) e1=$(cat /out/e1) ua1=$(usage a) ub1=$(usage b)
sleep 0.3
kill $poll
echo "$e0 $e1 $ua0 $ua1 $ub0 $ub1" >/out/figures
cat /out/stat.err
exit $rc
