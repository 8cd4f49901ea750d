"""Traversal speed and memory: NetworkX (in memory) against FalkorDB (a server), same graph, same queries.

For each graph family (a family-like synthetic genealogy and a scale-free Barabási-Albert graph,
both with fixed seeds) and each size (number of edges), a fresh Python process:

1. builds the graph in NetworkX (time, and peak RSS of the process while building);
2. starts an embedded FalkorDB server (``gaba.store``) and bulk-loads the same graph (time, peak
   RSS of the server and of the Python client while loading);
3. times three operations of the book on both backends with the same sampled queries - fact
   gathering 2 hops out (``gaba.graph.gather_facts`` / its Cypher twin), ``gaba.paths.neighbors``
   3 hops out, and ``gaba.paths.paths_between`` up to 4 hops with a limit - each query run
   ``--repeat`` times after a warm-up; the table gives the median over queries of each query's
   median, and the ratio FalkorDB / NetworkX measured in the same process;
4. records the peak RSS of the Python process and of the server while querying.

A separate process per case keeps the memory figures clean. Writes ``traversal.csv`` (timings),
``traversal_memory.csv`` (build/load time and memory), ``bench_traversal.png`` and
``bench_traversal_memory.png``.

Usage::

    python benchmarks/traversal.py                      # 10^3, 10^4, 10^5 edges (a few minutes)
    python benchmarks/traversal.py --full               # ... up to 10^6 edges (tens of minutes)
    python benchmarks/traversal.py --sizes 1000 --queries 3 --repeat 1   # a smoke test
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import _common
from _common import ROOT, PeakRSS, print_table, rss_mb, write_csv

SMALL_SIZES = [1_000, 10_000, 100_000]
FULL_SIZES = [1_000, 10_000, 100_000, 1_000_000]
MARK = "@@TRAVERSAL-CASE@@"


def graph_families() -> dict:
    """The two graph families: name -> generator(n_edges, seed=...)."""
    from gaba.bench import family_graph, scale_free_graph

    return {"family": family_graph, "scale-free": scale_free_graph}


def run_case(family: str, n_edges: int, *, queries: int, repeat: int, seed: int, timeout: float) -> dict:
    """One graph family at one size, both backends (meant to run in its own process)."""
    from gaba.bench import compare_backends, sample_pairs, sample_starts
    from gaba.store import FalkorStore

    import falkordb, networkx, redis  # noqa: F401  (imported before the baseline is taken)
    import gaba.data.westeros, gaba.graph, gaba.paths  # noqa: F401

    me = os.getpid()
    base = rss_mb()
    t0 = time.perf_counter()
    with PeakRSS() as build:
        G = graph_families()[family](n_edges, seed=seed)
    build_s = time.perf_counter() - t0
    n_nodes = G.number_of_nodes()
    starts = sample_starts(G, queries, seed=seed)
    pairs = sample_pairs(G, max(1, queries // 2), distance=3, seed=seed)
    after_build = rss_mb()

    store = FalkorStore.start(graph="bench", label="Entity")
    try:
        server = store.server.pid
        server_idle = rss_mb(server)
        t0 = time.perf_counter()
        with PeakRSS(me, server) as load:
            store.load_networkx(G, progress=False)
        load_s = time.perf_counter() - t0
        server_loaded = rss_mb(server)
        with PeakRSS(me, server) as query:
            rows = compare_backends({"networkx": G, "falkordb": store}, starts=starts, pairs=pairs,
                                    repeat=repeat, warmup=1, timeout=timeout)
    finally:
        store.close()
    case = {"family": family, "n_edges": G.number_of_edges(), "n_nodes": n_nodes}
    memory = [
        {**case, "backend": "networkx", "process": "python", "build_s": build_s,
         "rss_before_mb": base, "graph_mb": after_build - base, "peak_build_mb": build.peak_mb[0],
         "peak_query_mb": query.peak_mb[0]},
        {**case, "backend": "falkordb", "process": "server", "build_s": load_s,
         "rss_before_mb": server_idle, "graph_mb": server_loaded - server_idle,
         "peak_build_mb": load.peak_mb[1], "peak_query_mb": query.peak_mb[1]},
        {**case, "backend": "falkordb", "process": "python client", "build_s": load_s,
         "rss_before_mb": load.start_mb[0], "graph_mb": None,
         "peak_build_mb": load.peak_mb[0], "peak_query_mb": None},
    ]
    return {"timings": [{**case, **r} for r in rows], "memory": memory}


def run_in_subprocess(family: str, n_edges: int, args) -> dict:
    cmd = [sys.executable, __file__, "--case", family, str(n_edges), "--queries", str(args.queries),
           "--repeat", str(args.repeat), "--seed", str(args.seed), "--timeout", str(args.timeout)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    if proc.returncode != 0:
        raise SystemExit(f"the case {family} at {n_edges:,} edges failed (exit {proc.returncode}); "
                         "its error is printed above.")
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    raise SystemExit(f"the case {family} at {n_edges:,} edges printed no result")


def plot(timings: list[dict], memory: list[dict], out) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gaba.scaling import plot_scaling

    families = sorted({r["family"] for r in timings})
    ops = list(dict.fromkeys(r["operation"] for r in timings))
    fig, axes = plt.subplots(len(families), len(ops), figsize=(4.2 * len(ops), 3.4 * len(families)),
                             squeeze=False, sharex=True)
    for i, fam in enumerate(families):
        for j, op in enumerate(ops):
            rows = [r for r in timings if r["family"] == fam and r["operation"] == op]
            plot_scaling(rows, x="n_edges", y="median_ms", series="backend", axes=axes[i][j],
                         title=f"{fam}: {op}", xlabel="edges" if i == len(families) - 1 else "",
                         ylabel="median ms per query" if j == 0 else "")
    fig.suptitle("Traversal latency, NetworkX vs FalkorDB (median over queries)", y=1.0)
    fig.tight_layout()
    paths = [_common.save_figure(fig, out / "bench_traversal.png")]

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    mem = [dict(r, who=f"{r['backend']} ({r['process']})") for r in memory if r["process"] != "python client"]
    plot_scaling(mem, x="n_edges", y="peak_query_mb", series=("who", "family"), axes=axes[0],
                 title="peak RSS while querying", xlabel="edges", ylabel="MB")
    plot_scaling(mem, x="n_edges", y="build_s", series=("who", "family"), axes=axes[1],
                 title="build (NetworkX) / bulk load (FalkorDB)", xlabel="edges", ylabel="seconds")
    fig.tight_layout()
    paths.append(_common.save_figure(fig, out / "bench_traversal_memory.png"))
    return paths


def main(argv: list[str] | None = None) -> int:
    p = _common.parser(__doc__)
    p.add_argument("--sizes", type=_common.int_list, default=None,
                   help="comma-separated edge counts (default 1e3,1e4,1e5; with --full up to 1e6)")
    p.add_argument("--families", default="family,scale-free", help="graph families (default both)")
    p.add_argument("--queries", type=int, default=20, help="start nodes sampled per case (default 20)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per query (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per query before it is cut")
    p.add_argument("--case", nargs=2, metavar=("FAMILY", "N_EDGES"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.queries < 2 or args.repeat < 1:
        p.error("--queries must be >= 2 and --repeat >= 1")
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    unknown = [f for f in families if f not in graph_families()]
    if unknown:
        p.error(f"unknown graph family {unknown}; choose from {sorted(graph_families())}")
    if args.case:
        result = run_case(args.case[0], int(args.case[1]), queries=args.queries, repeat=args.repeat,
                          seed=args.seed, timeout=args.timeout)
        print(MARK + json.dumps(result), flush=True)
        return 0
    sizes = args.sizes or (FULL_SIZES if args.full else SMALL_SIZES)
    timings, memory = [], []
    for fam in families:
        for n in sizes:
            t0 = time.perf_counter()
            r = run_in_subprocess(fam, n, args)
            timings += r["timings"]
            memory += r["memory"]
            print(f"  {fam:>10} {n:>9,} edges: done in {time.perf_counter() - t0:.0f} s", flush=True)
    wide = []
    for fam in families:
        for n in sorted({r["n_edges"] for r in timings if r["family"] == fam}):
            for op in dict.fromkeys(r["operation"] for r in timings):
                pair = {r["backend"]: r for r in timings
                        if r["family"] == fam and r["n_edges"] == n and r["operation"] == op}
                if "networkx" in pair and "falkordb" in pair:
                    wide.append({"family": fam, "edges": n, "operation": op,
                                 "networkx_ms": pair["networkx"]["median_ms"],
                                 "falkordb_ms": pair["falkordb"]["median_ms"],
                                 "ratio": pair["falkordb"]["ratio"],
                                 "result": pair["networkx"]["mean_result"],
                                 "same": pair["falkordb"]["same_result"],
                                 "cut": pair["networkx"]["timed_out"] + pair["falkordb"]["timed_out"]})
    print_table(wide, ["family", "edges", "operation", "networkx_ms", "falkordb_ms", "ratio", "result",
                       "same", "cut"],
                f"traversal: median ms per query ({args.queries} starts, {args.repeat} runs each); "
                "ratio = FalkorDB / NetworkX")
    print_table(memory, ["family", "n_edges", "backend", "process", "build_s", "graph_mb", "peak_build_mb",
                         "peak_query_mb"], "build/load time and memory (MB = 10^6 bytes)")
    write_csv(timings, args.out / "traversal.csv")
    write_csv(memory, args.out / "traversal_memory.csv")
    for path in plot(timings, memory, args.out):
        print(f"wrote {path}")
    print(f"wrote {args.out}/traversal.csv and traversal_memory.csv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
