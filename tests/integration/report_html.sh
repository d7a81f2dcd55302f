#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# emon-perf report on a synthetic 5-interval recording with known totals:
# the text table must give them back, and the HTML page must render in a
# real headless Chromium to a picture that is not blank and shows the bars.
#   EMON=path/to/emon-perf OUTPUT=build-dir tests/integration/report_html.sh
# Exit 0 pass, 1 fail, 77 skip (no chromium). Leaves $OUTPUT/report-shot.png.
. "$(dirname "$0")/lib.sh"
tmp=$TMP OUTPUT=${OUTPUT:-build}

# Recording: intervals t = 1..5 s; per interval (J):
#   web   10 + t  -> 65 J      2e9 instructions, 1e9 cycles -> EPI 6.5 nJ
#   batch 2.25 t  -> 33.75 J   3e9 instructions, 1e9 cycles -> IPC 3.00
#   db    5.5     -> 27.5 J    instructions not counted (null) -> EPI "-"
#   host  1.5     -> 7.5 J
#   system = the sum, 133.75 J over 5 s = 26.75 W
WEB=1111aaaa2222bbbb3333cccc4444dddd5555eeee6666ffff7777aaaa8888bbbb
BATCH=9999cccc0000dddd1111eeee2222ffff3333aaaa4444bbbb5555cccc6666dddd
DB=abcdef012345abcdef012345abcdef012345abcdef012345abcdef0123456789
rec=$tmp/rec.jsonl
row() { # t scope key extra-fields cycles instructions cpu-clock energy [system fields]
	printf '{"interval": %s.000, "scope": "%s", "key": "%s", %s"counters": {"cycles": %s, "instructions": %s, "cpu-clock": %s}, "energy_j": %s%s}\n' "$@"
}
for t in 1 2 3 4 5; do
	web=$((10 + t)) batch=$(awk "BEGIN { print 2.25 * $t }")
	sys=$(awk "BEGIN { print $web + $batch + 5.5 + 1.5 }")
	row $t system all '' 4000000000 7000000000 4000000000 "$sys" \
		', "energy_source": "powercap", "split_by": "cycles"'
	row $t container $WEB '"runtime": "docker", ' 1000000000 2000000000 1000000000 $web ''
	row $t container $BATCH '"runtime": "containerd", ' 1000000000 3000000000 1000000000 "$batch" ''
	row $t container $DB '"runtime": "cri-o", ' 1000000000 null 1000000000 5.5 ''
	row $t container host '' 1000000000 2000000000 1000000000 1.5 ''
done >"$rec"

"$EMON" report "$rec" >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
cat "$tmp/out.txt" "$tmp/err.txt"
check "report exits 0 (got $rc)" test $rc -eq 0

# cell KEY COLUMN: the table's cell in the row of KEY under header COLUMN
cell() {
	awk -v key="$1" -v col="$2" '
		$1 == "container" { for (i = 1; i <= NF; i++) idx[$i] = i; next }
		(col in idx) && $1 == key { print $idx[col]; exit }' "$tmp/out.txt"
}
near() { # got want tolerance
	awk -v g="$1" -v w="$2" -v e="$3" 'BEGIN { exit !(g != "" && (g - w) <= e && (w - g) <= e) }'
}
header() { head -2 "$tmp/out.txt" | tr '\n' ' ' | grep -q "$1"; }
check "header: container scope, 5 intervals, powercap" \
	header ': container, top 4 of 4 by energy duration 5.000 s, 5 intervals, energy: powercap'
check "header: system 133.750 J, 26.750 W" grep -q 'system 133.750 J, 26.750 W mean' "$tmp/out.txt"
check "web energy 65 J (got $(cell ${WEB:0:12} energy_j))" near "$(cell ${WEB:0:12} energy_j)" 65 0.0005
check "batch energy 33.75 J (got $(cell ${BATCH:0:12} energy_j))" near "$(cell ${BATCH:0:12} energy_j)" 33.75 0.0005
check "db energy 27.5 J (got $(cell ${DB:0:12} energy_j))" near "$(cell ${DB:0:12} energy_j)" 27.5 0.0005
check "host energy 7.5 J (got $(cell host energy_j))" near "$(cell host energy_j)" 7.5 0.0005
check "web power 13 W (got $(cell ${WEB:0:12} power_w))" near "$(cell ${WEB:0:12} power_w)" 13 0.0005
check "web share 48.60% (got $(cell ${WEB:0:12} 'energy%'))" test "$(cell ${WEB:0:12} 'energy%')" = 48.60%
check "web EPI 6.5 nJ (got $(cell ${WEB:0:12} epi_nj))" near "$(cell ${WEB:0:12} epi_nj)" 6.5 0.0005
check "batch IPC 3.00 (got $(cell ${BATCH:0:12} ipc))" test "$(cell ${BATCH:0:12} ipc)" = 3.00
check "db EPI unknown, not 0 (got $(cell ${DB:0:12} epi_nj))" test "$(cell ${DB:0:12} epi_nj)" = -
check "db instructions unknown (got $(cell ${DB:0:12} instructions))" test "$(cell ${DB:0:12} instructions)" = -
order=$(awk '$1 == "container" { on = 1; next } on && NF { printf "%s ", $1 }' "$tmp/out.txt")
check "sorted by energy: web batch db host (got $order)" \
	test "$order" = "${WEB:0:12} ${BATCH:0:12} ${DB:0:12} host "

"$EMON" report "$rec" --by galaxy >/dev/null 2>&1
rc=$?
check "unknown --by exits 2 (got $rc)" test $rc -eq 2
printf '{"interval": 1, "scope": "system", "key": "all", "counters": {}}\nnot json\n' >"$tmp/bad.jsonl"
"$EMON" report "$tmp/bad.jsonl" >/dev/null 2>"$tmp/bad.err"
rc=$?
check "bad line exits 2 naming file:line (got $rc: $(cat "$tmp/bad.err"))" \
	test $rc -eq 2 -a -n "$(grep "bad.jsonl:2:" "$tmp/bad.err")"

html=$tmp/report.html
"$EMON" report "$rec" --html "$html" >/dev/null
rc=$?
check "report --html exits 0 (got $rc)" test $rc -eq 0
check "page is written" test -s "$html"
bars=$(grep -o 'class="bar"' "$html" | wc -l)
check "4 energy bars + 3 EPI bars (got $bars)" test "$bars" -eq 7
check "4 keys' lines + the system's" test "$(grep -o '<polyline' "$html" | wc -l)" -eq 5
check "self-contained: no script, no URL" \
	bash -c "! grep -qiE '<script|https?:|src=' '$html'"
mkdir -p "$OUTPUT" && cp "$html" "$OUTPUT/report.html"

command -v chromium >/dev/null 2>&1 || { [ "$FAILS" -eq 0 ] && skip "chromium not installed"; finish; }
shot=$tmp/shot.png
chromium_shot "$html" "$shot" || finish
cp "$shot" "$OUTPUT/report-shot.png"
echo "      screenshot: $OUTPUT/report-shot.png"
# the page is not one colour, and the bars of the four keys are there
png_check "$shot" blue:4e79a7 orange:f28e2b red:e15759 teal:76b7b2
check "the screenshot shows the page and its four keys' colours" [ $? -eq 0 ]
finish
