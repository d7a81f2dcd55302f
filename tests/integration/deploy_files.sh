#!/usr/bin/env bash
# deploy/systemd/emon-perf.service and deploy/kubernetes/daemonset.yaml
# parse (systemd-analyze verify, PyYAML) and ask for exactly the start-up
# capabilities that docs/capabilities.md states (its "caps:" line), no
# more: hardening on, not privileged, the mounts and scrape annotations.
. "$(dirname "$0")/lib.sh"

caps=$(sed -n 's/^<!-- caps: \(.*\) -->$/\1/p' docs/capabilities.md)
startup=$(sed -n 's/.*startup=\([^ ]*\).*/\1/p' <<<"$caps")
runtime=$(sed -n 's/.*runtime=\([^ ]*\).*/\1/p' <<<"$caps")
echo "      docs/capabilities.md: start-up $startup, after set-up $runtime"
check "docs/capabilities.md states both sets" [ -n "$startup" -a -n "$runtime" ]
check "the daemon's PRIVS_RUNTIME is the documented runtime set" \
	bash -c "[ '$runtime' = CAP_PERFMON ] && grep -q 'define PRIVS_RUNTIME (1ULL << PRIVS_CAP_PERFMON)' daemon/privs.h"

unit=deploy/systemd/emon-perf.service
if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=/usr/local/bin/emon-perf|ExecStart=$EMON|" "$unit" >"$TMP/emon-perf.service"
	systemd-analyze verify "$TMP/emon-perf.service" >"$TMP/verify.out" 2>&1
	check "systemd-analyze verify accepts the unit" [ $? -eq 0 -a ! -s "$TMP/verify.out" ]
	cat "$TMP/verify.out"
else
	echo "      (no systemd-analyze: the unit is only checked below)"
fi
"$PY3" - "$unit" "$startup" <<'PY'
import configparser, sys
unit, startup = sys.argv[1], sorted(sys.argv[2].split(","))
c = configparser.ConfigParser(strict=False, interpolation=None)
c.optionxform = str
c.read(unit)
s = c["Service"]
bad = 0
def want(cond, what):
    global bad
    print(("ok    " if cond else "FAIL  ") + what)
    bad += not cond
for key in ("CapabilityBoundingSet", "AmbientCapabilities"):
    got = sorted(s.get(key, "").split())
    want(got == startup, f"unit {key}: {got} (documented: {startup})")
for key, val in (("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"),
                 ("RuntimeDirectory", "emon-perf"), ("RuntimeDirectoryMode", "0750"),
                 ("ProtectHome", "yes"), ("PrivateTmp", "yes")):
    want(s.get(key) == val, f"unit {key}={val} (found {s.get(key)})")
want(" serve" in s.get("ExecStart", ""), "unit runs emon-perf serve")
sys.exit(1 if bad else 0)
PY
check "the unit's capabilities and hardening" [ $? -eq 0 ]

"$PY3" - deploy/kubernetes/daemonset.yaml "$startup" <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
startup = sorted(c.removeprefix("CAP_") for c in sys.argv[2].split(","))
bad = 0
def want(cond, what):
    global bad
    print(("ok    " if cond else "FAIL  ") + what)
    bad += not cond
ds = [d for d in docs if d and d.get("kind") == "DaemonSet"]
want(len(ds) == 1, "one DaemonSet")
pod = ds[0]["spec"]["template"]
spec = pod["spec"]
want(spec.get("hostPID") is True, "hostPID: true")
c = spec["containers"][0]
sc = c.get("securityContext", {})
want(not sc.get("privileged", False), "not privileged")
want(sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation: false")
got = sorted(sc.get("capabilities", {}).get("add", []))
want(got == startup, f"capabilities.add {got} (documented: {startup})")
want(sc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities.drop: ALL")
mounts = {m["mountPath"] for m in c.get("volumeMounts", [])}
for p in ("/sys/fs/bpf", "/sys/fs/cgroup", "/sys/kernel/btf", "/run/emon-perf"):
    want(p in mounts, f"mounts {p}")
want(any("proc" in m for m in mounts), "mounts the host's /proc")
ann = pod["metadata"].get("annotations", {})
want(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == "9464",
     "prometheus.io scrape annotations on 9464")
want(any(p.get("containerPort") == 9464 for p in c.get("ports", [])), "containerPort 9464")
want(c.get("args", [])[:1] == ["serve"], "runs emon-perf serve")
sys.exit(1 if bad else 0)
PY
check "the DaemonSet's capabilities, mounts and annotations" [ $? -eq 0 ]
finish
