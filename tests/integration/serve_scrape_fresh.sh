#!/usr/bin/env bash
# A scrape within --min-scrape-ms of the daemon's last read of its maps,
# whatever made it (its own periodic read, a client's, another scrape),
# is answered from that read, with no flush of every CPU of its own: a
# scraper does not add reads to the daemon's own. With --min-scrape-ms
# 1100, longer than the read period (1 s), 40 scrapes a quarter second
# apart should drive none (emon_scrape_flushes_total, the daemon's count
# of the flushes it made for a scrape alone; 2 allowed, for a periodic
# read a busy host delays past 1.1 s), and the daemon's flushes over them
# are its own rate, measured first with nothing scraping. Before, each
# scrape 1.1 s past the last scrape's flush drove one of its own, about
# one a second more. An answer's flush count never runs behind.
. "$(dirname "$0")/lib.sh"

MPORT=$(free_port)
S=$TMP/run/emon.sock
serve_start "$S" "$TMP/serve.err" -e cpu-clock,context-switches \
	--listen 127.0.0.1:$MPORT --min-scrape-ms 1100 || exit 1
URL=http://127.0.0.1:$MPORT/metrics
# metric NAME: its value in a scrape now
metric() { curl -s -m 5 "$URL" | awk -v m="$1" '$1 == m { print $2 }'; }

# the read period grows from an eighth of a second to the whole second
sleep 3
s0=$(metric emon_scrape_flushes_total)
f0=$(metric emon_flushes_total)
seqs=()
t0=$(date +%s.%N)
for _ in $(seq 40); do seqs+=("$(metric emon_flushes_total)"); sleep 0.25; done
t1=$(date +%s.%N)
s1=$(metric emon_scrape_flushes_total)
f1=$(metric emon_flushes_total)
secs=$("$PY3" -c 'import sys; print("%.2f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t0" "$t1")
echo "      42 scrapes in $secs s: $((f1 - f0)) flushes, $((s1 - s0)) of them made for a scrape"
check "scrapes within --min-scrape-ms of the last read drive none: $((s1 - s0)) of $((f1 - f0)) flushes in $secs s (at most 2)" \
	[ -n "$s0" ] && [ -n "$s1" ] && [ $((s1 - s0)) -le 2 ]
mono=1
for ((i = 1; i < ${#seqs[@]}; i++)); do [ "${seqs[i]}" -ge "${seqs[i - 1]}" ] || mono=0; done
check "each answer's flush count never runs behind the one before (${seqs[*]})" [ $mono -eq 1 ]

# --min-scrape-ms 0: every scrape flushes (at most one per --min-flush-ms)
kill -TERM $DPID; wait $DPID 2>/dev/null
serve_start "$S" "$TMP/serve0.err" -e cpu-clock,context-switches \
	--listen 127.0.0.1:$MPORT --min-scrape-ms 0 || exit 1
s0=$(metric emon_scrape_flushes_total)
for _ in $(seq 10); do metric emon_flushes_total >/dev/null; sleep 0.05; done
s1=$(metric emon_scrape_flushes_total)
echo "      --min-scrape-ms 0: 11 scrapes made $((s1 - s0)) flushes"
check "--min-scrape-ms 0: each scrape makes its own flush ($((s1 - s0)) of 11; 9 at least)" \
	[ -n "$s1" ] && [ $((s1 - s0)) -ge 9 ]
finish
