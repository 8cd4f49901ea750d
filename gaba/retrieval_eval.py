"""Retrieval-only measures: did a retriever hand over the evidence, and at what context size
(chapter "Measuring graph against flat"). No model call, so they run at any corpus size."""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from tqdm.auto import tqdm

from . import embed as _embedding
from . import rag
from .data.benchmarks import pooled_paragraphs, to_graph
from .data.cases import Case
from .embed import cosine_top_k
from .entities import find_entities
from .evaluate import _rate_table, context_tokens
from .graph import fact_sentence, gather_facts
from .scaling import hop_ordered_facts, plot_scaling

__all__ = ["evidence_recall", "take_within_budget", "context_evidence", "budget_recall",
           "retrieval_summary", "plot_retrieval"]


def _norm(item: Any) -> Any:
    """Case-folded, whitespace collapsed, also inside tuples and lists."""
    if isinstance(item, str):
        return " ".join(item.casefold().split())
    if isinstance(item, (tuple, list)):
        return tuple(_norm(x) for x in item)
    return item


def evidence_recall(retrieved: Iterable, gold: Iterable) -> float:
    """Fraction of the ``gold`` evidence found in what a retriever returned (case-folded, whole items).

    >>> evidence_recall(["d3", "d9"], ["d3", "D7 "])
    0.5
    """
    if isinstance(gold, str) or isinstance(retrieved, str):
        raise TypeError("evidence_recall takes collections of items; wrap a single string in a list")
    gold_items = set(map(_norm, gold))
    if not gold_items:
        raise ValueError("evidence_recall: the gold evidence is empty, so recall is undefined")
    return len(gold_items & set(map(_norm, retrieved))) / len(gold_items)


def take_within_budget(items: Iterable, budget: int | None, *,
                       size: Callable[[Any], int] | None = None) -> list:
    """The longest prefix of ``items`` whose total size fits in ``budget`` tokens (None: all)."""
    items = list(items)
    if budget is None:
        return items
    if isinstance(budget, bool) or int(budget) != budget or budget < 0:
        raise ValueError(f"budget must be a non-negative number of tokens or None, not {budget!r}")
    totals = itertools.accumulate(map(size or (lambda item: context_tokens([item])), items))
    return [item for item, _ in itertools.takewhile(lambda p: p[1] <= budget, zip(items, totals))]


def retrieval_summary(df, by: Sequence[str] = ("size", "method")):
    """All-evidence rate per group with Wilson 95% interval, plus mean recall and context size."""
    by = list(by)
    out = _rate_table(df.assign(case=df.get("question", df.get("example"))), by, "all_evidence", "trial")
    extra = df.groupby(by, observed=True, sort=True).agg(
        mean_recall=("recall", "mean"), median_tokens=("context_tokens", "median"),
        p90_tokens=("context_tokens", lambda s: s.quantile(0.9)),
        mean_ms=("seconds", lambda s: 1000 * s.mean())).reset_index()
    return out.drop(columns="questions").merge(extra, on=by)


def budget_recall(examples: Sequence, *, budgets: Sequence[int] = (50, 100, 200, 400), hops: int = 2,
                  triples: Mapping | None = None, rankers: Mapping[str, Callable | None] | None = None,
                  embed: Callable | None = None, progress: bool = True):
    """Evidence recall of graph traversal and flat retrieval at equal context budgets (tokens).

    ``rankers`` order the graph's facts (``None``: hop order). Returns one row per example x budget
    x method: ``example, kind, budget, method, recall, all_evidence, linked, context_tokens, seconds``.
    """
    import pandas as pd
    examples = [ex for ex in examples if ex.evidence_triples]
    if not examples:
        raise ValueError("budget_recall needs examples with evidence triples (2WikiMultihopQA, "
                         "or MuSiQue records with a '>>' decomposition).")
    rankers = dict(rankers) if rankers is not None else {"graph": None}
    if not rankers or "flat" in rankers:
        raise ValueError("rankers must name at least one graph method, and not 'flat'")
    budgets = sorted({int(b) for b in budgets})
    if budgets[0] < 1:
        raise ValueError(f"budgets must be positive token counts, got {budgets!r}")
    embed = embed or _embedding.embed_texts
    pool = pooled_paragraphs(examples)
    matrix = np.asarray(embed([f"{t}: {x}" for t, x in pool], kind="passage"))
    qvecs = embed([ex.question for ex in examples], kind="query")
    sentences = {}
    for ex in examples:
        for title, sents in ex.paragraphs:
            sentences.setdefault((title, " ".join(s.strip() for s in sents)), [s.strip() for s in sents])
    G = to_graph(examples, triples=triples)
    rows = []
    for ex, qv in tqdm(list(zip(examples, qvecs)), desc="questions", unit="question",
                       disable=not progress):
        t0 = time.perf_counter()
        order = cosine_top_k(np.asarray(qv), matrix, len(pool))
        units = [(pool[i][0], j, s) for i in order for j, s in enumerate(sentences[pool[i]])]
        t_flat = time.perf_counter() - t0
        t0 = time.perf_counter()
        entities = find_entities(ex.question, G)
        facts = hop_ordered_facts(G, entities, hops)
        t_gather = time.perf_counter() - t0
        orders = {}
        for name, rank in rankers.items():
            t0 = time.perf_counter()
            ordered = list(rank(ex.question, facts, G)) if (rank is not None and facts) else facts
            orders[name] = ([(f, fact_sentence(f)) for f in ordered], t_gather + time.perf_counter() - t0)
        for b in budgets:
            kept = take_within_budget(units, b, size=lambda u: context_tokens(u[2]))
            got = {(t, j) for t, j, _ in kept} | {(t, None) for t, _, _ in kept}
            measured = [("flat", evidence_recall([f"{t}\x00{j}" for t, j in got],
                                                 [f"{t}\x00{j}" for t, j in ex.supporting_facts]),
                         None, sum(context_tokens(u[2]) for u in kept), t_flat)]
            for name, (rendered, seconds) in orders.items():
                kept_f = take_within_budget(rendered, b, size=lambda r: context_tokens(r[1]))
                measured.append((name, evidence_recall([f for f, _ in kept_f], ex.evidence_triples),
                                 bool(entities), sum(context_tokens(r) for _, r in kept_f), seconds))
            rows += [{"example": ex.id, "kind": ex.kind, "budget": b, "method": method, "recall": recall,
                      "all_evidence": recall == 1.0, "linked": linked, "context_tokens": tokens,
                      "seconds": seconds} for method, recall, linked, tokens, seconds in measured]
    df = pd.DataFrame(rows)
    df["method"] = pd.Categorical(df["method"], categories=["flat", *rankers], ordered=True)
    return df


def plot_retrieval(summary, ax=None, *, x: str = "size", y: str = "rate", hue: str = "method",
                   logx: bool = True, xlabel: str | None = None, ylabel: str | None = None):
    """Lines of a :func:`retrieval_summary` column against ``x``, one per ``hue`` value."""
    for col in (x, y, hue):
        if col not in summary.columns:
            raise KeyError(f"summary has no column {col!r}; pass the output of retrieval_summary")
    ax = plot_scaling(summary, x=x, y=y, series=hue, styles={}, axes=ax, title="", xlabel=xlabel or x,
                      ylabel=ylabel or y, logx=logx, logy=False)
    if logx:
        values = sorted(set(summary[x]))
        ax.set_xticks(values, [f"{v:,}" for v in values])
        ax.minorticks_off()
    return ax


def context_evidence(cases: Sequence[Case], G, *, documents: Sequence[Mapping], hops: int = 2, k: int = 2):
    """Did each system's retrieval hand over the gold evidence? Retrieval only, no model call.

    One row per case: ``case, kind, graph_recall, graph_has_evidence, graph_facts, flat_recall,
    flat_has_evidence``.
    """
    import pandas as pd
    docs = list(documents)
    rows = []
    for i, case in enumerate(cases):
        if not case.answerable or not case.evidence:
            continue
        cid = case.id or f"c{i + 1:02d}"
        entities = find_entities(case.question, G)
        facts = gather_facts(G, entities, hops) if entities else set()
        pairs = {frozenset((_norm(s), _norm(o))) for s, _, o in facts}
        gold_pairs = [frozenset((_norm(e[0]), _norm(e[2]))) for e in case.evidence]
        g_recall = sum(p in pairs for p in gold_pairs) / len(gold_pairs)
        top_k = [d["id"] for d in rag.flat_retrieve(case.question, k, documents=docs)]
        f_recall = evidence_recall(top_k, [e[3] for e in case.evidence])
        rows.append({"case": cid, "kind": case.kind, "graph_recall": g_recall,
                     "graph_has_evidence": g_recall == 1.0, "graph_facts": len(facts),
                     "flat_recall": f_recall, "flat_has_evidence": f_recall == 1.0})
    return pd.DataFrame(rows)
