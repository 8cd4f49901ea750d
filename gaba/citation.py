"""Which of the given facts a reply cites on its ``Facts used:`` line.

Taught in chapter "Graph RAG and multi-hop reasoning", as the first part of the grounding rule
(:func:`gaba.answer.check_grounding`): a citation is matched back to the facts that were given,
never trusted.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from rapidfuzz import fuzz

from .graph import Fact, fact_sentence
from .names import FUNCTION_WORDS, whole_words

__all__ = ["CITATION_SIMILARITY", "MIN_COPY_SHARE", "cited_facts", "unsupported_links"]

#: A copied sentence matches a fact when their similarity (rapidfuzz partial ratio) reaches this.
CITATION_SIMILARITY = 90
#: A copy must be at least this share of the sentence it matches ("Facts used: Voltaic" cites nothing).
MIN_COPY_SHARE = 0.75

_ANSWER_LINE = re.compile(r"^[ \t*#>-]*answer[ \t*]*:[ \t*]*", re.I | re.M)
_USED_LINE = re.compile(r"^[ \t*#>-]*facts?[ \t]+used[ \t*]*:", re.I | re.M)
#: Where one sentence of the ``Facts used:`` line ends and the next begins.
_SENTENCE_BREAK = re.compile(r"(?<=[.;!?])\s+|\n")


def _text(value, what: str) -> str:
    """``value`` as text: a string, or "" for None; TypeError for anything else."""
    if value is None or isinstance(value, str):
        return value or ""
    raise TypeError(f"the {what} must be the model's text (a string), not {type(value).__name__} {value!r:.60}.")


def _used_text(reply: str) -> str:
    """The text between ``Facts used:`` and the last ``Answer:`` line."""
    text = _text(reply, "reply")
    m = _USED_LINE.search(text)
    if not m:
        return ""
    tail = text[m.end():]
    ends = list(_ANSWER_LINE.finditer(tail))
    return tail[:ends[-1].start()] if ends else tail


def _copied(text: str, used: str) -> bool:
    """Whether ``text`` was copied into ``used``, small edits allowed. Only a copy as long as (nearly)
    the whole text counts: "Facts used: Voltaic" cites nothing."""
    t = " ".join(str(text).split()).casefold().rstrip(".")
    return bool(t) and (t in used or (len(used) >= MIN_COPY_SHARE * len(t)
                                      and fuzz.partial_ratio(t, used) >= CITATION_SIMILARITY))


def _stem_match(a: str, b: str) -> bool:
    """Whether two words share a stem: a common beginning of 5 letters, or of all but one letter of
    the shorter word (at least 3): "chair" in "chaired" and "chairperson", "owns" and "owner"."""
    need = max(3, min(5, min(len(a), len(b)) - 1))
    return len(a) >= need and len(b) >= need and a[:need] == b[:need]


def _content_words(text: str) -> list[str]:
    """The words of ``text`` that carry meaning: letters only, 3 or more, no function word."""
    return [w for w in re.findall(r"[^\W\d_]+", text.casefold()) if len(w) >= 3 and w not in FUNCTION_WORDS]


def _name_patterns(name: str, aliases: Mapping[str, Sequence[str]]) -> list[str]:
    """``name`` and its ``aliases`` as whole-word patterns, longest first."""
    return [whole_words(n) for n in sorted({n.casefold() for n in (name, *aliases.get(name, ())) if n},
                                           key=len, reverse=True)]


def _strike(text: str, patterns: Sequence[str]) -> str | None:
    """``text`` with the first of ``patterns`` it contains blanked out, or None when it has none."""
    hit = next((m for p in patterns for m in [re.search(p, text)] if m), None)
    return None if hit is None else text[:hit.start()] + " " + text[hit.end():]


def _strike_all(text: str, ends: Iterable[tuple[str, Sequence[str]]]) -> tuple[str, list[str]]:
    """``text`` with each ``(name, patterns)`` of ``ends`` it contains blanked out in turn, and those names."""
    named = []
    for name, patterns in ends:
        if (struck := _strike(text, patterns)) is not None:
            text = struck
            named.append(name)
    return text, named


def _said_in(text: str, said: set[str]) -> bool:
    """Whether ``text`` has content words and each shares a stem with a word of ``said``."""
    words = _content_words(text)
    return bool(words and said and all(any(_stem_match(w, x) for x in said) for w in words))


def _restated(f: Fact, sentences: Sequence[str], aliases: Mapping[str, Sequence[str]]) -> bool:
    """Whether one of ``sentences`` names both ends of ``f`` (or an alias), in any words."""
    ends = [(end, _name_patterns(end, aliases)) for end in (f[0], f[2])]   # built once per fact
    return any(len(_strike_all(sentence, ends)[1]) == 2 for sentence in sentences)


def _source_restated(sentences: Sequence[str], facts: Sequence[Fact], evidence: Mapping[Fact, Sequence[str]],
                     aliases: Mapping[str, Sequence[str]]) -> set[Fact]:
    """The facts of a source sentence that one of ``sentences`` restates: it names two entities of
    that sentence's facts that no fact of it joins, and takes every other word it has from the source
    sentence; the facts cited are those that touch an entity it names."""
    by_source: dict[str, list[Fact]] = {}
    for f in facts:
        for e in evidence.get(f, ()):
            by_source.setdefault(e, []).append(f)
    patterns = {n: _name_patterns(n, aliases) for f in facts for n in (f[0], f[2])}   # once per entity
    out: set[Fact] = set()
    for source, fs in by_source.items():
        said = set(_content_words(source))
        ends = [(n, patterns[n]) for n in sorted({n for f in fs for n in (f[0], f[2])}, key=len, reverse=True)]
        for sentence in sentences:
            rest, named = _strike_all(sentence, ends)
            if (len(named) >= 2 and _said_in(rest, said)
                    and not any(f[0] in named and f[2] in named for f in fs)):
                out.update(f for f in fs if f[0] in named or f[2] in named)
    return out


def cited_facts(reply: str, facts: Iterable[Fact], evidence: Mapping[Fact, Sequence[str]] | None = None,
                aliases: Mapping[str, Sequence[str]] | None = None, *, restated: bool = True) -> list[Fact]:
    """The given facts a reply copied on its ``Facts used:`` line, in sorted order.

    A fact counts when its sentence or an ``evidence`` sentence of it was copied, small edits allowed,
    or (``restated=True``) when one sentence there names both its ends (or their ``aliases``), in any
    words: the rule reads which facts a reply used, not what it says of them (a small model rewords
    "chaired_by" as "is the chairperson of", "completed_takeover" as "owns"). A sentence that names two entities of
    one ``evidence`` sentence's facts, no fact joining the two, and takes every other word from that
    sentence restates it: it cites that sentence's facts that touch the entities it names.

    >>> cited_facts("Facts used: Ruth Amsel chairs the Brennock Group.\\nAnswer: Ruth Amsel",
    ...             [("Brennock Group", "chaired_by", "Ruth Amsel")])
    [('Brennock Group', 'chaired_by', 'Ruth Amsel')]
    """
    lines = _used_text(reply).casefold()
    used = " ".join(lines.split())
    if not used:
        return []
    sentences = _SENTENCE_BREAK.split(lines) if restated else []   # split once, not per fact
    aliases, evidence = aliases or {}, evidence or {}
    facts = sorted(set(facts))
    out = [f for f in facts if (restated and _restated(f, sentences, aliases))
           or any(_copied(t, used) for t in (fact_sentence(f), *evidence.get(f, ())))]
    if restated and evidence:
        out = sorted(set(out) | _source_restated(sentences, facts, evidence, aliases))
    return out


def unsupported_links(reply: str, facts: Iterable[Fact], evidence: Mapping[Fact, Sequence[str]] | None = None,
                      aliases: Mapping[str, Sequence[str]] | None = None) -> set[frozenset]:
    """Pairs of entities that a sentence on the ``Facts used:`` line names together when it cites no
    given fact and no given fact joins the two: links the reply states that the facts do not make.

    >>> facts = [("Osk", "operates", "Tern"), ("Pell", "owns", "Osk")]
    >>> sorted(map(sorted, unsupported_links("Facts used: Tern is owned by Pell.\\nAnswer: Pell", facts)))
    [['Pell', 'Tern']]
    """
    aliases, evidence = aliases or {}, evidence or {}
    facts = sorted(set(facts))
    joined = {frozenset((s, o)) for s, _, o in facts}
    ends = [(n, _name_patterns(n, aliases)) for n in sorted({n for f in facts for n in (f[0], f[2])},
                                                             key=len, reverse=True)]
    out: set[frozenset] = set()
    for sentence in _SENTENCE_BREAK.split(_used_text(reply).casefold()):
        if not sentence.strip() or cited_facts("Facts used: " + sentence, facts, evidence, aliases):
            continue
        _, named = _strike_all(sentence, ends)
        out |= {frozenset((a, b)) for i, a in enumerate(named) for b in named[i + 1:]} - joined
    return out
