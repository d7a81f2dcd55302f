#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The house's rules, checked on the source tree (make test, unit mode):
#  - a room includes only itself and the rooms below it (docs/layout.md):
#      common <- proto <- pmu, rapl, libemon <- engine <- front
#        <- the commands: cli/stat, cli/top, cli/report, cli/check,
#           cli/list and the service, daemon (daemon/socket/ and
#           daemon/exporter/ are parts of its room) <- cli (main.c)
#    a command room includes no other command's room; the one file above
#    them a command may include is cli/commands.h (the commands' entry
#    points, as perf's builtin.h); cli/ itself holds only main.c and it;
#    include/ (the ABI headers, spelled without a folder) is below all,
#    bpf/ sees only itself and include/; an include that points up or
#    sideways, or climbs with "../", fails, and so does a project header
#    in angle brackets (<engine/x.h> would pass unseen);
#  - no two headers include each other;
#  - no two objects of the build ($OUTPUT, default build/) each use a
#    symbol the other defines (nm), but the few named below with why;
#    skipped, and said, when nothing is built;
#  - no two product files share a name;
#  - no hand-written file over 700 lines: the product's, and tests/'
#    and tools/ (all but tests/fixtures/ and the fuzzers' corpora);
#  - a unit test, tests/unit/<room>/, includes only the product headers of
#    its room and those below it (the map below), the ABI headers, and the
#    tests' own (tests/unit/helpers.h, a header beside it); two unit tests
#    never share a name (each is $(O)/tests/test_X);
#  - a growable array grows by common/array (array__grow): a raw realloc
#    (or reallocarray) in the product says why not in a comment
#    "not array__grow: REASON" on its line or the line above
#    (docs/layout.md lists them).
#   tests/layering.sh [ROOT]   (default: the tree this script is in)
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2
# the product's rooms, and those below the commands
rooms="common proto pmu rapl libemon engine front daemon cli"
lower="front engine pmu rapl libemon proto common"
commands="daemon $(cd cli && find . -mindepth 1 -maxdepth 1 -type d | sed 's|^\./|cli/|' | sort | tr '\n' ' ')"
declare -A allowed=(
	[common]="common"
	[pmu]="pmu common"
	[rapl]="rapl common"
	[proto]="proto common"
	[libemon]="libemon proto common"
	[engine]="engine pmu rapl libemon proto common"
	[front]="$lower"
	[cli]="cli $commands $lower"
	[bpf]="bpf"
	[include]="include"
)
for c in $commands; do
	allowed[$c]="$c $lower"
done
# a file's room: cli/main.c and cli/commands.h are cli's, cli/X/... is
# the command X's, daemon/... (its parts too) the daemon's, else the top folder
room_of() {
	case $1 in
	cli/*/*) room=${1#cli/}; room="cli/${room%%/*}" ;;
	*) room=${1%%/*} ;;
	esac
}
# generated into the build directory (vmlinux.h, skeletons)
generated=" vmlinux.h emon.skel.h "
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

for f in $(find $rooms bpf include -name '*.[ch]' 2>/dev/null | sort); do
	room_of "$f"; from=$room
	case $f in cli/*/*|cli/main.c|cli/commands.h) ;;
	cli/*) fail "$f: cli/ holds only main.c and commands.h, a command's files go in its folder (cli/COMMAND/)" ;;
	esac
	{
		while IFS=: read -r line inc; do
			inc=${inc#*\"}; inc=${inc%%\"*}
			case $inc in
			*../*) fail "$f:$line includes \"$inc\": no climbing with ../"; continue ;;
			*/*) to=${inc%%/*} ;;
			*)
				# a folder-less name: an ABI header, a generated one,
				# or (bpf/ only) a part beside it
				if [ -e "include/$inc" ] || [[ $generated == *" $inc "* ]]; then
					continue
				fi
				[ "$room" = bpf ] && [ -e "bpf/$inc" ] && continue
				fail "$f:$line includes \"$inc\", which is not in include/"
				continue ;;
			esac
			[ -e "include/$inc" ] && continue	# include/emon/...
			room_of "$inc"; to=$room; room=$from
			[ "$inc" = cli/commands.h ] && [[ " $commands " == *" $room "* ]] && continue
			[[ " ${allowed[$room]} " == *" $to "* ]] ||
				fail "$f:$line includes \"$inc\": $room/ may include only ${allowed[$room]}${allowed[$room]:+ and }include/"
		done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | cut -d: -f1,2)
		# <room/x.h> finds the tree through -I. too: a project header
		# is spelled in quotes, so the rule above sees it
		while IFS=: read -r line inc; do
			inc=${inc#*<}; inc=${inc%%>*}
			[ -n "${allowed[${inc%%/*}]+x}" ] && [ -e "$inc" ] &&
				fail "$f:$line includes <$inc>: a project header, spelled \"$inc\""
		done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*<[a-z]*/' "$f" | cut -d: -f1,2)
	}
done

# two headers that include each other
declare -A incs
for h in $(find $rooms include bpf -name '*.h' | sort); do
	incs[$h]=$(grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$h" |
		sed 's/.*"\(.*\)"/\1/' | tr '\n' ' ')
done
for a in "${!incs[@]}"; do
	for inc in ${incs[$a]}; do
		for b in "$inc" "include/$inc" "$(dirname "$a")/$inc"; do
			[ -n "${incs[$b]+x}" ] && [ "$b" != "$a" ] && [[ $a < $b ]] || continue
			for back in ${incs[$b]}; do
				[ "$back" = "$a" ] || [ "include/$back" = "$a" ] ||
					[ "$(dirname "$b")/$back" = "$a" ] || continue
				fail "$a and $b include each other"
			done
		done
	done
done

while read -r n f; do
	[ "$f" = total ] && continue
	[ "$n" -gt 700 ] && fail "$f has $n lines (at most 700: split it along its seams)"
done < <(find $rooms include bpf -name '*.[ch]' -print0 |
	xargs -0 wc -l)

# two product files of one name (list.c in pmu/ and cli/ would be two
# things called alike)
while read -r name; do
	fail "more than one product file named $name: $(find $rooms bpf -name "$name" | tr '\n' ' ')"
done < <(find $rooms bpf -name '*.[ch]' -printf '%f\n' | sort | uniq -d)

# Circles between files: two objects each using a symbol the other
# defines (from nm of the build's objects whose source is in the tree).
# Those left, each with why (an ops table's sources calling back the
# table's own file's helpers; the daemon's parts, split by size, pending
# their own move):
circles_ok="
rapl/energy.o rapl/perf_power.o
rapl/energy.o rapl/powercap.o
rapl/energy.o rapl/sensors.o
daemon/exporter/metrics_family.o daemon/exporter/metrics_scope.o
daemon/exporter/metrics_fold.o daemon/exporter/metrics_scope.o
daemon/socket/server.o daemon/socket/server_answer.o
daemon/socket/server.o daemon/socket/server_request.o
"
obj=${OUTPUT:-build}/obj
circles="no circle between files, "
if [ -d "$obj" ] && command -v nm >/dev/null; then
	declare -A def=() edge=()
	objs=()
	while read -r o; do
		src=${o#"$obj"/}; src=${src%.o}.c
		[ -e "$src" ] && objs+=("$o")
	done < <(find "$obj" -name '*.o' | sort)
	for o in "${objs[@]}"; do
		while read -r _ t sym; do
			def[$sym]=${o#"$obj"/}
		done < <(nm -g --defined-only "$o" | awk '$2 ~ /^[TDBRCGSV]$/')
	done
	for o in "${objs[@]}"; do
		me=${o#"$obj"/}
		while read -r _ sym; do
			d=${def[$sym]:-}
			[ -n "$d" ] && [ "$d" != "$me" ] && edge["$me $d"]+="$sym "
		done < <(nm -u "$o")
	done
	for k in "${!edge[@]}"; do
		a=${k% *}; b=${k#* }
		[[ $a < $b ]] && [ -n "${edge["$b $a"]+x}" ] || continue
		[[ $circles_ok == *"
$a $b
"* ]] && continue
		fail "${a%.o}.c and ${b%.o}.c use each other: ${edge[$k]}and ${edge["$b $a"]}(move what both use below them)"
	done
else
	echo "layering: no objects in $obj, circles between files not checked"
	circles=""
fi
# tests/ and tools/ under the same size rule; copies of other programs'
# files (tests/fixtures/) and the fuzzers' corpora are data
while read -r n f; do
	[ "$f" = total ] && continue
	[ "$n" -gt 700 ] && fail "$f has $n lines (at most 700: split it along its seams)"
done < <(find tests tools -type f -not -path 'tests/fixtures/*' \
	-not -path 'tests/fuzz/corpus/*' -not -path '*/__pycache__/*' -print0 |
	xargs -0 wc -l)

# unit tests by room: tests/unit/<room>/test_*.c includes what its room may
declare -A unit_names
for f in $(find tests/unit -name '*.[ch]' | sort); do
	rel=${f#tests/unit/}
	case $rel in
	helpers.h) continue ;;
	*/*/*) fail "$f: a unit test is tests/unit/<room>/NAME, one level down"; continue ;;
	*/*) room=${rel%%/*} ;;
	*) fail "$f: a unit test goes in the folder of the room it tests, tests/unit/<room>/"; continue ;;
	esac
	if [ -z "${allowed[$room]+x}" ] || [ "$room" = bpf ] || [ "$room" = include ]; then
		fail "$f: tests/unit/$room/ is not a room of the product"
		continue
	fi
	base=$(basename "$f")
	if [[ $base == test_*.c ]]; then
		[ -n "${unit_names[$base]+x}" ] &&
			fail "$f and ${unit_names[$base]}: two unit tests named ${base%.c}"
		unit_names[$base]=$f
	fi
	while IFS=: read -r line inc; do
		inc=${inc#*\"}; inc=${inc%%\"*}
		case $inc in
		*../*) fail "$f:$line includes \"$inc\": no climbing with ../" ;;
		*/*)
			[ -e "include/$inc" ] && continue
			[[ " ${allowed[$room]} " == *" ${inc%%/*} "* ]] ||
				fail "$f:$line includes \"$inc\": a unit test of $room/ may include only ${allowed[$room]} and include/" ;;
		*)
			[ -e "include/$inc" ] || [ -e "tests/unit/$room/$inc" ] ||
				[ "$inc" = helpers.h ] ||
				fail "$f:$line includes \"$inc\", which is neither in include/ nor a test's own header" ;;
		esac
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | cut -d: -f1,2)
done

# one growth rule: a raw realloc says why it is not array__grow
while read -r l; do fail "$l"; done < <(
	for room in $rooms; do
		for f in $(find "$room" -name '*.[ch]' 2>/dev/null | sort); do
			[ "$f" = common/array.c ] && continue	# the rule itself
			awk -v f="$f" '
				/[^a-z_]realloc(array)?[[:space:]]*\(/ && !/not array__grow: ./ &&
				    prev !~ /not array__grow: ./ {
					printf "%s:%d: a raw realloc: grow with array__grow (common/array.h), or say \"not array__grow: REASON\" beside it\n", f, FNR
				}
				{ prev = $0 }' "$f"
		done
	done)

if [ $bad -gt 0 ]; then
	echo "layering: $bad problem(s)"
	exit 1
fi
echo "layering: every include points down (unit tests' too), no header pair includes each other, ${circles}no two files of one name, no file over 700 lines (tests/ and tools/ too), no raw realloc without its reason"
