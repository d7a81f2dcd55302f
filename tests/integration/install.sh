#!/usr/bin/env bash
# make install into a staging directory (DESTDIR, PREFIX=/usr): every file
# in its place; the installed binary runs (--version); each man page
# renders with no warning (groff -ww, and man --warnings where man-db is
# installed) and names every option of its command's --help; the bash
# completion, sourced in bash, completes subcommands, options, an event
# name, a cgroup path, a scope and top's views; the systemd unit names the
# installed binary; make uninstall takes all of it away again.
# counter pass: what it checks (files, man pages, completion) has no counts
# sanitizer pass: its subject is make install's files
. "$(dirname "$0")/lib.sh"
command -v groff >/dev/null || skip "groff not installed (Debian groff-base)"
D=$TMP/stage
PREFIX=/usr
# -o: the binary under test as it is (never rebuilt, never with other flags)
make -s --no-print-directory -o "$EMON" install DESTDIR="$D" PREFIX=$PREFIX BIN="$EMON" >"$TMP/make.out" 2>&1
rc=$?
check "make install exits 0" [ $rc -eq 0 ]
[ $rc -eq 0 ] || cat "$TMP/make.out"
files=(bin/emon-perf share/man/man1/emon-perf.1 share/man/man1/emon-perf-stat.1
	share/man/man1/emon-perf-report.1 share/man/man1/emon-perf-top.1 share/man/man1/emon-perf-check.1
	share/man/man8/emon-perf-serve.8
	share/bash-completion/completions/emon-perf lib/systemd/system/emon-perf.service
	share/emon-perf/deploy/systemd/emon-perf.service
	share/emon-perf/deploy/kubernetes/daemonset.yaml
	share/emon-perf/doc/capabilities.md share/emon-perf/doc/protocol.md
	lib/libemon.a lib/libemon.so.0 lib/libemon.so include/emon/selfmon.h)
missing=
for f in "${files[@]}"; do [ -s "$D$PREFIX/$f" ] || missing+=" $f"; done
check "every file in its place under DESTDIR$PREFIX${missing:+ (missing:$missing)}" [ -z "$missing" ]
check "the installed binary is executable and says its version" \
	bash -c "'$D$PREFIX/bin/emon-perf' --version | grep -qE '^emon-perf [0-9]+\.[0-9]+'"
# libemon as a user builds against it: the header and either library,
# nothing else (under make asan the library is a sanitizer build: its
# compiler and runtime then too)
CC=cc
[ -n "${SAN_LOGS:-}" ] && CC="clang -fsanitize=address,undefined"
$CC -I"$D$PREFIX/include" examples/selfmon-requests.c "$D$PREFIX/lib/libemon.a" -lpthread \
	-o "$TMP/req-static" 2>"$TMP/cc.err"
check "a program builds with the installed header and libemon.a -lpthread" [ -x "$TMP/req-static" ]
$CC -I"$D$PREFIX/include" examples/selfmon-requests.c -L"$D$PREFIX/lib" -lemon \
	-o "$TMP/req-shared" 2>>"$TMP/cc.err"
check "and with libemon.so (-lemon)" [ -x "$TMP/req-shared" ]
check "libemon.so's soname is libemon.so.0, which is installed" \
	bash -c "objdump -p '$D$PREFIX/lib/libemon.so' | grep -q 'SONAME *libemon.so.0'"
cat "$TMP/cc.err"
check "the systemd unit starts $PREFIX/bin/emon-perf" \
	grep -q "^ExecStart=$PREFIX/bin/emon-perf serve" "$D$PREFIX/lib/systemd/system/emon-perf.service"

# --- man pages ---
for page in "$D$PREFIX"/share/man/man*/*; do
	name=$(basename "$page")
	w=$(groff -ww -z -man "$page" 2>&1)
	check "$name renders with no groff warning${w:+: $w}" [ -z "$w" ]
	if command -v man >/dev/null; then
		w=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
		check "$name: man --warnings says nothing${w:+: $w}" [ -z "$w" ]
	fi
done
# each command's options, as its --help names them, are in its page
for cmd in stat serve report top check; do
	page=$(ls "$D$PREFIX"/share/man/man*/emon-perf-$cmd.*)
	text=$(groff -man -Tutf8 -P -c "$page" 2>/dev/null | sed 's/\x08.//g; s/‐/-/g')
	lacks=
	for o in $("$EMON" $cmd --help | grep -oE -- '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
		grep -q -- "$o" <<<"$text" || lacks+=" $o"
	done
	check "emon-perf-$cmd's page has every option of its --help${lacks:+ (lacks:$lacks)}" [ -z "$lacks" ]
done

# --- bash completion ---
cg=$(cg_new "compl/inner")
complete_words() { # WORDS...: what the completion offers for the last one
	bash -c '
source "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_emon_perf
printf "%s\n" "${COMPREPLY[@]}"' _ "$D$PREFIX/share/bash-completion/completions/emon-perf" "$@"
}
check "completion: 'emon-perf st' gives stat" [ "$(complete_words "$EMON" st)" = stat ]
check "completion: 'emon-perf serve --socket-g' gives --socket-group" \
	[ "$(complete_words "$EMON" serve --socket-g)" = --socket-group ]
check "completion: 'stat -e cpu-c' gives the event cpu-clock" \
	[ "$(complete_words "$EMON" stat -e cpu-c)" = cpu-clock ]
check "completion: 'stat -e cpu-clock,context-s' completes the list's last event" \
	[ "$(complete_words "$EMON" stat -e cpu-clock,context-s)" = cpu-clock,context-switches ]
check "completion: 'stat -G ${cg%inner}i' gives the cgroup $cg" \
	[ "$(complete_words "$EMON" stat -G "${cg%inner}i")" = "$cg" ]
check "completion: 'stat --by cont' gives container" [ "$(complete_words "$EMON" stat --by cont)" = container ]
check "completion: 'emon-perf to' gives top" [ "$(complete_words "$EMON" to)" = top ]
check "completion: 'top --vi' gives --view" [ "$(complete_words "$EMON" top --vi)" = --view ]
check "completion: 'top --view pro' gives processes" \
	[ "$(complete_words "$EMON" top --view pro)" = processes ]
check "completion: 'top --no-d' gives --no-daemon" [ "$(complete_words "$EMON" top --no-d)" = --no-daemon ]
check "completion: 'top --sch' gives --sched" [ "$(complete_words "$EMON" top --sch)" = --sched ]
check "completion: 'report --prom' gives --prometheus" \
	[ "$(complete_words "$EMON" report --prom)" = --prometheus ]
check "completion: 'report --prometheus http://p:9090 --range 7' gives 7d" \
	[ "$(complete_words "$EMON" report --prometheus http://p:9090 --range 7)" = 7d ]

make -s --no-print-directory uninstall DESTDIR="$D" PREFIX=$PREFIX >/dev/null 2>&1
left=$(cd "$D" && find . -type f)
check "make uninstall leaves no file${left:+ (left: $left)}" [ -z "$left" ]
finish
