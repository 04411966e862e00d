"""Plot bench/balancers.py's CSV: one group of bars per graph, MTEPS per balancer (log scale).

``python bench/plot_balancers.py results.csv docs/balancers.png`` (needs matplotlib).
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(csv.DictReader(open(sys.argv[1])))
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    balancers = list(dict.fromkeys(r["balancer"] for r in rows))
    mteps = defaultdict(float)
    for r in rows:
        mteps[r["graph"], r["balancer"]] = float(r["mteps"] or "nan")
    width = 0.8 / len(balancers)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for k, balancer in enumerate(balancers):
        xs = [g + k * width for g in range(len(graphs))]
        ax.bar(xs, [mteps[name, balancer] for name in graphs], width, label=balancer)
    ax.set_xticks([g + 0.4 - width / 2 for g in range(len(graphs))], graphs)
    ax.set_yscale("log")
    ax.set_ylabel("MTEPS (BFS, median of 5; log scale)")
    ax.set_title("BFS by load balancer, NVIDIA H100")
    ax.legend(ncol=4, fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
