"""Question-aware ranking of gathered facts, so a small context budget keeps the facts that matter
(chapter "Retrieval that stays sharp at scale")."""
from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from .checks import check_positive_int, check_question
from .graph import _check_facts
from .relevance import (Fact, fact_similarity, hop_distances, minmax, piece_scores, ppr_flow, start_entities,
                        word_matches, word_share)

__all__ = ["METHODS", "COMBINED_WEIGHTS", "rank_facts"]

#: Ranking methods accepted by :func:`rank_facts` (``"pagerank"`` is an alias of ``"ppr"``).
METHODS = ("combined", "pairs", "embedding", "lexical", "relation", "ppr", "pagerank", "hop")

#: Weights of the combined ranker's path signals (equal, not fitted; PageRank only breaks ties).
COMBINED_WEIGHTS = {"embedding": 1.0, "pieces": 1.0, "lexical": 1.0, "ppr": 0.05}
#: Paths kept at each step when the combined ranker follows paths past two facts.
BEAM = 64


def _check_options(question, budget, method) -> None:
    check_question(question, "rank_facts", max_chars=None, utf8=False)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    check_positive_int("budget", budget, hint="how many facts to keep; an empty context cannot answer "
                       "anything. Use e.g. budget=30, or to keep every fact skip ranking "
                       "(graph_rag(..., budget=None)).")


def _combined(question: str, facts: list[Fact], G, starts: list[str], dist: dict[str, int]) -> list[float]:
    """Each fact scores the best path from a start entity through it: embedding similarity and coverage
    (min-max scaled) plus the share of question words covered, each weighted by how distinctive it is at
    the node the step leaves."""
    w = COMBINED_WEIGHTS
    V, e = fact_similarity(question, facts, G)
    Z = piece_scores(question, V) if w["pieces"] else np.zeros((len(facts), 1))
    M, weights = word_matches(question, facts, G, starts)
    M = M[:, weights > 0].astype(float)
    k = max(M.shape[1], 1)
    far = max(dist.values(), default=0) + 1
    at: dict[str, list[int]] = defaultdict(list)          # node -> the facts touching it
    for i, (s, _, o) in enumerate(facts):
        at[s].append(i)
        if o != s:
            at[o].append(i)

    @functools.cache
    def distinct(u: str) -> np.ndarray:
        """How distinctive each question word is among the facts at ``u`` (1 = in one fact)."""
        n, df = len(at[u]), M[at[u]].sum(axis=0)
        return np.where(df > 0, np.log1p(n / np.maximum(df, 1)) / np.log1p(n), 0.0)

    def onward(i: int, u: str, on_path: set[str]):
        """Facts continuing a path that ends at ``u`` outward or sideways, with their far ends."""
        du = dist.get(u, far)
        for j in at[u]:
            if j != i:
                s, _, o = facts[j]
                v = o if s == u else s
                if v not in on_path and dist.get(v, far) >= du:
                    yield j, v

    # paths of one fact: the facts touching a start; paths of two: each continued one step
    first, origin, ends = [], [], []
    for i, (s, _, o) in enumerate(facts):
        if dist.get(s, far) == 0 or dist.get(o, far) == 0:
            first.append(i)
            origin.append(s if dist.get(s, far) == 0 else o)
            ends.append(o if dist.get(s, far) == 0 else s)
    P1 = np.array(first, dtype=np.int64)
    nodes = list(dict.fromkeys(origin + ends))
    row = {u: r for r, u in enumerate(nodes)}
    D = np.array([distinct(u) for u in nodes]).reshape(len(nodes), M.shape[1])
    C1 = M[P1] * D[[row[u] for u in origin]]
    pairs = [(p, j, v) for p, (i, u) in enumerate(zip(first, ends))
             for j, v in onward(i, u, {facts[i][0], facts[i][2]})]
    pa = np.array([p[0] for p in pairs], dtype=np.int64)      # index into P1
    A, B = P1[pa], np.array([p[1] for p in pairs], dtype=np.int64)
    C2 = M[B] * D[np.array([row[e] for e in ends], dtype=np.int64)[pa]]
    dots = np.empty(len(A))
    for i in range(0, len(A), 4096):                       # |v_a + v_b|^2 = 2 + 2 v_a.v_b
        dots[i:i + 4096] = np.einsum("ij,ij->i", V[A[i:i + 4096]], V[B[i:i + 4096]])
    E1 = e[P1]
    E2 = (e[A] + e[B]) / np.sqrt(np.maximum(2 + 2 * dots, 1e-9))
    Z1 = Z[P1].mean(axis=1)
    Z2 = np.maximum(Z[A], Z[B]).mean(axis=1)
    scale = {}
    for name, values in (("e", np.concatenate([E1, E2])), ("z", np.concatenate([Z1, Z2]))):
        lo, hi = (float(values.min()), float(values.max())) if values.size else (0.0, 1.0)
        scale[name] = (lo, hi - lo if hi - lo > 1e-12 else 1.0)

    def path_score(E, covered, pieces):
        return (w["embedding"] * (E - scale["e"][0]) / scale["e"][1]
                + w["pieces"] * (pieces - scale["z"][0]) / scale["z"][1]
                + w["lexical"] * covered.sum(axis=1) / k)

    S1 = path_score(E1, C1, Z1)
    C12 = np.maximum(C1[pa], C2)
    S2 = path_score(E2, C12, Z2)
    score = np.full(len(facts), -np.inf)
    np.maximum.at(score, P1, S1)
    np.maximum.at(score, A, S2)
    np.maximum.at(score, B, S2)
    # longer paths (hops > 2): a beam over the best paths so far
    deepest = max((min(dist.get(s, far), dist.get(o, far)) for s, _, o in facts), default=0)
    beam = [([int(A[q]), int(B[q])], pairs[q][2], C12[q]) for q in np.argsort(-S2, kind="stable")[:BEAM]]
    for _ in range(2, deepest + 1):
        grown = []
        for path, u, cov in beam:
            nodes = {x for i in path for x in (facts[i][0], facts[i][2])}
            for j, v in onward(path[-1], u, nodes - {u}):
                if j not in path:
                    idx = path + [j]
                    E = float(e[idx].sum() / max(np.linalg.norm(V[idx].sum(axis=0)), 1e-9))
                    c = np.maximum(cov, M[j] * distinct(u))
                    z = Z[idx].max(axis=0).mean()
                    grown.append((float(path_score(np.array([E]), c[None, :], np.array([z]))[0]), idx, v, c))
        if not grown:
            break
        grown.sort(key=lambda g: -g[0])
        for sc, idx, _, _ in grown:
            score[idx] = np.maximum(score[idx], sc)
        beam = [(idx, v, c) for _, idx, v, c in grown[:BEAM]]
    # facts no path from a start reaches rank last, by their own relevance
    alone = path_score(e, M, Z.mean(axis=1)) - 10.0
    score = np.where(np.isfinite(score), score, alone)
    if w["ppr"]:
        score = score + w["ppr"] * minmax(ppr_flow(facts, starts, [1.0] * len(facts), tol=1e-6))
    return score.tolist()


def _scores(question: str, facts: list[Fact], G, method: str, entities) -> list[float]:
    method = {"pagerank": "ppr", "pairs": "combined"}.get(method, method)   # pairs reorders combined
    if method == "embedding":
        return fact_similarity(question, facts, G)[1].tolist()
    if method == "relation":
        return word_share(*word_matches(question, facts, G, [], label_only=True)).tolist()
    starts = start_entities(question, facts, G, entities)
    if method == "lexical":
        return word_share(*word_matches(question, facts, G, starts)).tolist()
    dist = hop_distances(facts, starts)
    if method == "hop":
        # facts touching a start score highest; then the next hop; unreachable facts last
        far = max(dist.values(), default=0) + 1
        return [-float(min(dist.get(s, far), dist.get(o, far))) for s, _, o in facts]
    if method == "ppr":
        return ppr_flow(facts, starts, [1.0] * len(facts))
    return _combined(question, facts, G, starts, dist)


def _pairs_first(order: list[int], facts: list[Fact]) -> list[int]:
    """``order`` with the best fact of each entity pair first, then the pairs' other facts."""
    seen: set[frozenset] = set()
    first, rest = [], []
    for i in order:
        pair = frozenset((facts[i][0], facts[i][2]))
        (rest if pair in seen else first).append(i)
        seen.add(pair)
    return first + rest


def rank_facts(question: str, facts: Iterable[Fact], G, *, budget: int = 30, method: str = "combined",
               entities: Sequence[str] | str | None = None) -> list[Fact]:
    """The ``budget`` facts most relevant to a question, best first (ties in sorted fact order).

    ``method`` (signals of :mod:`gaba.relevance`): ``"embedding"``, ``"lexical"``, ``"relation"``,
    ``"ppr"`` (``"pagerank"``), ``"hop"`` (naive baseline), ``"combined"`` (the best path from a start
    entity; a beam past two facts) or ``"pairs"`` (combined, but one fact per pair of entities first,
    so parallel edges between two names do not crowd out the next link of a chain). ``entities``
    default to those linked from the question.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("Aurora", "Kestrel", key="SUPPLIES_TO", relation="SUPPLIES_TO")
    'SUPPLIES_TO'
    >>> facts = [("Kestrel", "led_by", "Mara"), ("Aurora", "SUPPLIES_TO", "Kestrel")]
    >>> rank_facts("Who supplies Kestrel?", facts, G, budget=1, method="relation")
    [('Aurora', 'SUPPLIES_TO', 'Kestrel')]
    """
    _check_options(question, budget, method)
    facts = list(dict.fromkeys(_check_facts(facts, lists=True)))
    if not facts:
        return []
    scores = _scores(question, facts, G, method, entities)
    order = sorted(range(len(facts)), key=lambda i: (-scores[i], facts[i]))
    if method == "pairs":
        order = _pairs_first(order, facts)
    return [facts[i] for i in order[:budget]]
