"""Answering questions: Graph RAG over a knowledge graph, and flat RAG over documents.

Taught in chapter "Graph RAG and multi-hop reasoning". One model call per answer; two when the question
describes an entity on the way with a relative clause (that entity is asked for first, then the rest of
the question about it; three for a clause inside a clause; one more when the model does not know that
entity and is asked again for "the one" the clause describes), or when the model names that entity as
the answer and the rest is asked then.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from . import embed, link
from . import rank as _rank
from .answer import ABSTAIN, answer_prompt, check_grounding, final_answer, flat_prompt, is_abstention, quoted_line
from .answer_kind import (asks_one_relation, described_phrase, innermost_clause, relative_clause,
                          rest_of_question, the_one)
from .checks import MAX_QUESTION_CHARS, check_positive_int, check_question, lone_surrogate
from .data.news import load_documents
from .entities import check_graph, check_node_names, find_entities, node_aliases
from .graph import Fact, _check_hops, fact_evidence, gather_facts
from .relevance import hop_distances
from .llm import call_llm

__all__ = ["DEFAULT_BUDGET", "DEFAULT_RANK", "MAX_QUESTION_CHARS", "graph_rag", "graph_rag_trace", "clause_step",
           "flat_prompt", "flat_retrieve", "flat_rag", "ABSTAIN", "answer_prompt", "final_answer", "is_abstention"]


#: A linking step: ``(question, G) -> entity names`` (or matches with a ``.name``).
Linker = Callable[[str, Any], Sequence[Any]]
#: A ranking step: ``(question, facts, G, budget) -> the facts to keep``.
Ranker = Callable[[str, list, Any, int], Sequence[Fact]]


def _link(question: str, G, linking: str | Linker) -> list[str]:
    """The graph's node names the question names, by ``linking``, each once."""
    if linking in ("auto", "exact"):
        found = find_entities(question, G)
        if found or linking == "exact":
            return found
        linking = "full"          # auto: no name as written, so shared rare name words, then similar names
    found = linking(question, G) if callable(linking) else link.link_entities(question, G, method=linking)
    found = _returned(found, "a linking function", "a list of node names")
    return list(dict.fromkeys(n for n in (getattr(m, "name", m) for m in found) if n in G))


def _returned(value, who: str, what: str) -> list:
    """A reader's function's result as a list (one name counts as a list of one), else TypeError."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"{who} must return {what}, not {type(value).__name__} {value!r:.60}.")
    return list(value)


def _no_entity_reason(G, linking) -> str:
    names = sorted(str(n) for n in G.nodes)
    shown = ", ".join(names[:12]) + (f", and {len(names) - 12} more" if len(names) > 12 else "")
    close = " (nor a name close to one)" if linking == "auto" else ""
    return (f"the question names none of the graph's entities{close}, so there is nothing to traverse. "
            f"I looked for these names (and their aliases): {shown}.")


#: Default hops of :func:`graph_rag`: 3 passed more multi-hop questions than 2 (and abstained on two
#: more unanswerable ones) on the thirteen held-out collections (``benchmarks/heldout_transfer.py``, reported in
#: the evaluation chapter). The book's news chapters pass ``hops=2``: their questions chain two facts.
DEFAULT_HOPS = 3
#: Default fact budget of :func:`graph_rag`: a short prompt, however large the graph.
DEFAULT_BUDGET = 8
#: Default fact ranking of :func:`graph_rag` (a :func:`gaba.rank.rank_facts` method).
DEFAULT_RANK = "pairs"
#: How the answering prompt may lay out the facts (see :func:`graph_rag`); the first is the default.
FACT_ORDERS = ("hops", "sorted", "outline", "chains")
DEFAULT_FACT_ORDER = FACT_ORDERS[0]


def graph_rag_trace(question: str, G, hops: int = DEFAULT_HOPS, *, budget: int | None = DEFAULT_BUDGET,
                    rank: str | Ranker = DEFAULT_RANK, linking: str | Linker = "auto",
                    grounding: bool = True, temperature: float = 0.0, seed: int = 0,
                    max_tokens: int = 200, fact_order: str = DEFAULT_FACT_ORDER,
                    second_look: bool = True, clause_first: bool = True) -> dict:
    """Everything :func:`graph_rag` does for one question, step by step, as a dict.

    Keys: ``question``, ``entities``, ``facts`` (after the budget), ``prompt``, ``reply``,
    ``model_answer``, ``grounding``, ``answer`` and ``reason`` (why the system abstained, else None),
    of the last model call (``facts`` and ``entities``: the question's); ``steps``, the traces of both
    calls, when the rest of the question was asked. Parameters and errors as :func:`graph_rag`.
    """
    check_graph(G)
    check_question(question, "graph_rag")
    if G.number_of_nodes() == 0:
        raise ValueError("the graph is empty: build it with build_knowledge_graph(documents) "
                         "(or load_graph(path)) before asking questions.")
    check_node_names(G, "graph_rag")
    hops = _check_hops(hops)
    check_positive_int("budget", budget, allow_none=True)
    if fact_order not in FACT_ORDERS:
        raise ValueError(f"fact_order must be one of {', '.join(FACT_ORDERS)}, not {fact_order!r}")
    if not callable(rank) and rank not in _rank.METHODS:      # checked before the budget needs it
        raise ValueError(f"rank must be one of {_rank.METHODS} or a function, not {rank!r}")
    if not callable(linking) and (not isinstance(linking, str) or not linking):
        raise ValueError(f"linking must be 'auto', 'exact', a gaba.link method name or a function, not {linking!r}")
    # step 1: the question's entities
    entities = _link(question, G, linking)
    if not entities:
        return _abstain(_new_trace(question, entities), _no_entity_reason(G, linking))
    options = dict(budget=budget, rank=rank, temperature=temperature, seed=seed, max_tokens=max_tokens,
                   fact_order=fact_order)
    if clause_first and second_look and grounding and (first := _clause_first(question, G, entities, hops,
                                                                                **options)):
        return first
    # steps 2 to 4: the facts, one model call, the grounding rule
    out = _answer(question, G, entities, hops, grounding=grounding, **options)
    verdict = out["grounding"]
    if verdict is None or verdict.accepted:
        return out
    # the model named the entity on the way that a relative clause describes: ask the rest of the
    # question about that entity, as a question of its own (one relation: one fact away); its name
    # goes in on one line, so a name cannot forge lines of the prompt
    on_way = verdict.described[0] if second_look and len(verdict.described) == 1 else None
    name = quoted_line(on_way) if on_way else ""
    if name and (asked := rest_of_question(question, verdict.clause or "", name)):
        step = _ask_rest(asked, G, on_way, hops, second_look=False, **options)
        out["steps"] = [dict(out), step]
        out.update({k: step[k] for k in ("prompt", "reply", "model_answer", "grounding", "answer")})
        why = _rest_refusal(step, entities)
        if why is None and not is_abstention(step["answer"]):
            return out
        why = (why or "the model did not know.").rstrip(".")
        return _abstain(out, f'{verdict.reason}; asked "{asked}" then, {why}.')
    return _abstain(out, f"{verdict.reason}.")


def _new_trace(question: str, entities: Sequence[str]) -> dict[str, Any]:
    """A trace of ``question`` before any model call (the keys :func:`graph_rag_trace` documents)."""
    return {"question": question, "entities": list(entities), "facts": [], "prompt": None,
            "reply": None, "model_answer": None, "grounding": None, "reason": None}


def _abstain(out: dict, reason: str) -> dict:
    """``out`` with :data:`ABSTAIN` and ``reason`` as its answer."""
    out["answer"], out["reason"] = f"{ABSTAIN}: {reason}", reason
    return out


def _answer(question: str, G, entities: Sequence[str], hops: int, *, budget: int | None, rank: str | Ranker,
            temperature: float, seed: int, max_tokens: int, fact_order: str, grounding: bool = True,
            grammar: bool = True) -> dict:
    """Steps 2 to 4 of :func:`graph_rag_trace` for the entities found: the facts within ``hops`` (at
    most ``budget``), one model call, and the grounding rule's verdict (which the caller acts on).
    ``grammar=False``: a question the system wrote itself, which the rule reads for no grammar."""
    out = _new_trace(question, entities)
    facts = gather_facts(G, entities, hops)
    if budget is not None and len(facts) > budget:
        # a question of one relation of its one entity: only a neighbour can answer it (the check
        # says so too), so the budget keeps the facts one hop away first, ranked, then the others
        one = len(entities) == 1 and grammar and asks_one_relation(question, _names(G, entities))
        near = {f for f in facts if entities[0] in (f[0], f[2])} if one else set()
        n = len(facts) if near else budget
        if callable(rank):
            kept = _returned(rank(question, sorted(facts), G, n), "a ranking function", "a list of facts")
            if bad := [f for f in kept if not isinstance(f, tuple)]:
                raise TypeError("a ranking function must return (subject, relation, object) tuples of the "
                                f"facts it was given, not {bad[0]!r:.60}.")
        else:
            kept = _rank.rank_facts(question, sorted(facts), G, budget=n, method=rank, entities=entities)
        if near:
            kept = sorted(kept, key=lambda f: f not in near)[:budget]      # stable: ranked order within each
        facts = set(kept) & facts
    facts_sorted = out["facts"] = sorted(facts)
    if not facts:
        return _abstain(out, f"the graph holds no facts about {', '.join(entities)}.")
    evidence = {f: fact_evidence(G, [f]) for f in facts_sorted}   # the prompt's and the rule's
    shown = facts_sorted
    if fact_order == "hops":
        dist = hop_distances(facts_sorted, entities)
        far = float("inf")                   # a fact the budget cut off from the question: last
        shown = sorted(facts_sorted, key=lambda f: (min(dist.get(f[0], far), dist.get(f[2], far)), f))
    system, user = answer_prompt(question, shown, [e for f in shown for e in evidence[f]],
                                 keep_order=fact_order != "sorted",
                                 outline=entities if fact_order == "outline" else None,
                                 chains=entities if fact_order == "chains" else None)
    out["prompt"] = user
    resp = call_llm(user, system=system, temperature=temperature, seed=seed, max_tokens=max_tokens,
                    purpose=f"graph_rag: {question[:60]}")
    out["reply"] = resp.text
    out["answer"] = out["model_answer"] = final_answer(resp.text)
    if grounding:
        out["grounding"] = check_grounding(
            resp.text, facts_sorted, entities, evidence=evidence,
            aliases={n: node_aliases(G, n) for f in facts_sorted for n in (f[0], f[2]) if n in G},
            hops=hops, question=question if grammar else None,
            types={n: G.nodes[n].get("type") for f in facts_sorted for n in (f[0], f[2]) if n in G})
    return out


def _names(G, entities: Sequence[str]) -> list[str]:
    """The entities' names and aliases, which the question's grammar is read without."""
    return [n for e in entities for n in (e, *node_aliases(G, e))]


def _rest_refusal(rest: dict, entities: Sequence[str]) -> str | None:
    """Why the trace of the rest of a question answers nothing of the whole question: the rule's
    reason, or an answer that names only the question's own ``entities``; None when it answers, or
    when the model said it did not know."""
    if rest["reason"]:
        return rest["reason"]
    named = rest["grounding"].answer_entities if rest["grounding"] else ()
    if not is_abstention(rest["answer"]) and set(named) <= set(entities):
        return "the answer names only an entity of the question."
    return None


def _ask_rest(asked: str, G, on_way: str, hops: int, **options) -> dict:
    """The trace of the rest of a question, asked from the entity on the way (written as
    :func:`quoted_line` writes it in ``asked``): one fact away when one relation is left."""
    one = asks_one_relation(asked, [quoted_line(on_way), *node_aliases(G, on_way)])
    return graph_rag_trace(asked, G, 1 if one else max(1, hops - 1), linking=lambda _q, _G: [on_way], **options)


def _split(question: str, G, entities: Sequence[str]) -> tuple[str, str] | None:
    """The phrase that step 1 of :func:`clause_step` asks for and the relative clause it reads, or None."""
    if len(entities) != 1:
        return None
    names = _names(G, entities)
    if not (clause := innermost_clause(relative_clause(question, names), names)):
        return None
    phrase = described_phrase(question, clause)
    return (phrase, clause) if phrase else None


def clause_step(question: str, G) -> str | None:
    """The question :func:`graph_rag` asks first (``clause_first``, the default), or None when it asks
    the whole question: the question must name one entity and describe another with a relative clause.

    >>> import networkx as nx
    >>> clause_step("Who founded the studio that paid for Low Tide?", nx.MultiDiGraph([("Greywater", "Low Tide")]))
    'Name the studio that paid for Low Tide.'
    """
    check_graph(G)
    check_question(question, "clause_step")
    split = _split(question, G, _link(question, G, "auto"))
    return f"Name {split[0]}." if split else None


def _clause_first(question: str, G, entities: list[str], hops: int, **options) -> dict | None:
    """The trace of asking first for the entity on the way that the question's innermost relative clause
    describes ("Name the studio that paid for Low Tide."), one fact from the question's entity, then the
    rest of the question about it ("Who founded Greywater?"); None when :func:`clause_step` finds no such
    clause, or when step 1 names no entity but the question's (asked once more for "the one" the clause
    describes when the model did not know)."""
    if hops < 2 or not (split := _split(question, G, entities)):
        return None
    phrase, clause = split
    # step 1 is the system's own wording: the check reads no grammar in it, only one fact's distance
    first = _answer(f"Name {phrase}.", G, entities, 1, grammar=False, **options)
    if is_abstention(first["model_answer"] or "") and (one := the_one(phrase, clause)):
        # no given fact may say what kind of thing it is ("queen"): ask once more for "the one ..."
        first = _answer(f"Name {one}.", G, entities, 1, grammar=False, **options)
    verdict = first["grounding"]
    if verdict is not None and not verdict.accepted:
        _abstain(first, f"{verdict.reason}.")
    found = [a for a in (verdict.answer_entities if verdict and verdict.accepted else ()) if a not in entities]
    if len(found) != 1:
        return None
    (on_way,) = found
    asked = rest_of_question(question, clause, quoted_line(on_way))   # a name cannot forge prompt lines
    rest = _ask_rest(asked, G, on_way, hops, clause_first=True, **options)
    out = dict(rest, question=question, entities=list(entities), steps=[first, rest],
               facts=sorted(set(first["facts"]) | set(rest["facts"])))
    if why := _rest_refusal(rest, entities):
        out["reason"] = why
        out["answer"] = f'{ABSTAIN}: "{first["question"]}" named {on_way}; asked "{asked}" then, {why}'
    return out


def graph_rag(question: str, G, hops: int = DEFAULT_HOPS, *, budget: int | None = DEFAULT_BUDGET,
              rank: str | Ranker = DEFAULT_RANK, linking: str | Linker = "auto",
              grounding: bool = True, temperature: float = 0.0, seed: int = 0, max_tokens: int = 200,
              fact_order: str = DEFAULT_FACT_ORDER, second_look: bool = True,
              clause_first: bool = True) -> tuple[str, list[Fact]]:
    """Answer a question from the facts around its entities, with a model call and a check.

    ``hops``: how far from the question's entities facts are gathered, and the longest path of given
    facts the check accepts (:data:`DEFAULT_HOPS`). ``budget``: how many facts the prompt holds at most
    (None: all), ranked by ``rank``; for a question that asks one relation of the one entity it names
    (:func:`gaba.answer_kind.asks_one_relation`), which only a neighbour can answer, the facts one hop
    away come first. ``linking``: ``"auto"`` (names and aliases as
    written; when the question names none, the deeper tiers of :func:`gaba.link.link_entities`, so
    "Brennock" finds "Brennock Group"),
    ``"exact"``, a :func:`gaba.link.link_entities` method or ``fn(question, G) -> names``.
    ``rank``: a :func:`gaba.rank.rank_facts` method or ``fn(question, facts, G, budget) -> facts``
    (``budget=None`` keeps all). ``fact_order``: ``"hops"`` (nearest first), ``"sorted"``,
    ``"outline"`` or ``"chains"``. A reply :func:`gaba.answer.check_grounding` rejects becomes
    :data:`ABSTAIN` plus the reason, unless ``grounding=False``. A reply refused as the entity on the
    way that a relative clause describes ("the studio that paid for Low Tide") gets the rest of the
    question asked about that entity (:func:`gaba.answer_kind.rest_of_question`), from it, one fact
    away when one relation is left, with the same check. ``clause_first`` (the default) asks for that
    entity before the whole question: "Name the studio that paid for Low Tide." (one fact from the
    question's entity, checked the same way; :func:`clause_step` shows it), then the rest of the
    question about the entity it names. When the model does not know the entity of step 1, step 1 is
    asked once more with its head noun written "one" ("Name the one that paid for Low Tide.", by
    :func:`gaba.answer_kind.the_one`); when step 1 still names none, the whole question is asked.
    ``clause_first=False`` asks the whole question first; ``second_look=False`` asks it once (one
    model call) and abstains where the rest would have been asked.

    Returns ``(answer, sorted facts given)``; raises ValueError for an empty graph, an empty or
    over-long question, or an invalid option.

    A question that names no entity gets an abstention without a model call:

    >>> import networkx as nx
    >>> answer, facts = graph_rag("What is the weather like?", nx.MultiDiGraph([("Aurora", "Kestrel")]))
    >>> print(answer)  # doctest: +NORMALIZE_WHITESPACE
    I don't know: the question names none of the graph's entities (nor a name close to one), so
    there is nothing to traverse. I looked for these names (and their aliases): Aurora, Kestrel.
    """
    t = graph_rag_trace(question, G, hops, budget=budget, rank=rank, linking=linking,
                        grounding=grounding, temperature=temperature, seed=seed, max_tokens=max_tokens,
                        fact_order=fact_order, second_look=second_look, clause_first=clause_first)
    return t["answer"], t["facts"]


_doc_cache: dict[tuple, Any] = {}


def _doc_text(doc) -> str:
    """The text of a document: a string, a dict's ``"text"`` or a ``.text`` attribute."""
    if isinstance(doc, str):
        return doc
    if isinstance(doc, dict) and isinstance(doc.get("text"), str):
        return doc["text"]
    text = getattr(doc, "text", None)
    if isinstance(text, str):
        return text
    raise TypeError(f"a document must be a string, a dict with 'text', or have a .text attribute; "
                    f"got {type(doc).__name__}")


def flat_retrieve(question: str, k: int = 2, *, documents: Sequence | None = None) -> list:
    """The ``k`` documents most similar to the question (embedding cosine), best first, as given.

    No model call; ``documents`` default to the news corpus. Raises ValueError for an empty
    question, a bad ``k`` or no documents.
    """
    check_question(question, "flat_rag", max_chars=None)
    check_positive_int("k", k)
    if isinstance(documents, (str, bytes, Mapping)):
        raise TypeError(f"documents must be a list of documents, not one {type(documents).__name__}; "
                        "pass [text] for one document (or list(d.values()) for a dict of them).")
    docs = list(load_documents() if documents is None else documents)
    texts = [_doc_text(d) for d in docs]
    if not texts:
        raise ValueError("flat_rag needs at least one document.")
    key = tuple(texts)
    if key not in _doc_cache:                 # texts already embedded were checked then
        for i, text in enumerate(texts):
            if (at := lone_surrogate(text)) is not None:
                raise ValueError(f"document {i} holds {text[at]!r} at position {at}, half of a "
                                 "character pair that is not text; remove it from the document.")
        _doc_cache.clear()
        _doc_cache[key] = embed.embed_texts(texts, kind="passage")
    matrix = _doc_cache[key]
    q = embed.embed_texts([question], kind="query")[0]
    return [docs[i] for i in embed.cosine_top_k(q, matrix, min(k, len(texts)))]


def flat_rag(question: str, k: int = 2, *, documents: Sequence | None = None, temperature: float = 0.0,
             seed: int = 0, max_tokens: int = 200) -> tuple[str, list[str]]:
    """Answer from the ``k`` documents most similar to the question, with one model call.

    ``documents``: strings, dicts with ``"text"`` or objects with ``.text`` (default: the news
    corpus). Returns ``(answer, passages)``, most similar first.
    """
    top = flat_retrieve(question, k, documents=documents)
    passages = [_doc_text(d) for d in top]
    system, user = flat_prompt(question, passages)
    resp = call_llm(user, system=system, temperature=temperature, seed=seed, max_tokens=max_tokens,
                    purpose=f"flat_rag: {question[:60]}")
    return final_answer(resp.text), passages
