"""Global questions: communities of the knowledge graph, their summaries, and answers from them.

Taught in chapter "Global questions".

Local Graph RAG (:func:`gaba.rag.graph_rag`) starts from the entities a question names and
walks their neighbourhood. A *global* question ("what themes run across this corpus?") names no
entity, so there is nowhere to start. The community design popularized by Microsoft GraphRAG
answers it in two phases:

1. **indexing**: split the graph into communities of densely connected nodes
   (:func:`detect_communities`, Louvain modularity with a fixed seed) and have the model
   summarize each community from its facts (:func:`summarize_communities`, one call each);
2. **query**: score every summary's relevance to the question, then answer from the best
   ones (:func:`global_rag`, a map-reduce over summaries).

The router that sends a question to local, global or flat retrieval, and :func:`gaba.routing.ask`
that answers with the chosen one, are in :mod:`gaba.routing`.

Examples
--------
>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_edge("Ann", "Acme", key="CEO_OF", relation="CEO_OF")
'CEO_OF'
>>> G.add_edge("Bob", "Bolt", key="CEO_OF", relation="CEO_OF")
'CEO_OF'
>>> [c.nodes for c in detect_communities(G)]
[('Acme', 'Ann'), ('Bob', 'Bolt')]
"""
from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence

from . import embed, prompts
from .errors import GabaError
from .llm import call_llm

SCORERS = ("embed", "llm")


class NoCommunities(GabaError, ValueError):
    """The graph has no edges (or no nodes), so it has no communities to summarize."""


# --------------------------------------------------------------------------- communities

@dataclasses.dataclass(frozen=True)
class Community:
    """A set of densely connected nodes found by :func:`detect_communities`."""

    id: str                      # "c0", "c1", ... at level 0; "c0.1" is the 2nd child of c0
    level: int                   # 0 = coarsest partition; 1, 2, ... finer ones inside it
    nodes: tuple[str, ...]       # member node names, sorted
    parent: str | None = None    # id of the enclosing community one level up

    def __len__(self) -> int:
        return len(self.nodes)


def undirected_projection(G):
    """Undirected simple graph with ``weight`` = number of edges between two nodes (self-loops dropped).

    This is the graph Louvain runs on (and :func:`draw_communities` lays out).

    Nodes and edges are inserted in sorted order so that Louvain, whose sweep order follows
    the graph's insertion order, gives the same partition for the same seed.
    """
    import networkx as nx

    weights: dict[tuple[str, str], int] = {}
    for u, v in G.edges():
        if u == v:
            continue
        a, b = sorted((str(u), str(v)))
        weights[(a, b)] = weights.get((a, b), 0) + 1
    H = nx.Graph()
    H.add_nodes_from(sorted(str(n) for n in G.nodes))
    for (a, b), w in sorted(weights.items()):
        H.add_edge(a, b, weight=w)
    return H


def _order(groups: Sequence[set]) -> list[tuple[str, ...]]:
    """Communities as sorted tuples, largest first, ties by first member name."""
    tuples = [tuple(sorted(g)) for g in groups if g]
    return sorted(tuples, key=lambda t: (-len(t), t))


def detect_communities(G, *, seed: int = 0, resolution: float = 1.0,
                       levels: int | None = 1) -> list[Community]:
    """Partition the graph into communities with Louvain modularity (fixed seed, deterministic).

    Louvain runs on the undirected projection of ``G`` (parallel and reverse edges add to
    one weight). Its passes form a hierarchy: each pass merges the communities of the pass
    before. Level 0 is the final, coarsest partition (what ``louvain_communities`` returns);
    level 1 splits each level-0 community into the communities of the pass before, and so on.

    Parameters
    ----------
    G : networkx graph
        The knowledge graph (any networkx graph; directions are ignored).
    seed : int
        Random seed of Louvain. The same graph and seed give the same partition.
    resolution : float
        Above 1 favours smaller communities, below 1 larger ones.
    levels : int or None
        How many hierarchy levels to return, coarsest first (None: all). A graph whose
        Louvain run stops after one pass has only level 0, whatever you ask.

    Returns
    -------
    list of Community
        Level 0 first; within a level, grouped by parent, then largest first, ties broken by
        the alphabetically first member. Members are sorted. Isolated nodes form singleton
        communities.

    Raises
    ------
    NoCommunities
        ``G`` has no nodes, or no edges (every node would be its own community: there is no
        structure to summarize; check that extraction produced edges).

    Warns
    -----
    UserWarning
        Louvain found a single community: global answers then come from one summary.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph([("a", "b"), ("b", "c"), ("x", "y")])
    >>> [(c.id, c.nodes) for c in detect_communities(G)]
    [('c0', ('a', 'b', 'c')), ('c1', ('x', 'y'))]
    """
    import networkx as nx

    if not isinstance(G, nx.Graph):
        raise TypeError(f"detect_communities needs a networkx graph, not {type(G).__name__}.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int (for a reproducible partition), not {seed!r}.")
    if not resolution > 0:
        raise ValueError(f"resolution must be > 0, not {resolution!r}.")
    if levels is not None and (not isinstance(levels, int) or levels < 1):
        raise ValueError(f"levels must be a positive int or None (all levels), not {levels!r}.")
    if G.number_of_nodes() == 0:
        raise NoCommunities("The graph is empty: build it first (gaba.graph.build_knowledge_graph).")
    H = undirected_projection(G)
    if H.number_of_edges() == 0:
        raise NoCommunities(
            f"The graph has {G.number_of_nodes()} nodes and no edges between distinct nodes, so "
            f"every node would be its own community and no community has facts to summarize. "
            f"Check the extraction step: it produced no relations.")
    passes = list(nx.community.louvain_partitions(H, weight="weight", resolution=resolution,
                                                  seed=seed))
    hierarchy = list(reversed(passes))           # coarsest first
    if levels is not None:
        hierarchy = hierarchy[:levels]
    out: list[Community] = []
    parents: list[Community] = []
    for level, partition in enumerate(hierarchy):
        groups = _order(partition)
        current: list[Community] = []
        if level == 0:
            current = [Community(f"c{i}", 0, g) for i, g in enumerate(groups)]
        else:
            for p in parents:
                members = set(p.nodes)
                children = [g for g in groups if set(g) <= members]
                current += [Community(f"{p.id}.{j}", level, g, p.id) for j, g in enumerate(children)]
        out += current
        parents = current
    if sum(c.level == 0 for c in out) == 1:
        warnings.warn(f"Louvain found a single community holding all {G.number_of_nodes()} nodes: "
                      f"a global answer will come from one summary of the whole graph. A higher "
                      f"resolution may split it.", UserWarning, stacklevel=2)
    return out


def partition_signature(communities: Sequence[Community]) -> tuple:
    """A hashable value equal for equal partitions (compare two runs with it)."""
    return tuple((c.level, c.nodes) for c in communities)


# --------------------------------------------------------------------------- facts and summaries

def _relation_words(relation: str) -> str:
    return relation.replace("_", " ").lower()


def community_facts(G, community: Community | Sequence[str]) -> list[tuple[str, str, str, str]]:
    """The edges with both ends inside the community, as sorted ``(subject, relation, object, evidence)``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("Ann", "Acme", key="CEO_OF", relation="CEO_OF", evidence="Ann runs Acme.")
    'CEO_OF'
    >>> community_facts(G, ["Acme", "Ann"])
    [('Ann', 'CEO_OF', 'Acme', 'Ann runs Acme.')]
    """
    nodes = set(community.nodes if isinstance(community, Community) else community)
    facts = set()
    for u, v, key, data in G.edges(keys=True, data=True) if G.is_multigraph() else \
            ((u, v, None, d) for u, v, d in G.edges(data=True)):
        if u in nodes and v in nodes and u != v:
            rel = str(data.get("relation") or key or "RELATED_TO")
            facts.add((str(u), rel, str(v), str(data.get("evidence") or "")))
    return sorted(facts)


def community_documents(G, community: Community | Sequence[str]) -> list[str]:
    """Sorted ids of the documents behind the community's internal edges (``doc_id`` and ``sources``).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("Ann", "Acme", key="CEO_OF", relation="CEO_OF", doc_id="n2", sources=[["n1", "s"]])
    'CEO_OF'
    >>> community_documents(G, ["Acme", "Ann"])
    ['n1', 'n2']
    """
    nodes = set(community.nodes if isinstance(community, Community) else community)
    docs = set()
    for u, v, data in G.edges(data=True):
        if u in nodes and v in nodes and u != v:
            if data.get("doc_id"):
                docs.add(str(data["doc_id"]))
            docs.update(str(src[0]) for src in data.get("sources") or [] if src)
    return sorted(docs)


def community_prompt(G, community: Community, *, max_facts: int = 40) -> str:
    """The summary prompt of one community: its sorted facts and their evidence sentences."""
    facts = community_facts(G, community)[:max_facts]
    lines = [f"- {s} {_relation_words(r)} {o}" for s, r, o, _ in facts]
    evidence = sorted({e.strip() for *_, e in facts if e.strip()})
    return prompts.COMMUNITY_SUMMARY_PROMPT.format(
        facts="\n".join(lines),
        evidence="\n".join(f"- {e}" for e in evidence) or "- (none recorded)")


@dataclasses.dataclass(frozen=True)
class CommunitySummary:
    """The model's summary of one community, with the facts it was written from."""

    community: Community
    title: str                                       # short theme name from the model
    summary: str                                     # two sentences from the model
    facts: tuple[tuple[str, str, str, str], ...]     # (subject, relation, object, evidence)

    @property
    def id(self) -> str:
        return self.community.id

    def text(self) -> str:
        """``title: summary``, the form that is embedded and shown to the answering model."""
        return f"{self.title}: {self.summary}"


def summarize_communities(G, communities: Sequence[Community], *, level: int | None = 0,
                          max_facts: int = 40, max_tokens: int = 160,
                          progress: bool | None = None) -> list[CommunitySummary]:
    """Have the model summarize each community from its facts (one cached call per community).

    Communities with no internal edge (singletons, isolated nodes) are skipped: there is
    nothing to summarize and no call is made.

    Parameters
    ----------
    G : networkx graph
        The graph the communities were detected on (edge attrs ``relation``, ``evidence``).
    communities : list of Community
        From :func:`detect_communities`.
    level : int or None
        Summarize only this hierarchy level (default 0, the coarsest); None: every level.
    max_facts : int
        Facts per prompt, first ones in sorted order (keeps the prompt short for a small model).
    max_tokens : int
        Cap on each summary reply.
    progress : bool, optional
        Show a progress bar (default: when more than 10 calls).

    Returns
    -------
    list of CommunitySummary
        In the order of ``communities``.

    Raises
    ------
    NoCommunities
        No community of the requested level has a fact.

    Examples
    --------
    >>> summaries = summarize_communities(G, detect_communities(G))  # doctest: +SKIP
    >>> print(summaries[0].title)                                    # doctest: +SKIP
    """
    from tqdm.auto import tqdm

    if max_facts < 1:
        raise ValueError(f"max_facts must be >= 1, not {max_facts!r}.")
    chosen = [c for c in communities if level is None or c.level == level]
    missing = sorted({n for c in chosen for n in c.nodes if n not in G})
    if missing:
        raise ValueError(f"{len(missing)} community members are not nodes of the graph "
                         f"(first: {missing[0]!r}); detect the communities on this graph again.")
    todo = [(c, community_facts(G, c)) for c in chosen]
    todo = [(c, f) for c, f in todo if f]
    if not todo:
        raise NoCommunities(f"No community at level {level} has an internal edge to summarize.")
    show = progress if progress is not None else len(todo) > 10
    out = []
    for c, facts in tqdm(todo, desc="summarizing communities", disable=not show):
        resp = call_llm(community_prompt(G, c, max_facts=max_facts),
                        system=prompts.COMMUNITY_SUMMARY_SYSTEM,
                        schema=prompts.COMMUNITY_SUMMARY_SCHEMA, schema_name="community_summary",
                        max_tokens=max_tokens, purpose=f"summarize community ({len(c)} nodes)")
        out.append(CommunitySummary(c, resp.data["title"].strip(), resp.data["summary"].strip(),
                                    tuple(facts)))
    return out


# --------------------------------------------------------------------------- global answers

def score_summaries(question: str, summaries: Sequence[CommunitySummary], *,
                    scorer: str = "embed") -> list[float]:
    """Relevance of each summary to the question (the map step of :func:`global_rag`).

    ``scorer="embed"``: cosine similarity of the question and ``title: summary`` embeddings
    (no model call). ``scorer="llm"``: the model rates each summary 0-10 with a small JSON
    schema (one call per summary), rescaled to 0-1.
    """
    if scorer not in SCORERS:
        raise ValueError(f"scorer must be one of {SCORERS}, not {scorer!r}.")
    if scorer == "embed":
        q = embed.embed_texts([question], kind="query")[0]
        V = embed.embed_texts([s.text() for s in summaries], kind="passage")
        return [float(x) for x in V @ q]
    scores = []
    for s in summaries:
        resp = call_llm(prompts.RELEVANCE_PROMPT.format(title=s.title, summary=s.summary,
                                                        question=question.strip()),
                        schema=prompts.RELEVANCE_SCHEMA, schema_name="relevance", max_tokens=20,
                        purpose=f"score summary {s.id} for a global question")
        scores.append(resp.data["score"] / 10)
    return scores


def global_rag(question: str, G, summaries: Sequence[CommunitySummary], *, top: int = 3,
               scorer: str = "embed", max_tokens: int = 220) -> tuple[str, list[CommunitySummary]]:
    """Answer a question about the whole corpus from community summaries (map-reduce).

    Map: score every summary's relevance (:func:`score_summaries`). Reduce: one model call
    answers from the ``top`` best summaries, given in score order.

    Parameters
    ----------
    question : str
    G : networkx graph
        The graph the summaries describe (checked, so stale summaries are caught).
    summaries : list of CommunitySummary
        From :func:`summarize_communities`.
    top : int
        How many summaries reach the answering call (fewer if there are fewer).
    scorer : {"embed", "llm"}
        How the map step scores (see :func:`score_summaries`).
    max_tokens : int
        Cap on the answer.

    Returns
    -------
    answer : str
    sources : list of CommunitySummary
        The summaries the answer was given, best first.

    Examples
    --------
    >>> answer, used = global_rag("What themes run across this corpus?", G, summaries)  # doctest: +SKIP
    """
    if not isinstance(question, str) or not question.strip():
        raise ValueError("global_rag needs a non-empty question.")
    if not isinstance(top, int) or top < 1:
        raise ValueError(f"top must be a positive int, not {top!r}.")
    if scorer not in SCORERS:
        raise ValueError(f"scorer must be one of {SCORERS}, not {scorer!r}.")
    if not summaries:
        raise NoCommunities("No community summaries: run summarize_communities(G, "
                            "detect_communities(G)) first.")
    stale = sorted({n for s in summaries for n in s.community.nodes if n not in G})
    if stale:
        raise ValueError(f"The summaries mention {len(stale)} nodes that are not in this graph "
                         f"(first: {stale[0]!r}); summarize this graph's communities again.")
    scores = score_summaries(question, summaries, scorer=scorer)
    order = sorted(range(len(summaries)), key=lambda i: (-scores[i], summaries[i].id))
    used = [summaries[i] for i in order[:top]]
    block = "\n".join(f"[{i}] {s.text()}" for i, s in enumerate(used, 1))
    resp = call_llm(prompts.GLOBAL_ANSWER_PROMPT.format(summaries=block, question=question.strip()),
                    system=prompts.GLOBAL_ANSWER_SYSTEM, max_tokens=max_tokens,
                    purpose="global answer from community summaries")
    return resp.text.strip(), used


# --------------------------------------------------------------------------- figure

def draw_communities(G, communities: Sequence[Community], *, ax=None, seed: int = 0,
                     level: int = 0, labels: dict[str, str] | None = None,
                     font_size: int = 7):
    """Draw the graph with nodes coloured by community (spring layout with a fixed seed).

    Parameters
    ----------
    G : networkx graph
    communities : list of Community
        Only those of ``level`` are drawn.
    ax : matplotlib Axes, optional
    seed : int
        Layout seed (same seed, same picture).
    labels : dict, optional
        Legend text per community id (e.g. the summary titles); default: the ids.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt
    import networkx as nx

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 6.5))
    chosen = [c for c in communities if c.level == level]
    H = undirected_projection(G)
    pos = nx.spring_layout(H, seed=seed, k=1.6 / max(1, H.number_of_nodes()) ** 0.5)
    cmap = plt.get_cmap("tab10" if len(chosen) <= 10 else "tab20")
    nx.draw_networkx_edges(H, pos, ax=ax, edge_color="#999999", width=0.8, alpha=0.7)
    for i, c in enumerate(chosen):
        text = (labels or {}).get(c.id, c.id)
        nx.draw_networkx_nodes(H, pos, nodelist=list(c.nodes), ax=ax, node_size=160,
                               node_color=[cmap(i % cmap.N)], edgecolors="white",
                               label=f"{c.id} ({len(c)}): {text}")
    ys = [y for _, y in pos.values()]
    dy = 0.035 * ((max(ys) - min(ys)) or 1.0)        # labels sit just above their node
    nx.draw_networkx_labels(H, {n: (x, y + dy) for n, (x, y) in pos.items()}, ax=ax,
                            font_size=font_size, verticalalignment="bottom",
                            labels={n: n.replace(" ", "\n", 1) if len(n) > 14 else n for n in H})
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8)
    ax.set_axis_off()
    return ax
