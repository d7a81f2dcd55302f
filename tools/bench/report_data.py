# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The results of one `make bench` run (tools/bench.sh's TSV files) as a
Bench, the targets, and the number formats the report writes them in
(tools/bench/report.py)."""
import csv
import math
import os
import statistics


TARGET_NS = 150
# events the sched_switch program counts itself (pmu/event.c): no perf_event
FROM_SWITCH = {"cpu-clock", "task-clock", "context-switches", "cs", "cpu-migrations",
               "migrations"}
REST_NS = 50
TARGET_FLUSH_MS = 5.0
TARGET_CPU_PCT = 0.5
TARGET_ACC_PCT = 0.5
# The events of a run (meta.tsv, set by tools/bench.sh from a PMU probe);
# these defaults are those of a machine without a PMU.
SW_EVENTS = "cpu-clock,context-switches"
SW_EVSETS = ("cpu-clock", "cpu-clock,context-switches", "cpu-clock,context-switches,page-faults")
# emon-perf's system cpu-clock short of CPUs x wall time by more than this:
# its per-CPU cpu-clock events were stopped (other tools' cgroup perf_events)
DEFICIT = 0.01


def tsv(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def num(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread(xs, fmt="{:.0f}"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "n/a"
    if len(xs) == 1:
        return fmt.format(xs[0])
    return (fmt + " [" + fmt + "–" + fmt + "]").format(statistics.median(xs), min(xs), max(xs))


def pct(x, nd=1):
    return "n/a" if x is None else f"{x:.{nd}f}%"


def kib(b):
    return f"{b / 1024:,.0f} KiB" if b < 10 * 1024 * 1024 else f"{b / 1048576:,.1f} MiB"


def met(ok):
    if ok is None:
        return "n/a"
    return "**met**" if ok else "**not met**"


class Bench:
    def __init__(self, res):
        self.res = res
        self.meta = {}
        with open(os.path.join(res, "meta.tsv")) as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("\t")
                self.meta[k] = v
        self.pp = tsv(os.path.join(res, "pingpong.tsv"))
        self.fds = tsv(os.path.join(res, "fds.tsv"))
        self.acc = tsv(os.path.join(res, "accuracy.tsv"))
        self.cost = tsv(os.path.join(res, "bpfcost.tsv"))
        # a run whose ping-pong hardly switched (another real-time task held
        # its CPU on a shared machine) measured another mix of switches
        most = max([num(r["runs"]) or 0 for r in self.cost] or [0])
        self.cost_dropped = [r for r in self.cost if (num(r["runs"]) or 0) < most / 4]
        self.cost = [r for r in self.cost if r not in self.cost_dropped]
        self.brk = tsv(os.path.join(res, "breakdown.tsv"))
        self.flush = tsv(os.path.join(res, "flush.tsv"))
        self.cpu = tsv(os.path.join(res, "cpu.tsv"))
        self.idle = {r["scenario"]: r["idle_pct"] for r in tsv(os.path.join(res, "idle.tsv"))}
        self.ncpu = int(self.meta.get("nproc", "1"))
        self.pmu = self.meta.get("pmu", "0") == "1"
        self.events = self.meta.get("events") or SW_EVENTS
        self.evsets = tuple(self.meta.get(f"evset{i}") or SW_EVSETS[i - 1] for i in (1, 2, 3))
        self.ev3 = self.evsets[2]
        self.perturbed = []     # emon-perf runs whose cpu-clock lost time

    # --- ping-pong / ring ----------------------------------------------------
    def runs(self, kind, mode, k, field="rt_s"):
        out = {}
        for r in self.pp:
            if r["kind"] == kind and r["mode"] == mode and (mode == "none" or int(r["k"]) == k):
                if kind == "ring" and int(r["k"]) != k:
                    continue
                if r["status"] == "0":
                    out[int(r["round"])] = num(r[field])
        return out

    def failed(self, kind, mode, k):
        return [r for r in self.pp if r["kind"] == kind and r["mode"] == mode
                and int(r["k"]) == k and r["status"] != "0"]

    def slowdowns(self, kind, mode, k, field="rt_s"):
        """Per round: 1 - monitored / unmonitored of the same round (paired)."""
        base = self.runs(kind, "none", 0 if kind == "pp" else k, field)
        mon = self.runs(kind, mode, k, field)
        return [100 * (1 - mon[r] / base[r]) for r in sorted(mon)
                if r in base and base[r] and mon[r] is not None]

    def slowdown(self, kind, mode, k, field="rt_s"):
        return med(self.slowdowns(kind, mode, k, field))

    def fd(self, mode, k, col):
        for r in self.fds:
            if r["mode"] == mode and int(r["k"]) == k:
                return num(r[col])
        return None

    # --- costs -------------------------------------------------------------------
    def on_switch_ns(self, nev, frm="switch"):
        """on_switch per run with nev events; frm: switch (the engine) or
        counters (every event read from its perf_event, as before)."""
        return [num(r["ns_per_run"]) for r in self.cost
                if int(r["events"]) == nev and r.get("from", "counters") == frm]

    def brk_ns(self, step, events, frm="switch"):
        return med([num(r["ns_per_run"]) for r in self.brk
                    if r.get("step") == step and r["events"] == events
                    and r.get("from") == frm])

    def floor_ns(self):
        return med([num(r["ns_per_run"]) for r in self.brk if r.get("step") == "none"])

    def flush_us(self, scenario):
        rows = [r for r in self.flush if r["scenario"] == scenario][1:]  # first: warm-up
        return ([num(r["us"]) for r in rows],
                med([num(r["cgroup_entries"]) for r in rows]),
                med([num(r["proc_entries"]) for r in rows]))

    def own_cpu_pct(self, watched="1000"):
        rows = [r for r in self.cpu if r.get("watched", "1000") == watched]
        if not rows:
            return None, None, None
        r = rows[0]
        hz, secs = float(r["hz"]), float(r["seconds"])
        u, s = float(r["utime_ticks"]) / hz, float(r["stime_ticks"]) / hz
        return 100 * (u + s) / secs, 100 * u / secs, 100 * s / secs

    def acc_errors(self):
        """(workload, cgroup) -> error lists in %: e (emon alone vs cpu.stat),
        p (perf alone vs cpu.stat), ep / eb / pb (both at once: emon vs perf,
        emon vs cpu.stat, perf vs cpu.stat), cs (cpu.stat ns)."""
        out = {}
        for r in self.acc:
            cs, e, p = num(r["cpustat_ns"]), num(r["emon_ns"]), num(r["perf_ns"])
            d = out.setdefault((r["workload"], r["cgroup"]),
                               {k: [] for k in ("cs", "e", "ex", "p", "ep", "eb", "pb")})
            d["cs"].append(cs)
            obs = r["observers"]
            steal = num(r["steal_ns"]) or 0
            deficit = num(r.get("emon_deficit"))
            if obs == "emon" and cs and e is not None:
                if deficit is not None and deficit > DEFICIT:
                    item = ("accuracy", r["workload"], r["round"], deficit)
                    if item not in self.perturbed:
                        self.perturbed.append(item)
                    continue
                d["e"].append(100 * (e - cs) / cs)
                d["ex"].append(100 * max(0.0, abs(e - cs) - steal) / cs)
            if obs == "perf" and cs and p is not None:
                d["p"].append(100 * (p - cs) / cs)
            if obs == "both":
                if p and e is not None:
                    d["ep"].append(100 * (e - p) / p)
                if cs and e is not None:
                    d["eb"].append(100 * (e - cs) / cs)
                if cs and p is not None:
                    d["pb"].append(100 * (p - cs) / cs)
        return out

    def pp_acc(self, mode, beyond_steal=False):
        """emon or perf vs cpu.stat over the ping-pong runs (c0000, c0001), in %;
        beyond_steal: |error| less the hypervisor steal measured during the run."""
        errs = []
        for r in self.pp:
            if r["kind"] != "pp" or r["mode"] != mode or r["status"] != "0":
                continue
            tag = f"pp-{mode}-{r['k']}-{r['round']}"
            got = read_monitor(self.res, tag, mode, self.meta)
            if got.get("_deficit", 0) > DEFICIT:
                item = ("pingpong", r["k"], r["round"], got["_deficit"])
                if item not in self.perturbed:
                    self.perturbed.append(item)
                continue
            steal = num(r.get("steal_ns")) or 0
            for cg, col in (("c0000", "a_cpustat_ns"), ("c0001", "b_cpustat_ns")):
                cs = num(r[col])
                if cs and got.get(cg) is not None:
                    if beyond_steal:
                        errs.append(100 * max(0.0, abs(got[cg] - cs) - steal) / cs)
                    else:
                        errs.append(100 * (got[cg] - cs) / cs)
        return errs


def read_monitor(res, tag, mode, meta):
    """cpu-clock (ns) per bench cgroup (c0000...) from a monitor's output."""
    out = {}
    if mode == "emon":
        import json
        path = os.path.join(res, "raw", tag + ".json")
        if os.path.exists(path):
            for line in open(path):
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if row.get("scope") == "cgroup" and row["counters"].get("cpu-clock") is not None:
                    out[row["key"].rsplit("/", 1)[-1]] = float(row["counters"]["cpu-clock"])
                elif row.get("scope") == "system" and row["counters"].get("cpu-clock"):
                    ncpu = int(meta.get("nproc", "1"))
                    out["_deficit"] = 1 - row["counters"]["cpu-clock"] / (ncpu * row["interval"] * 1e9)
    else:
        path = os.path.join(res, "raw", tag + ".csv")
        if os.path.exists(path):
            for line in open(path):
                f = line.strip().split(",")
                # "both" runs: perf counts task-clock (see bench.sh acc_run)
                if len(f) > 3 and f[2] in ("cpu-clock", "task-clock"):
                    v = num(f[0])
                    if v is not None:
                        out[f[3].rsplit("/", 1)[-1]] = v * 1e6
    return out


def profile(res):
    """function -> inclusive % from profile.txt."""
    out = {}
    p = os.path.join(res, "profile.txt")
    if os.path.exists(p):
        for line in open(p):
            f = line.split()
            if len(f) >= 4 and f[0].endswith("%"):
                out[f[3]] = num(f[0][:-1])
    return out
