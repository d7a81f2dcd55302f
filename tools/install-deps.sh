#!/bin/sh
# Install the Debian packages emon-perf needs to build and test, only those
# that are missing. Used by the Makefile (make deps) and by .ci/run.
set -e
pkgs="make gcc clang llvm libbpf-dev libelf-dev zlib1g-dev libpfm4-dev bpftool
pkg-config libcmocka-dev libjson-c-dev libmicrohttpd-dev libcurl4-openssl-dev
libncurses-dev linux-perf python3
procps"
# make test also builds the libFuzzer harnesses (clang's runtime: libFuzzer,
# ASan, UBSan); gcc's own sanitizer runtimes come with gcc
pkgs="$pkgs libclang-rt-dev"
# make test: a Prometheus server and promtool scrape /metrics (curl too);
# PyYAML reads the Kubernetes DaemonSet; make test-loaded: stress-ng; the
# man pages are checked with groff and man; top is driven in tmux;
# --sched's histograms are held against libbpf-tools' runqlat; containers of
# real runtimes (docker.io brings containerd) from a busybox-static image
[ "${1:-}" = "--with-test" ] && pkgs="$pkgs chromium prometheus curl python3-yaml stress-ng groff-base man-db tmux libbpf-tools
docker.io podman runc busybox-static"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing (run as root, or: sudo apt-get install$missing)" >&2
	exit 1
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
