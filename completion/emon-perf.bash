# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# bash completion for emon-perf: subcommands, each one's options (read
# from its own --help, so they stay true), event names for -e (from
# 'emon-perf list': the ones this machine counts), metrics for -M (from
# 'emon-perf list metrics'), cgroup paths for -G
# (from the cgroup2 mount), scopes for --by, energy sources, top's views,
# files, and for report --prometheus a URL's scheme and durations for
# --range, --step.
# Lists after a comma (-e a,b  -G /x,/y  --by a,b) complete their last item.
# Installed as $(PREFIX)/share/bash-completion/completions/emon-perf.

# _emon_perf_options PROG SUB: the long and short options SUB's --help names
_emon_perf_options()
{
	"$1" "$2" --help 2>/dev/null |
		grep -oE -- '(^|[ ,])-(-[a-z][a-z-]*|[a-zA-Z])' | tr -d ' ,' | sort -u
}

# _emon_perf_events PROG: the events 'list' shows, less the ones this
# machine cannot count and the raw rNNNN form
_emon_perf_events()
{
	"$1" list 2>/dev/null | awk '/\[/ && !/not supported/ && !/^PMU/ {
		n = split(substr($0, 1, index($0, "[") - 1), w, " ")
		for (i = 1; i <= n; i++)
			if (w[i] != "OR" && w[i] != "rNNNN")
				print w[i]
	}'
}

# _emon_perf_cgroups: every cgroup path from the cgroup2 root, "/" first
_emon_perf_cgroups()
{
	local root
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts 2>/dev/null)
	[ -n "$root" ] || return
	echo /
	(cd "$root" 2>/dev/null && find . -mindepth 1 -type d 2>/dev/null | cut -c2-)
}

# _emon_perf_list WORDS: complete the last item of a comma list in $cur
# from WORDS, one per line
_emon_perf_list()
{
	local pre= last=$cur
	if [[ $cur == *,* ]]; then
		pre=${cur%,*},
		last=${cur##*,}
	fi
	local IFS=$'\n'
	COMPREPLY=($(compgen -P "$pre" -W "$1" -- "$last"))
	# a list may go on: no space after a full item
	compopt -o nospace 2>/dev/null
}

_emon_perf()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local prog=${COMP_WORDS[0]} sub= i j

	COMPREPLY=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) sub=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$sub" ]; then
		COMPREPLY=($(compgen -W "stat serve list report top check help --help --version" -- "$cur"))
		return
	fi
	# stat's command after --: a command name, then what that command takes
	for ((j = i + 1; j < COMP_CWORD; j++)); do
		[ "${COMP_WORDS[j]}" = -- ] || continue
		if [ $((j + 1)) -eq "$COMP_CWORD" ]; then
			COMPREPLY=($(compgen -c -- "$cur" | sort -u))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
	done
	case $prev in
	-e | --event | --split-by)
		_emon_perf_list "$(_emon_perf_events "$prog")"
		[ "$prev" = --split-by ] && compopt +o nospace 2>/dev/null
		return ;;
	-M | --metrics)	# the names 'list metrics' prints
		_emon_perf_list "$("$prog" list metrics 2>/dev/null | awk 'NR > 1 { print $1 }')"
		return ;;
	-G | --cgroup | --for-each-cgroup)
		_emon_perf_list "$(_emon_perf_cgroups)"
		return ;;
	--by)
		if [ "$sub" = report ]; then
			COMPREPLY=($(compgen -W "container pod namespace cgroup process cpu socket system command" -- "$cur"))
		elif [ "$sub" = top ]; then	# one view
			COMPREPLY=($(compgen -W "container cgroup process pod namespace" -- "$cur"))
		else
			_emon_perf_list "$(printf '%s\n' system cpu socket die core cgroup container pod namespace process)"
		fi
		return ;;
	--energy)
		COMPREPLY=($(compgen -W "auto powercap perf sensors amd_energy power_meter scmi none model:" -- "$cur"))
		return ;;
	-p | --pid)	# stat: running processes
		COMPREPLY=($(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur"))
		return ;;
	-C | --cpu)	# stat: the online CPUs, as the kernel lists them
		COMPREPLY=($(compgen -W "$(cat /sys/devices/system/cpu/online 2>/dev/null)" -- "$cur"))
		return ;;
	--view)
		COMPREPLY=($(compgen -W "containers cgroups processes pods namespaces" -- "$cur"))
		return ;;
	-o | --output | --html | --socket | --web-config)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--powercap-root | --pin-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--socket-group | --admin-group | --metrics-group)
		COMPREPLY=($(compgen -g -- "$cur"))
		return ;;
	--user)
		COMPREPLY=($(compgen -u -- "$cur"))
		return ;;
	--prometheus)	# report: the server's URL
		COMPREPLY=($(compgen -W "http:// https://" -- "$cur"))
		compopt -o nospace 2>/dev/null
		return ;;
	--range)	# report: durations as Prometheus writes them
		COMPREPLY=($(compgen -W "15m 1h 6h 12h 1d 7d 30d" -- "$cur"))
		return ;;
	--step)
		COMPREPLY=($(compgen -W "15s 30s 1m 5m 15m 1h" -- "$cur"))
		return ;;
	-I | --interval-print | -x | --field-separator | --timeout | --idle-watts | \
	--max-cgroups | --max-procs | --listen | --processes | --max-series | \
	--max-clients | --max-held-mb | --max-keys | --retain | --min-flush-ms | --min-scrape-ms | --top | \
	--max-clients-per-uid | --max-trees-per-uid | --max-threads-per-uid | --max-thread-uids | \
	--idle-timeout | \
	-d | --delay | -D | -r | --repeat | --interval-count | \
	--end | --match | --threads | --duration)
		return ;;	# a value of the user's own
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_emon_perf_options "$prog" "$sub")" -- "$cur"))
		return
	fi
	[ "$sub" = report ] && COMPREPLY=($(compgen -f -- "$cur"))
}

complete -F _emon_perf emon-perf
