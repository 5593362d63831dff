#!/usr/bin/env python3
"""Plots of experiment.sh: fig5 CSV -> fig5.png (FCT and % of capacity vs paths) and fig5-cpu.png
(CPU per transfer of the three systems); fig6 CSV -> fig6.png (FCT and % of capacity vs flow size);
fig7 CSV -> fig7.png (CDF of mice FCT); table2 CSV -> table2.png (max and average chunk size vs
paths); fig8 CSV -> fig8.png (Virtuoso CPU per transfer vs paths, one line per message size);
hetero CSV (+ hetero-timeline.csv beside it) -> hetero.png (% of capacity per system and run on
200/100/50/25 Mbit/s links; link-level goodput around the rate change)."""
import os
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {"virtuoso": "Virtuoso (soft RNIC, UDP)", "mptcp": "Linux MPTCP", "tcp": "single-path TCP",
          "default": "Virtuoso, default policies", "virtuoso-proportional": "Virtuoso, lb-proportional (paper)",
          "lb-proportional": "Virtuoso, lb-proportional", "lb-adaptive": "Virtuoso, lb-adaptive",
          "cc-chunkprobe": "Virtuoso, cc-chunkprobe", "cc-fixed-1m": "Virtuoso, cc-fixed 1 MiB chunks"}


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def rows_by_system(path):
    by = {}
    for r in read(path):
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

    fig, ax = plt.subplots(figsize=(6, 4))
    for sysname, rows in by.items():
        n = [int(r["paths"]) for r in rows]
        line = ax.plot(n, [float(r["client_cpu_s"]) for r in rows], "o-",
                       label=LABELS.get(sysname, sysname) + " client")[0]
        ax.plot(n, [float(r["server_cpu_s"]) for r in rows], "s--", color=line.get_color(),
                label=LABELS.get(sysname, sysname) + " server")
    ax.set(xlabel="number of paths", ylabel="CPU time per transfer (s)",
           title="CPU per %.0f MiB transfer (transfer only)" % size_mib)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out + "/fig5-cpu.png", dpi=110)


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
    rate = None
    for r in read(path):
        by.setdefault((r["mode"], r["elephant_paths"]), []).append(1000 * float(r["fct_s"]))
        rate = int(r["elephant_rate_bps"])
    fig, ax = plt.subplots(figsize=(6, 4))
    for (mode, paths), fcts in by.items():
        fcts.sort()
        label = ("elephant split over %s paths" % paths if mode == "split"
                 else "elephant on the mice's path (no splitting)")
        ax.step(fcts, [(i + 1) / len(fcts) for i in range(len(fcts))], where="post", label=label)
    ax.set(xlabel="256 KiB mouse FCT (ms)", ylabel="CDF", ylim=(0, 1.02),
           title="mice under a %.0f Mbit/s elephant" % ((rate or 0) / 1e6))
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out + "/fig7.png", dpi=110)


def table2(path, out):
    by = rows_by_system(path)
    probe = [r for r in by.get("cc-chunkprobe", []) if r["bytes"]]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    n = [int(r["paths"]) for r in probe]
    ax1.plot(n, [int(r["sum_safe_chunk_bytes"]) / 1024 for r in probe], "o-", label="max size (sum of safe sizes)")
    ax1.plot(n, [int(r["avg_chunk_bytes"]) / 1024 for r in probe], "s-", label="average chunk size per path")
    ax1.set(xlabel="number of paths", ylabel="KiB", title="cc-chunkprobe chunk sizes, shallow queues")
    for sysname, rows in by.items():
        rows = [r for r in rows if r["pct_of_capacity"]]
        ax2.plot([int(r["paths"]) for r in rows], [float(r["pct_of_capacity"]) for r in rows], "o-",
                 label=LABELS.get(sysname, sysname))
    ax2.axhline(90, color="grey", linestyle=":", linewidth=1)
    ax2.set(xlabel="number of paths", ylabel="% of sum of path capacities", ylim=(0, 105),
            title="goodput on the shallow queues")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out + "/table2.png", dpi=110)
    loss_csv = os.path.join(os.path.dirname(path), "table2-loss.csv")
    if not os.path.exists(loss_csv) or not read(loss_csv):
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    series = {}
    for r in read(loss_csv):
        series.setdefault((r["system"], int(r["paths"])), []).append(r)
    for (sysname, paths), rows in sorted(series.items()):
        rows = [r for r in rows if r["pct_of_capacity"]]
        ax.plot([float(r["loss_pct"]) for r in rows], [float(r["pct_of_capacity"]) for r in rows], "o-",
                label="%s, %d path%s" % (sysname, paths, "s" if paths > 1 else ""))
    ax.set_xscale("log")
    ax.axhline(80, color="grey", linestyle=":", linewidth=1)
    ax.set(xlabel="random loss on every core link (%)", ylabel="% of sum of path capacities", ylim=(0, 105),
           title="goodput under random loss (7 retries)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out + "/table2-loss.png", dpi=110)


def fig8(path, out):
    by = {}
    for r in read(path):
        by.setdefault(int(r["msg_bytes"]), []).append(r)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    size_mib = 0
    for msg, rows in sorted(by.items()):
        size_mib = int(rows[0]["bytes"]) / (1 << 20)
        n = [int(r["paths"]) for r in rows]
        kib = msg // 1024
        for ax, proc, eng in ((ax1, "client_cpu_s", "client_engine_cpu_s"), (ax2, "server_cpu_s", "server_engine_cpu_s")):
            line = ax.plot(n, [float(r[proc]) for r in rows], "o-", label="process, %d KiB messages" % kib)[0]
            ax.plot(n, [float(r[eng]) for r in rows], "s--", color=line.get_color(),
                    label="virtuoso-* threads, %d KiB messages" % kib)
    for ax, side in ((ax1, "client"), (ax2, "server")):
        ax.set(xlabel="number of paths", ylabel="CPU time per transfer (s)",
               title="Virtuoso %s CPU per %.0f MiB transfer" % (side, size_mib))
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out + "/fig8.png", dpi=110)


def hetero(path, out):
    rows = read(path)
    systems = []
    for r in rows:
        if r["system"] not in systems:
            systems.append(r["system"])
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for i, sysname in enumerate(systems):
        pct = [float(r["pct_of_capacity"]) for r in rows if r["system"] == sysname and r["kind"] == "steady"]
        if pct:
            ax1.bar(i, sum(pct) / len(pct), color="lightsteelblue")
            ax1.plot([i] * len(pct), pct, "k.", markersize=6)
    ax1.set_xticks(range(len(systems)), [LABELS.get(s, s) for s in systems], rotation=15, fontsize=8)
    ax1.set(ylabel="% of 375 Mbit/s (goodput)", ylim=(0, 105), title="links 200/100/50/25 Mbit/s: runs and mean")
    ax1.axhline(95, color="grey", linestyle=":", linewidth=1)
    ax1.grid(alpha=0.3, axis="y")
    tl = os.path.join(os.path.dirname(path), "hetero-timeline.csv")
    if os.path.exists(tl):
        by = {}
        for r in read(tl):
            by.setdefault(r["system"], ([], []))
            by[r["system"]][0].append(float(r["t_s"]))
            by[r["system"]][1].append(float(r["link_bps_sum"]) / 1e6)
        for sysname, (t, v) in by.items():
            ax2.plot(t, v, "-", label=LABELS.get(sysname, sysname))
        ax2.axhline(325 * 0.9, color="grey", linestyle=":", linewidth=1)
        ax2.axvline(0, color="grey", linewidth=1)
        ax2.axvline(2, color="grey", linestyle="--", linewidth=1)
        ax2.set(xlabel="s after link 1 drops 100 -> 25 Mbit/s", ylabel="link-level Mbit/s (sum of the 4 links)",
                title="rate change (dotted: 90% of the new 325 Mbit/s)")
        ax2.grid(alpha=0.3)
        ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out + "/hetero.png", dpi=110)


if __name__ == "__main__":
    plots = {"fig5": fig5, "fig6": fig6, "fig7": fig7, "table2": table2, "fig8": fig8, "hetero": hetero}
    if len(sys.argv) != 4 or sys.argv[1] not in plots:
        sys.exit("usage: experiment_plot.py fig5|fig6|fig7|table2|fig8|hetero CSV OUTDIR")
    plots[sys.argv[1]](sys.argv[2], sys.argv[3])
