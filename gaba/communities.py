"""Global questions (chapter "Global questions"), as in Microsoft GraphRAG: find the communities of
the knowledge graph, summarize each once, then answer map-reduce style from the best summaries
(:func:`global_rag`)."""
from __future__ import annotations

import dataclasses
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence

import networkx as nx
from tqdm.auto import tqdm

from . import embed, prompts
from .checks import check_positive_int, check_question
from .errors import GabaError
from .kgfile import edge_rows
from .llm import call_llm

SCORERS = ("embed", "llm")


class NoCommunities(GabaError, ValueError):
    """The graph has no edges (or no nodes), so it has no communities to summarize."""


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
    """The undirected simple graph Louvain runs on: ``weight`` = edges between two nodes, no self-loops.

    Built in the order of the nodes' text, so a seed gives one partition; nodes keep their type.
    """
    if not isinstance(G, nx.Graph):
        raise TypeError(f"communities are found in a networkx graph (as build_knowledge_graph or load_graph "
                        f"returns), not a {type(G).__name__}.")
    weights = Counter(tuple(sorted((u, v), key=str)) for u, v in G.edges() if u != v)
    H = nx.Graph()
    H.add_nodes_from(sorted(G.nodes, key=str))
    H.add_weighted_edges_from((a, b, w) for (a, b), w in sorted(weights.items(), key=lambda kv: tuple(map(str, kv[0]))))
    return H


def detect_communities(G, *, seed: int = 0, resolution: float = 1.0, levels: int | None = 1) -> list[Community]:
    """Partition the graph into communities with Louvain modularity (fixed seed, deterministic).

    Level 0 is the coarsest; ``levels`` says how many to return (None: all); ``resolution`` above 1
    favours smaller communities. Largest first per level. No edges raises :class:`NoCommunities`.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph([("a", "b"), ("b", "c"), ("x", "y")])
    >>> [(c.id, c.nodes) for c in detect_communities(G)]
    [('c0', ('a', 'b', 'c')), ('c1', ('x', 'y'))]
    """
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"seed must be an int (for a reproducible partition), not {seed!r}.")
    if isinstance(resolution, bool) or not isinstance(resolution, (int, float)) or not resolution > 0:
        raise ValueError(f"resolution must be a number > 0, not {resolution!r}.")
    check_positive_int("levels", levels, allow_none=True, hint="how many levels to return (None: all levels).")
    H = undirected_projection(G)
    if G.number_of_nodes() == 0:
        raise NoCommunities("The graph is empty: build it first (gaba.graph.build_knowledge_graph).")
    if H.number_of_edges() == 0:
        raise NoCommunities(f"The graph has {G.number_of_nodes()} nodes and no edges between distinct nodes, so "
                            "every node would be its own community and no community has facts to summarize. "
                            "Check the extraction step: it produced no relations.")
    passes = list(nx.community.louvain_partitions(H, weight="weight", resolution=resolution, seed=seed))
    hierarchy = list(reversed(passes))[:levels]           # coarsest first ([:None] keeps them all)
    out: list[Community] = []
    parents = [Community("c", -1, tuple(H.nodes))]   # a root above level 0: its children are c0, c1, ...
    for level, partition in enumerate(hierarchy):
        groups = sorted((tuple(sorted(g, key=str)) for g in partition if g),
                        key=lambda t: (-len(t), tuple(map(str, t))))  # largest first
        parents = [Community(f"{p.id}.{j}" if level else f"c{j}", level, g, p.id if level else None)
                   for p in parents for j, g in enumerate(g for g in groups if set(g) <= set(p.nodes))]
        out += parents
    if sum(c.level == 0 for c in out) == 1:
        warnings.warn(f"Louvain found a single community holding all {G.number_of_nodes()} nodes: "
                      f"a global answer will come from one summary of the whole graph. A higher "
                      f"resolution may split it.", UserWarning, stacklevel=2)
    return out


def partition_signature(communities: Sequence[Community]) -> tuple:
    """A hashable value equal for equal partitions (compare two runs with it)."""
    listed = None if isinstance(communities, (str, bytes)) else list(communities)
    if listed is None or not all(isinstance(c, Community) for c in listed):
        raise TypeError(f"partition_signature needs the Community list of detect_communities, not {communities!r:.80}.")
    return tuple((c.level, c.nodes) for c in listed)


def _internal_edges(G, community: Community | Sequence[str]):
    """``(u, v, key, data)`` of the edges between two different members (key None in a simple graph)."""
    if isinstance(community, (str, bytes)) or not isinstance(community, (Community, Iterable)):
        raise TypeError(f"community must be a Community or a list of node names, not {community!r:.80}.")
    _need_graph(G, "community")
    nodes = set(community.nodes if isinstance(community, Community) else community)
    return [(u, v, k, d) for u, v, k, d in edge_rows(G) if u in nodes and v in nodes and u != v]


def community_facts(G, community: Community | Sequence[str]) -> list[tuple[str, str, str, str]]:
    """The edges inside the community, as sorted ``(subject, relation, object, evidence)``."""
    return sorted({(str(u), str(d.get("relation") or k or "RELATED_TO"), str(v), str(d.get("evidence") or ""))
                   for u, v, k, d in _internal_edges(G, community)})


def community_documents(G, community: Community | Sequence[str]) -> list[str]:
    """Sorted ids of the documents behind the community's internal edges (``doc_id`` and ``sources``)."""
    docs = set()
    for *_, d in _internal_edges(G, community):
        if d.get("doc_id"):
            docs.add(str(d["doc_id"]))
        docs.update(str(src[0]) for src in d.get("sources") or [] if isinstance(src, (list, tuple)) and src)
    return sorted(docs)


def community_prompt(G, community: Community, *, max_facts: int = 40) -> str:
    """The summary prompt of one community: its sorted facts and their evidence sentences."""
    return _facts_prompt(community_facts(G, community)[:max_facts])


def _facts_prompt(facts: Sequence[tuple[str, str, str, str]]) -> str:
    """The summary prompt for these facts (the community's first ``max_facts``)."""
    lines = [f"- {s} {r.replace('_', ' ').lower()} {o}" for s, r, o, _ in facts]
    evidence = sorted({e.strip() for *_, e in facts if e.strip()})
    return prompts.COMMUNITY_SUMMARY_PROMPT.format(
        facts="\n".join(lines),
        evidence="\n".join(f"- {e}" for e in evidence) or "- (none recorded)")


@dataclasses.dataclass(frozen=True)
class CommunitySummary:
    """The model's summary of one community, and all the community's facts (the prompt had at most 40)."""

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
                          max_facts: int = 40, max_tokens: int = 160) -> list[CommunitySummary]:
    """Have the model summarize each community from its first ``max_facts`` sorted facts (one call each).

    ``level`` None: every level. Raises :class:`NoCommunities` when no community of that level has a fact.
    """
    communities = _graph_and_items(G, communities, Community, "communities", "detect_communities(G)")
    if level is not None and (isinstance(level, bool) or not isinstance(level, int)):
        raise TypeError(f"level must be an int (0 is the coarsest) or None for every level, not {level!r}.")
    check_positive_int("max_facts", max_facts, hint="how many facts each community's summary is shown.")
    chosen = [c for c in communities if level is None or c.level == level]
    missing = sorted({n for c in chosen for n in c.nodes if n not in G})
    if missing:
        raise ValueError(f"{len(missing)} community members are not nodes of the graph "
                         f"(first: {missing[0]!r}); detect the communities on this graph again.")
    todo = [(c, facts) for c in chosen if (facts := community_facts(G, c))]
    if not todo:
        raise NoCommunities(f"No community at level {level} has an internal edge to summarize.")
    out = []
    for c, facts in tqdm(todo, desc="summarizing communities", disable=len(todo) <= 10):
        resp = call_llm(_facts_prompt(facts[:max_facts]), system=prompts.COMMUNITY_SUMMARY_SYSTEM,
                        schema=prompts.COMMUNITY_SUMMARY_SCHEMA, schema_name="community_summary",
                        max_tokens=max_tokens, purpose=f"summarize community ({len(c)} nodes)")
        out.append(CommunitySummary(c, resp.data["title"].strip(), resp.data["summary"].strip(), tuple(facts)))
    return out


def score_summaries(question: str, summaries: Sequence[CommunitySummary], *, scorer: str = "embed") -> list[float]:
    """Relevance of each summary to the question: ``scorer="embed"`` (cosine) or ``"llm"`` (rated 0-10)."""
    if scorer not in SCORERS:
        raise ValueError(f"scorer must be one of {SCORERS}, not {scorer!r}.")
    if scorer == "embed":
        q = embed.embed_texts([question], kind="query")[0]
        V = embed.embed_texts([s.text() for s in summaries], kind="passage")
        return [float(x) for x in V @ q]
    scores = []
    for s in summaries:
        resp = call_llm(prompts.RELEVANCE_PROMPT.format(title=s.title, summary=s.summary, question=question.strip()),
                        schema=prompts.RELEVANCE_SCHEMA, schema_name="relevance", max_tokens=20,
                        purpose=f"score summary {s.id} for a global question")
        scores.append(resp.data["score"] / 10)
    return scores


def global_rag(question: str, G, summaries: Sequence[CommunitySummary], *, top: int = 3,
               scorer: str = "embed", max_tokens: int = 220) -> tuple[str, list[CommunitySummary]]:
    """Answer a question about the whole corpus from community summaries: ``(answer, summaries used)``.

    Map: :func:`score_summaries`; reduce: one model call answers from the ``top`` best. Raises
    ``ValueError`` for stale summaries (nodes not in ``G``) or an unknown ``scorer``.
    """
    check_question(question, "global_rag", max_chars=None, utf8=False)
    check_positive_int("top", top, hint="how many of the best community summaries answer.")
    summaries = _graph_and_items(G, summaries, CommunitySummary, "summaries",
                                 "summarize_communities(G, detect_communities(G))")
    if not summaries:
        raise NoCommunities("No community summaries: run summarize_communities(G, detect_communities(G)) first.")
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


def _need_graph(G, what: str) -> None:
    """TypeError unless ``G`` is a NetworkX graph (the one the ``what`` came from)."""
    if not isinstance(G, nx.Graph):
        raise TypeError(f"G must be the networkx graph the {what} came from, not {type(G).__name__}.")


def _graph_and_items(G, items, kind: type, what: str, remedy: str) -> list:
    """``items`` as a list; TypeError unless ``G`` is a NetworkX graph and ``items`` hold ``kind`` only."""
    _need_graph(G, what)
    listed = list(items) if isinstance(items, Iterable) and not isinstance(items, (str, bytes, dict)) else None
    if listed is None or not all(isinstance(x, kind) for x in listed):
        raise TypeError(f"{what} must be a list of {kind.__name__} objects, as {remedy} returns, not {items!r:.80}.")
    return listed


def draw_communities(G, communities: Sequence[Community], *, ax=None, seed: int = 0,
                     level: int = 0, labels: dict[str, str] | None = None, font_size: int = 7):
    """Draw the graph coloured by the communities of ``level`` (``labels``: legend per id); return the Axes."""
    import matplotlib.pyplot as plt
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
                               node_color=[cmap(i % cmap.N)], edgecolors="white", label=f"{c.id} ({len(c)}): {text}")
    ys = [y for _, y in pos.values()]
    dy = 0.035 * ((max(ys) - min(ys)) or 1.0)        # labels sit just above their node
    nx.draw_networkx_labels(H, {n: (x, y + dy) for n, (x, y) in pos.items()}, ax=ax,
                            font_size=font_size, verticalalignment="bottom",
                            labels={n: str(n).replace(" ", "\n", 1) if len(str(n)) > 14 else str(n) for n in H})
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8)
    ax.set_axis_off()
    return ax
