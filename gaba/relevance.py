"""How much a gathered fact has to do with a question: the signals :mod:`gaba.rank` combines (chapter
"Retrieval that stays sharp at scale")."""
from __future__ import annotations

import re
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence

import networkx as nx
import numpy as np

from . import embed
from .entities import node_aliases, per_graph
from .graph import Fact, edges_between
from .link import LinkingCapped, link_entities
from .names import mentions, whole_words
from .words import word_stems

__all__ = ["fact_text", "start_entities", "hop_distances", "ppr_flow", "fact_similarity", "piece_scores",
           "word_matches", "word_share", "minmax"]


def _label_words(relation: str) -> str:
    """A relation label as words: ``supplies_batteries_to`` -> "supplies batteries to"."""
    return re.sub(r"([a-z])([A-Z])", r"\1 \2", str(relation)).replace("_", " ").replace("-", " ")


def _evidence(G, fact: Fact) -> str | None:
    """The evidence sentence of a fact's edge in ``G``, if it has one."""
    s, r, o = fact
    for rel, d in edges_between(G, s, o):
        if rel == r:
            ev = d.get("evidence")
            if isinstance(ev, (list, tuple)):
                ev = next((e for e in ev if isinstance(e, str) and e.strip()), None)
            if isinstance(ev, str) and ev.strip():
                return " ".join(ev.split())
    return None


def fact_text(G, fact: Fact) -> str:
    """The evidence sentence of a fact's edge, or the fact rendered as a sentence.

    Evidence that leaves out an end of the fact ("It was founded by Ann Lee.") follows the rendered fact.
    """
    s, r, o = fact
    rendered = f"{s} {_label_words(r).lower()} {o}."
    ev = _evidence(G, fact)
    if ev and not (mentions(ev, s) and mentions(ev, o)):
        return f"{rendered} {ev}"
    return ev or rendered


def start_entities(question: str, facts: list[Fact], G, entities) -> list[str]:
    """``entities`` (None: linked from the question) among the facts' nodes, else the busiest node."""
    nodes = {x for s, _, o in facts for x in (s, o)}
    if entities is not None:
        if isinstance(entities, str):
            entities = [entities]
        elif not isinstance(entities, Iterable):
            raise TypeError(f"entities must be a name or a list of names, not {type(entities).__name__}.")
        found = [e for e in entities if e in nodes]
    else:
        found = []
        if G is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", LinkingCapped)
                found = [m.name for m in link_entities(question, G, method="fuzzy") if m.name in nodes]
    if found:
        return list(dict.fromkeys(found))
    count = Counter(x for s, _, o in facts for x in (s, o))     # nobody named: the busiest node
    return [min(count, key=lambda n: (-count[n], n))]


def hop_distances(facts: list[Fact], starts: list[str]) -> dict[str, int]:
    """Hop distance of every node from the start entities, over the facts (undirected)."""
    H = nx.Graph([(s, o) for s, _, o in facts])
    H.add_nodes_from(starts)
    return nx.multi_source_dijkstra_path_length(H, set(starts)) if starts else {}


def ppr_flow(facts: list[Fact], starts: list[str], weights: Sequence[float], *, alpha: float = 0.85,
         tol: float = 1e-9, max_iter: int = 200) -> list[float]:
    """Personalized PageRank flow across each fact's edge (undirected, weighted).

    The fixed point of ``networkx.pagerank`` on the facts' undirected graph, by sparse power
    iteration; a fact scores ``pr[u] * w / strength[u] + pr[v] * w / strength[v]``.
    """
    from scipy import sparse
    index: dict[str, int] = {}
    pairs = [(index.setdefault(s, len(index)), index.setdefault(o, len(index))) for s, _, o in facts]
    if len(weights) != len(facts):
        raise ValueError(f"ppr_flow needs one weight per fact, got {len(weights)} weights for {len(facts)} facts.")
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


def _memo(G) -> dict:
    """Fact embeddings and stems of ``G``, remembered per graph and embedding model (none without G)."""
    return {} if G is None else per_graph(G, f"relevance memo {embed.model_id()}", dict)


def _fact_vectors(G, facts: list[Fact]):
    """Unit embeddings of the facts' texts, remembered per graph."""
    table = _memo(G)
    todo = [f for f in facts if ("v", f) not in table]
    if todo:
        vecs = embed.embed_texts([fact_text(G, f) for f in todo], kind="passage")
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
            text = _label_words(r) if label_only else f"{_label_words(r)} {_without(fact_text(G, f), (s, o))}"
            stems = table[key] = frozenset(word_stems(text))
        out.append(stems)
    return out


def fact_similarity(question: str, facts: list[Fact], G):
    """(fact vectors, cosine of each fact with the question)."""
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


def piece_scores(question: str, V):
    """Each fact's similarity to each four-word piece of the question, standardised per piece."""
    P = embed.embed_texts(_pieces(question), kind="query")
    S = V @ P.T
    return (S - S.mean(axis=0)) / np.maximum(S.std(axis=0), 1e-6)


def _without(text: str, names: Iterable[str]) -> str:
    """``text`` with every mention of the given names blanked (case-insensitive, longest first)."""
    for name in sorted({n for n in names if n and n.strip()}, key=len, reverse=True):
        text = re.sub(whole_words(name), " ", text, flags=re.I)
    return text


def word_matches(question: str, facts: list[Fact], G, starts: Sequence[str], *, label_only: bool = False):
    """(fact x question-word match matrix, word weights ``log(1 + n / df)``), entity names left out."""
    names = list(starts)
    for s in starts:
        names += node_aliases(G, s) if G is not None and s in G else []
    words = list(dict.fromkeys(word_stems(_without(question, names))))
    M = np.zeros((len(facts), len(words)), dtype=bool)
    if words:
        for i, stems in enumerate(_fact_stems(G, facts, label_only)):
            M[i] = [w in stems for w in words]
    df = M.sum(axis=0)
    weights = np.where(df > 0, np.log1p(len(facts) / np.maximum(df, 1)), 0.0)
    return M, weights


def word_share(M, weights):
    """Each fact's weighted share of the question's words, from :func:`word_matches`."""
    total = float(weights.sum())
    return (M @ weights) / total if total > 0 else np.zeros(len(M))


def minmax(values):
    """``values`` scaled to [0, 1] (all zeros when they are all equal)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    return np.zeros_like(values) if hi - lo < 1e-12 else (values - lo) / (hi - lo)
