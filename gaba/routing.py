"""Routing a question to the retriever built for it, and answering with it (chapters "Graph RAG and
multi-hop reasoning" and "Global questions")."""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import prompts, rag
from .checks import check_question
from .communities import CommunitySummary, detect_communities, global_rag, summarize_communities
from .entities import find_entities
from .errors import GabaError, LLMOutputError, NoPath
from .llm import call_llm
from .multihop import multi_hop_query

ROUTES = ("local", "global", "flat")
#: Routes that walk the graph from the entities a question names, so they need one of ``G``'s.
TRAVERSALS = ("local", "graph")

#: Cue patterns of the rule-based first pass: generic question *types*, no domain's relation words.
RULES: dict[str, tuple[str, ...]] = {
    "local": (r"\b(connects?|connected|connection|links?|linked|path|chain|between)\b",),
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

#: The two-route rule of :func:`route_question`: asking what a text says goes to ``"flat"``.
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


def _cue_text(question: str) -> str:
    """The question as the cue patterns read it: lowercase, one space between words."""
    return " ".join(question.lower().split())


def rule_route(question: str, G=None, *, rules: Mapping[str, Sequence[str]] = RULES,
               default: str | None = None) -> tuple[str | None, str]:
    """The rule-based first pass: ``(route, reason)``, or ``(None, reason)`` when unsure.

    Decides when exactly one route's cues match; with none, ``default``, else (with ``G``) a
    traversal route when the question names an entity of ``G``.
    """
    _check_rules(rules, default)
    q = _cue_text(question)
    hits = {r: [p for p in pats if re.search(p, q)] for r, pats in rules.items()}
    matched = [r for r in rules if hits[r]]
    local = next((r for r in rules if r in TRAVERSALS), None)
    if not matched and default is None and G is not None and local is not None:
        names = _entities(question, G)
        if not names:
            return None, "no cue matched and no entity of the graph named"
        return local, f"no cue, but it names {names[0]!r} of the graph"
    if not matched and default is not None:
        r, reason = default, "no cue matched"
    elif len(matched) != 1:
        what = "no cue" if not matched else "cues of " + " and ".join(matched)
        return None, f"{what} matched"
    else:
        r = matched[0]
        reason = f"cue {re.search(hits[r][0], q).group(0)!r}"
    if r in TRAVERSALS and G is not None and not _entities(question, G):
        return None, (f"a cue of {r}" if matched else "no cue") + " but no entity of the graph named"
    return r, reason


def _check_rules(rules, default) -> None:
    """TypeError/ValueError unless ``rules`` maps routes to valid regex lists and ``default`` is None or a route."""
    if not isinstance(rules, Mapping) or any(isinstance(pats, (str, bytes)) or not isinstance(pats, Sequence)
                                             or not all(isinstance(p, str) for p in pats) for pats in rules.values()):
        raise TypeError(f"rules must map each route to a list of regular expressions, such as "
                        f"{{'flat': [r'\\bhow much\\b']}}, not {rules!r:.80}.")
    for pats in rules.values():
        for p in pats:
            try:
                re.compile(p)
            except re.error as exc:
                raise ValueError(f"the cue pattern {p!r} is not a valid regular expression ({exc}); fix it.") from None
    if default is not None and default not in (*ROUTES, *TRAVERSALS, *rules):
        raise ValueError(f"default={default!r} is not a route; use one of {sorted({*ROUTES, *TRAVERSALS, *rules})} "
                         "or None.")


def _entities(question: str, G) -> list[str]:
    """Graph entities named in the question (:func:`gaba.entities.find_entities`; none if it fails)."""
    try:
        return list(find_entities(question, G))
    except GabaError:
        return []


def route(question: str, G=None, *, use_model: bool = True, use_rules: bool = True,
          explain: bool = False, rules: Mapping[str, Sequence[str]] = RULES, default: str | None = None):
    """Choose the retriever for a question: ``"local"``, ``"global"`` or ``"flat"``.

    :func:`rule_route` first, then the model (``use_model``); otherwise ``"flat"``, the safest.
    ``explain=True`` returns a :class:`RouteDecision` saying why.

    >>> route("Which industries does this news cover?", use_model=False)
    'global'
    """
    check_question(question, "route", max_chars=None, utf8=False)
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
    """``"graph"`` for questions about entities and their connections, ``"flat"`` for what a text says."""
    return route(question, G, rules=GRAPH_OR_FLAT, default="graph", use_model=False)


def _model_route(question: str, G, rules_reason: str) -> RouteDecision:
    """The model's route (one schema-constrained call), or a fallback to flat with the reason."""
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


@dataclasses.dataclass
class Answer:
    """What :func:`ask` returns."""

    answer: str
    route: str                      # the retriever used
    evidence: list                  # facts or paths (local), CommunitySummary list (global) or passages (flat)
    decided_by: str = ""            # "rules", "model", "fallback" or "caller"
    note: str = ""                  # why the route was chosen, and any extra work done


def _paths_answer(question: str, G):
    """The path pipeline's answer to a question naming two entities with a connection cue of
    :data:`RULES` ("connected", "between", ...); None otherwise, or when no path joins the two."""
    if not any(re.search(p, _cue_text(question)) for p in RULES["local"]) or len(_entities(question, G)) < 2:
        return None
    try:
        return multi_hop_query(G, question)
    except NoPath:
        return None


def _pair(route: str, result) -> tuple:
    """A retriever's ``(answer, evidence)``; TypeError naming the route when it returned something else."""
    if isinstance(result, (str, bytes)) or not isinstance(result, Sequence) or len(result) != 2:
        raise TypeError(f"the {route} retriever must return a pair (answer, evidence), not {result!r:.80}.")
    return result


def ask(question: str, G, *, summaries: Sequence[CommunitySummary] | None = None,
        route_to: str | None = None, use_model: bool = True, hops: int = 2, k: int = 2,
        top: int = 3, scorer: str = "embed", local: Callable[..., tuple[str, Any]] | None = None,
        flat: Callable[..., tuple[str, Any]] | None = None) -> Answer:
    """Route a question (:func:`route`, or ``route_to``) and answer it with that retriever.

    A local question naming two entities and asking how they connect is answered from the paths between
    them (:func:`gaba.multihop.multi_hop_query`), other local ones by Graph RAG. Without ``summaries``, a
    global question first summarizes the communities; ``local`` and ``flat`` replace the default retrievers.

    >>> import networkx as nx
    >>> a = ask("How much did the deal cost?", nx.MultiDiGraph(), use_model=False,
    ...         flat=lambda q, k: ("12 million.", ["The deal cost 12 million."]))
    >>> a.route, a.answer
    ('flat', '12 million.')
    """
    if route_to is not None and route_to not in ROUTES:
        raise ValueError(f"route_to must be one of {ROUTES} or None, not {route_to!r}.")
    d = (route(question, G, use_model=use_model, explain=True) if route_to is None
         else RouteDecision(route_to, "caller", "route given by the caller"))
    note = d.reason
    if d.route == "local" and local is None and (found := _paths_answer(question, G)) is not None:
        answer, evidence = found.answer, found.paths
        note += ("; it names two entities and asks how they connect, so the path search answered "
                 "(gaba.multihop.multi_hop_query)")
    elif d.route == "local":
        answer, evidence = _pair("local", (rag.graph_rag if local is None else local)(question, G, hops=hops))
    elif d.route == "flat":
        answer, evidence = _pair("flat", (rag.flat_rag if flat is None else flat)(question, k=k))
    else:
        if summaries is None:
            summaries = summarize_communities(G, detect_communities(G))
            note += f"; summarized {len(summaries)} communities first (pass summaries= to reuse them)"
        answer, evidence = global_rag(question, G, summaries, top=top, scorer=scorer)
    return Answer(answer, d.route, list(evidence), d.by, note)
