"""Routing a question to the retriever built for it, and answering with it.

Taught in chapters "Graph RAG and multi-hop reasoning" (two routes) and "Global questions" (three).

- :func:`route` - a cheap rule-based pass decides when the cues of exactly one route match
  (:data:`RULES`: ``"local"`` graph traversal, ``"global"`` community summaries, ``"flat"`` top-k
  passages); otherwise the model classifies the question, or it falls back to ``"flat"``;
- :func:`route_question` - the same router with the two-route rule of chapter "Graph RAG"
  (:data:`GRAPH_OR_FLAT`): document-phrased questions go to flat retrieval, the rest to the graph;
- :func:`ask` - routes a question and answers it with :func:`gaba.rag.graph_rag`,
  :func:`gaba.communities.global_rag` or :func:`gaba.rag.flat_rag`.

Examples
--------
>>> route("What themes run across this corpus?", use_model=False)
'global'
>>> route_question("What did the news say about Kestrel Motors' new factory?")
'flat'
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import prompts, rag
from .communities import CommunitySummary, detect_communities, global_rag, summarize_communities
from .entities import find_entities
from .errors import GabaError, LLMOutputError
from .llm import call_llm

ROUTES = ("local", "global", "flat")
#: Routes that walk the graph from the entities a question names, so they need one of ``G``'s.
TRAVERSALS = ("local", "graph")

#: Cue patterns of the rule-based first pass (lower-cased question). Deliberately generic:
#: they describe question *types*, not the book's questions.
RULES: dict[str, tuple[str, ...]] = {
    "local": (
        r"\b(connects?|connected|connection|links?|linked|path|chain|between)\b",
        r"\b(suppl(y|ies|ier|iers)|compet(e|es|itor|itors)|rivals?|board|acquir\w*|invest\w*|"
        r"found(ed|er)|owns?|subsidiar\w*|partner\w*|ceo|chief executive)\b",
    ),
    "global": (
        r"\bthemes?\b", r"\btopics?\b", r"\btrends?\b", r"\boverall\b", r"\bin general\b",
        r"\bacross (the|this|these|all)\b", r"\b(this|the|whole|entire) (corpus|collection)\b",
        r"\b(which|what) (industries|sectors|kinds? of|types? of)\b",
        r"\bmain (groups?|clusters?|areas?|players?|subjects?)\b",
        r"\bsummari[sz]e (the|all|this|these)\b", r"\bbig picture\b",
    ),
    "flat": (
        r"^(when|why)\b", r"\bhow (much|many|long)\b",
        r"\bwhat (date|year|day|month|price|amount|percentage|sum)\b",
        r"\b(quote|verbatim|exact words|word for word)\b",
        r"\baccording to (the|this|that) (article|story|report|document|announcement)\b",
        r"\bwhat (did|does) the (article|story|report|document|announcement)\b",
    ),
}

#: The two-route rule of chapter "Graph RAG": phrases that ask what a text says rather than how
#: entities connect go to ``"flat"``; every other question goes to ``"graph"`` (:func:`route_question`).
GRAPH_OR_FLAT: dict[str, tuple[str, ...]] = {
    "flat": (r"\b(what|how) (does|do|did) (the )?(article|document|report|story|snippet|news|text|passage)",
             r"\b(according to|summari[sz]e|announce[ds]?|report(ed|s)?|say|says|said|quote[ds]?|mention(ed|s)?)\b"),
}


@dataclasses.dataclass(frozen=True)
class RouteDecision:
    """What :func:`route` decided and why."""

    route: str            # "local", "global" or "flat"
    by: str               # "rules", "model" or "fallback"
    reason: str           # the cue matched, the model's pick, or why it fell back


def rule_route(question: str, G=None, *, rules: Mapping[str, Sequence[str]] = RULES,
               default: str | None = None) -> tuple[str | None, str]:
    """The rule-based first pass: ``(route, reason)``, or ``(None, reason)`` when unsure.

    A route is decided when the cues of exactly one route of ``rules`` match, or, when no cue
    matches, it is ``default`` (``None``: unsure). A route of :data:`TRAVERSALS` also needs a
    graph entity in the question when ``G`` is given (traversal needs a start).
    """
    q = " ".join(question.lower().split())
    hits = {r: [p for p in pats if re.search(p, q)] for r, pats in rules.items()}
    matched = [r for r in rules if hits[r]]
    if not matched and default is not None:
        r, reason = default, "no cue matched"
    elif len(matched) != 1:
        what = "no cue" if not matched else "cues of " + " and ".join(matched)
        return None, f"{what} matched"
    else:
        r = matched[0]
        reason = f"cue {re.search(hits[r][0], q).group(0)!r}"
    if r in TRAVERSALS and G is not None and not _entities(question, G):
        return None, ("relation cue" if matched else "no cue") + " but no entity of the graph named"
    return r, reason


def _entities(question: str, G) -> list[str]:
    """Graph entities named in the question (:func:`gaba.entities.find_entities`; none if it fails)."""
    try:
        return list(find_entities(question, G))
    except GabaError:
        return []


def route(question: str, G=None, *, use_model: bool = True, use_rules: bool = True,
          explain: bool = False, rules: Mapping[str, Sequence[str]] = RULES, default: str | None = None):
    """Choose the retriever for a question: ``"local"``, ``"global"`` or ``"flat"``.

    A cheap rule-based pass (:data:`RULES`, :func:`rule_route`) decides when the cues of
    exactly one route match. Otherwise, the model classifies the question with a JSON schema
    whose only field is an enum of the three routes. A question nobody can classify falls
    back to ``"flat"`` (plain passage retrieval, the safest default), with a note saying why:
    it has fewer than three words, the model's reply failed the schema, the model is not
    used, or it chose ``"local"`` but the question names no entity of ``G``.

    Parameters
    ----------
    question : str
    G : networkx graph, optional
        With a graph, ``"local"`` requires an entity of the graph in the question.
    use_model : bool
        False: rules only (unsure questions fall back to flat).
    use_rules : bool
        False: skip the rules and ask the model about every question (to measure it alone).
    explain : bool
        Return a :class:`RouteDecision` (route, by, reason) instead of the route string.
    rules, default : optional
        Other cue rules and the route taken when none of their cues matches (see
        :func:`rule_route`; :func:`route_question` uses :data:`GRAPH_OR_FLAT` and ``"graph"``).

    Examples
    --------
    >>> route("Which industries does this news cover?", use_model=False)
    'global'
    >>> route("How much did the deal cost?", use_model=False)
    'flat'
    >>> route("Tell me something.", use_model=False, explain=True).by
    'fallback'
    """
    if not isinstance(question, str) or not question.strip():
        raise ValueError("route needs a non-empty question string.")
    if len(re.findall(r"[^\W\d_]{2,}", question)) < 3:
        d = RouteDecision("flat", "fallback", "too few words to classify")
        return d if explain else d.route
    if not use_rules and not use_model:
        raise ValueError("route needs the rules, the model, or both (use_rules or use_model).")
    r, reason = rule_route(question, G, rules=rules, default=default) if use_rules else (None, "")
    if r is not None:
        d = RouteDecision(r, "rules", reason)
    elif not use_model:
        d = RouteDecision("flat", "fallback", f"rules unsure ({reason}) and the model is not used")
    else:
        d = _model_route(question, G, f"rules unsure ({reason})" if use_rules else "rules not used")
    return d if explain else d.route


def route_question(question: str, G=None) -> str:
    """``"graph"`` for questions about entities and their connections, ``"flat"`` for what a text says.

    :func:`route` with one rule and no model (:data:`GRAPH_OR_FLAT`): questions phrased around
    a document ("what does the report say", "according to", "summarize") go to flat retrieval;
    everything else goes to the graph (and, when ``G`` is given, only if the question names one
    of its entities). Questions of fewer than three words go to flat retrieval.

    Examples
    --------
    >>> route_question("Who competes with Kestrel Motors' battery supplier?")
    'graph'
    >>> route_question("What did the news say about Kestrel Motors' new factory?")
    'flat'
    """
    return route(question, G, rules=GRAPH_OR_FLAT, default="graph", use_model=False)


def _model_route(question: str, G, rules_reason: str) -> RouteDecision:
    try:
        resp = call_llm(prompts.ROUTER_PROMPT.format(question=" ".join(question.split())),
                        system=prompts.ROUTER_SYSTEM, schema=prompts.ROUTER_SCHEMA,
                        schema_name="route", max_tokens=20, purpose="route a question")
    except LLMOutputError as exc:
        return RouteDecision("flat", "fallback", f"the model's route was not valid ({exc})")
    r = resp.data["route"]
    if r == "local" and G is not None and not _entities(question, G):
        return RouteDecision("flat", "fallback", "model chose local, but the question names no "
                                                 "entity of the graph to start a traversal from")
    return RouteDecision(r, "model", f"{rules_reason}; model chose {r}")


# --------------------------------------------------------------------------- dispatch

@dataclasses.dataclass
class Answer:
    """What :func:`ask` returns."""

    answer: str
    route: str                      # the retriever used
    evidence: list                  # facts (local), CommunitySummary list (global) or passages (flat)
    decided_by: str = ""            # "rules", "model", "fallback" or "caller"
    note: str = ""                  # why the route was chosen, and any extra work done


def ask(question: str, G, *, summaries: Sequence[CommunitySummary] | None = None,
        route_to: str | None = None, use_model: bool = True, hops: int = 2, k: int = 2,
        top: int = 3, scorer: str = "embed", local: Callable[..., tuple[str, Any]] | None = None,
        flat: Callable[..., tuple[str, Any]] | None = None) -> Answer:
    """Route a question and answer it with the chosen retriever.

    Parameters
    ----------
    question : str
    G : networkx graph
        The knowledge graph (local traversal and communities).
    summaries : list of CommunitySummary, optional
        For global questions. Without them, a global question first detects and summarizes
        the communities (indexing work, said in ``Answer.note``; pass them to reuse).
    route_to : {"local", "global", "flat"}, optional
        Skip the router and use this route.
    use_model : bool
        Passed to :func:`route`.
    hops, k, top : int
        Hops of local traversal, passages of flat retrieval, summaries of global answers.
    scorer : {"embed", "llm"}
        How global answers score the summaries (see :func:`score_summaries`).
    local, flat : callable, optional
        Replace :func:`gaba.rag.graph_rag` / :func:`gaba.rag.flat_rag` (same signatures).

    Returns
    -------
    Answer

    Examples
    --------
    >>> a = ask("Which industries does this news cover?", G, summaries=summaries)  # doctest: +SKIP
    >>> a.route                                                                     # doctest: +SKIP
    'global'
    """
    if route_to is not None and route_to not in ROUTES:
        raise ValueError(f"route_to must be one of {ROUTES} or None, not {route_to!r}.")
    if route_to is None:
        d = route(question, G, use_model=use_model, explain=True)
    else:
        d = RouteDecision(route_to, "caller", "route given by the caller")
    note = d.reason
    if d.route == "local":
        if local is None:
            local = rag.graph_rag
        answer, evidence = local(question, G, hops=hops)
    elif d.route == "flat":
        if flat is None:
            flat = rag.flat_rag
        answer, evidence = flat(question, k=k)
    else:
        if summaries is None:
            summaries = summarize_communities(G, detect_communities(G))
            note += f"; summarized {len(summaries)} communities first (pass summaries= to reuse them)"
        answer, evidence = global_rag(question, G, summaries, top=top, scorer=scorer)
    return Answer(answer, d.route, list(evidence), d.by, note)
