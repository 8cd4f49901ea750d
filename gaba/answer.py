"""Answering from graph facts: the answering prompt, and the grounding rule that checks a reply.

Taught in chapter "Graph RAG and multi-hop reasoning". The prompts ask the model to copy the facts
it used; :func:`check_grounding` accepts an answer only when those facts support it.

>>> facts = [("Aurora", "SUPPLIES_TO", "Kestrel"), ("Voltaic", "COMPETES_WITH", "Aurora")]
>>> reply = "Facts used: Aurora supplies Kestrel. Voltaic competes with Aurora.\\nAnswer: Voltaic"
>>> check_grounding(reply, facts, ["Kestrel"]).accepted
True
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence

import networkx as nx

from . import prompts
from .answer_kind import (asks_one_relation, described_noun, describes_no_other, relative_clause, type_mismatch,
                          unmatched_numbers)
from .checks import check_positive_int, check_text
from .cooccurrence import COOCCURRENCE_RELATION
from .embed import embed_texts
from .citation import _ANSWER_LINE, _name_patterns, _text, cited_facts, unsupported_links
from .graph import Fact, _check_facts, fact_sentence
from .names import FUNCTION_WORDS, find_mentions, inside_longer_name, whole_words
from .relevance import _without
from .words import word_stems

#: The exact phrase every answering prompt asks the model to use when the context lacks the answer.
ABSTAIN = "I don't know"
__all__ = ["ABSTAIN", "Grounding", "fact_sentence", "fact_outline", "fact_chains", "answer_prompt", "flat_prompt",
           "final_answer", "is_abstention", "cited_facts", "check_grounding", "quoted_line"]


def _quote(text: str) -> str:
    """Remove data delimiters from quoted text, so a document cannot close its own block."""
    return re.sub(r"</?\s*(facts|sources|passages|passage|question)\s*>", "", text, flags=re.I)


def quoted_line(text: str) -> str:
    """Quoted text on one line: a name with a line break cannot forge a fact line of its own."""
    return " ".join(_quote(text).split())


def fact_outline(facts: Iterable[Fact], entities: Sequence[str]) -> list[str]:
    """The facts as an indented outline from the question's ``entities``, breadth first.

    A fact and the facts indented under it read as a chain; facts that reach no entity come last.

    >>> for line in fact_outline([("Ana Rusk", "OWNS", "Tern"), ("Tern", "MOORED_AT", "Pell Quay")], ["Ana Rusk"]):
    ...     print(line)
    - Ana Rusk owns Tern.
      - Tern moored at Pell Quay.
    """
    facts = sorted(set(facts))
    links: dict[str, list[tuple[Fact, str]]] = {}
    for f in facts:
        links.setdefault(f[0], []).append((f, f[2]))
        links.setdefault(f[2], []).append((f, f[0]))
    dist = {e: 0 for e in entities}
    parent: dict[str, str] = {}
    queue = list(dict.fromkeys(entities))
    for u in queue:                          # breadth first: the queue grows while we walk it
        for _, v in links.get(u, ()):
            if v not in dist:
                dist[v], parent[v] = dist[u] + 1, u
                queue.append(v)
    placed: set[Fact] = set()
    lines: list[str] = []

    def place(f: Fact, depth: int) -> None:
        placed.add(f)
        lines.append("  " * depth + "- " + quoted_line(fact_sentence(f)))

    def below(u: str, depth: int) -> None:
        for v in dict.fromkeys(v for _, v in links.get(u, ())):
            if parent.get(v) == u:
                for f, w in links[u]:
                    if w == v and f not in placed:
                        place(f, depth)
                below(v, depth + 1)
        for f, w in links.get(u, ()):          # links to entities no closer to the question: leaves
            if f not in placed and dist[w] >= dist[u]:
                place(f, depth)

    for e in dict.fromkeys(entities):
        below(e, 0)
    for f in facts:
        if f not in placed:
            place(f, 0)
    return lines


def _fact_graph(facts: Sequence[Fact]) -> tuple[nx.Graph, dict[frozenset, list[Fact]]]:
    """The facts' entities as an undirected graph, and the facts between each pair of entities."""
    U = nx.Graph()
    between: dict[frozenset, list[Fact]] = {}
    for f in facts:
        U.add_edge(f[0], f[2])
        between.setdefault(frozenset((f[0], f[2])), []).append(f)
    return U, between


def fact_chains(facts: Iterable[Fact], entities: Sequence[str]) -> list[str]:
    """The facts as chains from the question's ``entities``, one line each, joined by arrows.

    The shortest connection between two question entities comes first; facts on no chain come last.

    >>> for line in fact_chains([("Ana Rusk", "OWNS", "Tern"), ("Tern", "MOORED_AT", "Pell Quay"),
    ...                          ("Ana Rusk", "LIVES_IN", "Harl")], ["Ana Rusk"]):
    ...     print(line)
    - Ana Rusk lives in Harl.
    - Ana Rusk owns Tern. -> Tern moored at Pell Quay.
    """
    facts = sorted(set(facts))
    U, between = _fact_graph(facts)
    starts = [e for e in dict.fromkeys(entities) if e in U]
    lines: list[str] = []
    chains: list[set[Fact]] = []

    def add(nodes: list[str]) -> None:
        chain = [f for p in zip(nodes, nodes[1:]) for f in between[frozenset(p)]]
        if not any(set(chain) <= c for c in chains):     # not part of a line already written
            chains.append(set(chain))
            lines.append("- " + " -> ".join(quoted_line(fact_sentence(f)) for f in chain))

    for i, a in enumerate(starts):
        for b in starts[i + 1:]:
            try:
                add(nx.shortest_path(U, a, b))
            except nx.NetworkXNoPath:
                pass
    parent: dict[str, str | None] = {e: None for e in starts}
    queue = list(starts)
    for u in queue:                          # breadth first: the queue grows while we walk it
        for v in sorted(U[u]):
            if v not in parent:
                parent[v] = u
                queue.append(v)
    children = {p for p in parent.values() if p is not None}
    for leaf in (n for n in queue if n not in children and parent[n] is not None):
        path = [leaf]
        while parent[path[-1]] is not None:
            path.append(parent[path[-1]])
        add(path[::-1])
    on_line = set().union(*chains)
    lines += [f"- {quoted_line(fact_sentence(f))}" for f in facts if f not in on_line]
    return lines


def answer_prompt(question: str, facts: Iterable[Fact], evidence: Sequence[str] = (), *,
                  keep_order: bool = False, outline: Sequence[str] | None = None,
                  chains: Sequence[str] | None = None) -> tuple[str, str]:
    """The (system, user) messages of the Graph RAG answering call.

    Facts and evidence are sorted (a cacheable prompt) unless ``keep_order``; ``outline`` or
    ``chains`` (the question's entities) lay the facts out by :func:`fact_outline` or :func:`fact_chains`.

    >>> system, user = answer_prompt("Who supplies B?", {("A", "SUPPLIES_TO", "B")})
    >>> "A supplies B." in user
    True
    """
    def arrange(items):
        return list(dict.fromkeys(items)) if keep_order else sorted(set(items))

    check_text(question, "the question")
    facts = _check_facts(facts)

    if outline is not None:
        lines, template = "\n".join(fact_outline(facts, outline)), prompts.GRAPH_OUTLINE_PROMPT
    elif chains is not None:
        lines, template = "\n".join(fact_chains(facts, chains)), prompts.GRAPH_CHAINS_PROMPT
    else:
        lines = "\n".join(f"- {quoted_line(fact_sentence(f))}" for f in arrange(facts))
        template = prompts.GRAPH_ANSWER_PROMPT
    sources = "\n".join(f'- "{quoted_line(e)}"' for e in arrange(evidence))
    user = template.format(facts=lines or "- (none)", sources=sources or "- (none)",
                           question=_quote(question.strip()), abstain=ABSTAIN)
    return prompts.ANSWER_SYSTEM.format(abstain=ABSTAIN), user


def flat_prompt(question: str, passages: Sequence[str]) -> tuple[str, str]:
    """The (system, user) messages of the flat RAG answering call (passages in retrieval order).

    >>> system, user = flat_prompt("Who supplies B?", ["A supplies B."])
    >>> '[1] "A supplies B."' in user
    True
    """
    block = "\n".join(f'[{i}] "{_quote(" ".join(p.split()))}"' for i, p in enumerate(passages, 1))
    user = prompts.FLAT_ANSWER_PROMPT.format(passages=block or "(none)", question=_quote(question.strip()),
                                             abstain=ABSTAIN)
    return prompts.ANSWER_SYSTEM.format(abstain=ABSTAIN), user


def final_answer(reply: str) -> str:
    """The text after the reply's last ``Answer:`` line (the whole reply when it has none).

    >>> final_answer("Facts used: A supplies B.\\nAnswer: Voltaic Dynamics.")
    'Voltaic Dynamics.'
    """
    text = _text(reply, "reply").strip()
    matches = list(_ANSWER_LINE.finditer(text))
    tail = text[matches[-1].end():].strip() if matches else ""
    return tail or text


def is_abstention(answer: str) -> bool:
    """True when an answer declines ("I don't know" and close variants).

    >>> is_abstention("I don't know."), is_abstention("Voltaic Dynamics.")
    (True, False)
    >>> is_abstention("Ana Rusk's brother is not mentioned in the given text.")
    True
    """
    a = _text(answer, "answer").replace("\u2019", "'").casefold().strip()
    if not a:
        return True
    return bool(re.search(r"\bi (don't|do not|cannot|can't) (know|answer|tell)\b|"
                          r"\b(facts|passages|context|sources|text) (do not|does not|don't|doesn't) "
                          r"(contain|say|state|mention|include)|"
                          # "X's brother is not mentioned in the given text."
                          r"\b(is|are|was|were) not (mentioned|given|stated|provided|specified|named|listed)"
                          r"( in\b|\.?$)", a))


def _opens(answer: str, names: Sequence[str]) -> bool:
    """Whether the whole ``answer`` is a capitalised short form that opens one of ``names`` ("Ambry"
    for "Ambry Technical College")."""
    short = answer.strip().rstrip(".").strip()
    opens = short[:1].isupper() and short.split()[0].casefold() not in FUNCTION_WORDS
    return opens and any(n.casefold().startswith(short.casefold() + " ") for n in names if n)


@dataclasses.dataclass(frozen=True)
class Grounding:
    """The verdict of :func:`check_grounding` on one reply."""

    accepted: bool
    reason: str
    cited: tuple[Fact, ...] = ()
    answer_entities: tuple[str, ...] = ()
    #: Refused as the entity on the way that the question's relative ``clause`` describes: those entities.
    described: tuple[str, ...] = ()
    clause: str | None = None


def check_grounding(reply: str, facts: Iterable[Fact], entities: Sequence[str], *,
                    evidence: Mapping[Fact, Sequence[str]] | None = None,
                    aliases: Mapping[str, Sequence[str]] | None = None, hops: int = 2,
                    restated: bool = True, question: str | None = None,
                    types: Mapping[str, str | None] | None = None) -> Grounding:
    """Accept an answer only when the facts it cites connect it to the question; else say why not.

    The reply must cite a given fact, and its answer must name an entity of the given facts (or one
    of its ``aliases``, not written inside a longer name, or a capitalised short form that opens its
    name), other than the question's
    ``entities``, that a path of at most ``hops`` given facts reaches from a question entity through
    a cited fact, or past an entity a cited fact is about. With the ``question``, every number it
    writes must be written in a given fact or its evidence (:func:`gaba.answer_kind.unmatched_numbers`);
    when it asks one relation of its entities (:func:`gaba.answer_kind.asks_one_relation`), a given
    fact or a source sentence of one must join the answer to a question entity (the sentence of a
    co-occurrence only when it names every question entity and writes a word of the question); when it names one
    entity and describes another with a relative clause (:func:`gaba.answer_kind.relative_clause`),
    the answer must not be the entity that clause describes: the one joined to the named entity by
    a fact sharing a word stem with the clause, or by the fact whose relation the embedding model
    finds closest to it, or one whose name holds the noun of the phrase the clause describes ("the
    chandlery that ...", :func:`gaba.answer_kind.described_noun`); and with the entities' ``types``
    too, those entities must fit its question word (:func:`gaba.answer_kind.type_mismatch`); and no sentence of the reply that cites no given fact
    may join an accepted entity to another, not a question entity, that no given fact joins it to
    (:func:`gaba.citation.unsupported_links`). An abstaining reply is accepted.

    >>> facts = [("Aurora", "SUPPLIES_TO", "Kestrel"), ("Voltaic", "COMPETES_WITH", "Aurora")]
    >>> check_grounding("Facts used: Aurora supplies Kestrel.\\nAnswer: Voltaic", facts, ["Kestrel"]).reason
    'a path of given facts through a cited fact leads from the question to the answer'
    """
    check_positive_int("hops", hops)
    facts = sorted(set(_check_facts(facts)))
    if isinstance(entities, str):
        entities = [entities]
    answer = final_answer(reply)
    if is_abstention(answer):
        return Grounding(True, "the model abstained")
    if question and (missing := unmatched_numbers(question, [" ".join(map(str, f)) for f in facts]
                                                  + [e for f in facts for e in (evidence or {}).get(f, ())])):
        return Grounding(False, f"the question writes {', '.join(missing)}, and none of the given facts "
                         f"or their sources does")
    aliases = aliases or {}
    cited = tuple(cited_facts(reply, facts, evidence, aliases, restated=restated))
    if not cited:
        return Grounding(False, "the reply cites none of the facts it was given")
    g, _ = _fact_graph(facts)
    # a name counts where the answer writes it, not inside a longer name it writes: "Marlowe" (Edda
    # Marlowe) is not named by "Marlowe & Pryce"
    surfaces = {s.casefold(): n for n in g for s in aliases.get(n, ())} | {n.casefold(): n for n in g}
    said = {surfaces[p] for a, b, p in find_mentions(answer.casefold(), surfaces)
            if p == surfaces[p].casefold() or not inside_longer_name(answer, a, b)}
    named = [c for c in sorted(set(g) - set(entities)) if c in said or _opens(answer, [c, *aliases.get(c, ())])]
    if not named:
        return Grounding(False, "the answer names no entity of the given facts other than the question's", cited)

    cited_pairs = {frozenset((s, o)) for s, _, o in cited}
    cited_about = {x for s, _, o in cited for x in (s, o)}

    def grade(a: str) -> int:
        """2 when a path of at most ``hops`` given facts from a question entity to ``a`` takes a cited
        fact, 1 when one only passes an entity a cited fact is about (the model cited a neighbour of
        the chain), else 0; the paths are walked lazily, stopping at the first that takes a cited fact."""
        best = 0
        for q in entities:
            if q in g:
                for p in nx.all_simple_paths(g, q, a, cutoff=hops):
                    if any(frozenset(step) in cited_pairs for step in zip(p, p[1:])):
                        return 2
                    if cited_about & set(p[1:-1]):
                        best = 1
        return best

    told = [f for f in facts if f[1] != COOCCURRENCE_RELATION]     # a co-occurrence names no relation

    def joined(a: str) -> bool:
        """A given fact that names a relation, or a source sentence of one, joins a question entity to
        ``a``; or the source sentence of a co-occurrence names ``a``, every question entity and a word
        of the question ("re-elected Ann Lee as its president" for "Who presides over ...?")."""
        if any({s, o} == {q, a} for s, _, o in told for q in entities):
            return True
        at_a, at_q = _name_patterns(a, aliases), [_name_patterns(q, aliases) for q in entities]
        if any(any(re.search(p, t) for p in at_a) and any(re.search(p, t) for ps in at_q for p in ps)
               for t in {t.casefold() for f in told for t in (evidence or {}).get(f, ())}):
            return True
        asked = set(word_stems(_without(question or "", names)))
        return any(any(re.search(p, t) for p in at_a) and all(any(re.search(p, t) for p in ps) for ps in at_q)
                   and asked & set(word_stems(_without(t, [a, *names])))
                   for t in {t.casefold() for f in facts if f not in told for t in (evidence or {}).get(f, ())})

    grades = {a: grade(a) for a in named}
    if reached := tuple(a for a in named if grades[a]):
        names = [n for q in entities for n in (q, *aliases.get(q, ()))]
        if question and asks_one_relation(question, names):
            if not (near := tuple(a for a in reached if joined(a))):
                return Grounding(False, f"the question asks one relation of {', '.join(entities)}, and no given "
                                 f"fact or source sentence joins {', '.join(reached)} to it", cited)
            reached = near
        elif question and len(entities) == 1 and (clause := relative_clause(question, names)):
            # "Who founded the team whose base is in Cleddon?" asks for what lies past the team: an
            # answer one fact from Cleddon, by a fact that says what the clause says, is the team
            (q,) = entities
            said = set(word_stems(clause))
            # ... or by the fact whose relation reads most like the clause, names left out ("paid
            # for" ~ "financed"): the nearest of the facts at the named entity, no threshold
            touching = [f for f in told if q in (f[0], f[2])]
            words = " ".join(_without(clause, names).replace("?", " ").split())
            closest = None
            if touching and words and not describes_no_other(question, clause, names):
                vectors = embed_texts([words, *(r.replace("_", " ") for _, r, _ in touching)], kind="query")
                nearest = touching[int((vectors[1:] @ vectors[0]).argmax())]
                closest = nearest[2] if nearest[0] == q else nearest[0]

            # ... or, wherever it stands, an answer whose name holds the noun of the phrase the clause
            # describes ("the chandlery that ...": "Velm Chandlery") when what is asked is of no such kind
            noun = described_noun(question, clause)

            def one_fact(a: str) -> bool:
                return a == closest or any(said & set(word_stems(r.replace("_", " ")))
                                           for s, r, o in facts if {s, o} == {q, a})

            def named_as(a: str) -> bool:
                return noun is not None and re.search(whole_words(noun), a, flags=re.I) is not None

            near_q = {a: one_fact(a) for a in reached}
            if not (kept := tuple(a for a in reached if not (near_q[a] or named_as(a)))):
                how = f"one fact from {q}" if all(near_q.values()) else f"a {noun} as the question describes"
                return Grounding(False, f"the question describes an entity on the way from {q} (... {clause}), and "
                                 f"{', '.join(reached)}, {how}, is that entity, not what is asked of it", cited,
                                 described=reached, clause=clause)
            reached = kept
        if question and types is not None and (why := type_mismatch(question, {a: types.get(a) for a in reached})):
            return Grounding(False, why, cited)
        if made := sorted(tuple(sorted(p)) for p in unsupported_links(reply, facts, evidence, aliases)
                          if p & set(reached) and not p & set(entities)):
            return Grounding(False, f"the reply links {made[0][0]} and {made[0][1]}, which no given fact joins",
                             cited)
        how = "through a cited fact" if any(grades[a] == 2 for a in reached) else "past an entity a cited fact is about"
        return Grounding(True, f"a path of given facts {how} leads from the question to the answer", cited, reached)
    return Grounding(False, f"no path of at most {hops} given facts leads from the question through a cited "
                     f"fact, or past an entity one is about, to {', '.join(named)}", cited)
