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

from .data.triple import Triple
from .names import (CALENDAR, FUNCTION_WORDS, candidate_names, capitalised_in, is_name, looks_like_org,
                    looks_like_person, lower_words, mentions, normalize_name, strip_title, UPPER, whole_words)
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


def _predicate_in(predicate: str, text: str) -> bool:
    """Whether a content word of the predicate (first four letters) occurs in ``text``."""
    have = {w[:4] for w in lower_words(text)}
    content = [w for w in predicate.split("_") if w not in FUNCTION_WORDS and w not in _AUX and len(w) >= 3]
    return not content or any(w[:4] in have for w in content)


def validate_open_triples(records: Iterable[dict], doc: dict) -> tuple[list[Triple], list[Rejection]]:
    """Keep the open-extraction records that the document supports; say why others were refused.

    Kept when the predicate has at most :data:`MAX_PREDICATE_WORDS` words, one used by the sentence;
    subject and object are two different names of the document; and the numbered sentence (or the
    one before, for "she") or the first naming both supports it. That sentence is the evidence.

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

    def supports(j: int) -> bool:
        return (any(mentions(sentences[j], x) for x in (subj, obj))
                and all(mentions(window(j), x) for x in (subj, obj)))

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
    elif passive_read_as_active(pred, sentences[i], subj, obj):
        pred += "_by"
    elif agent := other_agent(pred, sentences[i], subj, obj):
        return f"the sentence says {pred.split('_')[0]!r} by {agent!r}, neither {subj!r} nor {obj!r}"
    return Triple(subj, pred, obj, doc["id"], sentences[i], "", stype, otype)


#: A form of "to be" before a participle makes a passive ("was acquired by", "has been led by").
_PASSIVE = r"\b(?:is|are|was|were|be|been|being)\s+(?:\w+ly\s+)?{verb}(?:\s+[\w,]+){{0,3}}?\s+by\b"


def passive_read_as_active(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether the sentence says "<subject> was <predicate> by <obj>" but the record reads it active.

    Validation then keeps the predicate as ``<predicate>_by``.

    >>> s = "Brightwater Records was acquired in 2021 by Tessellate."
    >>> passive_read_as_active("acquired", s, "Brightwater Records", "Tessellate")
    True
    """
    words = predicate.split("_")
    if "by" in words:
        return False
    for m in re.finditer(_PASSIVE.format(verb=re.escape(words[0])), sentence, flags=re.I):
        before = sentence[:m.start()]
        # the object named before the verb too? Not inside the subject's own name ("Keel & Varga ...
        # was founded by Hollis Keel")
        rest = re.sub(whole_words(subject), " ", before, flags=re.I)
        if mentions(before, subject) and mentions(sentence[m.end():], obj) and not mentions(rest, obj):
            return True
    return False


#: Prepositions that close a predicate ("reigned_for", "based_in") and take its object after them.
_CLOSING = frozenset("about at for from in into of on onto over to under with".split())
_PRONOUN_OR_BY = re.compile(r"\s*(?:it|its|them|their|him|his|her|by)\b", re.IGNORECASE)


def _after_closing(predicate: str, sentence: str) -> str | None:
    """What ``sentence`` writes after a predicate's closing preposition ("reigned for" -> "23 years"),
    or None when the predicate has none or the sentence does not write it."""
    words = predicate.split("_")
    if words[-1] not in _CLOSING or len(words) < 2:
        return None
    m = re.search(rf"\b{re.escape(words[0][:4])}\w*(?:\s+[\w'’-]+){{0,3}}?\s+{words[-1]}\b", sentence,
                  flags=re.IGNORECASE)
    return sentence[m.end():] if m else None


def other_object(predicate: str, sentence: str, subject: str, obj: str) -> str | None:
    """What the sentence puts after a predicate's closing preposition when a record takes its object
    from the sentence before: "Sevrine reigned for 23 years" read as ``reigned_for Aldemar``.

    Only for a record one of whose names the sentence leaves out; then the words after the
    preposition must be the object, a pronoun or "by" (a passive). Returns those words, else None.

    >>> other_object("reigned_for", "Ilsa reigned for 23 years.", "Ilsa", "Oswin")
    '23 years.'
    >>> other_object("based_in", "The charity is based in Linmouth.", "Second Breath", "Linmouth")
    """
    if mentions(sentence, subject) and mentions(sentence, obj):
        return None
    after = _after_closing(predicate, sentence)
    if after is None or _PRONOUN_OR_BY.match(after) or mentions(" ".join(after.split()[:len(obj.split()) + 2]), obj):
        return None
    return " ".join(after.split()[:2]) or None


def preposition_read_backwards(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether the sentence puts the record's subject, not its object, after the predicate's closing
    preposition: "Tarn Hall was the tallest building in Pesk" read as ``Pesk tallest_building_in
    Tarn Hall``.

    >>> preposition_read_backwards("tallest_building_in", "Tarn Hall was the tallest building in Pesk.",
    ...                            "Pesk", "Tarn Hall")
    True
    """
    after = _after_closing(predicate, sentence)
    if after is None:
        return False
    head = " ".join(re.sub(r"^\s*(?:the|a|an)\s+", "", after, flags=re.IGNORECASE).split()[:4])
    return (re.match(whole_words(subject), head, flags=re.IGNORECASE) is not None
            and not mentions(head, obj))


def active_read_backwards(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether the sentence says "<obj> ... <predicate> ... <subject>" but the record reads it the
    other way round; validation then swaps the two. Not for "by" (a passive's agent), a possessive
    ("Acme's chief executive, Ann Lee") or an inversion after a comma or a quote ("..., said Ann Lee").

    >>> s = "Orrel Mills, based in Vantry, has supplied the looms at Tarn Works."
    >>> active_read_backwards("supplied", s, "Tarn Works", "Orrel Mills")
    True
    """
    words = predicate.split("_")
    if "by" in words:
        return False
    subject_re, obj_re = re.compile(whole_words(subject), re.I), re.compile(whole_words(obj), re.I)
    for m in re.finditer(whole_words(words[0]), sentence, flags=re.I):
        before, after = sentence[:m.start()], sentence[m.end():]
        at, objs = subject_re.search(after), list(obj_re.finditer(before))
        if at is None or not objs or re.search(r"\bby\b", sentence[objs[0].end():m.end() + at.start()], flags=re.I):
            continue
        if any(re.match(r"['\u2019]s?\s", before[o.end():]) for o in objs):
            continue                                      # "Acme's chief executive, Ann Lee"
        if not after[:at.start()].strip() and before.rstrip()[-1:] in (",", '"', "\u201d", "'"):
            continue                                      # "..., said Ann Lee"
        if not mentions(obj_re.sub(" ", before), subject):
            return True
    return False


def relative_read_backwards(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether the sentence says "<subject> ... that <obj> <predicate>" (a relative clause whose own
    subject is ``obj``) but the record reads it the other way round; validation then swaps the two.

    >>> s = "Tarn Mill, the loom works that Orrel Textiles grew out of, closed in 1990."
    >>> relative_read_backwards("grew_out_of", s, "Tarn Mill", "Orrel Textiles")
    True
    >>> relative_read_backwards("grew_out_of", s, "Orrel Textiles", "Tarn Mill")
    False
    """
    verb = predicate.split("_")[0]
    pattern = (r"\b(?:that|which|whom)\s+(?:the\s+)?" + whole_words(obj)
               + r"\s+(?:[a-z]+\s+){0,2}?" + whole_words(verb))
    return any(mentions(sentence[:m.start()], subject) for m in re.finditer(pattern, sentence, flags=re.I))


def other_agent(predicate: str, sentence: str, subject: str, obj: str) -> str | None:
    """The agent of a passive "<be> <predicate> ... by <Name>" in the sentence when it is neither
    ``subject`` nor ``obj``: a record of a bare verb then names someone else as the doer ("It was
    founded in 1921 by Ann Lee" read as "Acme founded Leeds"). Not for a verb with a preposition:
    "jets were leased to Tern Air by Orrel Leasing" gives "jets leased_to Tern Air" rightly.

    >>> other_agent("founded", "It was founded in 1921 by Ann Lee.", "Lee Mills", "Leeds")
    'Ann Lee'
    >>> other_agent("leased_to", "Jets were leased to Tern Air by Orrel Leasing.", "Jets", "Tern Air")
    """
    words = predicate.split("_")
    if len(words) != 1:
        return None
    for m in re.finditer(_PASSIVE.format(verb=re.escape(words[0])), sentence, flags=re.I):
        agent = re.match(r"\s+(?:the\s+)?(" + UPPER + r"[\w'\u2019&.-]*(?:\s+" + UPPER + r"[\w'\u2019&.-]*)*)",
                         sentence[m.end():])
        if agent and not any(re.search(whole_words(a), b, flags=re.I)       # the whole name, not a word of it
                             for x in (subject, obj) for a, b in ((x, agent.group(1)), (agent.group(1), x))):
            return agent.group(1).rstrip(".")
    return None


def agent_read_backwards(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether a "<verb>_by" record puts the agent first: the sentence says "<verb> by <subject>"
    and names ``obj`` nowhere after it. Validation then swaps the two.

    >>> s = "Work at Tarn Weir ended. The weir was rebuilt by Orrel Mills in May."
    >>> agent_read_backwards("rebuilt_by", s, "Orrel Mills", "Tarn Weir")
    True
    """
    words = predicate.split("_")
    if len(words) < 2 or words[-1] != "by":
        return False
    for m in re.finditer(r"\b(\w+)\s+by\s+(?:the\s+)?", sentence, flags=re.I):
        after = sentence[m.end():]
        if (m.group(1).lower() in words[:-1] and re.match(whole_words(subject), after, flags=re.I)
                and not mentions(after, obj)):
            return True
    return False


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
