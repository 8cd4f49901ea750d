"""Graph RAG against flat retrieval on collections written after the method: does it transfer?

The thirteen held-out collections of ``gaba.data.transfer.HELD_OUT`` (music, food, space, rail,
health, ports, courts, stage, energy, aviation, museums, vineyards, ferries; ten short news items and 14 questions each:
single-fact, two-hop, three-hop, unanswerable) are built into a knowledge graph each with the defaults a reader gets (open
extraction, co-occurrence rule), and every question is asked once at temperature 0 of

- flat RAG over the 2 most similar documents (``gaba.rag.flat_rag``),
- Graph RAG within 3 hops at its defaults (``gaba.rag.graph_rag``: where a relative clause describes an
  entity on the way, that entity is asked for first, then the rest of the question),
- the same Graph RAG reply with the grounding rule off (no extra model call), and
- Graph RAG within 2 hops (the setting of the news chapters), which is why 3 is the default, and
- Graph RAG within 3 hops asking the whole question first (``clause_first=False``: one model call
  fewer where a question has such a clause).

A multi-hop or single-fact question passes when the answer names the expected entity and does
not abstain; an unanswerable one when the system abstains. The responses are recorded in the
book's cache, so the run is offline and repeatable; with a cache miss (other code, other model)
it calls the model once per miss.

Usage::

    python benchmarks/heldout_transfer.py              # prints the tables
    python benchmarks/heldout_transfer.py --publish    # also writes assets/data/bench/heldout_transfer.csv
    python benchmarks/heldout_transfer.py --fresh --publish   # the ten written last: heldout_fresh.csv
    python benchmarks/heldout_transfer.py --fresh --warm --publish   # the same, two trials at 0.7:
                                                                     # heldout_fresh_warm.csv
"""
from __future__ import annotations

import shutil
import time
import warnings

import _common
from _common import ROOT, print_table, write_csv

SYSTEMS = ("flat RAG (top-2)", "graph RAG (3 hops)", "graph RAG (3 hops, no grounding)", "graph RAG (2 hops)",
           "graph RAG (3 hops, whole question)")


def run(collections, trials: int = 1, temperature: float = 0.0) -> list[dict]:
    """One row per collection x question type x system, plus the pooled rows."""
    import pandas as pd

    from gaba import evaluate as ev
    from gaba.data.transfer import load_cases, load_collection
    from gaba.graph import build_knowledge_graph

    frames = []
    for name in collections:
        docs, cases = load_collection(name), load_cases(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)      # a failed document is reported below
            G = build_knowledge_graph(docs, progress=False)
        failed = sorted(G.graph["failed"])
        print(f"{name}: {len(docs)} documents, {G.number_of_nodes()} nodes, {G.number_of_edges()} edges; "
              f"documents that failed: {', '.join(failed) or 'none'}")
        systems = {**ev.rag_systems(G, k=2, hops=3, documents=docs),
                   **ev.rag_systems(G, k=None, hops=3, grounding=False),
                   **ev.rag_systems(G, k=None, hops=2),
                   **ev.rag_systems(G, k=None, hops=3, clause_first=False)}
        assert list(systems) == list(SYSTEMS), list(systems)
        res = ev.run_eval(cases, systems, trials=trials, temperature=temperature, progress=False)
        res["collection"] = name
        frames.append(res)
    res = pd.concat(frames, ignore_index=True)
    res["type"] = res["kind"].map(lambda k: "multi-hop" if k in ("two-hop", "three-hop") else k)
    rows = []
    for (coll, typ, system), g in [*res.groupby(["collection", "type", "system"]),
                                   *(((("pooled",) + k), g) for k, g in res.groupby(["type", "system"]))]:
        k, n = int(g["passed"].sum()), len(g)
        lo, hi = ev.wilson_interval(k, n)
        rows.append({"collection": coll, "type": typ, "system": system, "passed": k, "n": n,
                     "rate": k / n, "low": lo, "high": hi})
    return rows


def main(argv=None) -> int:
    from gaba.data.transfer import FRESH, HELD_OUT

    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--publish", action="store_true", help="also copy the CSV to assets/data/bench")
    p.add_argument("--fresh", action="store_true",
                   help="the collections written last, by a helper that read no code (gaba.data.transfer.FRESH), "
                        "into heldout_fresh.csv")
    p.add_argument("--warm", action="store_true",
                   help="two trials per question at temperature 0.7 instead of one at 0 (file name ends _warm)")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    trials, temperature = (2, 0.7) if args.warm else (1, 0.0)
    rows = run(FRESH if args.fresh else HELD_OUT, trials, temperature)
    print_table(rows, ["collection", "type", "system", "passed", "n", "rate", "low", "high"],
                f"Held-out collections: pass rate, {trials} trial(s) per question at temperature {temperature} "
                "(Wilson 95%)")
    name = ("heldout_fresh" if args.fresh else "heldout_transfer") + ("_warm" if args.warm else "")
    path = write_csv(rows, args.out / f"{name}.csv")
    if args.publish:
        shutil.copy(path, ROOT / "assets" / "data" / "bench" / path.name)
    print(f"\nwrote {path} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
