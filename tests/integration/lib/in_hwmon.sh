#!/bin/sh
# lib/in_hwmon.sh DIR CMD... (run, not sourced): CMD in a mount
# namespace of its own where /sys/class/hwmon is DIR, so that libsensors,
# which scans
# /sys/class/hwmon and reads a chip without a device link where it is,
# reads the fake (fake_hwmon.py). Without a hwmon class here, /sys/class
# becomes a tmpfs with each of its entries bound back in place (their
# relative links resolve as before) and DIR bound as hwmon. Each step
# execs the next: CMD keeps this script's pid (serve_start waits on it).
# Exit 125 when the namespace cannot be made.
exec unshare -m --propagation private sh -c '
	d=$1; shift
	if [ ! -d /sys/class/hwmon ]; then
		o=$(mktemp -d) && mount --bind /sys/class "$o" &&
			mount -t tmpfs emon-class /sys/class || exit 125
		for e in "$o"/*; do
			mkdir "/sys/class/${e##*/}" && mount --bind "$e" "/sys/class/${e##*/}"
		done
		mkdir /sys/class/hwmon
	fi
	mount --bind "$d" /sys/class/hwmon || exit 125
	exec "$@"' in_hwmon "$@"
