"""Retrieval at scale: the experiments of chapter "Retrieval that stays sharp at scale" and their plot."""
from __future__ import annotations

import statistics
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from tqdm.auto import tqdm

from . import embed as _embedding
from .data.synthetic import make_scaling_corpus
from .entities import find_entities
from .data.benchmarks import to_graph
from .evaluate import _rate_table, wilson_interval
from .graph import fact_sentence, gather_facts, gather_facts_by_hop
from .link import LinkingCapped, link_entities
from .node_merge import merge_equivalent_nodes
from .rank import _check_options as _check_ranking
from .rank import rank_facts

__all__ = ["SYSTEMS", "STYLES", "hop_ordered_facts", "scaling_experiment", "summarize_scaling",
           "plot_scaling", "LINKING_SYSTEMS", "linking_recall"]

#: The systems :func:`scaling_experiment` compares, in display order.
SYSTEMS = ("flat top-k", "2-hop, all facts", "2-hop, first N by hop", "2-hop, ranked N")
#: How :func:`plot_scaling` draws each of :data:`SYSTEMS` (``label`` is filled from the row).
STYLES = {
    "flat top-k": {"color": "tab:gray", "marker": "s", "ls": "--"},
    "2-hop, all facts": {"color": "tab:blue", "marker": "o", "ls": "-"},
    "2-hop, first N by hop": {"color": "tab:orange", "marker": "v", "ls": ":",
                              "label": "2-hop, first {budget} by hop"},
    "2-hop, ranked N": {"color": "tab:green", "marker": "D", "ls": "-", "label": "2-hop, ranked {budget}"},
}
#: Colours of the lines :func:`plot_scaling` is given no style for.
PALETTE = ("#cf222e", "#0969da", "#8250df", "#1a7f37", "#bf8700")
#: Axis labels and panel titles of the columns of :func:`summarize_scaling`.
LABELS = {"size": "documents in the corpus", "rate": "questions with both facts retrieved",
          "words": "context words (median per question)"}
TITLES = {"rate": "Evidence recall (95% intervals)", "words": "Context handed to the model"}


def _words(texts: Iterable[str]) -> int:
    return sum(len(t.split()) for t in texts)


def hop_ordered_facts(G, entities, hops: int) -> list[tuple[str, str, str]]:
    """The facts within ``hops`` of ``entities``, hop 1 first, sorted within a hop: a question-blind order."""
    return [f for layer in gather_facts_by_hop(G, entities, hops) for f in sorted(layer)] if entities else []


def scaling_experiment(sizes: Sequence[int] = (14, 140, 1400), *, budget: int = 30, k: int = 5,
                       hops: int = 2, method: str = "combined", methods: Sequence[str] = (),
                       generator=None, n_questions: int = 50, seed: int = 0, embed=None,
                       flat: bool = True, progress: bool = True):
    """Both-facts recall and context size of the :data:`SYSTEMS` on growing synthetic corpora.

    Retrieval only, no model call. ``generator`` must give corpora nested across ``sizes`` (the
    largest is embedded once). Returns a DataFrame, one row per size x question x system: ``size,
    question, kind, budget, system, both_facts, facts, words, ms``.
    """
    import pandas as pd
    generator = generator or make_scaling_corpus
    embed = embed or _embedding.embed_texts
    if isinstance(sizes, int):
        sizes = [sizes]
    sizes = sorted({int(s) for s in sizes})
    if not sizes or sizes[0] < 2:
        raise ValueError(f"sizes must be document counts of at least 2, got {sizes!r}")
    for m in [method, *methods]:
        _check_ranking("q", budget, m)
    others = [m for m in dict.fromkeys(methods) if m != method]
    if k < 1 or hops < 1:
        raise ValueError(f"k and hops must be at least 1, got k={k}, hops={hops}")
    largest = generator(sizes[-1], n_questions=n_questions, seed=seed)
    texts = {d["id"]: d["text"] for d in largest.documents}
    vectors = dict(zip(texts, embed(list(texts.values()), kind="passage"))) if flat else {}
    rows = []
    for n in tqdm(sizes, desc="corpus sizes", unit="size", disable=not progress):
        corpus = largest if n == sizes[-1] else generator(n, n_questions=n_questions, seed=seed)
        ids = [d["id"] for d in corpus.documents]
        if flat and any(texts.get(i) != d["text"] for i, d in zip(ids, corpus.documents)):
            raise RuntimeError(f"the corpus of {n} documents is not nested in the largest one")
        M = np.stack([vectors[i] for i in ids]) if flat else None
        G = corpus.to_graph()
        Q = embed([q.question for q in corpus.questions], kind="query") if flat else corpus.questions
        for q, qv in zip(corpus.questions, Q):
            base = {"size": n, "question": q.id, "kind": q.kind, "budget": budget}
            if flat:
                t0 = time.perf_counter()
                top = [ids[i] for i in np.argsort(-(M @ qv), kind="stable")[:k]]
                ms = 1000 * (time.perf_counter() - t0)
                rows.append({**base, "system": "flat top-k", "both_facts": set(q.doc_ids) <= set(top),
                             "facts": None, "words": _words(texts[i] for i in top), "ms": ms})
            gold = {t.fact for t in q.facts}
            t0 = time.perf_counter()
            entities = find_entities(q.question, G)
            ordered = hop_ordered_facts(G, entities, hops)
            ms = 1000 * (time.perf_counter() - t0)
            measured = [("2-hop, all facts", ordered, ms), ("2-hop, first N by hop", ordered[:budget], ms)]
            for m in [method, *others]:
                ranked, rank_ms = [], 0.0
                if ordered:
                    rank_facts(q.question, ordered, G, budget=budget, method=m, entities=entities)  # warm
                    t0 = time.perf_counter()
                    ranked = rank_facts(q.question, ordered, G, budget=budget, method=m, entities=entities)
                    rank_ms = 1000 * (time.perf_counter() - t0)
                measured.append(("2-hop, ranked N" + ("" if m == method else f" ({m})"), ranked, rank_ms))
            for system, kept, t in measured:
                rows.append({**base, "system": system, "both_facts": gold <= set(kept),
                             "facts": len(kept), "words": _words(fact_sentence(f) for f in kept), "ms": t})
    df = pd.DataFrame(rows)
    categories = list(SYSTEMS) + [f"2-hop, ranked N ({m})" for m in others]
    df["system"] = pd.Categorical(df["system"], categories=categories, ordered=True)
    return df


def summarize_scaling(df):
    """Per size and system: both-facts rate with Wilson 95% interval, median facts and words, mean ms."""
    by, budget = ["size", "system"], ["budget"] if "budget" in df else []
    rates = _rate_table(df.assign(case=df["question"]), by, "both_facts", "trial")
    extra = df.groupby(by, observed=True, sort=True).agg(
        **{c: (c, "first") for c in budget},
        facts=("facts", "median"), words=("words", "median"), ms=("ms", "mean")).reset_index()
    out = rates.merge(extra, on=by).astype({"size": int, "system": str})
    return out[[*by, *budget, "n", "rate", "low", "high", "facts", "words", "ms"]]


def plot_scaling(rows, *, x: str = "size", y: str | Sequence[str] = ("rate", "words"),
                 series: str | Sequence[str] = "system", styles: Mapping[str, dict] | None = None,
                 axes=None, title: str | None = None, xlabel: str | None = None,
                 ylabel: str | None = None, logx: bool = True, logy: bool | None = None):
    """Each column of ``y`` against ``x``, one panel per column, one line per series: the book's line plot.

    ``series`` columns name the lines; ``styles`` (default :data:`STYLES`) selects and styles them.
    A ``rate`` is drawn on [0, 1] with its ``low``/``high`` interval. Returns the axes.
    """
    import matplotlib.pyplot as plt
    if hasattr(rows, "to_dict"):
        rows = rows.to_dict("records")
    columns = [y] if isinstance(y, str) else list(y)
    if axes is None:
        _, axes = plt.subplots(1, len(columns), figsize=(6, 4) if len(columns) == 1 else (5.5 * len(columns), 4.2))
    panels = list(np.atleast_1d(axes))
    if len(panels) != len(columns):
        raise ValueError(f"plot_scaling needs one axes per column of y, got {len(panels)} for {columns}")
    styles = STYLES if styles is None else styles
    keys = [series] if isinstance(series, str) else list(series)
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(" / ".join(str(r[c]) for c in keys), []).append(r)
    names = [s for s in styles if s in groups] or list(groups)
    for i, (ax, col) in enumerate(zip(panels, columns)):
        rate = col == "rate" and all("low" in r and "high" in r for r in rows)
        for j, name in enumerate(names):
            pts = sorted((r for r in groups[name] if r.get(col) is not None and r[col] == r[col]),
                         key=lambda r: r[x])
            if not pts:
                continue
            style = dict(styles.get(name) or {"color": PALETTE[j % 5], "marker": "os^Dv"[j % 5],
                                              "linestyle": ("-", "--", ":", "-.")[j % 4]})
            label = style.pop("label").format(**pts[0]) if "label" in style else name
            xs, ys = [r[x] for r in pts], [r[col] for r in pts]
            if rate:
                yerr = [[r["rate"] - r["low"] for r in pts], [r["high"] - r["rate"] for r in pts]]
                ax.errorbar(xs, ys, yerr=yerr, capsize=3, label=label, **style)
            else:
                ax.plot(xs, ys, label=label, **style)
        if logx:
            ax.set_xscale("log")
        if logy if logy is not None else not rate:
            ax.set_yscale("log")
        if rate:
            ax.set_ylim(-0.03, 1.05)
        ax.set_xlabel(LABELS.get(x, x) if xlabel is None else xlabel)
        ax.set_ylabel(LABELS.get(col, col) if ylabel is None else ylabel)
        if (heading := TITLES.get(col) if title is None else title):
            ax.set_title(heading)
        if i == 0 and names:
            ax.legend(fontsize=8)
        ax.grid(alpha=0.3, which="both")
    return panels[0] if isinstance(y, str) else axes


#: The linking systems :func:`linking_recall` compares, in display order.
LINKING_SYSTEMS = ("exact names", "exact names + merged nodes", "linked (exact, fuzzy, embedding)",
                   "linked + merged nodes")


def linking_recall(examples: Sequence, *, hops: int = 2) -> list[dict]:
    """How often every gold evidence triple is within ``hops`` of the entities a question links to.

    One dict per :data:`LINKING_SYSTEMS` entry: ``system, n, all_evidence, low, high, no_entity, ...``.
    """
    examples = [e for e in examples if e.evidence_triples]
    if not examples:
        raise ValueError("linking_recall needs examples with evidence triples (2WikiMultiHopQA)")
    G = to_graph(examples)
    merged, mapping = merge_equivalent_nodes(G)
    exact, linked = find_entities, lambda q, g: link_entities(q, g).names
    systems = dict(zip(LINKING_SYSTEMS, ((G, exact), (merged, exact), (G, linked), (merged, linked))))
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
            facts = gather_facts(graph, entities, hops=hops) if entities else set()
            gold = {(m.get(s, s), r, m.get(o, o)) for s, r, o in e.evidence_triples}
            none += not entities
            ok += gold <= facts
            facts_n.append(len(facts))
            words_n.append(_words(fact_sentence(f) for f in facts))
        low, high = wilson_interval(ok, len(examples))
        rows.append({"system": name, "n": len(examples), "all_evidence": ok / len(examples),
                     "low": low, "high": high, "no_entity": none / len(examples),
                     "median_facts": statistics.median_high(facts_n),
                     "median_words": statistics.median_high(words_n),
                     "link_ms": sum(ms) / len(ms), "merged": len(mapping) if graph is merged else 0})
    return rows
