#!/usr/bin/env bash
# Pods and namespaces get energy like every scope. With a fake powercap
# tree at a known wattage, stat --by system,pod,namespace over burners in
# the fixtures' containers (lib.sh pod_fixtures and pod_cgroups: two pods
# of namespace kv, CRI-O's pod of data, podman's of shop, pods by the
# names their runtimes' files give):
#  - each pod's cpu-clock is its containers' cgroups' cpu.stat (1% +
#    steal + untraced), each namespace's the sum of its pods' rows;
#  - the system's energy is the tree's wattage over the run's time, each
#    pod's its cpu-clock share of it (split by cpu-clock here: no cycles;
#    2%, as energy_split.sh), each namespace's the sum of its pods';
#  - energy per instruction is null where instructions cannot be counted
#    (this VM), never 0, and a number where they can.
. "$(dirname "$0")/lib.sh"

pod_fixtures || { echo "FAIL  no fixture copy"; exit 1; }
declare -A cg
pod_cgroups
fake_rapl "$TMP/pc" 40 --period-ms 10 || finish

declare -A u0
for c in cache0 cache1 pg cart; do u0[$c]=$(cg_usage_ns "${cg[$c]}"); done
st0=$(steal_ns)
"$EMON" stat -a -e cpu-clock,instructions --by system,pod,namespace --powercap-root "$TMP/pc" \
	"${ROOTS[@]}" --json-rows -o "$TMP/out.jsonl" -- sh -c "
	$(declare -f cg_run); CGROOT=$CGROOT
	cg_run ${cg[cache0]} $BURN 0.4 & cg_run ${cg[cache1]} $BURN 0.3 &
	cg_run ${cg[pg]} $BURN 0.3 & cg_run ${cg[cart]} $BURN 0.2 & wait" 2>"$TMP/err"
check "stat exits 0" [ $? -eq 0 ] || cat "$TMP/err"
steal=$(($(steal_ns) - st0))
args=()
for c in cache0 cache1 pg cart; do args+=("$c=$(($(cg_usage_ns "${cg[$c]}") - ${u0[$c]}))"); done

"$PY3" - "$TMP/out.jsonl" "$steal" "$(untraced_ns "$TMP/out.jsonl")" "${args[@]}" <<'PY'
import json, sys
f, steal, unt = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
use = {k: float(v) for k, v in (a.split("=") for a in sys.argv[4:])}
rows = [json.loads(l) for l in open(f)]
by = lambda s: {str(r["key"]): r for r in rows if r["scope"] == s}
pods, nss, sysr = by("pod"), by("namespace"), by("system")["all"]
clk = lambda r: r["counters"]["cpu-clock"]
bad = 0
def say(ok, what):
    global bad
    print(("ok    " if ok else "FAIL  ") + what)
    bad += not ok

# pods keyed namespace/pod from their containers' names
members = {"kv/cache-0": ["cache0"], "kv/cache-1": ["cache1"], "data/pg-0": ["pg"],
           "shop/cart-5c": ["cart"]}
esys, csys = sysr["energy_j"], clk(sysr)
print(f"      system: {esys:.3f} J over {csys / 1e9:.3f} s of cpu-clock, steal {steal / 1e6:.1f} ms, untraced {unt / 1e6:.1f} ms")
for key, cs in members.items():
    r = pods.get(key)
    if not r:
        say(False, f"a pod row {key} (have {sorted(pods)})")
        continue
    want = sum(use[c] for c in cs)
    say(abs(clk(r) - want) <= 0.01 * want + steal + unt,
        f"pod {key}: cpu-clock {clk(r) / 1e9:.4f} s vs its cgroups' cpu.stat {want / 1e9:.4f} s (1% + steal + untraced)")
    share = esys * clk(r) / csys
    say(r["energy_j"] is not None and abs(r["energy_j"] - share) <= 0.02 * share,
        f"pod {key}: energy {r['energy_j']:.4f} J, its cpu-clock share of the system's {share:.4f} J (2%)")
    say("epi_nj" in r and r["epi_nj"] is None and r["counters"]["instructions"] is None,
        f"pod {key}: no instructions here, so energy per instruction null, not 0 ({r.get('epi_nj', 'missing')})")
for ns in ("kv", "data", "shop"):
    r = nss.get(ns)
    ps = [p for k, p in pods.items() if k.startswith(ns + "/")]
    if not r:
        say(False, f"a namespace row {ns}")
        continue
    e = sum(p["energy_j"] for p in ps)
    say(abs(r["energy_j"] - e) <= 1e-6 * e + 1e-9 and abs(clk(r) - sum(map(clk, ps))) <= 1,
        f"namespace {ns}: energy {r['energy_j']:.4f} J and cpu-clock the sums of its {len(ps)} pods' ({e:.4f} J)")
# what is in no pod (the host) adds up in "host", the container rows' word
say("host" in nss and "none" not in nss, f"what is in no pod: the namespace row 'host' ({sorted(nss)})")
tot = sum(r["energy_j"] for r in nss.values())
say(abs(tot - esys) <= 0.001 * esys,
    f"the namespaces' energy, host included, adds up to the system's: {tot:.4f} J vs {esys:.4f} J")
sys.exit(1 if bad else 0)
PY
check "pods' and namespaces' energy and counts hold" [ $? -eq 0 ]
finish
