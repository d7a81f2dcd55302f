#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The house's rules, checked on the source tree (make test, unit mode):
#  - a room includes only itself and the rooms below it (docs/layout.md):
#      common <- pmu, rapl, libemon <- engine <- daemon <- cli
#    include/ (the ABI headers, spelled without a folder) is below all,
#    bpf/ sees only itself and include/; an include that points up or
#    sideways, or climbs with "../", fails, and so does a project header
#    in angle brackets (<engine/x.h> would pass unseen);
#  - no two headers include each other;
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
declare -A allowed=(
	[common]="common"
	[pmu]="pmu common"
	[rapl]="rapl common"
	[libemon]="libemon common"
	[engine]="engine pmu rapl libemon common"
	[daemon]="daemon engine pmu rapl libemon common"
	[cli]="cli daemon engine pmu rapl libemon common"
	[bpf]="bpf"
	[include]="include"
)
# generated into the build directory (vmlinux.h, skeletons)
generated=" vmlinux.h emon.skel.h "
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

for room in "${!allowed[@]}"; do
	for f in $(find "$room" -name '*.[ch]' 2>/dev/null | sort); do
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
	done
done

# two headers that include each other
declare -A incs
for h in $(find common pmu rapl libemon engine daemon cli include bpf -name '*.h' | sort); do
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
done < <(find common pmu rapl libemon engine daemon cli include bpf -name '*.[ch]' -print0 |
	xargs -0 wc -l)

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
	for room in $(printf '%s\n' "${!allowed[@]}" | sort); do
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
echo "layering: every include points down (unit tests' too), no header pair includes each other, no file over 700 lines (tests/ and tools/ too), no raw realloc without its reason"
