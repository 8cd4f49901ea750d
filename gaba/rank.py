"""Question-aware ranking of gathered facts, so a small context budget keeps the facts that matter.

Taught in chapter "Retrieval that stays sharp at scale". Two hops around a popular entity can
gather hundreds of facts; handing all of them to a small model buries the two that answer the
question, and keeping "the first 30" keeps the wrong ones. :func:`rank_facts` orders the facts by
how much they have to do with the question and keeps ``budget`` of them.

Nothing here knows a relation name or a word of any corpus. A fact's relation label is read as
text, whatever its style (``SUPPLIES_TO``, ``supplies_batteries_to``, ``place of birth``,
``is_quenched_by``), together with the fact's evidence sentence. Methods:

``"embedding"``
    Cosine similarity between the question and the fact's evidence sentence (or the fact
    rendered as a sentence when it has none), with :func:`gaba.embed.embed_texts` (cached).
``"lexical"``
    The share of the question's content words found in the fact's relation label and evidence
    sentence. Words are compared by a light stem (:func:`gaba.link.word_stems`: "supplier" and
    "supplies" match), the names of the start entities and of the fact's own ends are left out,
    and each word is weighted by how rare it is among the gathered facts.
``"relation"``
    The same overlap, with the relation label's words only (no embeddings, no evidence).
``"ppr"`` (alias ``"pagerank"``)
    Personalized PageRank from the question's entities over the graph of the gathered facts
    (NetworkX's fixed point, computed sparsely); a fact scores the random-walk flow across its
    edge. Not question-aware beyond the start entities: near facts of a hub win.
``"hop"``
    Hop order: facts touching the start entities first, then the next hop (ties in sorted
    order). The naive budget, kept as a baseline.
``"combined"`` (default)
    Scores *paths*, not single facts. Every path of one or two facts leading out of a start
    entity is scored by how well the path's text matches the question, in three equal parts
    (each scaled to [0, 1] over the candidate paths): the cosine between the question and the
    path's embedding (the normalised sum of its facts' embeddings); how well the path covers
    the question's *pieces* (overlapping four-word windows, "Who is in charge", "in charge of
    the", ...: for each piece, the best standardised similarity among the path's facts,
    averaged); and the share of the question's words the path's facts cover *together*, each
    word counted at the step that covers it by how distinctive it is among the facts at the
    node the step leaves. A fact scores the best path through it, so both facts of a two-hop
    chain rank together: each covers part of the question, the pair covers all of it. Paths
    are extended past two facts by a beam over the best paths; personalized PageRank breaks
    ties.

Examples
--------
>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_edge("Aurora", "Kestrel", key="SUPPLIES_TO", relation="SUPPLIES_TO")
'SUPPLIES_TO'
>>> G.add_edge("Kestrel", "Mara", key="led_by", relation="led_by")
'led_by'
>>> facts = [("Kestrel", "led_by", "Mara"), ("Aurora", "SUPPLIES_TO", "Kestrel")]
>>> rank_facts("Who supplies Kestrel?", facts, G, budget=1, method="relation")
[('Aurora', 'SUPPLIES_TO', 'Kestrel')]
"""
from __future__ import annotations

import re
import warnings
import weakref
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

from . import embed
from .link import LinkingCapped, link_entities, word_stems

__all__ = ["METHODS", "COMBINED_WEIGHTS", "rank_facts", "clear_cache"]

Fact = tuple[str, str, str]

#: Ranking methods accepted by :func:`rank_facts` (``"pagerank"`` is an alias of ``"ppr"``).
METHODS = ("combined", "embedding", "lexical", "relation", "ppr", "pagerank", "hop")

#: Weights of the combined ranker (equal, not fitted): the path's embedding similarity to the
#: question and its coverage of the question's pieces (each min-max scaled over the candidate
#: paths), the share of the question's words the path covers, and the PageRank tie-break.
COMBINED_WEIGHTS = {"embedding": 1.0, "pieces": 1.0, "lexical": 1.0, "ppr": 0.05}
#: Paths kept at each step when the combined ranker follows paths past two facts.
BEAM = 64


# --------------------------------------------------------------------------------- helpers

def _label_words(relation: str) -> str:
    """A relation label as words: ``supplies_batteries_to`` -> "supplies batteries to"."""
    return re.sub(r"([a-z])([A-Z])", r"\1 \2", str(relation)).replace("_", " ").replace("-", " ")


def _evidence(G, fact: Fact) -> str | None:
    """The evidence sentence of a fact's edge in ``G``, if it has one."""
    s, r, o = fact
    data = G.get_edge_data(s, o) if G is not None and G.has_edge(s, o) else None
    if data:
        items = data.items() if G.is_multigraph() else [(None, data)]
        for key, d in items:
            if str(d.get("relation", key)) == r:
                ev = d.get("evidence")
                if isinstance(ev, (list, tuple)):
                    ev = next((e for e in ev if isinstance(e, str) and e.strip()), None)
                if isinstance(ev, str) and ev.strip():
                    return " ".join(ev.split())
    return None


def _fact_text(G, fact: Fact) -> str:
    """The evidence sentence of a fact's edge, or the fact rendered as a sentence."""
    s, r, o = fact
    return _evidence(G, fact) or f"{s} {_label_words(r).lower()} {o}."


def _check_options(question, budget, method) -> None:
    if not isinstance(question, str) or not question.strip():
        raise ValueError("rank_facts needs a non-empty question string.")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    if budget is None or isinstance(budget, bool) or not isinstance(budget, int):
        raise ValueError(f"budget must be a positive int (how many facts to keep), not {budget!r}; "
                         "to keep every fact, skip ranking (graph_rag(..., budget=None)).")
    if budget <= 0:
        raise ValueError(f"budget must be at least 1 fact, got {budget}: an empty context cannot "
                         "answer anything. Use e.g. budget=30.")


def _check_facts(facts) -> list[Fact]:
    if isinstance(facts, (str, bytes)):
        raise TypeError("facts must be a collection of (subject, relation, object) tuples, not a string.")
    out = list(dict.fromkeys(tuple(f) if type(f) is list else f for f in facts))
    for f in out:
        if not (isinstance(f, tuple) and len(f) == 3 and all(isinstance(x, str) for x in f)):
            raise TypeError(f"each fact must be a (subject, relation, object) tuple of strings, got {f!r}")
    return out


def _check(question, facts, budget, method) -> list[Fact]:
    _check_options(question, budget, method)
    return _check_facts(facts)


def _starts(question: str, facts: list[Fact], G, entities) -> list[str]:
    nodes = {x for s, _, o in facts for x in (s, o)}
    if entities is not None:
        if isinstance(entities, str):
            entities = [entities]
        found = [e for e in entities if e in nodes]
    else:
        found = []
        if G is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", LinkingCapped)
                found = [m.name for m in link_entities(question, G, method="fuzzy") if m.name in nodes]
    if found:
        return list(dict.fromkeys(found))
    # nobody named: start from the node touching the most facts (the centre of the gathering)
    count: dict[str, int] = defaultdict(int)
    for s, _, o in facts:
        count[s] += 1
        count[o] += 1
    best = max(count.values())
    return sorted(n for n, c in count.items() if c == best)[:1]


def _layers(facts: list[Fact], starts: list[str]) -> dict[str, int]:
    """Hop distance of every node from the start entities, over the facts (undirected)."""
    adj: dict[str, set[str]] = defaultdict(set)
    for s, _, o in facts:
        adj[s].add(o)
        adj[o].add(s)
    dist = {s: 0 for s in starts}
    frontier = list(starts)
    while frontier:
        nxt = []
        for u in frontier:
            for v in adj[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
        frontier = nxt
    return dist


def _ppr(facts: list[Fact], starts: list[str], weights: Sequence[float], *, alpha: float = 0.85,
         tol: float = 1e-9, max_iter: int = 200) -> list[float]:
    """Personalized PageRank flow across each fact's edge (undirected, weighted).

    The same fixed point as ``networkx.pagerank(H, alpha, personalization=starts, weight=...)``
    on the undirected graph ``H`` of the facts (a test checks it), by power iteration on a
    sparse matrix: a few milliseconds for thousands of facts. A fact scores the random walk's
    flow across its edge, ``pr[u] * w / strength[u] + pr[v] * w / strength[v]``.
    """
    import numpy as np
    from scipy import sparse

    index: dict[str, int] = {}
    pairs = [(index.setdefault(s, len(index)), index.setdefault(o, len(index))) for s, _, o in facts]
    seeds = [index[s] for s in starts if s in index]
    if not seeds:
        return [0.0] * len(facts)
    n = len(index)
    ij = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    wv = np.asarray(weights, dtype=float)
    keep = ij[:, 0] != ij[:, 1]                       # self-loops carry no flow
    rows = np.concatenate([ij[keep, 0], ij[keep, 1]])
    cols = np.concatenate([ij[keep, 1], ij[keep, 0]])
    W = sparse.csr_matrix((np.concatenate([wv[keep], wv[keep]]), (rows, cols)), shape=(n, n))
    strength = np.asarray(W.sum(axis=1)).ravel()
    inv = 1.0 / np.where(strength > 0, strength, 1.0)
    PT = (sparse.diags(inv) @ W).T.tocsr()           # column-stochastic transition matrix
    p = np.zeros(n)
    p[seeds] = 1.0 / len(seeds)
    x = p.copy()
    for _ in range(max_iter):
        new = alpha * (PT @ x) + (1 - alpha) * p
        done = np.abs(new - x).sum() < n * tol
        x = new
        if done:
            break
    flow = x * inv                                    # pr[u] / strength[u]
    out = wv * (flow[ij[:, 0]] + flow[ij[:, 1]])
    out[~keep] = 0.0
    return out.tolist()


_MEMO: "weakref.WeakKeyDictionary" = None  # graph -> (model id, {key: fact vector or word stems})


def _memo(G) -> dict:
    """What is remembered about a graph's facts: embeddings and word stems (a fresh dict for
    graphs that cannot be weakly referenced)."""
    global _MEMO
    if _MEMO is None:
        _MEMO = weakref.WeakKeyDictionary()
    key = embed.model_id()
    try:
        memo = _MEMO.get(G)
    except TypeError:
        return {}
    if memo is None or memo[0] != key:
        memo = (key, {})
        try:
            _MEMO[G] = memo
        except TypeError:
            pass
    return memo[1]


def _fact_vectors(G, facts: list[Fact]):
    """Unit embeddings of the facts' texts, remembered per graph (the disk cache behind them)."""
    table = _memo(G)
    todo = [f for f in facts if ("v", f) not in table]
    if todo:
        vecs = embed.embed_texts([_fact_text(G, f) for f in todo], kind="passage")
        table.update(zip((("v", f) for f in todo), vecs))
    return np.stack([table["v", f] for f in facts]) if facts else np.zeros((0, 384), dtype=np.float32)


def _fact_stems(G, facts: list[Fact], label_only: bool) -> list[set[str]]:
    """Word stems of each fact's label (and evidence, its own end names blanked), remembered."""
    table = _memo(G)
    out = []
    for f in facts:
        key = ("l" if label_only else "t", f)
        stems = table.get(key)
        if stems is None:
            s, r, o = f
            text = _label_words(r) if label_only else f"{_label_words(r)} {_without(_fact_text(G, f), (s, o))}"
            stems = table[key] = frozenset(word_stems(text))
        out.append(stems)
    return out


def clear_cache() -> None:
    """Forget the fact embeddings and words remembered per graph (after editing edges in place)."""
    global _MEMO
    _MEMO = None


def _embeddings(question: str, facts: list[Fact], G):
    """(fact vectors, cosine of each fact with the question)."""
    if G is None:
        import networkx as nx

        G = nx.MultiDiGraph()
    q = embed.embed_texts([question], kind="query")[0]
    V = _fact_vectors(G, facts)
    return V, V @ q


def _pieces(question: str, *, width: int = 4, stride: int = 2) -> list[str]:
    """Overlapping word windows of a question ("Who is in charge", "in charge of the", ...)."""
    words = question.split()
    if len(words) <= width:
        return [question]
    starts = list(range(0, len(words) - width + 1, stride))
    if starts[-1] != len(words) - width:
        starts.append(len(words) - width)
    return [" ".join(words[i:i + width]) for i in starts]


def _piece_scores(question: str, V):
    """Each fact's similarity to each piece of the question, standardised per piece over the
    facts (a piece every fact matches equally says nothing)."""
    P = embed.embed_texts(_pieces(question), kind="query")
    S = V @ P.T
    return (S - S.mean(axis=0)) / np.maximum(S.std(axis=0), 1e-6)


def _without(text: str, names: Iterable[str]) -> str:
    """``text`` with every mention of the given names blanked (case-insensitive, longest first)."""
    for name in sorted({n for n in names if n and n.strip()}, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", " ", text, flags=re.I)
    return text


def _lexical(question: str, facts: list[Fact], G, starts: Sequence[str], *, label_only: bool = False):
    """(fact x question-word matrix of matches, word weights): the question's content words
    (start entities' names blanked) found in each fact's label and evidence (the names of its
    own ends blanked), each word weighted by its rarity among the facts, log(1 + n / df)."""
    names = list(starts)
    for s in starts:
        raw = G.nodes[s].get("aliases") if G is not None and s in G else None
        names += [raw] if isinstance(raw, str) else list(raw or [])
    words = list(dict.fromkeys(word_stems(_without(question, names))))
    M = np.zeros((len(facts), len(words)), dtype=bool)
    if words:
        for i, stems in enumerate(_fact_stems(G, facts, label_only)):
            M[i] = [w in stems for w in words]
    df = M.sum(axis=0)
    weights = np.where(df > 0, np.log1p(len(facts) / np.maximum(df, 1)), 0.0)
    return M, weights


def _share(M, weights):
    total = float(weights.sum())
    return (M @ weights) / total if total > 0 else M[:, :0].sum(axis=1).astype(float)


def _minmax(values):
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    return np.zeros_like(values) if hi - lo < 1e-12 else (values - lo) / (hi - lo)


def _combined(question: str, facts: list[Fact], G, starts: list[str], dist: dict[str, int]) -> list[float]:
    """Best-path scores: each fact scores the best path from a start entity through it.

    A path's score is its embedding similarity to the question, its coverage of the question's
    pieces (both min-max scaled over the candidate paths), and the share of the question's
    words it covers. A word counts at the
    step that covers it by how *distinctive* it is there: one minus its document frequency
    among the facts at the node the step leaves from (log scale). "Kestrel's freight supplier"
    singles out one fact at Kestrel, so "freight" counts fully for Kestrel's one freight
    deal; "competes", shared by dozens of Kestrel's facts, counts little there but fully at a
    small supplier with one rival.
    """
    w = COMBINED_WEIGHTS
    V, e = _embeddings(question, facts, G)
    Z = _piece_scores(question, V) if w["pieces"] else np.zeros((len(facts), 1))
    M, weights = _lexical(question, facts, G, starts)
    M = M[:, weights > 0].astype(float)
    k = max(M.shape[1], 1)
    far = max(dist.values(), default=0) + 1
    at: dict[str, list[int]] = defaultdict(list)          # node -> the facts touching it
    for i, (s, _, o) in enumerate(facts):
        at[s].append(i)
        if o != s:
            at[o].append(i)
    local: dict[str, np.ndarray] = {}

    def distinct(u: str) -> np.ndarray:
        """How distinctive each question word is among the facts at ``u`` (1 = in one fact)."""
        if u not in local:
            n = len(at[u])
            df = M[at[u]].sum(axis=0)
            local[u] = np.where(df > 0, np.log1p(n / np.maximum(df, 1)) / np.log1p(n), 0.0)
        return local[u]

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
        score = score + w["ppr"] * _minmax(_ppr(facts, starts, [1.0] * len(facts), tol=1e-6))
    return score.tolist()


def _scores(question: str, facts: list[Fact], G, method: str, entities) -> list[float]:
    method = "ppr" if method == "pagerank" else method
    if method == "embedding":
        return _embeddings(question, facts, G)[1].tolist()
    if method == "relation":
        return _share(*_lexical(question, facts, G, [], label_only=True)).tolist()
    starts = _starts(question, facts, G, entities)
    if method == "lexical":
        return _share(*_lexical(question, facts, G, starts)).tolist()
    dist = _layers(facts, starts)
    if method == "hop":
        # facts touching a start score highest; then the next hop; unreachable facts last
        far = max(dist.values(), default=0) + 1
        return [-float(min(dist.get(s, far), dist.get(o, far))) for s, _, o in facts]
    if method == "ppr":
        return _ppr(facts, starts, [1.0] * len(facts))
    return _combined(question, facts, G, starts, dist)


def rank_facts(question: str, facts: Iterable[Fact], G, *, budget: int = 30, method: str = "combined",
               entities: Sequence[str] | str | None = None) -> list[Fact]:
    """The ``budget`` facts most relevant to a question, best first.

    Taught in chapter "Retrieval that stays sharp at scale".

    Parameters
    ----------
    question : str
        The question the facts should answer.
    facts : iterable of (subject, relation, object)
        Usually ``gaba.graph.gather_facts(G, entities, hops=2)`` (a set: order does not matter;
        duplicates count once). Relation labels may be in any style.
    G : networkx graph
        The graph the facts come from (edge ``evidence`` is used by every method that reads text).
    budget : int, optional (default 30)
        How many facts to keep (at least 1). Fewer are returned when there are fewer facts.
    method : {"combined", "embedding", "lexical", "relation", "ppr", "pagerank", "hop"}
        The scoring method (see the module notes).
    entities : str or sequence of str, optional
        The question's start entities (for every method but ``"embedding"`` and ``"relation"``).
        By default they are linked from the question with :func:`gaba.link.link_entities`
        (exact, alias and fuzzy tiers); failing that, the node touching the most facts is used.

    Returns
    -------
    list of (subject, relation, object)
        At most ``budget`` facts, best first; ties are broken by the sorted order of the facts,
        so the result is deterministic.

    Raises
    ------
    ValueError
        ``budget`` missing, not an int, or < 1; an unknown ``method``; an empty question.
    TypeError
        A fact that is not a 3-tuple of strings.

    Notes
    -----
    The embedding methods embed each fact's evidence sentence once (cached on disk by
    :mod:`gaba.embed` and in memory per graph); after that, ranking a few hundred facts takes
    milliseconds. The chapter measures it.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> for s, r, o in [("Aurora", "supplies_cells_to", "Kestrel"), ("Voltaic", "rivals", "Aurora"),
    ...                 ("Kestrel", "partners_with", "Juniper"), ("Helio", "invests_in", "Juniper")]:
    ...     _ = G.add_edge(s, o, key=r, relation=r)
    >>> facts = {("Aurora", "supplies_cells_to", "Kestrel"), ("Voltaic", "rivals", "Aurora"),
    ...          ("Kestrel", "partners_with", "Juniper"), ("Helio", "invests_in", "Juniper")}
    >>> rank_facts("Which firm rivals the supplier of Kestrel?", facts, G, budget=2, method="lexical")
    [('Aurora', 'supplies_cells_to', 'Kestrel'), ('Voltaic', 'rivals', 'Aurora')]
    >>> rank_facts("Which firm rivals the supplier of Kestrel?", facts, G, budget=2, method="hop",
    ...            entities=["Kestrel"])
    [('Aurora', 'supplies_cells_to', 'Kestrel'), ('Kestrel', 'partners_with', 'Juniper')]
    """
    facts = _check(question, facts, budget, method)
    if not facts:
        return []
    scores = _scores(question, facts, G, method, entities)
    order = sorted(range(len(facts)), key=lambda i: (-scores[i], facts[i]))
    return [facts[i] for i in order[:budget]]
