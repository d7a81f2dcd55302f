#!/usr/bin/env bash
# deploy/systemd/emon-perf.service and deploy/kubernetes/daemonset.yaml
# parse (systemd-analyze verify, PyYAML) and ask for exactly the start-up
# capabilities that docs/capabilities.md states (its "caps:" line), no
# more: hardening on, not privileged, the mounts and scrape annotations.
# The unit: a non-root user in the socket's group, a system call filter,
# localhost only, and systemd-analyze security's exposure at most 2.0
# (3.8 before it was hardened). The DaemonSet: the start-up set and the
# --user set, the daemon as a non-root uid after set-up, RuntimeDefault
# seccomp, no service-account token, no host mount it does not use,
# /metrics over TLS from a Secret, a NetworkPolicy.
# counter pass: what it checks (the deploy files, the unit's exposure) has no counts
# sanitizer pass: its subject is the deploy files and systemd's view of the unit
. "$(dirname "$0")/lib.sh"

caps=$(sed -n 's/^<!-- caps: \(.*\) -->$/\1/p' docs/capabilities.md)
startup=$(sed -n 's/.*startup=\([^ ]*\).*/\1/p' <<<"$caps")
runtime=$(sed -n 's/.*runtime=\([^ ]*\).*/\1/p' <<<"$caps")
user=$(sed -n 's/.*user=\([^ ]*\).*/\1/p' <<<"$caps")
echo "      docs/capabilities.md: start-up $startup, after set-up $runtime"
check "docs/capabilities.md states the three sets" [ -n "$startup" -a -n "$runtime" -a -n "$user" ]
check "the daemon's PRIVS_RUNTIME is the documented runtime set" \
	bash -c "[ '$runtime' = CAP_PERFMON ] && grep -q 'define PRIVS_RUNTIME (1ULL << PRIVS_CAP_PERFMON)' daemon/privs.h"

unit=deploy/systemd/emon-perf.service
if command -v systemd-analyze >/dev/null; then
	sed "s|^ExecStart=/usr/local/bin/emon-perf|ExecStart=$EMON|" "$unit" >"$TMP/emon-perf.service"
	systemd-analyze verify "$TMP/emon-perf.service" >"$TMP/verify.out" 2>&1
	check "systemd-analyze verify accepts the unit" [ $? -eq 0 -a ! -s "$TMP/verify.out" ]
	cat "$TMP/verify.out"
	if systemd-analyze security --help 2>/dev/null | grep -q -- --offline; then
		systemd-analyze security --offline=true "$unit" >"$TMP/security.out" 2>&1
		sed -n 's/^\(✗ .*\)/      | \1/p' "$TMP/security.out"
		score=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p' "$TMP/security.out")
		check "systemd-analyze security --offline: exposure ${score:-?} <= 2.0" \
			"$PY3" -c 'import sys; sys.exit(not (sys.argv[1] and float(sys.argv[1]) <= 2.0))' "$score"
	else
		echo "      (systemd-analyze has no security --offline, systemd < 250: no exposure score)"
	fi
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
                 ("ProtectHome", "yes"), ("PrivateTmp", "yes"), ("DynamicUser", "yes"),
                 ("UMask", "0077"), ("IPAddressDeny", "any"), ("IPAddressAllow", "localhost"),
                 ("SystemCallArchitectures", "native")):
    want(s.get(key) == val, f"unit {key}={val} (found {s.get(key)})")
exe = s.get("ExecStart", "").split()
want(" serve" in s.get("ExecStart", ""), "unit runs emon-perf serve")
want(s.get("User", "root") not in ("root", "0"), f"unit runs as a non-root user ({s.get('User')})")
grp = exe[exe.index("--socket-group") + 1] if "--socket-group" in exe else None
want(grp and grp in s.get("SupplementaryGroups", "").split(),
     f"unit's SupplementaryGroups= holds --socket-group's {grp} (chown to it needs membership)")
# configparser keeps the last of repeated keys: read the filter lines raw
filt = [l.split("=", 1)[1].split() for l in open(unit) if l.startswith("SystemCallFilter=")]
allow = [w for f in filt if f and not f[0].startswith("~") for w in f]
want("@system-service" in allow and "bpf" in allow and "perf_event_open" in allow,
     f"unit SystemCallFilter= allows @system-service, bpf, perf_event_open ({allow})")
sys.exit(1 if bad else 0)
PY
check "the unit's capabilities and hardening" [ $? -eq 0 ]

"$PY3" - deploy/kubernetes/daemonset.yaml "$startup" "$user" <<'PY'
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
startup = sorted(c.removeprefix("CAP_") for c in sys.argv[2].split(","))
user = sorted(c.removeprefix("CAP_") for c in sys.argv[3].split(","))
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
want(spec.get("automountServiceAccountToken") is False, "automountServiceAccountToken: false")
c = spec["containers"][0]
sc = c.get("securityContext", {})
args = c.get("args", [])
want(not sc.get("privileged", False), "not privileged")
want(sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation: false")
got = sorted(sc.get("capabilities", {}).get("add", []))
want(got == sorted(startup + user), f"capabilities.add {got} (documented: start-up {startup}, --user {user})")
want(sc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities.drop: ALL")
uid = args[args.index("--user") + 1] if "--user" in args else "0"
want(uid not in ("0", "root"), f"the daemon runs as a non-root uid after set-up (--user {uid})")
seccomp = [x.get("seccompProfile", {}).get("type") for x in (sc, spec.get("securityContext", {}))]
want("RuntimeDefault" in seccomp and "Unconfined" not in seccomp, "seccompProfile: RuntimeDefault")
vols = {v["name"]: v for v in spec.get("volumes", [])}
mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
for p in ("/sys/fs/cgroup", "/sys/kernel/btf", "/run/emon-perf"):
    want(p in mounts, f"mounts {p}")
# a host path the daemon does not open is not mounted: bpffs only with
# --threads, the host's /proc is the container's with hostPID
used = ("/sys/fs/cgroup", "/sys/kernel/btf", "/sys/devices", "/sys/class/powercap", "/run/emon-perf")
for p, m in mounts.items():
    if "hostPath" in vols.get(m["name"], {}):
        want(p in used, f"host mount {p} is one it uses")
        if p != "/run/emon-perf":	# the socket's
            want(m.get("readOnly") is True, f"host mount {p} read-only")
want(args.count("--web-config") == 1, "/metrics over TLS: --web-config")
wc = args[args.index("--web-config") + 1] if "--web-config" in args else ""
tls = [m for p, m in mounts.items() if wc.startswith(p + "/")]
want(tls and "secret" in vols.get(tls[0]["name"], {}), f"{wc} from a Secret")
pols = [d for d in docs if d and d.get("kind") == "NetworkPolicy"]
want(len(pols) == 1, "one NetworkPolicy")
ing = pols[0]["spec"].get("ingress", []) if pols else []
want(pols and pols[0]["spec"]["podSelector"]["matchLabels"] == pod["metadata"]["labels"]
     and len(ing) == 1 and ing[0]["ports"] == [{"protocol": "TCP", "port": 9464}]
     and all("namespaceSelector" in f for f in ing[0]["from"]),
     "the NetworkPolicy lets only a namespace's pods reach 9464")
ann = pod["metadata"].get("annotations", {})
want(ann.get("prometheus.io/scrape") == "true" and ann.get("prometheus.io/port") == "9464",
     "prometheus.io scrape annotations on 9464")
want(any(p.get("containerPort") == 9464 for p in c.get("ports", [])), "containerPort 9464")
want(args[:1] == ["serve"], "runs emon-perf serve")
sys.exit(1 if bad else 0)
PY
check "the DaemonSet's capabilities, user, seccomp, mounts, TLS, NetworkPolicy and annotations" [ $? -eq 0 ]
finish
