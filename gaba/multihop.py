"""The multi-hop question pipeline: classify, find the entities, traverse, format, explain.

Chapter *Multi-hop queries in a graph database*. The graph finds the answer; the model only puts the
best paths into words: family paths with kinship words, other paths as the facts they walk.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from . import prompts
from .answer import ABSTAIN, quoted_line
from .checks import check_positive_int
from .data.kinship import ROLE_WORDS, kinship, path_roles
from .entities import find_entities, suggest
from .errors import EntityNotFound, NoPath
from .graph import Fact, fact_sentence
from .llm import call_llm
from .paths import expand, graph_scorer, neighbors, rank_paths, top_paths
from .traversal import Path, TraversalStats, _is_number, node_attribute, symmetric_relations


def format_paths(paths: Sequence[Path], scores: Sequence[float] | None = None,
                 genders: dict[str, str] | None = None, *, kinship_words: bool = True) -> str:
    """Number the paths, each written from its first person's point of view: the model's context.

    ``kinship_words`` adds the kinship word both ways (``aunt``, ``nephew``), computed, not generated.
    """
    _check_paths(paths, scores)
    lines = []
    for i, p in enumerate(paths, start=1):
        roles = path_roles(p, genders)
        line = _head(i, scores) + " ".join(f"{a}'s {r} is {b}." for a, r, b in zip(p.nodes, roles, p.nodes[1:]))
        if p.hops > 1:
            chain = "'s ".join(roles)
            line += f" So {p.end} is {p.start}'s {chain}"
            kin = kinship(p, genders) if kinship_words else None
            if kin is not None:
                line += f", {p.start}'s {kin[0]}, and {p.start} is {p.end}'s {kin[1]}"
            line += "."
        lines.append(line)
    return "\n".join(lines)


def _check_paths(paths, scores) -> None:
    """TypeError/ValueError unless ``paths`` are Paths and ``scores`` (if given) one number per path."""
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence) or \
            not all(isinstance(p, Path) for p in paths):
        raise TypeError(f"paths must be a list of gaba.traversal.Path (as top_paths returns), not {paths!r:.80}.")
    if scores is not None and (len(scores) != len(paths) or not all(_is_number(s) for s in scores)):
        raise ValueError(f"scores must hold one number per path ({len(paths)}), not {scores!r:.80}.")


def _head(i: int, scores: Sequence[float] | None) -> str:
    return f"Path {i}" + (f" (score {scores[i - 1]:.3f})" if scores is not None else "") + ": "


#: How :func:`multi_hop_query` words its paths; ``"auto"`` picks ``"kinship"`` when every relation
#: on them is a family relation of :data:`gaba.data.kinship.ROLE_WORDS`, else ``"facts"``.
WORDINGS = ("auto", "kinship", "facts")
_KIN_RELATIONS = frozenset(rel for rel, _ in ROLE_WORDS)


def path_facts(path: Path) -> list[Fact]:
    """Each step of ``path`` as the fact it walks, subject first (an edge walked backwards is turned round)."""
    return [(a, r, b) if fwd or r in path.symmetric else (b, r, a)
            for a, b, r, fwd in zip(path.nodes, path.nodes[1:], path.rels, path.forward)]


def format_fact_paths(paths: Sequence[Path], scores: Sequence[float] | None = None) -> str:
    """Number the paths, each step written as the fact it walks, then who lies between the two ends.

    The closing "So ..." sentence is computed from the path, not generated. Names and relations are
    quoted data: a line break or a ``</facts>`` inside one cannot start a line or block of its own.

    >>> p = Path(("Ana Rusk", "Tern", "Pell Quay"), ("OWNS", "BERTHS"), (True, False))
    >>> print(format_fact_paths([p]))
    Path 1: Ana Rusk owns Tern. Pell Quay berths Tern. So Ana Rusk is connected to Pell Quay through Tern.
    """
    _check_paths(paths, scores)
    lines = []
    for i, p in enumerate(paths, start=1):
        text = " ".join(fact_sentence(f) for f in path_facts(p))
        inner = [str(n) for n in p.nodes[1:-1]]
        if inner:
            names = inner[0] if len(inner) == 1 else ", ".join(inner[:-1]) + " and " + inner[-1]
            text += f" So {p.start} is connected to {p.end} through {names}."
        lines.append(_head(i, scores) + quoted_line(text))
    return "\n".join(lines)


@dataclasses.dataclass
class HopAnswer:
    """What :func:`multi_hop_query` returns."""

    question: str
    kind: str                      # "multi-hop", "single-hop" or "unknown"
    entities: list[str]            # entities found in the question
    paths: list[Path]              # the ranked paths handed to the model
    scores: list[float]
    context: str                   # the formatted paths, exactly as in the prompt
    answer: str                    # the model's explanation (or why there is none)
    stats: TraversalStats
    llm: Any = None                # the gaba.llm.Response, when the model was called


def classify_query(G: Any, question: str) -> tuple[str, list[str]]:
    """``("multi-hop" | "single-hop" | "unknown", entities named)``: two, one or no entities."""
    ents = find_entities(question, G)
    kind = "multi-hop" if len(ents) >= 2 else "single-hop" if ents else "unknown"
    return kind, ents


def multi_hop_query(G: Any, question: str, *, max_depth: int = 4, beam_width: int = 10,
                    top: int = 3, limit: int = 1000, timeout: float = 10.0,
                    explain: bool = True, max_tokens: int = 120, kinship_words: bool = True,
                    wording: str = "auto", temperature: float = 0.0, seed: int = 0) -> HopAnswer:
    """The whole pipeline: classify, find the entities, traverse, format the paths, explain.

    ``wording`` (:data:`WORDINGS`): family paths get kinship words (:func:`format_paths`; with
    ``kinship_words=False`` only the chain of roles), other paths are written as the facts they
    walk (:func:`format_fact_paths`). ``explain=False`` skips the one model call. Raises
    EntityNotFound (no entity named) or NoPath (no path, or the one entity named has no relation).

    >>> from gaba.data.westeros import load_westeros
    >>> r = multi_hop_query(load_westeros(), "How is Jon Snow related to Daenerys?", explain=False)
    >>> print(r.context.splitlines()[0])
    Path 1 (score 0.512): Jon Snow's father is Rhaegar Targaryen. Rhaegar Targaryen's sister is Daenerys Targaryen. So Daenerys Targaryen is Jon Snow's father's sister, Jon Snow's aunt, and Jon Snow is Daenerys Targaryen's nephew.
    """
    if wording not in WORDINGS:
        raise ValueError(f"wording must be one of {', '.join(WORDINGS)}, not {wording!r}")
    check_positive_int("top", top, hint="how many paths the model is shown.")
    check_positive_int("beam_width", beam_width, hint="how many paths are ranked.")
    kind, ents = classify_query(G, question)
    if kind == "unknown":
        names = suggest(G, question)
        raise EntityNotFound(f"The question {question!r} names no entity of this graph; name one, for "
                             f"example {', '.join(repr(s) for s in names)}." if names else
                             f"The question {question!r} names no entity: this graph has none; build it "
                             "first (gaba.graph.build_knowledge_graph).")
    if kind == "multi-hop":
        res = top_paths(G, ents[0], ents[1], k=beam_width, max_depth=max_depth, limit=limit, timeout=timeout)
        if not res.paths:
            raise NoPath(f"No path between {ents[0]!r} and {ents[1]!r} within {max_depth} hops"
                         + (" (the traversal timed out)" if res.stats.timed_out else "") + ".")
        paths, scores, stats = res.paths[:top], (res.scores or [])[:top], res.stats
    else:
        hood = neighbors(G, ents[0], depth=1, timeout=timeout)
        steps = expand(G, [ents[0]], "both", None, timeout)[ents[0]]
        sym = symmetric_relations(G)
        ranked = rank_paths([Path((ents[0], n), (r,), (f,), sym) for n, r, f in steps],
                            scorer=graph_scorer(G), k=beam_width)
        paths, scores, stats = [p for p, _ in ranked], [s for _, s in ranked], hood.stats
        if not paths:
            raise NoPath(f"{ents[0]!r} has no relation in this graph, so there is no path to explain; "
                         "ask about an entity with facts, or name a second one.")
    if wording == "kinship" or (wording == "auto" and {r for p in paths for r in p.rels} <= _KIN_RELATIONS):
        genders = node_attribute(G, {n for p in paths for n in p.nodes}, "gender")
        context = format_paths(paths, scores, genders, kinship_words=kinship_words)
        system = prompts.PATHS_SYSTEM
        template = prompts.PATHS_EXPLAIN if kinship_words else prompts.PATHS_EXPLAIN_CHAIN
    else:
        context = format_fact_paths(paths, scores)
        system, template = prompts.PATHS_FACTS_SYSTEM, prompts.PATHS_FACTS_EXPLAIN
    if not explain:
        return HopAnswer(question, kind, ents, paths, scores, context, "", stats)
    resp = call_llm(template.format(question=question.strip(), paths=context), system=system,
                    temperature=temperature, seed=seed, max_tokens=max_tokens,
                    purpose=f"paths: explain {question.strip()[:60]}")
    # an empty reply is no answer: say so, as graph_rag does, instead of printing nothing
    text = resp.text.strip() or f"{ABSTAIN}: the model gave an empty reply."
    return HopAnswer(question, kind, ents, paths, scores, context, text, stats, resp)
