"""The multi-hop question pipeline: classify, find the characters, traverse, format, explain.

Taught in chapter *Multi-hop queries in a graph database*. The graph finds the answer; the model
only puts the best paths into words.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from . import prompts
from .data.kinship import kinship, path_roles
from .entities import find_entities, suggest
from .errors import EntityNotFound, NoPath
from .llm import call_llm
from .paths import expand, graph_scorer, neighbors, rank_paths, top_paths
from .traversal import Path, TraversalStats, node_attribute, symmetric_relations


def format_paths(paths: Sequence[Path], scores: Sequence[float] | None = None,
                 genders: dict[str, str] | None = None, *, kinship_words: bool = True) -> str:
    """Number the paths, each written from its first person's point of view: the model's context.

    ``kinship_words`` adds the kinship word both ways (``aunt``, ``nephew``), computed, not generated.
    """
    lines = []
    for i, p in enumerate(paths, start=1):
        roles = path_roles(p, genders)
        steps = [f"{p.nodes[j]}'s {roles[j]} is {p.nodes[j + 1]}." for j in range(p.hops)]
        head = f"Path {i}" + (f" (score {scores[i - 1]:.3f})" if scores is not None else "")
        chain = "'s ".join(roles)
        summary = f"So {p.end} is {p.start}'s {chain}"
        kin = kinship(p, genders) if kinship_words else None
        if kin is not None and p.hops > 1:
            summary += f", {p.start}'s {kin[0]}, and {p.start} is {p.end}'s {kin[1]}"
        summary += "."
        lines.append(f"{head}: " + " ".join(steps) + (f" {summary}" if p.hops > 1 else ""))
    return "\n".join(lines)


@dataclasses.dataclass
class HopAnswer:
    """What :func:`multi_hop_query` returns."""

    question: str
    kind: str                      # "multi-hop", "single-hop" or "unknown"
    entities: list[str]            # characters found in the question
    paths: list[Path]              # the ranked paths handed to the model
    scores: list[float]
    context: str                   # the formatted paths, exactly as in the prompt
    answer: str                    # the model's explanation (or why there is none)
    stats: TraversalStats
    llm: Any = None                # the gaba.llm.Response, when the model was called


def classify_query(G: Any, question: str) -> tuple[str, list[str]]:
    """``("multi-hop" | "single-hop" | "unknown", characters named)``: two, one or no characters."""
    ents = find_entities(question, G)
    kind = "multi-hop" if len(ents) >= 2 else "single-hop" if ents else "unknown"
    return kind, ents


def multi_hop_query(G: Any, question: str, *, max_depth: int = 4, beam_width: int = 10,
                    top: int = 3, limit: int = 1000, timeout: float = 10.0,
                    explain: bool = True, max_tokens: int = 120,
                    kinship_words: bool = True) -> HopAnswer:
    """The whole pipeline: classify, find the characters, traverse, format the paths, explain.

    ``explain=False`` skips the one model call. Raises EntityNotFound (no character named) or NoPath.

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros
    >>> r = multi_hop_query(load_westeros(), "How is Jon Snow related to Daenerys?", explain=False)
    >>> print(r.context.splitlines()[0])
    Path 1 (score 0.512): Jon Snow's father is Rhaegar Targaryen. Rhaegar Targaryen's sister is Daenerys Targaryen. So Daenerys Targaryen is Jon Snow's father's sister, Jon Snow's aunt, and Jon Snow is Daenerys Targaryen's nephew.
    """
    kind, ents = classify_query(G, question)
    if kind == "unknown":
        raise EntityNotFound(f"The question {question!r} names no character of this graph; name "
                             f"one, for example {', '.join(repr(s) for s in suggest(G, question))}.")
    if kind == "multi-hop":
        res = top_paths(G, ents[0], ents[1], k=beam_width, max_depth=max_depth, limit=limit,
                        timeout=timeout)
        if not res.paths:
            raise NoPath(f"No path between {ents[0]!r} and {ents[1]!r} within {max_depth} hops"
                         + (" (the traversal timed out)" if res.stats.timed_out else "") + ".")
        paths, scores = res.paths[:top], (res.scores or [])[:top]
        stats = res.stats
    else:
        hood = neighbors(G, ents[0], depth=1, timeout=timeout)
        steps = expand(G, [ents[0]], "both", None, timeout)[ents[0]]
        sym = symmetric_relations(G)
        ranked = rank_paths([Path((ents[0], n), (r,), (f,), sym) for n, r, f in steps],
                            scorer=graph_scorer(G), k=beam_width)
        paths, scores = [p for p, _ in ranked], [s for _, s in ranked]
        stats = hood.stats
    genders = node_attribute(G, {n for p in paths for n in p.nodes}, "gender")
    context = format_paths(paths, scores, genders, kinship_words=kinship_words)
    if not explain:
        return HopAnswer(question, kind, ents, paths, scores, context, "", stats)
    template = prompts.PATHS_EXPLAIN if kinship_words else prompts.PATHS_EXPLAIN_CHAIN
    resp = call_llm(template.format(question=question.strip(), paths=context),
                    system=prompts.PATHS_SYSTEM, max_tokens=max_tokens,
                    purpose=f"paths: explain {question.strip()[:60]}")
    return HopAnswer(question, kind, ents, paths, scores, context, resp.text.strip(), stats, resp)
