# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""docs/bench-slowdown.svg: the slowdown by events and tasks, from a Bench
(tools/bench/report.py)."""
import math
import statistics


# --- the plot ------------------------------------------------------------------
def svg_plot(b, path):
    W, H = 720, 440
    L, R, T, B = 70, 190, 50, 60
    ks = [1, 16, 64, 256, 1024]
    series = []
    for kind, label_kind, dash in (("pp", "ping-pong, K watched", ""), ("ring", "ring of K cgroups", "6,4")):
        for mode, name, color in (("emon", "emon-perf", "#1f77b4"), ("perf", "perf stat -G", "#d62728")):
            pts = []
            for k in ks:
                s = b.slowdowns(kind, mode, k)
                if s:
                    pts.append((k, statistics.median(s), min(s), max(s)))
            if pts:
                series.append((f"{name}, {label_kind}", color, dash, pts))
    ymax = max([p[3] for s in series for p in s[3]] + [10])
    ymin = min([p[2] for s in series for p in s[3]] + [0])
    ymax = math.ceil(ymax / 10) * 10
    ymin = math.floor(ymin / 10) * 10

    def x(k):
        return L + (W - L - R) * math.log2(k) / math.log2(1024)

    def y(v):
        return T + (H - T - B) * (ymax - v) / (ymax - ymin)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2 - 60}" y="24" text-anchor="middle" font-size="15">'
         'Slowdown of the cross-cgroup context-switch workload vs no monitor</text>']
    for v in range(ymin, ymax + 1, 10):
        o.append(f'<line x1="{L}" y1="{y(v):.1f}" x2="{W - R}" y2="{y(v):.1f}" stroke="#ddd"/>')
        o.append(f'<text x="{L - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v}%</text>')
    for k in ks:
        o.append(f'<line x1="{x(k):.1f}" y1="{T}" x2="{x(k):.1f}" y2="{H - B}" stroke="#eee"/>')
        o.append(f'<text x="{x(k):.1f}" y="{H - B + 18}" text-anchor="middle">{k}</text>')
    o.append(f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>')
    o.append(f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>')
    o.append(f'<text x="{(L + W - R) / 2}" y="{H - 18}" text-anchor="middle">'
             'cgroups watched (K, log scale)</text>')
    o.append(f'<text x="18" y="{(T + H - B) / 2}" text-anchor="middle" '
             f'transform="rotate(-90 18 {(T + H - B) / 2})">slowdown (median, bars: min–max)</text>')
    for i, (label, color, dash, pts) in enumerate(series):
        d = " ".join(f"{x(k):.1f},{y(m):.1f}" for k, m, _, _ in pts)
        da = f' stroke-dasharray="{dash}"' if dash else ""
        o.append(f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="2"{da}/>')
        for k, m, lo, hi in pts:
            o.append(f'<line x1="{x(k):.1f}" y1="{y(lo):.1f}" x2="{x(k):.1f}" y2="{y(hi):.1f}" '
                     f'stroke="{color}" stroke-opacity="0.5"/>')
            shape = (f'<circle cx="{x(k):.1f}" cy="{y(m):.1f}" r="3.5" fill="{color}"/>' if not dash else
                     f'<rect x="{x(k) - 3.5:.1f}" y="{y(m) - 3.5:.1f}" width="7" height="7" fill="{color}"/>')
            o.append(shape)
        ly = T + 10 + 36 * i
        o.append(f'<line x1="{W - R + 12}" y1="{ly}" x2="{W - R + 40}" y2="{ly}" stroke="{color}" '
                 f'stroke-width="2"{da}/>')
        name, _, what = label.partition(", ")
        o.append(f'<text x="{W - R + 46}" y="{ly + 4}">{name}</text>')
        o.append(f'<text x="{W - R + 46}" y="{ly + 18}" fill="#555">{what}</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")
