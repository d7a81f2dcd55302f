# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The BPF program's cost in BENCHMARKS.md: its targets' rows, its section
step by step, and the notes on its limits (tools/bench/report.py)."""
import statistics

from report_data import med, met, profile, REST_NS, spread, TARGET_NS


STEPS = [
    ("none", "nothing: the bpf_stats floor (the prev lookup, then return)"),
    ("read", "the slice's deltas of every event, the next task noted"),
    ("cpu", "+ the CPU's row and the stats counter"),
    ("cgrp", "+ the cgroup's row (slot cache, else the index hash)"),
    ("all", "+ the process's row: the whole program, as the engine runs it"),
]


def bpf_targets(b):
    """The issue 14 rows of the targets table."""
    floor = b.floor_ns()
    sw, ct = med(b.on_switch_ns(3)), med(b.on_switch_ns(3, "counters"))
    rest = [b.brk_ns(s, b.ev3) for s in ("all", "read")]
    rows = []
    if sw is not None:
        rows.append(f"| whole program ≤ {TARGET_NS} ns per switch by kernel.bpf_stats_enabled "
                    f"({b.ev3}, cgroup and process scopes, 64 cgroups watched, cross-cgroup "
                    f"ping-pong) | on_switch {sw:.0f} ns per run (median), bpf_stats' own "
                    f"{floor or 0:.0f} ns included"
                    + (f"; {ct:.0f} ns with every event read from its counter (before)"
                       if ct is not None else "") + f" | {met(sw <= TARGET_NS)} |")
    if None not in rest:
        d = rest[0] - rest[1]
        rows.append(f"| the rest of the switch path < {REST_NS} ns (everything but the counter "
                    f"reads, cgroup and process scopes; bench-switch-cost on the real object) "
                    f"| {d:.0f} ns (step `all` − step `read`, below) | {met(d < REST_NS)} |")
    return rows


def bpf_section(b):
    """## BPF program cost per context switch, and where the time goes."""
    L = []
    w = L.append
    floor = b.floor_ns()
    w("## BPF program cost per context switch")
    w("")
    w("Run-time statistics on (those `kernel.bpf_stats_enabled=1` switches on, held by a "
      "BPF_ENABLE_STATS fd, `bench-switch-cost -S`, which another benchmark turning the sysctl "
      "off cannot spoil) while emon-perf runs the ping-pong with 64 cgroups watched; "
      "run_time_ns / run_cnt of its `on_switch` program (its fd found by `bpftool prog show "
      "id N`, the counters read from that fd's fdinfo) over 1.5 s mid-run. Each event set twice, in a shuffled order: as the "
      "engine counts (cpu-clock, task-clock, context-switches and cpu-migrations from the "
      "switch itself, other software events loaded in place) and with "
      "`EMON_SWITCH_EVENTS=counters` (every event read from its perf_event through the read "
      "helper: the engine before). bpf_stats itself adds the cost of an empty program"
      + (f" (step `none` below: {floor:.0f} ns)" if floor else "") + ", so \"net\" subtracts it.")
    w("")
    w("| events | from the switch: ns per run (median [min–max]) | net | from counters (before) | net | CPU share at 1k / 10k / 50k switches/s per CPU (net, from the switch) |")
    w("|---|---:|---:|---:|---:|---:|")
    names = {n: b.evsets[n - 1].replace(",", ", ") for n in (1, 2, 3)}
    for n in (1, 2, 3):
        xs, cs = b.on_switch_ns(n), b.on_switch_ns(n, "counters")
        if not xs:
            continue
        net = statistics.median(xs) - (floor or 0)
        cnet = f"{statistics.median(cs) - (floor or 0):.0f} ns" if cs else "n/a"
        share = " / ".join(f"{r * net / 1e9 * 100:.2f}%" for r in (1e3, 1e4, 5e4))
        w(f"| {n}: {names[n]} | {spread(xs)} | {net:.0f} ns | "
          f"{spread(cs) if cs else 'n/a'} | {cnet} | {share} |")
    w("")
    w("The CPU shares are computed (switches per second × net ns per switch), not measured."
      + (f" Left out: {len(b.cost_dropped)} run(s) with under a quarter of the most runs "
         "(another real-time task held the ping-pong's CPU: a different mix of switches)."
         if b.cost_dropped else ""))
    w("")
    w("### Where the time goes")
    w("")
    w(("" if b.pmu else "No PMU, so no `perf record` of BPF code: ") +
      "`tools/bench-switch-cost` loads the engine's own object (bpf/emon.bpf.c, through the "
      "engine's session, a flush every 100 ms) with its `steps` knob cutting on_switch after "
      "each step in turn (the verifier prunes the rest), attaches it for 0.5 s under the "
      "ping-pong and reads its bpf_stats; median of the rounds, floor included. Both ways of "
      "counting, in one run.")
    w("")
    w(f"| step | what it adds | {b.ev3}: from the switch, ns | Δ | from counters (before), ns | Δ |")
    w("|---|---|---:|---:|---:|---:|")
    prev = {}
    for step, what in STEPS:
        cells = []
        for frm in ("switch", "counters"):
            v = b.brk_ns(step, b.ev3, frm)
            d = f"{v - prev[frm]:+.0f}" if v is not None and prev.get(frm) is not None else ""
            cells += [f"{v:.0f}" if v is not None else "n/a", d]
            prev[frm] = v
        w(f"| {step} | {what} | " + " | ".join(cells) + " |")
    w("")
    w("One event alone, step `read` − step `none` (net ns: what counting it costs a switch, "
      "with the next task's bookkeeping):")
    w("")
    w("| event | from the switch (or loaded in place) | read from its counter |")
    w("|---|---:|---:|")
    for ev in ("cpu-clock", "context-switches", "page-faults", "cycles"):
        cells = []
        for frm in ("switch", "counters"):
            r, n0 = b.brk_ns("read", ev, frm), b.brk_ns("none", ev, frm)
            cells.append(f"{r - n0:.0f}" if r is not None and n0 is not None else None)
        if any(cells):
            w(f"| {ev} | " + " | ".join(c or "n/a" for c in cells) + " |")
    return L



def ns_or_noise(x):
    """A step's difference in ns, or what it is when the rounds' noise hides it."""
    return f"{x:.0f} ns" if x >= 2 else "nothing above the rounds' noise"


def limits_notes(b, floor, raw3, net3):
    ev3 = b.ev3
    n = []
    st = {x: b.brk_ns(x, ev3) for x, _ in STEPS}
    one = {ev: [(b.brk_ns("read", ev, f) or 0) - (b.brk_ns("none", ev, f) or 0)
                for f in ("switch", "counters")]
           for ev in ("cpu-clock", "context-switches", "page-faults")}
    if None not in st.values():
        n.append(f"**What a switch costs now** ({ev3}): bpf_stats' own {st['none']:.0f} ns; "
                 f"the three events' deltas {st['read'] - st['none']:.0f} ns, with no read "
                 "helper at all: cpu-clock is one `bpf_ktime_get_ns()` at the tracepoint "
                 f"({one['cpu-clock'][0]:.0f} ns with the next task's bookkeeping, against "
                 f"{one['cpu-clock'][1]:.0f} ns for a read of its perf_event, whose pmu->read "
                 "reads the same clock), context-switches is the switch itself "
                 f"({ns_or_noise(one['context-switches'][0])}, against "
                 f"{one['context-switches'][1]:.0f}), page-faults is loaded where the kernel "
                 f"counts it ({one['page-faults'][0]:.0f} ns, against "
                 f"{one['page-faults'][1]:.0f} through bpf_perf_event_read(): interrupts "
                 "off, checks, an indirect call through retpolines); everything else (CPU "
                 f"row, stats, cgroup and process rows) {st['all'] - st['read']:.0f} ns. "
                 "The clock read is most of what is left above the floor: the scheduler's "
                 "`rq->clock`, a few loads away, would save it (the whole program measured "
                 "125 ns with it on 2026-11-25, against 184 ns then), but it "
                 "is stamped before `__schedule()` dequeues the task going out and picks the "
                 "next, which put short-lived sleeping tasks' cgroups 0.9-1.2% below perf -G's "
                 "task-clock (cgroup_churn), against 0.1-0.2% at the tracepoint: the counts "
                 "stay the kernel's"
                 + (f", and the whole program ({raw3:.0f} ns) still meets the {TARGET_NS} ns "
                    "target." if raw3 is not None and raw3 <= TARGET_NS else
                    f", and the {TARGET_NS} ns target is not met in this VM."))
    if b.pmu:
        n.append("Hardware events (cycles, instructions) are still read with "
                 "bpf_perf_event_read_value() (they can be multiplexed: their times scale "
                 "them); on bare metal that is an rdpmc, several times cheaper than the "
                 "software reads of this VM.")
    se = [b.slowdown("pp", "emon", k) for k in (1, 16, 64, 256, 1024)]
    sp = [b.slowdown("pp", "perf", k) for k in (1, 16, 64, 256, 1024)]
    if all(x is not None for x in se + sp):
        n.append(f"The ping-pong is the worst case: a few µs per round trip, so the per-switch "
                 f"cost shows directly: emon-perf {min(se):.0f}–{max(se):.0f}% whatever K, "
                 f"perf stat -G {sp[0]:.0f}% at K = 1 and {min(sp[1:]):.0f}–{max(sp[1:]):.0f}% "
                 "from K = 16 on; perf's fds and kernel memory grow as K × events × CPUs "
                 "while emon-perf's stay fixed.")
    own, _, _ = b.own_cpu_pct()
    g1, _, g1s = b.own_cpu_pct("1")
    prof = profile(b.res)
    if own is not None and prof:
        parts = []
        for fn, what in (("cgroup_names__walk", "walking the whole cgroup tree (nftw + a "
                          "stat() of every directory and its parent) to name cgroup ids it "
                          "has not seen"),
                         ("print_interval", "building and printing the rows"),
                         ("json__interval", "of which the JSON writer"),
                         ("row_set__build", "the rows (roll-up, naming)"),
                         ("take_interval", "the interval's flush + map read"),
                         ("session__drain", "of which reading the count arrays"),
                         ("aggregate__add", "summing the read into the interval")):
            if fn in prof:
                parts.append(f"{what} {prof[fn]:.0f}%")
        n.append(f"emon-perf's own CPU ({own:.2f}% of a core with 1,000 cgroups, "
                 + (f"{g1:.2f}% with -G of one cgroup" if g1 is not None else "") + "): "
                 + "; ".join(parts) + " of its samples (inclusive, profile above).")
    fl, _, _ = b.flush_us("procs_10000_200")
    if fl:
        n.append("Flush + read: the read is a copy of the used slots out of the mmap'ed "
                 "count arrays (bench-drain `mmap`: a few ns per key, against a few hundred "
                 "for the batch read-and-delete of the hash maps the engine had before); "
                 "what is left is the flush (one IPI per CPU) and, on a busy machine, "
                 "waiting for a CPU: with 10,000 sleepers waking every 200 ms this VM has "
                 "little idle time.")
    n.append("This is a shared 2-CPU VM: other tasks (including the hypervisor's memory "
             "monitor `kdamond`) and steal move absolute rates by tens of percent between "
             "minutes, which is why every figure is a ratio to an unmonitored run of the "
             "same round and runs are interleaved in a shuffled order.")
    return n
