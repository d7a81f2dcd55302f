#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The house's rules, checked on the source tree (make test, unit mode):
#  - a room includes only itself and the rooms below it (docs/layout.md):
#      common <- proto <- pmu, rapl, libemon <- engine <- daemon <- cli
#    include/ (the ABI headers, spelled without a folder) is below all,
#    bpf/ sees only itself and include/; an include that points up or
#    sideways, or climbs with "../", fails, and so does a project header
#    in angle brackets (<engine/x.h> would pass unseen);
#  - no two headers include each other;
#  - no hand-written product file over 700 lines.
#   tests/layering.sh [ROOT]   (default: the tree this script is in)
set -u
cd "${1:-$(dirname "$0")/..}" || exit 2
declare -A allowed=(
	[common]="common"
	[pmu]="pmu common"
	[rapl]="rapl common"
	[proto]="proto common"
	[libemon]="libemon proto common"
	[engine]="engine pmu rapl libemon proto common"
	[daemon]="daemon engine pmu rapl libemon proto common"
	[cli]="cli daemon engine pmu rapl libemon proto common"
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
for h in $(find common proto pmu rapl libemon engine daemon cli include bpf -name '*.h' | sort); do
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
done < <(find common proto pmu rapl libemon engine daemon cli include bpf -name '*.[ch]' -print0 |
	xargs -0 wc -l)

if [ $bad -gt 0 ]; then
	echo "layering: $bad problem(s)"
	exit 1
fi
echo "layering: every include points down, no header pair includes each other, no file over 700 lines"
