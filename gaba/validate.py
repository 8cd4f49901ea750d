"""Which of the model's records become triples: the checks against the document.

Taught in chapter "From text to a knowledge graph". A refused record is a :class:`Rejection`.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable
from typing import Any

from rapidfuzz import fuzz, process

from .coref import opening_name
from .data.triple import Triple
from .direction import (active_read_backwards, agent_read_backwards, other_agent, other_object,
                        passive_read_as_active, preposition_read_backwards, relative_read_backwards)
from .names import (CALENDAR, FUNCTION_WORDS, candidate_names, capitalised_in, is_name, looks_like_org,
                    looks_like_person, lower_words, mentions, normalize_name, strip_title)
from .passages import require_document, split_sentences
from .prompts import ENTITY_TYPES
from .request import FALLBACK_RELATION, schema_relations


#: A relation whose meaning holds this phrase needs a person subject (an organisation -> person fact is turned).
PERSON_SUBJECT = "subject is a person"
#: Open predicates longer than this many words are refused (a clause, not a relation).
MAX_PREDICATE_WORDS = 6


@dataclasses.dataclass(frozen=True)
class Rejection:
    """A record the model produced that validation refused, and why."""

    doc_id: str
    record: dict
    reason: str


def _match_sentence(evidence: str, sentences: list[str]) -> str | None:
    """The document sentence the evidence copies (exactly, nearly, or 9 words in 10), or None."""
    ev = re.sub(r"\s+", " ", evidence).strip()
    if not ev:
        return None
    for s in sentences:
        if ev == s or (len(ev) >= 20 and ev in s):
            return s
    best = process.extractOne(ev, sentences, scorer=fuzz.ratio, score_cutoff=90)
    if best is not None:
        return best[0]
    words = [w[:5] for w in lower_words(ev)]
    if len(words) >= 4:
        def share(s: str) -> float:
            have = {w[:5] for w in lower_words(s)}
            return sum(w in have for w in words) / len(words)

        best = max(sentences, key=share)
        if share(best) >= 0.9:
            return best
    return None


_AUX = frozenset("""is was were are am be been being has have had will would shall should can could
    may might must do does did also currently now then later recently reportedly""".split())
_ARTICLES = frozenset({"a", "an", "the"})
_RELATIVE = frozenset({"who", "whom", "which", "that"})
_SUBJECT_PRONOUNS = frozenset({"he", "she", "it", "they", "we", "i", "you"})
#: Words of a date or a time phrase ("12 March", "last season", "next winter"): no relation alone.
_WHEN = CALENDAR | frozenset("""last next this previous past coming following early late season seasons
    year years month months week weeks day days night decade decades century centuries spring summer
    autumn winter morning evening today yesterday tomorrow""".split())


def normalize_predicate(text: str) -> str:
    """A predicate as a short lowercase snake_case label, or ``""`` if it names no relation.

    Leading auxiliaries, a relative pronoun and a possessive "'s" go ("which was sold to" ->
    ``sold_to``, "'s debut novel" -> ``debut_novel``), and so do articles.

    >>> normalize_predicate("has joined the board of"), normalize_predicate("is"), normalize_predicate("in 1338")
    ('joined_board_of', '', '')
    >>> normalize_predicate("last season"), normalize_predicate("joined last season")
    ('', 'joined_last_season')
    >>> normalize_predicate("which was sold to"), normalize_predicate("’s debut novel")
    ('sold_to', 'debut_novel')
    >>> normalize_predicate("founded in by")          # "founded in 1979 by" less its year
    'founded_by'
    """
    text = re.sub(r"^\W*['\u2019]s\b", "", str(text).strip())
    words = re.findall(r"[^\W_]+", text.casefold().replace("\u2019", "'"))
    while words and (words[0] in _AUX or words[0] in _RELATIVE):
        words.pop(0)
    words = [w for w in words if w not in _ARTICLES]
    # "founded in 1979 by" written without its year: the "in" before "by" is left over
    words = [w for w, after in zip(words, [*words[1:], ""]) if not (after == "by" and w in FUNCTION_WORDS)]
    # a date, a time or a number alone ("in 1338", "on 12 March", "last season") is no relation either
    if not any(w not in _AUX and w not in FUNCTION_WORDS and w not in _WHEN and not w.isdigit() for w in words):
        return ""
    return "_".join(words)


def predicate_problem(predicate: str, subject: str, obj: str, names: Iterable[str] = ()) -> tuple[str, str]:
    """``(predicate, "")`` tidied, or ``(predicate, why it names no relation between the two)``.

    The object's own name goes from the predicate: at its end (``joined_acme`` + "Acme" ->
    ``joined``), or anywhere when it has two or more words (a description such as "is a Norvik
    Lutheran pastor" keeps ``pastor``). It is refused when it holds a subject pronoun (a clause with
    its own subject: ``before_she_joined``) or another name of two or more words (the relation is
    with that entity, not with ``obj``).

    >>> (predicate_problem("joined_acme_labs", "Ann Lee", "Acme Labs"),
    ...  predicate_problem("norvik_lutheran_pastor", "Ann Lee", "Norvik Lutheran"))
    (('joined', ''), ('pastor', ''))
    >>> predicate_problem("became_acme_s_chief", "Ann Lee", "Acme")
    ('became_chief', '')
    >>> predicate_problem("before_she_joined", "Oslo University", "Acme Labs")[1]
    "predicate 'before_she_joined' is a clause with its own subject ('she')"
    """
    words = predicate.split("_")
    own = lower_words(obj)
    n = len(own)
    at = next((i for i in range(len(words) - n, -1, -1) if n and words[i:i + n] == own
               and (n >= 2 or i + n == len(words) or words[i + n:i + n + 1] == ["s"])), None)
    cut = n + (at is not None and words[at + n:at + n + 1] == ["s"])     # and a possessive: "acme_s_chief"
    if at is not None and len(words) > cut:
        words = words[:at] + words[at + cut:]
        while words and words[-1] in _ARTICLES:
            words.pop()
        predicate = "_".join(words)
        if not any(w not in _AUX and w not in FUNCTION_WORDS for w in words):
            return predicate, f"predicate holds only the name {obj!r}"
    if pronoun := next((w for w in words if w in _SUBJECT_PRONOUNS), None):
        return predicate, f"predicate {predicate!r} is a clause with its own subject ({pronoun!r})"
    padded = f"_{predicate}_"
    own_words = set(lower_words(subject)) | set(lower_words(obj))
    for name in (subject, obj, *names):
        name_words = lower_words(name)
        # a name of one word counts when it is no word of the two ends ("served_under_king_odo")
        if ((len(name_words) >= 2 or (name_words and name_words[0] not in own_words))
                and f"_{'_'.join(name_words)}_" in padded):
            return predicate, f"predicate {predicate!r} holds the name {name!r}"
    return predicate, ""


@functools.lru_cache(maxsize=64)
def _names_of(text: str) -> tuple[str, ...]:
    """:func:`gaba.names.candidate_names` of a text, worked out once for all its records; a name of
    one word only where the text writes it capitalised inside a sentence ("the court of Queen Ilsa"),
    not where any word has a capital ("Founded in 1990, ...", "Acme — Written in: Rust")."""
    return tuple(n for n in candidate_names(text)
                 if " " in n or re.search(r"[\w,;)]\s+" + re.escape(n) + r"\b", text))


#: Irregular English verbs: each form -> the verb, so a predicate "gave" is found in "was given by".
_IRREGULAR = {w: base for base, forms in {
    "give": "gave given", "make": "made", "buy": "bought", "sell": "sold", "win": "won", "lead": "led",
    "run": "ran", "begin": "began begun", "take": "took taken", "write": "wrote written", "hold": "held",
    "pay": "paid", "meet": "met", "leave": "left", "choose": "chose chosen", "grow": "grew grown",
    "know": "knew known", "see": "saw seen", "teach": "taught", "tell": "told", "bring": "brought",
    "fight": "fought", "find": "found", "keep": "kept", "lend": "lent", "lose": "lost", "send": "sent",
    "spend": "spent", "become": "became", "come": "came", "go": "went gone", "draw": "drew drawn",
    "seek": "sought", "steal": "stole stolen", "throw": "threw thrown", "oversee": "oversaw overseen",
    "undertake": "undertook undertaken", "withdraw": "withdrew withdrawn", "speak": "spoke spoken",
    "stand": "stood", "understand": "understood", "build": "built", "sit": "sat", "rise": "rose risen",
}.items() for w in (base, *forms.split())}


def _stems4(word: str) -> set[str]:
    """The first four letters of ``word``, and of its verb when it is an irregular form ("found" may
    be "find" or "found")."""
    return {word[:4], _IRREGULAR.get(word, word)[:4]}


def _predicate_in(predicate: str, text: str) -> bool:
    """Whether a content word of the predicate (first four letters, an irregular verb in any of its
    forms) occurs in ``text``."""
    have = set().union(*(_stems4(w) for w in lower_words(text)))
    content = [w for w in predicate.split("_") if w not in FUNCTION_WORDS and w not in _AUX and len(w) >= 3]
    return not content or any(_stems4(w) & have for w in content)


def validate_open_triples(records: Iterable[dict], doc: dict) -> tuple[list[Triple], list[Rejection]]:
    """Keep the open-extraction records that the document supports; say why others were refused.

    Kept when the predicate has at most :data:`MAX_PREDICATE_WORDS` words, one used by the sentence
    (an irregular verb in any of its forms); subject and object are two different names of the
    document; and the numbered sentence (or the one before, for "she"; or, for "it" or "its", the
    name the document's first sentence opens with, not a person) or the first naming both supports
    it. That sentence is the evidence.

    >>> doc = {"id": "d1", "text": "Dr. Ann Lee founded Acme in 2019. She lives in Oslo."}
    >>> recs = [{"sentence": 2, "subject": "Ann Lee", "predicate": "lives in", "object": "Oslo",
    ...          "subject_type": "person", "object_type": "place"}]
    >>> kept, refused = validate_open_triples(recs, doc)
    >>> kept[0].as_tuple(), kept[0].evidence
    (('Ann Lee', 'lives_in', 'Oslo'), 'She lives in Oslo.')
    """
    return _validate(records, doc, _judge_open)


def _judge_open(rec: dict, doc: dict, sentences: list[str]) -> Triple | str:
    """One open-extraction record as a triple, or the reason it is refused."""
    stype, otype = (t if (t := str(rec.get(f"{end}_type") or "other")) in ENTITY_TYPES else "other"
                    for end in ("subject", "object"))
    subj, obj = normalize_name(rec.get("subject", "")), normalize_name(rec.get("object", ""))
    subj = strip_title(subj) if stype == "person" else subj
    obj = strip_title(obj) if otype == "person" else obj
    pred = normalize_predicate(rec.get("predicate", ""))
    if not pred:
        return f"predicate {rec.get('predicate')!r} names no relation"
    if len(pred.split("_")) > MAX_PREDICATE_WORDS:
        return f"predicate {rec.get('predicate')!r} is longer than {MAX_PREDICATE_WORDS} words"
    pred, problem = predicate_problem(pred, subj, obj, _names_of(doc["text"]))
    if problem := problem or _names_problem(subj, obj, doc["text"]):
        return problem
    n = rec.get("sentence")
    i = n - 1 if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= len(sentences) else None

    def window(j: int) -> str:
        """Sentence ``j`` with the one before it (for "she" and "it")."""
        return " ".join(sentences[max(j - 1, 0):j + 1])

    # "Osk built it": a later "it" or "its" may mean the document's topic, the name its first sentence
    # opens with, when that is not a person
    topic = opening_name(sentences[0])
    typed = {subj: stype, obj: otype}

    def told(j: int, x: str) -> bool:
        return mentions(window(j), x) or (
            j > 1 and topic is not None and x.casefold() == topic.casefold() and typed[x] != "person"
            and re.search(r"\b(?:it|its)\b", sentences[j], flags=re.I) is not None)

    def supports(j: int) -> bool:
        return any(mentions(sentences[j], x) for x in (subj, obj)) and all(told(j, x) for x in (subj, obj))

    if i is None or not supports(i):
        i = next((j for j, s in enumerate(sentences)
                  if mentions(s, subj) and mentions(s, obj)), None)
    if i is None:
        return f"no sentence of the document mentions both {subj!r} and {obj!r}"
    if not _predicate_in(pred, window(i)):
        return f"predicate {pred!r} does not occur in the sentence"
    if words := other_object(pred, sentences[i], subj, obj):
        return f"the sentence says {pred.replace('_', ' ')!r} {words!r}, not {obj!r}"
    if (active_read_backwards(pred, sentences[i], subj, obj) or agent_read_backwards(pred, sentences[i], subj, obj)
            or relative_read_backwards(pred, sentences[i], subj, obj)
            or preposition_read_backwards(pred, sentences[i], subj, obj)):
        subj, obj, stype, otype = obj, subj, otype, stype
    else:
        if passive_read_as_active(pred, sentences[i], subj, obj):
            pred += "_by"
        if agent := other_agent(pred, sentences[i], subj, obj):
            return f"the sentence says {pred.split('_')[0]!r} by {agent!r}, neither {subj!r} nor {obj!r}"
    return Triple(subj, pred, obj, doc["id"], sentences[i], "", stype, otype)


def validate_triples(records: Iterable[dict], doc: dict, schema: Any = None
                     ) -> tuple[list[Triple], list[Rejection]]:
    """Keep the model's records that the document supports; say why the others were refused.

    ``schema=None`` is :func:`validate_open_triples`. Otherwise kept when the relation is the
    schema's, subject and object are two different capitalised names of the document, and the
    evidence matches a sentence naming both. A :data:`PERSON_SUBJECT` fact written backwards is turned.
    """
    if schema is None:
        return validate_open_triples(records, doc)
    meanings = schema_relations(schema)
    relations = tuple(meanings)
    person_subject = {r for r, m in meanings.items() if PERSON_SUBJECT in m.casefold()}

    def judge(rec: dict, doc: dict, sentences: list[str]) -> Triple | str:
        subj = normalize_name(rec.get("subject", ""))
        obj = normalize_name(rec.get("object", ""))
        rel = str(rec.get("relation", "")).strip().upper()
        verb = str(rec.get("verb", "") or "").strip() if rel == FALLBACK_RELATION else ""
        if rel not in relations:
            return f"relation {rel!r} is not in the vocabulary"
        if problem := _names_problem(subj, obj, doc["text"]):
            return problem
        sentence = _match_sentence(str(rec.get("evidence", "")), sentences)
        if sentence is None:
            return "evidence is not a sentence of the document"
        if missing := [n for n in (subj, obj) if not mentions(sentence, n)]:
            return f"evidence does not mention {' or '.join(repr(m) for m in missing)}"
        if rel in person_subject and looks_like_org(subj) and looks_like_person(obj):
            subj, obj = obj, subj
        return Triple(subj, rel, obj, doc["id"], sentence, verb)

    return _validate(records, doc, judge)


def _names_problem(subj: str, obj: str, text: str) -> str | None:
    """Why ``subj`` and ``obj`` cannot be the two ends of a fact of ``text``, or None."""
    if not is_name(subj) or not is_name(obj):
        return "subject or object is not a name"
    if not (capitalised_in(subj, text) and capitalised_in(obj, text)):
        return "subject or object is not a name in the text"
    if subj.lower() == obj.lower():
        return "subject and object are the same"
    return None


def _validate(records: Iterable[dict], doc: dict, judge) -> tuple[list[Triple], list[Rejection]]:
    """Judge every record (a Triple or the reason of a refusal); keep each fact once, in order."""
    require_document(doc, "validate_triples")
    if isinstance(records, (str, bytes, dict)) or not isinstance(records, Iterable):
        raise TypeError(f"validate_triples takes a list of the model's records (dicts), not a "
                        f"{type(records).__name__}.")
    sentences = split_sentences(doc["text"])
    kept: list[Triple] = []
    rejected: list[Rejection] = []
    seen: set[tuple[str, str, str]] = set()
    for rec in records:
        verdict = judge(rec, doc, sentences) if isinstance(rec, dict) else "not a record"
        if isinstance(verdict, str):
            rejected.append(Rejection(doc["id"], dict(rec) if isinstance(rec, dict) else {"record": rec},
                                      verdict))
            continue
        key = (verdict.subject.lower(), verdict.relation, verdict.object.lower())
        if key not in seen:
            seen.add(key)
            kept.append(verdict)
    return kept, rejected
