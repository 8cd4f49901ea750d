"""Scoring extracted facts against gold facts: precision, recall, F1, and the differences.

Taught in chapter "From text to a knowledge graph".
"""
from __future__ import annotations

from typing import Any

from .data.news import load_gold_triples
from .data.triple import Triple
from .kgbuild import graph_triples
from .names import normalize_name
from .request import RELATIONS


#: ``(a, BUYS_FROM, b)`` states the same fact as ``(b, SUPPLIES_TO, a)``; scoring folds it.
INVERSE_RELATIONS = {"BUYS_FROM": "SUPPLIES_TO"}
#: Relations whose direction carries no meaning; scoring compares them as unordered pairs.
SYMMETRIC_RELATIONS = frozenset({"COMPETES_WITH"})


def _canonical_fact(s: str, r: str, o: str) -> tuple[str, str, str]:
    s, o = normalize_name(s).lower(), normalize_name(o).lower()
    if r in INVERSE_RELATIONS:
        s, r, o = o, INVERSE_RELATIONS[r], s
    if r in SYMMETRIC_RELATIONS and o < s:
        s, o = o, s
    return (s, r, o)


def _facts(items: Any) -> set[tuple[str, str, str]]:
    import networkx as nx

    if isinstance(items, nx.Graph):
        items = [(u, d.get("relation", k), v) for u, v, k, d in items.edges(keys=True, data=True)] \
            if items.is_multigraph() else [(u, d.get("relation"), v) for u, v, d in items.edges(data=True)]
    out = set()
    for it in items:
        if isinstance(it, Triple):
            out.add(_canonical_fact(*it.as_tuple()))
        elif isinstance(it, dict):
            out.add(_canonical_fact(it["subject"], it["relation"], it["object"]))
        else:
            s, r, o = it
            out.add(_canonical_fact(s, r, o))
    return out


def score_triples(predicted: Any, gold: Any = None, *, match: str = "relation"):
    """Precision, recall and F1 of extracted facts against gold facts, overall and per relation.

    Facts are ``(subject, relation, object)`` with case-insensitive names, compared as given
    (reconcile the predicted names first); ``(a, BUYS_FROM, b)`` counts as ``(b, SUPPLIES_TO, a)``
    and COMPETES_WITH ignores direction. ``predicted`` and ``gold`` (default: the book's gold
    facts) are graphs, Triples, dicts or tuples. ``match="pair"`` compares only which two entities
    are linked, the fair measure for open extraction; its result has only the ``overall`` row.
    Returns a DataFrame indexed by relation, then ``overall``, with columns ``gold``,
    ``extracted``, ``correct``, ``precision``, ``recall``, ``f1`` (NaN where undefined).

    Examples
    --------
    >>> gold = [("A", "SUPPLIES_TO", "B"), ("C", "CEO_OF", "A")]
    >>> float(score_triples([("B", "BUYS_FROM", "A"), ("C", "FOUNDED", "A")], gold).loc["overall", "recall"])
    0.5
    """
    import pandas as pd

    if match not in ("relation", "pair"):
        raise ValueError(f"match must be 'relation' or 'pair', not {match!r}")
    if gold is None:
        gold = load_gold_triples()
    P, G = _facts(predicted), _facts(gold)
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
        rels = sorted({f[1] for f in P | G}, key=lambda r: (RELATIONS.index(r) if r in RELATIONS else 99, r))
        rows = {r: row({f for f in P if f[1] == r}, {f for f in G if f[1] == r}) for r in rels}
    rows["overall"] = row(P, G)
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "relation"
    return df


def triple_differences(predicted: Any, gold: Any = None) -> tuple[list, list]:
    """The gold facts a prediction misses, and the predicted facts that are not gold, as given.

    Examples
    --------
    >>> triple_differences([("A", "CEO_OF", "B")], [("A", "FOUNDED", "B")])
    ([('A', 'FOUNDED', 'B')], [('A', 'CEO_OF', 'B')])
    """
    import networkx as nx

    if gold is None:
        gold = load_gold_triples()
    if isinstance(predicted, nx.Graph):
        predicted = graph_triples(predicted)
    P, G = _facts(predicted), _facts(gold)
    missing = [g for g in gold if not (_facts([g]) <= P)]
    extra = [p for p in predicted if not (_facts([p]) <= G)]
    return missing, extra
