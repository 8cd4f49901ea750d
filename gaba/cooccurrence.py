"""The co-occurrence rules (no model): link two names that a sentence writes together, and a name a
sentence writes alone to the name its document opens with."""
from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from .coref import opening_name, written_inside
from .data.triple import Triple
from .names import _need_names, candidate_names, find_mentions, whole_words
from .passages import require_document, split_sentences
from .validate import normalize_predicate, predicate_problem


#: Relation of a co-occurrence edge whose connecting words do not make a short predicate.
COOCCURRENCE_RELATION = "mentioned_with"
#: At most this many words between two names become the edge's relation ("A married B" -> ``married``).
COOCCURRENCE_MAX_WORDS = 6


def _sentences_and_names(doc: dict, names: Iterable[str] | None, who: str
                         ) -> tuple[tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]]:
    """``names`` (default :func:`~gaba.names.candidate_names`) after the checks both rules make, and
    each sentence of the document with those it writes (each once, in reading order)."""
    require_document(doc, who)
    _need_names(names)
    names = tuple(candidate_names(doc["text"]) if names is None else names)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"names must be strings, got {[n for n in names if not isinstance(n, str)][:3]!r}.")
    return names, _mentions_by_sentence(doc["text"], names)


@functools.lru_cache(maxsize=8)
def _mentions_by_sentence(text: str, names: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """:func:`_sentences_and_names` once per text: a graph build asks for it for both rules."""
    return tuple((sentence, tuple(dict.fromkeys(n for *_, n in find_mentions(sentence, names))))
                 for sentence in split_sentences(text))


def cooccurrence_triples(doc: dict, names: Iterable[str] | None = None) -> list[Triple]:
    """A rule, not the model: link every two names written in the same sentence.

    The relation is the words between them (as a predicate) when short, name-free and not a
    clause with its own subject (:func:`~gaba.validate.predicate_problem`), else
    :data:`COOCCURRENCE_RELATION`. ``names`` default to :func:`~gaba.names.candidate_names`.

    >>> doc = {"id": "d1", "text": "Ann Lee founded Acme in Oslo. Acme hired Bo Tarn."}
    >>> [t.as_tuple() for t in cooccurrence_triples(doc)]  # doctest: +NORMALIZE_WHITESPACE
    [('Ann Lee', 'founded', 'Acme'), ('Ann Lee', 'mentioned_with', 'Oslo'),
     ('Acme', 'mentioned_with', 'Oslo'), ('Acme', 'hired', 'Bo Tarn')]
    """
    out: list[Triple] = []
    seen: set[tuple[str, str]] = set()
    for sentence, found in _sentences_and_names(doc, names, "cooccurrence_triples")[1]:
        for i, a in enumerate(found):
            for b in found[i + 1:]:
                if (a, b) in seen or (b, a) in seen:
                    continue
                seen.add((a, b))
                m = re.search(f"{whole_words(a)}(.*?){whole_words(b)}", sentence)
                between = m.group(1) if m else ""
                words = re.findall(r"[^\W_]+", between)
                short = 0 < len(words) <= COOCCURRENCE_MAX_WORDS and not find_mentions(between, found)
                rel = normalize_predicate(between) if short else ""
                if rel and predicate_problem(rel, a, b)[1]:       # "before she joined": a clause
                    rel = ""
                out.append(Triple(a, rel or COOCCURRENCE_RELATION, b, str(doc["id"]), sentence))
    return out


#: A personal pronoun: in a document about a person, a sentence that uses one is about that person.
_PERSONAL = re.compile(r"\b(?:he|she|his|her|him)\b", re.IGNORECASE)


def topic_triples(doc: dict, names: Iterable[str] | None = None, *,
                  people: Iterable[str] = ()) -> list[Triple]:
    """A rule, not the model: link a name that a sentence writes alone to the document's topic.

    A news item is about the name its first sentence opens with (after an optional "The"; a one-word
    name must also be written inside a sentence). A later sentence that names one other name and
    nothing else ("Founded in 1994 by Ann Lee, the station ...", "The firm's chief is Bo Tarn.")
    most often says how that name relates to the topic through a word the co-occurrence rule cannot
    read ("the station", "the firm", "it"). Such a name is linked to the topic as
    :data:`COOCCURRENCE_RELATION`, with the sentence as evidence. When the topic is one of
    ``people``, only a sentence with "he", "she", "his", "her" or "him" is taken (in an item about a
    person, "The museum was founded by Bo Tarn" is about something else). A name that shares a word
    with the topic ("Lee" in an item about "Ann Lee") is the topic again.

    >>> doc = {"id": "d1", "text": "Osk Radio hired Ann Lee. The station was set up by Bo Tarn."}
    >>> [t.as_tuple() for t in topic_triples(doc)]
    [('Osk Radio', 'mentioned_with', 'Bo Tarn')]
    """
    names, read = _sentences_and_names(doc, names, "topic_triples")
    topic = opening_name(read[0][0]) if read else None
    if topic not in names or (" " not in topic and not written_inside(topic, doc["text"])):
        return []
    person = topic in set(people)
    out: list[Triple] = []
    for sentence, found in read[1:]:
        if (len(found) == 1 and not set(found[0].split()) & set(topic.split())
                and (not person or _PERSONAL.search(sentence))
                and all(t.object != found[0] for t in out)):
            out.append(Triple(topic, COOCCURRENCE_RELATION, found[0], str(doc["id"]), sentence))
    return out
