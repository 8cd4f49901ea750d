"""Scoring extracted facts against gold facts: precision, recall, F1, and the differences.

Taught in chapter "From text to a knowledge graph".
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import networkx as nx

from .data.news import RELATION_FOLDS, load_gold_triples
from .data.triple import Triple
from .kgbuild import graph_triples
from .kgfile import edge_relation, edge_rows
from .names import normalize_name

_Folds = tuple[Mapping[str, str], Collection[str]]


def _folds(gold: Any, inverse: Mapping[str, str] | None, symmetric: Collection[str] | None
           ) -> tuple[Any, _Folds]:
    """The gold facts (default: the news gold) and the relation folds to score with."""
    if gold is None:
        gold = load_gold_triples()
        inverse = RELATION_FOLDS["inverse"] if inverse is None else inverse
        symmetric = RELATION_FOLDS["symmetric"] if symmetric is None else symmetric
    return gold, (inverse or {}, frozenset(symmetric or ()))


def _fact_list(items: Any, folds: _Folds) -> list[tuple[str, str, str]]:
    """The canonical facts of ``items`` (a graph, Triples, dicts or tuples), in their order: names
    lowercased, an inverse relation turned round, a symmetric one's ends in order."""
    inverse, symmetric = folds
    if isinstance(items, nx.Graph):
        items = [(u, edge_relation(k, d, unnamed=None), v) for u, v, k, d in edge_rows(items)]
    out = []
    for it in items:
        s, r, o = (it.as_tuple() if isinstance(it, Triple) else
                   (it["subject"], it["relation"], it["object"]) if isinstance(it, dict) else it)
        s, o = normalize_name(s).lower(), normalize_name(o).lower()
        if r in inverse:
            s, r, o = o, inverse[r], s
        if r in symmetric and o < s:
            s, o = o, s
        out.append((s, r, o))
    return out


def score_triples(predicted: Any, gold: Any = None, *, match: str = "relation",
                  inverse: Mapping[str, str] | None = None, symmetric: Collection[str] | None = None):
    """Precision, recall and F1 of extracted facts against gold facts, overall and per relation.

    Names compare case-insensitively. ``inverse`` maps a relation to its reverse, ``symmetric``
    relations ignore direction (with ``gold`` omitted: the news schema's). ``match="pair"`` compares only which
    two entities are linked (fair for open extraction; ``overall`` row only). Returns a DataFrame
    indexed by relation then ``overall``: ``gold, extracted, correct, precision, recall, f1``.

    >>> gold = [("A", "feeds", "B"), ("C", "runs", "A")]
    >>> pred = [("B", "fed_by", "A"), ("C", "founded", "A")]
    >>> float(score_triples(pred, gold, inverse={"fed_by": "feeds"}).loc["overall", "recall"])
    0.5
    """
    import pandas as pd
    if match not in ("relation", "pair"):
        raise ValueError(f"match must be 'relation' or 'pair', not {match!r}")
    gold, folds = _folds(gold, inverse, symmetric)
    gold_facts = _fact_list(gold, folds)
    P, G = set(_fact_list(predicted, folds)), set(gold_facts)
    if match == "pair":
        P = {frozenset((s, o)) for s, _, o in P if s != o}
        G = {frozenset((s, o)) for s, _, o in G if s != o}

    def row(p: set, g: set) -> dict:
        c = len(p & g)
        prec = c / len(p) if p else float("nan")
        rec = c / len(g) if g else float("nan")
        f1 = 2 * prec * rec / (prec + rec) if p and g and (prec + rec) > 0 else (
            0.0 if p and g else float("nan"))
        return {"gold": len(g), "extracted": len(p), "correct": c,
                "precision": prec, "recall": rec, "f1": f1}

    rows = {}
    if match == "relation":
        rank = {r: i for i, r in enumerate(dict.fromkeys(f[1] for f in gold_facts))}   # the gold's order first
        rels = sorted({f[1] for f in P | G}, key=lambda r: (rank.get(r, len(rank)), r))
        rows = {r: row({f for f in P if f[1] == r}, {f for f in G if f[1] == r}) for r in rels}
    rows["overall"] = row(P, G)
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "relation"
    return df


def triple_differences(predicted: Any, gold: Any = None, *, inverse: Mapping[str, str] | None = None,
                       symmetric: Collection[str] | None = None) -> tuple[list, list]:
    """``(gold facts missed, predicted facts not gold)``, as given."""
    gold, folds = _folds(gold, inverse, symmetric)
    if isinstance(predicted, nx.Graph):
        predicted = graph_triples(predicted)
    P_list, G_list = _fact_list(predicted, folds), _fact_list(gold, folds)   # one fact per item
    P, G = set(P_list), set(G_list)
    missing = [g for g, f in zip(gold, G_list) if f not in P]
    extra = [p for p, f in zip(predicted, P_list) if f not in G]
    return missing, extra
