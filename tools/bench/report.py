#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""BENCHMARKS.md and docs/bench-slowdown.svg from tools/bench.sh's results.

    report.py RESULTS_DIR BENCHMARKS.md SVG

Python standard library only. Every number in the output comes from the TSV
files of one `make bench` run; the targets are those of issue 4.

The modules beside it: report_data (the results as a Bench, the targets),
report_md (the markdown), report_bpf (the BPF program's cost), report_svg
(the plot).
"""
import os
import sys

from report_bpf import bpf_section, bpf_targets
from report_data import Bench
from report_md import report
from report_svg import svg_plot


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--bpf":
        # BENCH_PHASES=bpfcost alone: its targets rows and section, to stdout
        b = Bench(sys.argv[2])
        print("\n".join(bpf_targets(b) + [""] + bpf_section(b)))
        return 0
    if len(sys.argv) != 4:
        print("usage: report.py RESULTS_DIR BENCHMARKS.md SVG | --bpf RESULTS_DIR", file=sys.stderr)
        return 2
    b = Bench(sys.argv[1])
    os.makedirs(os.path.dirname(os.path.abspath(sys.argv[3])), exist_ok=True)
    svg_plot(b, sys.argv[3])
    report(b, sys.argv[2], sys.argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
