#!/usr/bin/env python3
"""Plots of experiment.sh: fig5 CSV -> fig5.png (FCT and % of capacity vs paths) and fig8.png (CPU);
fig6 CSV -> fig6.png (FCT and % of capacity vs flow size); fig7 CSV -> fig7.png (CDF of mice FCT)."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {"virtuoso": "Virtuoso (soft RNIC, UDP)", "mptcp": "Linux MPTCP", "tcp": "single-path TCP"}


def rows_by_system(path):
    by = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            by.setdefault(r["system"], []).append(r)
    return by


def fig5(path, out):
    by = rows_by_system(path)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for sysname, rows in by.items():
        n = [int(r["paths"]) for r in rows]
        ax1.plot(n, [float(r["fct_s"]) for r in rows], "o-", label=LABELS.get(sysname, sysname))
        ax2.plot(n, [float(r["pct_of_capacity"]) for r in rows], "o-", label=LABELS.get(sysname, sysname))
    size_mib = int(next(iter(by.values()))[0]["bytes"]) / (1 << 20)
    ax1.set(xlabel="number of paths", ylabel="flow completion time (s)", title="FCT, %.0f MiB flow" % size_mib)
    ax2.set(xlabel="number of paths", ylabel="% of sum of path capacities", ylim=(0, 105), title="utilization")
    ax2.axhline(95, color="grey", linestyle=":", linewidth=1)
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out + "/fig5.png", dpi=110)

    fig, ax = plt.subplots(figsize=(5, 4))
    for sysname, rows in by.items():
        ax.plot([int(r["paths"]) for r in rows], [float(r["client_cpu_s"]) for r in rows], "o-",
                label=LABELS.get(sysname, sysname))
    ax.set(xlabel="number of paths", ylabel="client CPU time per transfer (s)",
           title="CPU per %.0f MiB transfer (whole client process)" % size_mib)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out + "/fig8.png", dpi=110)


def fig6(path, out):
    by = rows_by_system(path)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    for sysname, rows in by.items():
        mib = [int(r["bytes"]) / (1 << 20) for r in rows]
        ax1.loglog(mib, [float(r["fct_s"]) for r in rows], "o-", label=LABELS.get(sysname, sysname))
        ax2.semilogx(mib, [float(r["pct_of_capacity"]) for r in rows], "o-", label=LABELS.get(sysname, sysname))
    paths = next(iter(by.values()))[0]["paths"]
    ax1.set(xlabel="flow size (MiB)", ylabel="flow completion time (s)", title="FCT over %s paths" % paths)
    ax2.set(xlabel="flow size (MiB)", ylabel="% of sum of path capacities", ylim=(0, 105), title="utilization")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3, which="both")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out + "/fig6.png", dpi=110)


def fig7(path, out):
    by = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            by.setdefault((r["mode"], r["elephant_paths"]), []).append(1000 * float(r["fct_s"]))
    fig, ax = plt.subplots(figsize=(5, 4))
    for (mode, paths), fcts in by.items():
        fcts.sort()
        label = "elephant split over %s paths" % paths if mode == "split" else "elephant on the mice's path"
        ax.step(fcts, [(i + 1) / len(fcts) for i in range(len(fcts))], where="post", label=label)
    ax.set(xlabel="256 KiB mouse FCT (ms)", ylabel="CDF", ylim=(0, 1.02), title="mice under an elephant")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out + "/fig7.png", dpi=110)


if __name__ == "__main__":
    plots = {"fig5": fig5, "fig6": fig6, "fig7": fig7}
    if len(sys.argv) != 4 or sys.argv[1] not in plots:
        sys.exit("usage: experiment_plot.py fig5|fig6|fig7 CSV OUTDIR")
    plots[sys.argv[1]](sys.argv[2], sys.argv[3])
