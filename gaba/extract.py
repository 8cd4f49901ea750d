"""From text to a knowledge graph: triples with provenance, entity reconciliation, scoring.

Taught in chapter "From text to a knowledge graph". The pipeline:

1. :func:`extract_triples` asks the model for ``(evidence, subject, relation, object)`` records
   under a JSON schema whose ``relation`` is an enum of :data:`RELATIONS` (short prompt, fixed
   vocabulary, one evidence sentence per fact: what a 1.5B model can do reliably);
2. :func:`validate_triples` keeps a record only if its evidence is a sentence of the document
   and names both the subject and the object (the check that catches invented facts);
3. :func:`reconcile_entities` builds an alias table (``"Kestrel"`` -> ``"Kestrel Motors"``) from
   the extracted names and the capitalised names in the documents;
4. :func:`build_knowledge_graph` assembles a :class:`networkx.MultiDiGraph` whose edges keep
   ``relation``, ``doc_id`` and ``evidence``, caching each document's extraction in
   ``assets/kg-cache/`` so a rebuild makes no model call;
5. :func:`score_triples` measures precision and recall against hand-written gold triples.

Examples
--------
>>> from gaba.extract import RELATIONS, normalize_name
>>> RELATIONS[:3]
('SUPPLIES_TO', 'BUYS_FROM', 'COMPETES_WITH')
>>> normalize_name("  the Kestrel Motors' ")
'Kestrel Motors'
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import sys
import time
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from nameparser.config.titles import TITLES as _nameparser_titles

from . import llm
from .cache import cache_path
from .config import ASSETS
from .data.news import load_documents, load_gold_aliases, load_gold_triples
from .data.triple import Triple
from .errors import CacheMiss, DocumentError, GabaError, LLMOutputError
from .fileio import atomic_write_text, atomic_writer
from .prompts import (ENTITY_TYPES, EXTRACTION_PROMPT, EXTRACTION_RELATIONS, EXTRACTION_SYSTEM,
                      NEWS_SCHEMA, OPEN_EXTRACTION_PROMPT, OPEN_EXTRACTION_SYSTEM)
from .tokens import estimate_tokens

#: The relation vocabulary of the news domain schema (:data:`gaba.prompts.NEWS_SCHEMA`), used
#: only when a schema is asked for; the default extraction is open (predicates from the text).
RELATIONS: tuple[str, ...] = tuple(EXTRACTION_RELATIONS)
#: Free-text fallback relation; its triples keep the model's verb in ``Triple.verb``.
FALLBACK_RELATION = "RELATED_TO"
#: ``(a, BUYS_FROM, b)`` states the same fact as ``(b, SUPPLIES_TO, a)``; scoring folds it.
INVERSE_RELATIONS = {"BUYS_FROM": "SUPPLIES_TO"}
#: Relations whose direction carries no meaning; scoring compares them as unordered pairs.
SYMMETRIC_RELATIONS = frozenset({"COMPETES_WITH"})
#: Relations whose subject must be a person; a company subject with a person object is swapped.
PERSON_RELATIONS = frozenset({"BOARD_MEMBER_OF", "CEO_OF"})
#: Generic words that end organisation names in English ("Acme Inc", "Granite Bank"): alone
#: they name no one, so "Bank" is never read as an alias of one bank.
ORG_WORDS = frozenset("""
    ag association bank co college company corp corporation foundation fund gmbh group holdings
    inc institute llc ltd partners plc sa society trust university""".split())
#: Titles that precede a person's name; open extraction drops them from the canonical name
#: ("Dr. Lena Marsh" -> "Lena Marsh") and keeps the titled form as an alias.
TITLES = frozenset("""dr doctor prof professor mr mrs ms miss mx sir dame lord lady king queen prince
    princess emperor empress duke duchess rev reverend""".split())
#: Every personal title of the ``nameparser`` library (about 800: "General", "Coach", "Brother",
#: "Chancellor", ...) plus :data:`TITLES`. Open extraction drops one from the front of a name
#: of at least two further words ("General Corwin Hale" -> "Corwin Hale"), never from a name
#: that would be left as one word or ends in an organisation word ("General Motors",
#: "General Electric Company").
ALL_TITLES = frozenset(_nameparser_titles) | TITLES
#: Open predicates longer than this many words are refused (a clause, not a relation).
MAX_PREDICATE_WORDS = 6
#: Open extraction answers may list this many facts (each is about 35 tokens).
OPEN_MAX_FACTS = 8
#: Cap on the open extraction answer.
OPEN_MAX_TOKENS = 400
#: A document longer than this (estimated tokens) does not fit the local model's context.
MAX_DOCUMENT_TOKENS = 6000
#: Cap on the extraction answer (a looping small model stops here).
EXTRACTION_MAX_TOKENS = 400
#: At most this many facts per document (the schema's ``maxItems``).
MAX_FACTS = 8
#: Default folder of the per-document triples cache (``GABA_KG_CACHE`` overrides it).
KG_CACHE_DIR = ASSETS / "kg-cache"
#: Bumped when the triples-cache entry format changes.
CACHE_FORMAT = 1

_STOP = frozenset("""a an and as at after before but by for from in of on since the this that
    to when while with""".split())
_PRONOUNS = frozenset({"he", "she", "it", "they", "we", "i", "you", "him", "her", "them", "its",
                       "their", "his", "the company", "the firm", "the group", "the bank",
                       "company", "firm", "group", "bank"})


# --- data ---------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Rejection:
    """A record the model produced that validation refused, and why."""

    doc_id: str
    record: dict
    reason: str


@dataclasses.dataclass
class Extraction:
    """What :func:`extract_corpus` returns: kept triples, rejected records, failures, timings."""

    triples: list[Triple]
    rejected: list[Rejection]
    failed: dict[str, str]                 # doc_id -> error message
    seconds: dict[str, float]              # doc_id -> recorded model seconds of its extraction
    cache: dict[str, int]                  # hits / misses / rebuilt (corrupt entries)
    raw: dict[str, list[dict]] = dataclasses.field(default_factory=dict)  # doc_id -> model records
    usage: dict[str, dict] = dataclasses.field(default_factory=dict)      # doc_id -> token counts
    wall_seconds: float = 0.0              # wall time of the whole extraction
    concurrency: int = 1                   # model calls that were allowed in flight

    @property
    def extracted(self) -> int:
        """Documents sent to the extractor in this run that succeeded (not from the cache)."""
        return self.cache.get("misses", 0) - len(self.failed)

    def summary(self) -> str:
        """One line: documents, how many extracted/cached/failed, seconds and documents/s.

        Examples
        --------
        >>> Extraction([], [], {}, {}, {"hits": 3, "misses": 2, "rebuilt": 0},
        ...            wall_seconds=4.0, concurrency=8).summary()
        '5 documents in 4.0 s: 2 extracted (0.50 documents/s, 8 in flight), 3 from the cache, 0 failed'
        """
        return extraction_summary(self.cache.get("hits", 0) + self.cache.get("misses", 0), self.cache,
                                  len(self.failed), self.wall_seconds, self.concurrency)


def extraction_summary(documents: int, cache: dict[str, int], failed: int, seconds: float,
                       concurrency: int) -> str:
    """The one-line report of an extraction run (:meth:`Extraction.summary`, ``gaba build-graph``).

    Examples
    --------
    >>> extraction_summary(5, {"hits": 3, "misses": 2}, 0, 4.0, 8)
    '5 documents in 4.0 s: 2 extracted (0.50 documents/s, 8 in flight), 3 from the cache, 0 failed'
    """
    extracted = cache.get("misses", 0) - failed
    rate = extracted / seconds if seconds > 0 else 0.0
    return (f"{documents} documents in {seconds:.1f} s: {extracted} extracted "
            f"({rate:.2f} documents/s, {concurrency} in flight), "
            f"{cache.get('hits', 0)} from the cache, {failed} failed")


# --- prompt, schema, documents ------------------------------------------------------------

def _schema_relations(schema: Any) -> dict[str, str]:
    """A domain schema as ``{RELATION: meaning}``: a mapping, or a list of names (no meanings)."""
    if isinstance(schema, dict):
        rels = {str(k).strip().upper(): str(v) for k, v in schema.items()}
    elif isinstance(schema, (list, tuple)) and schema and all(isinstance(x, str) for x in schema):
        rels = {x.strip().upper(): x.strip().replace("_", " ").lower() for x in schema}
    else:
        raise ValueError("schema must be None (open extraction), a dict of relation -> meaning, or "
                         f"a list of relation names, not {schema!r}")
    if not all(re.fullmatch(r"[A-Z][A-Z0-9_]*", r) for r in rels):
        raise ValueError(f"schema relation names must be UPPER_SNAKE_CASE words, got {sorted(rels)}")
    return rels


def extraction_schema(schema: Any = NEWS_SCHEMA) -> dict:
    """The JSON schema of a schema-guided extraction answer (``relation`` is an enum).

    Taught in chapter "From text to a knowledge graph". ``evidence`` comes first so the model
    copies the sentence before naming the fact; ``verb`` is optional (for
    :data:`FALLBACK_RELATION`).

    Examples
    --------
    >>> extraction_schema()["properties"]["facts"]["items"]["required"]
    ['evidence', 'subject', 'relation', 'object']
    """
    return {
        "type": "object",
        "properties": {"facts": {"type": "array", "maxItems": MAX_FACTS, "items": {
            "type": "object",
            "properties": {
                "evidence": {"type": "string"},
                "subject": {"type": "string"},
                "relation": {"type": "string", "enum": list(_schema_relations(schema))},
                "object": {"type": "string"},
                "verb": {"type": "string"},
            },
            "required": ["evidence", "subject", "relation", "object"],
            "additionalProperties": False}}},
        "required": ["facts"],
        "additionalProperties": False,
    }


def open_extraction_schema(names: Sequence[str] | None = None) -> dict:
    """The JSON schema of an open extraction answer: facts with a free ``predicate``.

    Taught in chapter "From text to a knowledge graph". ``subject`` and ``object`` must be one
    of ``names`` (the document's candidate names, :func:`candidate_names`), so the model
    cannot link a name to "battery packs"; the evidence is a sentence number (the code stores
    the document's own sentence), which keeps the answer short.

    Examples
    --------
    >>> s = open_extraction_schema(["Acme", "Ann Lee"])
    >>> s["properties"]["facts"]["items"]["properties"]["subject"]
    {'type': 'string', 'enum': ['Acme', 'Ann Lee']}
    """
    types = {"type": "string", "enum": list(ENTITY_TYPES)}
    name = {"type": "string", "enum": list(names)} if names else {"type": "string"}
    return {
        "type": "object",
        "properties": {"facts": {"type": "array", "maxItems": OPEN_MAX_FACTS, "items": {
            "type": "object",
            "properties": {
                "sentence": {"type": "integer", "minimum": 1},
                "subject": name,
                "predicate": {"type": "string"},
                "object": name,
                "subject_type": types,
                "object_type": types,
            },
            "required": ["sentence", "subject", "predicate", "object", "subject_type", "object_type"],
            "additionalProperties": False}}},
        "required": ["facts"],
        "additionalProperties": False,
    }


#: Capitalised words that are calendar words, not names (dropped from the candidate names).
_CALENDAR = frozenset("""monday tuesday wednesday thursday friday saturday sunday january february
    march april may june july august september october november december""".split())


def candidate_names(text: str) -> list[str]:
    """The names the open extractor may use: capitalised runs of the text, titles dropped.

    Generic, no word list of any corpus: a run of capitalised words (:func:`capitalised_names`),
    a person's title removed (:func:`strip_title` with the ``nameparser`` titles), calendar
    words and pronouns left out.

    Examples
    --------
    >>> candidate_names("Dr. Ann Lee founded Acme in March 2019. She lives in Oslo.")
    ['Ann Lee', 'Acme', 'Oslo']
    """
    out: list[str] = []
    for n in capitalised_names(text, extended_titles=True):
        words = [w for w in n.split() if w.lower().rstrip(".") not in _CALENDAR]
        n = " ".join(words)
        if n and _is_name(n) and n.rstrip(".").lower() not in TITLES and n.lower() not in _STOP \
                and n not in out:
            out.append(n)
    return out


def numbered_sentences(text: str) -> str:
    """The text as numbered sentences, one per line (what the open extractor reads).

    Examples
    --------
    >>> print(numbered_sentences("Ann founded Acme. She lives in Oslo."))
    [1] Ann founded Acme.
    [2] She lives in Oslo.
    """
    return "\n".join(f"[{i}] {s}" for i, s in enumerate(split_sentences(text), 1))


def extraction_prompt(text: str, schema: Any = None) -> str:
    """The user message that asks for the facts of ``text`` (see :mod:`gaba.prompts`).

    ``schema=None`` (the default) is open extraction; a domain schema (e.g.
    :data:`gaba.prompts.NEWS_SCHEMA`) lists its relations in the prompt.

    Examples
    --------
    >>> print(extraction_prompt("Acme buys from Beta.").splitlines()[0][:40])
    List the facts in the text that link two
    >>> "SUPPLIES_TO" in extraction_prompt("Acme buys from Beta.", NEWS_SCHEMA)
    True
    """
    if schema is None:
        return OPEN_EXTRACTION_PROMPT.format(names="; ".join(candidate_names(text)),
                                             sentences=numbered_sentences(text))
    relations = "\n".join(f"- {name}: {meaning}" for name, meaning in _schema_relations(schema).items())
    return EXTRACTION_PROMPT.format(relations=relations, text=text.strip())


def prompt_version(schema: Any = None) -> str:
    """A short hash of everything that shapes an extraction request (prompt, schema, limits).

    Part of every triples-cache key: changing the prompt makes every document a cache miss.
    """
    if schema is None:
        blob = json.dumps({"system": OPEN_EXTRACTION_SYSTEM, "prompt": OPEN_EXTRACTION_PROMPT,
                           "schema": open_extraction_schema(), "max_tokens": OPEN_MAX_TOKENS},
                          sort_keys=True)
    else:
        rels = _schema_relations(schema)
        blob = json.dumps({"system": EXTRACTION_SYSTEM, "prompt": EXTRACTION_PROMPT,
                           "relations": rels, "schema": extraction_schema(rels),
                           "max_tokens": EXTRACTION_MAX_TOKENS}, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def _as_document(doc: Any) -> dict:
    if isinstance(doc, dict) or isinstance(doc, str):
        d = load_documents([doc])[0]
    else:
        raise DocumentError(f"a document must be a string or a dict with 'text', not a "
                            f"{type(doc).__name__}.")
    check_document(d)
    return d


def check_document(doc: dict) -> None:
    """Raise :class:`~gaba.errors.DocumentError` if ``doc`` cannot be sent to the extractor."""
    n = estimate_tokens(doc["text"])
    if n > MAX_DOCUMENT_TOKENS:
        raise DocumentError(
            f"document {doc['id']!r} is about {n} tokens long; the extractor takes at most "
            f"{MAX_DOCUMENT_TOKENS}. Split it into smaller documents (paragraphs or sections).")


# --- extraction and validation ------------------------------------------------------------

def _call_extractor(doc: dict, schema: Any = None):
    try:
        if schema is None:
            return llm.call_llm(extraction_prompt(doc["text"]), system=OPEN_EXTRACTION_SYSTEM,
                            schema=open_extraction_schema(candidate_names(doc["text"])),
                            schema_name="facts",
                            max_tokens=OPEN_MAX_TOKENS, temperature=0.0, seed=0,
                            purpose=f"extract triples (open) from document {doc['id']}")
        rels = _schema_relations(schema)
        return llm.call_llm(extraction_prompt(doc["text"], rels), system=EXTRACTION_SYSTEM,
                        schema=extraction_schema(rels), schema_name="facts",
                        max_tokens=EXTRACTION_MAX_TOKENS, temperature=0.0, seed=0,
                        purpose=f"extract triples from document {doc['id']}")
    except LLMOutputError as exc:
        raise LLMOutputError(f"document {doc['id']!r}: no usable extraction ({exc})") from exc


#: Abbreviations after which a full stop does not end a sentence ("Dr. Lee", "Acme Inc. said").
ABBREVIATIONS = frozenset("""dr prof mr mrs ms mx st jr sr rev gen col capt lt sgt inc corp co ltd
    no vs etc approx dept univ est fig""".split())


def split_sentences(text: str) -> list[str]:
    """Split text into sentences (on ``.``, ``!``, ``?`` followed by a space and a capital or digit).

    A full stop after an abbreviation (:data:`ABBREVIATIONS`) or an initial ("J. R. Tolk") does
    not end a sentence.

    Examples
    --------
    >>> split_sentences("Helio invested $1.5 million. Aurora said so! Fine")
    ['Helio invested $1.5 million.', 'Aurora said so!', 'Fine']
    >>> split_sentences("Dr. Ann Lee met J. Tarn. They talked.")
    ['Dr. Ann Lee met J. Tarn.', 'They talked.']
    """
    parts = re.split(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])", text.strip())
    out: list[str] = []
    for p in (p.strip() for p in parts):
        if not p:
            continue
        last = re.search(r"(\w+)\.$", out[-1]) if out else None
        if last and (last.group(1).lower() in ABBREVIATIONS
                     or (len(last.group(1)) == 1 and last.group(1).isupper())):
            out[-1] = out[-1] + " " + p
        else:
            out.append(p)
    return out


#: Documents longer than this many words are extracted passage by passage (:func:`split_document`).
#: The model lists every fact of the text it is given within :data:`OPEN_MAX_TOKENS` answer
#: tokens; dense paragraphs of real text (60-90 words, a dozen names) ran past that limit in about
#: half of the cases, and the whole document was lost. Short news items stay one passage.
PASSAGE_WORDS = 50


def split_document(doc: dict, max_words: int = PASSAGE_WORDS) -> list[dict]:
    """Split a long document into passages of whole sentences, each at most ``max_words`` words.

    A document of at most ``max_words`` words (or of one sentence) is returned as it is, so its
    extraction and its cache entry do not change. Otherwise consecutive sentences are grouped
    greedily; a passage keeps the document's fields, gets the id ``"<id>#<n>"`` (from 1) and a
    ``"source"`` field with the document's id. A sentence longer than ``max_words`` stands alone.

    Examples
    --------
    >>> doc = {"id": "d1", "text": "Ann Lee founded Acme. " * 3}
    >>> [p["id"] for p in split_document(doc, max_words=8)]
    ['d1#1', 'd1#2']
    >>> split_document({"id": "d2", "text": "Short."}) == [{"id": "d2", "text": "Short."}]
    True
    """
    if isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1:
        raise ValueError(f"max_words must be a positive integer, not {max_words!r}")
    text = doc["text"]
    if len(text.split()) <= max_words:
        return [doc]
    sentences = split_sentences(text)
    if len(sentences) <= 1:
        return [doc]
    groups: list[list[str]] = []
    words = 0
    for sent in sentences:
        n = len(sent.split())
        if groups and words + n <= max_words:
            groups[-1].append(sent)
            words += n
        else:
            groups.append([sent])
            words = n
    return [{**doc, "id": f"{doc['id']}#{i}", "text": " ".join(g), "source": doc["id"]}
            for i, g in enumerate(groups, 1)]


def normalize_name(name: str) -> str:
    """Tidy a surface form: collapse spaces, drop a leading "the", possessives and trailing punctuation.

    Examples
    --------
    >>> normalize_name("Kestrel Motors's"), normalize_name("The  Granite Bank.")
    ('Kestrel Motors', 'Granite Bank')
    """
    s = re.sub(r"\s+", " ", str(name)).strip()
    s = s.strip(" \t\"“”‘,;:()[]")
    s = re.sub(r"(?:['’]s|['’])$", "", s).strip()
    s = re.sub(r"^(?:the)\s+", "", s, flags=re.IGNORECASE)
    s = s.rstrip(".").strip()
    return s


def _tokens(name: str) -> list[str]:
    return re.findall(r"[\w&-]+", name.lower())


def mentions(sentence: str, name: str) -> bool:
    """Whether ``sentence`` names ``name``: the full name, or a distinctive word of it.

    A distinctive word is one of at least three letters that is not an organisation marker
    (:data:`ORG_WORDS`) nor a stop word: "Kestrel" mentions "Kestrel Motors", "Voss" mentions
    "Mara Voss", but "Motors" alone mentions nothing.

    Examples
    --------
    >>> mentions("The chief executive of Kestrel said so.", "Kestrel Motors")
    True
    >>> mentions("Voss joined the board.", "Kestrel Motors")
    False
    """
    name = normalize_name(name)
    if not name:
        return False
    low = sentence.lower()
    if re.search(rf"(?<![\w]){re.escape(name.lower())}(?![\w])", low):
        return True
    words = set(_tokens(low))
    return any(t in words for t in _tokens(name)
               if len(t) >= 3 and t not in ORG_WORDS and t not in _STOP)


def _is_name(name: str) -> bool:
    return bool(name) and any(c.isupper() or c.isdigit() for c in name) \
        and name.lower() not in _PRONOUNS


def _capitalised_in(name: str, text: str) -> bool:
    """Whether a capitalised word of ``name`` is written capitalised in ``text`` (a proper name)."""
    words = {w for w in re.findall(r"[A-Z][\w&-]*", text) if w.lower() not in _STOP}
    return any(w in words for w in re.findall(r"[A-Z][\w&-]*", name))


def _looks_like_org(name: str) -> bool:
    toks = _tokens(name)
    return bool(toks) and toks[-1] in ORG_WORDS


def _looks_like_person(name: str) -> bool:
    toks = name.split()
    return len(toks) in (2, 3) and all(t[:1].isupper() for t in toks) and not _looks_like_org(name)


def _match_sentence(evidence: str, sentences: list[str]) -> str | None:
    """The document sentence the model's evidence was copied from, or None.

    Exact copies and copies with small edits (similarity >= 90) match; so does a shortened
    or reworded copy of at least four words of which nine in ten occur in a single sentence,
    comparing words by their first five letters (a crude stemmer: "acquired" and "acquisition"
    agree, "acquired" and "founded" do not).
    """
    ev = re.sub(r"\s+", " ", evidence).strip()
    if not ev:
        return None
    for s in sentences:
        if ev == s or (len(ev) >= 20 and ev in s):
            return s
    from rapidfuzz import fuzz

    best = max(sentences, key=lambda s: fuzz.ratio(ev, s), default=None)
    if best is not None and fuzz.ratio(ev, best) >= 90:
        return best
    words = [w[:5] for w in _tokens(ev)]
    if len(words) >= 4:
        def share(s: str) -> float:
            have = {w[:5] for w in _tokens(s)}
            return sum(w in have for w in words) / len(words)

        best = max(sentences, key=share)
        if share(best) >= 0.9:
            return best
    return None


_AUX = frozenset("""is was were are am be been being has have had will would shall should can could
    may might must do does did also currently now then later recently reportedly""".split())
_ARTICLES = frozenset({"a", "an", "the"})


def normalize_predicate(text: str) -> str:
    """A predicate as a short lowercase snake_case label: auxiliaries and articles dropped.

    Taught in chapter "From text to a knowledge graph". Returns ``""`` when nothing that names
    a relation is left (``"is"``).

    Examples
    --------
    >>> normalize_predicate("has joined the board of"), normalize_predicate("Was born in")
    ('joined_board_of', 'born_in')
    >>> normalize_predicate("is")
    ''
    """
    words = re.findall(r"[^\W_]+", str(text).casefold().replace("\u2019", "'"))
    while words and words[0] in _AUX:
        words.pop(0)
    words = [w for w in words if w not in _ARTICLES]
    if not any(w not in _AUX and w not in _STOP for w in words):
        return ""
    return "_".join(words)


def predicate_words(relation: str) -> str:
    """A relation label as words: ``"joined_board_of"`` -> ``"joined board of"``.

    Examples
    --------
    >>> predicate_words("SUPPLIES_TO"), predicate_words("born_in")
    ('supplies to', 'born in')
    """
    return " ".join(w for w in re.split(r"[_\s]+", str(relation).strip().lower()) if w)


def strip_title(name: str, *, extended: bool = False) -> str:
    """A person's name without a leading title (:data:`TITLES`): "Dr. Lena Marsh" -> "Lena Marsh".

    With ``extended=True`` a title of :data:`ALL_TITLES` is dropped too, but only where at
    least two capitalised words remain and the last is not an organisation word
    (:data:`ORG_WORDS`): "General Corwin Hale" -> "Corwin Hale", "General Motors" stays.

    Examples
    --------
    >>> strip_title("Dr. Lena Marsh"), strip_title("Professor Ivo Tarn"), strip_title("Marsh")
    ('Lena Marsh', 'Ivo Tarn', 'Marsh')
    >>> strip_title("Coach Elin Rasmark", extended=True), strip_title("General Motors", extended=True)
    ('Elin Rasmark', 'General Motors')
    """
    words = name.split()
    while len(words) > 1 and words[0].rstrip(".").lower() in TITLES and words[1][:1].isupper():
        words = words[1:]
    while (extended and len(words) > 2 and words[0].rstrip(".").lower() in ALL_TITLES
           and all(w[:1].isupper() for w in words[1:]) and words[-1].lower() not in ORG_WORDS):
        words = words[1:]
    return " ".join(words)


def _stem4(word: str) -> str:
    return word[:4]


def _predicate_in(predicate: str, text: str) -> bool:
    """Whether a content word of the predicate (first four letters) occurs in ``text``."""
    have = {_stem4(w) for w in _tokens(text)}
    content = [w for w in predicate.split("_") if w not in _STOP and w not in _AUX and len(w) >= 3]
    return not content or any(_stem4(w) in have for w in content)


def validate_open_triples(records: Iterable[dict], doc: dict) -> tuple[list[Triple], list[Rejection]]:
    """Keep the open-extraction records that the document supports; say why others were refused.

    Taught in chapter "From text to a knowledge graph". A record is kept when

    - its predicate normalises (:func:`normalize_predicate`) to at most
      :data:`MAX_PREDICATE_WORDS` words that name a relation, and a content word of it occurs in
      the evidence (so the model cannot invent a relation the sentence does not state);
    - subject and object are two different proper names of the document (not pronouns); a
      person's title is dropped (:func:`strip_title`);
    - the numbered sentence mentions one name and, with the sentence before it (for "she" and
      "it"), both; if it does not, the first sentence that mentions both is used instead. The
      document's own sentence is stored as evidence.

    Returns
    -------
    (list of Triple, list of Rejection)

    Examples
    --------
    >>> doc = {"id": "d1", "text": "Dr. Ann Lee founded Acme in 2019. She lives in Oslo."}
    >>> recs = [{"sentence": 2, "subject": "Ann Lee", "predicate": "lives in", "object": "Oslo",
    ...          "subject_type": "person", "object_type": "place"}]
    >>> kept, refused = validate_open_triples(recs, doc)
    >>> kept[0].as_tuple(), kept[0].evidence
    (('Ann Lee', 'lives_in', 'Oslo'), 'She lives in Oslo.')
    """
    sentences = split_sentences(doc["text"])
    kept: list[Triple] = []
    rejected: list[Rejection] = []
    seen: set[tuple[str, str, str]] = set()
    for rec in records:
        def refuse(reason: str) -> None:
            rejected.append(Rejection(doc["id"], dict(rec) if isinstance(rec, dict) else {"record": rec},
                                      reason))

        if not isinstance(rec, dict):
            refuse("not a record")
            continue
        stype = str(rec.get("subject_type") or "other")
        otype = str(rec.get("object_type") or "other")
        stype = stype if stype in ENTITY_TYPES else "other"
        otype = otype if otype in ENTITY_TYPES else "other"
        subj = normalize_name(rec.get("subject", ""))
        obj = normalize_name(rec.get("object", ""))
        subj = strip_title(subj) if stype == "person" else subj
        obj = strip_title(obj) if otype == "person" else obj
        pred = normalize_predicate(rec.get("predicate", ""))
        if not pred:
            refuse(f"predicate {rec.get('predicate')!r} names no relation")
            continue
        if len(pred.split("_")) > MAX_PREDICATE_WORDS:
            refuse(f"predicate {rec.get('predicate')!r} is longer than {MAX_PREDICATE_WORDS} words")
            continue
        if not _is_name(subj) or not _is_name(obj):
            refuse("subject or object is not a name")
            continue
        if not (_capitalised_in(subj, doc["text"]) and _capitalised_in(obj, doc["text"])):
            refuse("subject or object is not a name in the text")
            continue
        if subj.lower() == obj.lower():
            refuse("subject and object are the same")
            continue
        n = rec.get("sentence")
        i = n - 1 if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= len(sentences) else None

        def supports(j: int) -> bool:
            here = [mentions(sentences[j], x) for x in (subj, obj)]
            window = sentences[j] if j == 0 else sentences[j - 1] + " " + sentences[j]
            return any(here) and all(mentions(window, x) for x in (subj, obj))

        if i is None or not supports(i):
            i = next((j for j, s in enumerate(sentences)
                      if mentions(s, subj) and mentions(s, obj)), None)
        if i is None:
            refuse(f"no sentence of the document mentions both {subj!r} and {obj!r}")
            continue
        window = sentences[i] if i == 0 else sentences[i - 1] + " " + sentences[i]
        if not _predicate_in(pred, window):
            refuse(f"predicate {pred!r} does not occur in the sentence")
            continue
        key = (subj.lower(), pred, obj.lower())
        if key in seen:
            continue
        seen.add(key)
        kept.append(Triple(subj, pred, obj, doc["id"], sentences[i], "", stype, otype))
    return kept, rejected


def validate_triples(records: Iterable[dict], doc: dict, schema: Any = None
                     ) -> tuple[list[Triple], list[Rejection]]:
    """Keep the model's records that the document supports; say why the others were refused.

    Taught in chapter "From text to a knowledge graph". With ``schema=None`` (open extraction,
    the default) this is :func:`validate_open_triples`. With a domain schema, a record is kept when

    - its relation is in :data:`RELATIONS`, and subject and object are two different names
      (not pronouns such as "the company"), each written as a proper name (capitalised) in
      the document, so "Hotels and retailers" made from "hotels and retailers" is refused;
    - its evidence is a sentence of the document: an exact copy, a copy with small edits, or a
      shortened or reworded copy whose words come from one sentence (the document's own
      sentence is stored, never the model's version);
    - that sentence mentions both the subject and the object (:func:`mentions`).

    A person relation (:data:`PERSON_RELATIONS`) written backwards - a company as subject and
    a person as object - is turned around. Duplicates within the document are dropped.

    Returns
    -------
    (list of Triple, list of Rejection)
    """
    if schema is None:
        return validate_open_triples(records, doc)
    relations = tuple(_schema_relations(schema))
    sentences = split_sentences(doc["text"])
    kept: list[Triple] = []
    rejected: list[Rejection] = []
    seen: set[tuple[str, str, str]] = set()
    for rec in records:
        def refuse(reason: str) -> None:
            rejected.append(Rejection(doc["id"], dict(rec) if isinstance(rec, dict) else {"record": rec},
                                      reason))

        if not isinstance(rec, dict):
            refuse("not a record")
            continue
        subj = normalize_name(rec.get("subject", ""))
        obj = normalize_name(rec.get("object", ""))
        rel = str(rec.get("relation", "")).strip().upper()
        verb = str(rec.get("verb", "") or "").strip() if rel == FALLBACK_RELATION else ""
        if rel not in relations:
            refuse(f"relation {rel!r} is not in the vocabulary")
            continue
        if not _is_name(subj) or not _is_name(obj):
            refuse("subject or object is not a name")
            continue
        if not (_capitalised_in(subj, doc["text"]) and _capitalised_in(obj, doc["text"])):
            refuse("subject or object is not a name in the text")
            continue
        if subj.lower() == obj.lower():
            refuse("subject and object are the same")
            continue
        sentence = _match_sentence(str(rec.get("evidence", "")), sentences)
        if sentence is None:
            refuse("evidence is not a sentence of the document")
            continue
        missing = [n for n in (subj, obj) if not mentions(sentence, n)]
        if missing:
            refuse(f"evidence does not mention {' or '.join(repr(m) for m in missing)}")
            continue
        if rel in PERSON_RELATIONS and _looks_like_org(subj) and _looks_like_person(obj):
            subj, obj = obj, subj
        key = (subj.lower(), rel, obj.lower())
        if key in seen:
            continue
        seen.add(key)
        kept.append(Triple(subj, rel, obj, doc["id"], sentence, verb))
    return kept, rejected


def extract_triples(doc: dict | str, *, schema: Any = None, rejected: list | None = None) -> list[Triple]:
    """Extract the facts of one document as validated triples with provenance.

    Taught in chapter "From text to a knowledge graph".

    Parameters
    ----------
    doc : dict or str
        ``{"id", "text"}`` (as from :func:`gaba.data.news.load_documents`) or a plain string
        (id ``d01``).
    schema : None, dict or list, optional
        None (default): open extraction, predicates taken from the text. A domain schema
        (e.g. :data:`gaba.prompts.NEWS_SCHEMA`) restricts relations to its names.
    rejected : list, optional
        If given, the :class:`Rejection` records are appended to it.

    Returns
    -------
    list of Triple
        Names as written in the text (not yet reconciled).

    Raises
    ------
    DocumentError
        The document is empty, not text, or longer than :data:`MAX_DOCUMENT_TOKENS`.
    LLMOutputError
        The model's answer failed the schema after retries (the message names the document).

    Examples
    --------
    >>> from gaba.data.news import load_documents                    # doctest: +SKIP
    >>> for t in extract_triples(load_documents()[0]): print(t)       # doctest: +SKIP
    Aurora Cell Works -[SUPPLIES_TO]-> Kestrel Motors
    """
    d = _as_document(doc)
    if schema is None and len(candidate_names(d["text"])) < 2:
        return []                          # a fact links two names; no model call
    resp = _call_extractor(d, schema)
    kept, refused = validate_triples(resp.data["facts"], d, schema)
    if rejected is not None:
        rejected.extend(refused)
    return kept


# --- the per-document triples cache -------------------------------------------------------

def kg_cache_dir(cache_dir: str | Path | None = None) -> Path:
    """The triples cache folder: ``cache_dir``, else ``GABA_KG_CACHE``, else ``assets/kg-cache``."""
    return Path(cache_dir or os.environ.get("GABA_KG_CACHE") or KG_CACHE_DIR)


def triples_cache_key(text: str, schema: Any = None) -> str:
    """sha256 of the document text, the extraction request and the model identity.

    In open mode the request itself is hashed (its prompt lists the document's candidate names,
    so a change to how names are found is a cache miss for exactly the documents it changes);
    in schema mode, the prompt version (:func:`prompt_version`).
    """
    if schema is None:
        request = {"system": OPEN_EXTRACTION_SYSTEM, "prompt": extraction_prompt(text),
                   "schema": open_extraction_schema(candidate_names(text)),
                   "max_tokens": OPEN_MAX_TOKENS}
        blob = json.dumps({"text": text, "request": request, "model": llm._identity()},
                          sort_keys=True, ensure_ascii=False)
    else:
        blob = json.dumps({"text": text, "prompt": prompt_version(schema), "model": llm._identity()},
                          sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _read_entry(path: Path, key: str) -> dict | None | bool:
    """The entry at ``path``; None if absent; False if present but corrupt."""
    if not path.is_file():
        return None
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        ok = (isinstance(entry, dict) and entry.get("key") == key
              and isinstance(entry.get("facts"), list)
              and all(isinstance(f, dict) and all(isinstance(f.get(k), str) for k in
                                                   ("subject", "object"))
                      for f in entry["facts"]))
        return entry if ok else False
    except (OSError, ValueError, UnicodeDecodeError):
        return False


def _write_entry(path: Path, entry: dict) -> None:
    # atomic (readers see the old entry or the whole new one), mode 0666 minus the umask
    atomic_write_text(path, json.dumps(entry, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def _recorded_seconds(resp) -> float:
    """Model seconds of a response: its wall time, or the time recorded in the LLM cache."""
    if not resp.cached:
        return round(resp.seconds, 3)
    try:
        entry = json.loads(cache_path(resp.key).read_text(encoding="utf-8"))
        return float(entry["response"].get("seconds", 0.0))
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0


def _extract_one(d: dict, key: str, path: Path, schema: Any) -> dict:
    """Extract one document and record its entry in the triples cache (the unit of resumption)."""
    resp = _call_extractor(d, schema)
    entry = {"format": CACHE_FORMAT, "key": key, "doc_id": d["id"],
             "prompt_version": prompt_version(schema), "model": resp.model,
             "seconds": _recorded_seconds(resp), "usage": resp.usage,
             "llm_key": resp.key, "facts": resp.data["facts"]}
    _write_entry(path, entry)
    return entry


def _failure(doc_id: str, exc: Exception) -> str:
    """The error of one document, naming it."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if text.startswith("document ") else f"document {doc_id!r}: {text}"


def extract_corpus(documents: Any = None, *, schema: Any = None, cache_dir: str | Path | None = None,
                   rebuild: bool = False, progress: bool = True,
                   concurrency: int | None = None) -> Extraction:
    """Extract every document, through the per-document triples cache, several calls at a time.

    Taught in chapter "From text to a knowledge graph". Each document's model records are
    stored in ``<cache_dir>/<key>.json``, keyed by :func:`triples_cache_key` (document text,
    prompt version, model), as soon as that document is done. A hit makes no model call, so an
    interrupted run (Ctrl-C, a crash) resumes where it stopped; a corrupt entry is re-extracted
    and rewritten; a document whose extraction fails is reported in ``Extraction.failed``
    (message naming the document) while the others go on, and nothing is written for it.
    A document longer than :data:`PASSAGE_WORDS` words is extracted passage by passage
    (:func:`split_document`): its triples carry the passage id (``"wp01#2"``), and a passage
    that fails loses only that passage.

    Up to ``concurrency`` documents are extracted at once (threads; the results are assembled
    in document order, so the graph does not depend on which call finished first). On Ctrl-C
    the documents not started are dropped, the calls in flight finish and are recorded, and
    ``KeyboardInterrupt`` propagates.

    Parameters
    ----------
    documents : None, list or path
        Anything :func:`gaba.data.news.load_documents` accepts (default: the news corpus).
    schema : None, dict or list, optional
        None: open extraction (default); else a domain schema (see :func:`extract_triples`).
    cache_dir : str or Path, optional
        Folder of the triples cache (default :func:`kg_cache_dir`).
    rebuild : bool
        Ignore (and overwrite) cached entries.
    progress : bool
        Show a tqdm progress bar over the documents (documents/s, ETA, cache hits, failures).
    concurrency : int, optional
        Model calls in flight (default :func:`gaba.llm.concurrency`: ``GABA_CONCURRENCY``, else
        1 for the local model and 8 for an OpenAI-compatible endpoint).

    Raises
    ------
    DocumentError
        Before any model call, if a document is empty, not text or too long.
    CacheMiss
        Offline (``GABA_OFFLINE=1``) and a document's extraction was never recorded.

    Examples
    --------
    >>> ex = extract_corpus(progress=False, concurrency=8)               # doctest: +SKIP
    >>> print(ex.summary())                                               # doctest: +SKIP
    14 documents in 0.1 s: 0 extracted (0.00 documents/s, 8 in flight), 14 from the cache, 0 failed
    """
    from tqdm import tqdm

    t0 = time.perf_counter()
    docs = load_documents(documents)
    for d in docs:
        check_document(d)
    docs = [p for d in docs for p in split_document(d)]   # long documents: passage by passage
    workers = llm.concurrency(concurrency)
    folder = kg_cache_dir(cache_dir)
    out = Extraction([], [], {}, {}, {"hits": 0, "misses": 0, "rebuilt": 0}, concurrency=workers)
    entries: dict[int, dict | None] = {}     # document index -> entry (None: no fact possible)
    todo: dict[str, list[int]] = {}          # cache key -> indexes of the documents to extract
    for i, d in enumerate(docs):
        key = triples_cache_key(d["text"], schema)
        entry = None if rebuild else _read_entry(folder / f"{key}.json", key)
        if entry is False:
            out.cache["rebuilt"] += 1
            entry = None
        if entry is not None:
            out.cache["hits"] += 1
            entries[i] = entry
            continue
        out.cache["misses"] += 1
        if schema is None and len(candidate_names(d["text"])) < 2:
            entries[i] = None                   # fewer than two names: no fact, no model call
        else:
            todo.setdefault(key, []).append(i)  # identical texts are extracted once
    failed: dict[int, str] = {}
    bar = tqdm(total=len(docs), initial=len(docs) - sum(map(len, todo.values())),
               desc="extracting triples", unit="doc", disable=not progress, file=sys.stderr)

    def finish(key: str, entry: dict | None, exc: Exception | None) -> None:
        for i in todo[key]:
            if exc is None:
                entries[i] = entry
            else:
                failed[i] = _failure(docs[i]["id"], exc)
        bar.update(len(todo[key]))
        bar.set_postfix_str(f"cached {out.cache['hits']}, failed {len(failed)}", refresh=False)

    try:
        if workers == 1 or len(todo) <= 1:
            for key, idx in todo.items():
                try:
                    entry = _extract_one(docs[idx[0]], key, folder / f"{key}.json", schema)
                except CacheMiss:
                    raise                  # offline with no recording: a setup error, not this document's
                except GabaError as exc:   # malformed output, a context overflow, a failing endpoint
                    finish(key, None, exc)
                else:
                    finish(key, entry, None)
        else:
            import jsonschema  # noqa: F401 - imported once here, not raced for by the threads

            pool = ThreadPoolExecutor(max_workers=min(workers, len(todo)),
                                      thread_name_prefix="gaba-extract")
            futures = {pool.submit(_extract_one, docs[idx[0]], key, folder / f"{key}.json",
                                   schema): key for key, idx in todo.items()}
            try:
                for fut in as_completed(futures):
                    try:
                        entry = fut.result()
                    except CacheMiss:
                        raise
                    except GabaError as exc:
                        finish(futures[fut], None, exc)
                    else:
                        finish(futures[fut], entry, None)
            finally:                       # on an error or Ctrl-C: drop what has not started; the
                pool.shutdown(wait=True, cancel_futures=True)   # calls in flight finish, recorded
    finally:
        bar.close()
    for i, d in enumerate(docs):           # assembled in document order: a deterministic result
        if i in failed:
            out.failed[d["id"]] = failed[i]
            continue
        entry = entries[i]
        if entry is None:
            out.seconds[d["id"]], out.raw[d["id"]] = 0.0, []
            continue
        out.seconds[d["id"]] = float(entry.get("seconds", 0.0))
        out.raw[d["id"]] = entry["facts"]
        out.usage[d["id"]] = dict(entry.get("usage") or {})
        kept, refused = validate_triples(entry["facts"], d, schema)
        out.triples.extend(kept)
        out.rejected.extend(refused)
    out.wall_seconds = time.perf_counter() - t0
    return out


# --- entity reconciliation ----------------------------------------------------------------

#: Lowercase words that may join the capitalised words of one name ("University of Caldermoor",
#: "Ludwig van Beethoven"); "and" and "for" are left out, since they join two names as often.
NAME_CONNECTORS = ("of the", "of", "de", "du", "del", "della", "der", "van", "von", "da", "di", "la", "le")
_CONNECTOR_WORDS = frozenset(w for c in NAME_CONNECTORS for w in c.split())
_CAP = r"[A-Z][\w&'’-]*"
_CONNECT = "|".join(c.replace(" ", r"\s+") for c in NAME_CONNECTORS)
_NAME_RUN = re.compile(rf"{_CAP}(?:\s+(?:(?:{_CONNECT})\s+)?{_CAP})*")


def capitalised_names(text: str, *, extended_titles: bool = False) -> list[str]:
    """Runs of capitalised words in ``text``: candidate names, with their parts.

    A run may hold connector words (:data:`NAME_CONNECTORS`): "University of Caldermoor" is one
    name; its capitalised parts ("University", "Caldermoor") are listed after it. Leading
    function words and a person's title (:func:`strip_title`, with ``extended_titles`` its
    ``extended`` list) are dropped.

    Examples
    --------
    >>> capitalised_names("Before Orchard, Kim founded Tallyroute with Pacific Crest Logistics.")
    ['Orchard', 'Kim', 'Tallyroute', 'Pacific Crest Logistics']
    >>> capitalised_names("Dr. Ann Lee joined the University of Caldermoor.")
    ['Ann Lee', 'University of Caldermoor', 'University', 'Caldermoor']
    """
    names = []

    def add(run: str) -> None:
        words = normalize_name(run).split()
        while words and words[0].lower() in _STOP:
            words = words[1:]
        name = strip_title(" ".join(words), extended=extended_titles)
        if name and name.rstrip(".").lower() not in TITLES:
            names.append(name)

    for m in _NAME_RUN.finditer(text):
        run = m.group(0)
        add(run)
        parts = re.split(rf"\s+(?:{_CONNECT})\s+", run)
        if len(parts) > 1:
            for part in parts:
                add(part)
    return names


#: Relation of a co-occurrence edge whose connecting words do not make a short predicate.
COOCCURRENCE_RELATION = "mentioned_with"
#: A co-occurrence edge takes the words between its two names as its relation when there
#: are at most this many of them and no other name ("Sevrine married Emeric" -> ``married``).
COOCCURRENCE_MAX_WORDS = 6


def _maximal_mentions(sentence: str, names: Iterable[str]) -> list[str]:
    """The names written in ``sentence`` in reading order, longest first where two overlap."""
    spans: list[tuple[int, int, str]] = []
    for n in sorted(set(names), key=lambda n: (-len(n), n)):
        for m in re.finditer(rf"(?<![\w]){re.escape(n)}(?![\w])", sentence):
            if not any(a < m.end() and m.start() < b for a, b, _ in spans):
                spans.append((m.start(), m.end(), n))
    return [n for _, _, n in sorted(spans)]


def cooccurrence_triples(doc: dict, names: Iterable[str] | None = None) -> list[Triple]:
    """A rule, not the model: link every two names written in the same sentence.

    Taught in chapter "From text to a knowledge graph". For each sentence of ``doc``
    (:func:`split_sentences`) and each two of its names (``names``, default the document's
    :func:`candidate_names`; where names overlap, the longest), in reading order: one triple
    whose evidence is the sentence and whose relation is the words between the two names
    as a predicate (:func:`normalize_predicate`) when there are at most
    :data:`COOCCURRENCE_MAX_WORDS` of them and no other name, else :data:`COOCCURRENCE_RELATION`. Nothing
    here knows a word of any domain; the model's triples say *how* two names are related,
    this rule only makes sure that two names a sentence puts together are connected.

    Examples
    --------
    >>> doc = {"id": "d1", "text": "Ann Lee founded Acme in Oslo. Acme hired Bo Tarn."}
    >>> [t.as_tuple() for t in cooccurrence_triples(doc)]
    [('Ann Lee', 'founded', 'Acme'), ('Ann Lee', 'mentioned_with', 'Oslo'), ('Acme', 'mentioned_with', 'Oslo'), ('Acme', 'hired', 'Bo Tarn')]
    """
    text = doc["text"]
    names = list(candidate_names(text) if names is None else names)
    out: list[Triple] = []
    seen: set[tuple[str, str]] = set()
    for sentence in split_sentences(text):
        found = list(dict.fromkeys(_maximal_mentions(sentence, names)))
        for i, a in enumerate(found):
            for b in found[i + 1:]:
                if (a, b) in seen or (b, a) in seen:
                    continue
                seen.add((a, b))
                m = re.search(rf"(?<![\w]){re.escape(a)}(?![\w])(.*?)(?<![\w]){re.escape(b)}(?![\w])",
                              sentence)
                between = m.group(1) if m else ""
                words = re.findall(r"[^\W_]+", between)
                short = 0 < len(words) <= COOCCURRENCE_MAX_WORDS and not _maximal_mentions(between, found)
                rel = normalize_predicate(between) if short else ""
                out.append(Triple(a, rel or COOCCURRENCE_RELATION, b, str(doc["id"]), sentence))
    return out


def reconcile_entities(names: Iterable[str], documents: Any = None, *,
                       extended_titles: bool = False) -> dict[str, str]:
    """Build an alias table: every surface form -> its canonical (longest) name.

    Taught in chapter "From text to a knowledge graph". Names are normalised
    (:func:`normalize_name`) and compared case-insensitively. A name whose words are the
    beginning of exactly one longer name is an alias of it ("Kestrel" -> "Kestrel Motors",
    "Pacific Crest" -> "Pacific Crest Logistics"); failing that, a name whose words end
    exactly one longer name is too ("Voss" -> "Mara Voss"). The longer names come from
    ``names`` and from the capitalised names of ``documents`` (:func:`capitalised_names`),
    which also contribute the short forms the texts use. A name matching two different
    entities ("Pacific" with "Pacific Crest Logistics" and "Pacific Bank") stays itself, and
    so does a name made only of organisation words (:data:`ORG_WORDS`, e.g. "Motors").

    Parameters
    ----------
    names : iterable of str
        Surface forms, e.g. the subjects and objects of extracted triples.
    documents : None, list or path, optional
        Documents whose text supplies long and short forms (anything ``load_documents``
        accepts); None uses only ``names``.
    extended_titles : bool
        Drop the titles of :data:`ALL_TITLES` from the documents' names too (open extraction
        does), so "Coach Elin Rasmark" is not made the canonical form of "Elin Rasmark".

    Returns
    -------
    dict
        Surface form (as given, and normalised) -> canonical name, for every input name and
        every document name that resolves to one of them.

    Examples
    --------
    >>> table = reconcile_entities(["Kestrel", "Kestrel Motors", "Voss", "Mara Voss", "Pacific"])
    >>> table["Kestrel"], table["Voss"], table["Pacific"]
    ('Kestrel Motors', 'Mara Voss', 'Pacific')
    """
    names = [n for n in names if isinstance(n, str)]
    doc_names: list[str] = []
    if documents is not None:
        docs = documents if (isinstance(documents, list) and documents and isinstance(documents[0], dict)
                             and "text" in documents[0]) else load_documents(documents)
        for d in docs:
            doc_names.extend(capitalised_names(d["text"], extended_titles=extended_titles))
    # display form of each normalised, case-folded name: the most frequent spelling
    spellings: dict[str, Counter] = {}
    for n in list(names) + doc_names:
        norm = normalize_name(n)
        if norm and _is_name(norm):
            spellings.setdefault(norm.lower(), Counter())[norm] += 1
    display = {k: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0] for k, c in spellings.items()}
    toks = {k: tuple(_tokens(k)) for k in display}
    # resolve longer names first, so a short name can follow a chain to its final canonical
    order = sorted(display, key=lambda k: (-len(toks[k]), k))
    canon: dict[str, str] = {}
    for k in order:
        t = toks[k]
        if not t or all(w in ORG_WORDS for w in t):   # "Motors" alone names no one
            canon[k] = k
            continue
        longer = [c for c in canon if len(toks[c]) > len(t)]
        prefix = {canon[c] for c in longer if toks[c][:len(t)] == t}
        # "Kestrel Motors" is not a short form of "CEO of Kestrel Motors": no suffix into a connected name
        suffix = {canon[c] for c in longer if toks[c][-len(t):] == t
                  and not any(w in _CONNECTOR_WORDS for w in toks[c])}
        if len(prefix) == 1:
            canon[k] = prefix.pop()
        elif not prefix and len(suffix) == 1:
            canon[k] = suffix.pop()
        else:
            canon[k] = k
    extracted = {normalize_name(n).lower() for n in names}
    used_canon = {canon[k] for k in extracted if k in canon}
    table: dict[str, str] = {}
    for n in sorted(set(names)):
        k = normalize_name(n).lower()
        table[n] = display[canon[k]] if k in canon else normalize_name(n)
    for k in sorted(canon):
        if k in extracted or canon[k] in used_canon:
            table.setdefault(display[k], display[canon[k]])
    return table


def apply_aliases(triples: Iterable[Triple], table: dict[str, str]) -> list[Triple]:
    """Rename subjects and objects to their canonical names; drop triples that became loops."""
    out = []
    for t in triples:
        s = table.get(t.subject, normalize_name(t.subject))
        o = table.get(t.object, normalize_name(t.object))
        if s.lower() != o.lower():
            out.append(dataclasses.replace(t, subject=s, object=o))
    return out


def evaluate_aliases(table: dict[str, str], gold: dict[str, str] | None = None):
    """Compare an alias table with the gold aliases: one row per gold alias, plus merges made.

    Taught in chapter "From text to a knowledge graph".

    Returns
    -------
    (pandas.DataFrame, dict)
        Rows ``alias, expected, resolved, correct``; and a summary with ``gold`` (number of
        gold aliases), ``resolved`` (correct), ``recall``, ``merges`` (table entries whose
        name changed), ``wrong_merges`` and ``precision`` of those merges.
    """
    import pandas as pd

    if gold is None:
        gold = load_gold_aliases()
    low = {k.lower(): v for k, v in table.items()}
    rows = []
    for alias, expected in sorted(gold.items()):
        got = table.get(alias, low.get(alias.lower()))
        rows.append({"alias": alias, "expected": expected, "resolved": got,
                     "correct": got is not None and got.lower() == expected.lower()})
    df = pd.DataFrame(rows)
    canonical = {v.lower() for v in gold.values()}
    gold_low = {k.lower(): v.lower() for k, v in gold.items()}
    merges = {k: v for k, v in table.items() if normalize_name(k).lower() != v.lower()}
    wrong = {k: v for k, v in merges.items()
             if gold_low.get(normalize_name(k).lower(),
                             normalize_name(k).lower() if normalize_name(k).lower() in canonical
                             else None) != v.lower()}
    summary = {"gold": len(gold), "resolved": int(df["correct"].sum()),
               "recall": float(df["correct"].mean()) if len(df) else float("nan"),
               "merges": len(merges), "wrong_merges": len(wrong),
               "precision": (1 - len(wrong) / len(merges)) if merges else float("nan")}
    return df, summary


# --- scoring against gold -----------------------------------------------------------------

def _canonical_fact(s: str, r: str, o: str) -> tuple[str, str, str]:
    s, o = normalize_name(s).lower(), normalize_name(o).lower()
    if r in INVERSE_RELATIONS:
        s, r, o = o, INVERSE_RELATIONS[r], s
    if r in SYMMETRIC_RELATIONS and o < s:
        s, o = o, s
    return (s, r, o)


def _facts(items: Any) -> set[tuple[str, str, str]]:
    import networkx as nx

    if isinstance(items, nx.Graph):
        items = [(u, d.get("relation", k), v) for u, v, k, d in items.edges(keys=True, data=True)] \
            if items.is_multigraph() else [(u, d.get("relation"), v) for u, v, d in items.edges(data=True)]
    out = set()
    for it in items:
        if isinstance(it, Triple):
            out.add(_canonical_fact(*it.as_tuple()))
        elif isinstance(it, dict):
            out.add(_canonical_fact(it["subject"], it["relation"], it["object"]))
        else:
            s, r, o = it
            out.add(_canonical_fact(s, r, o))
    return out


def score_triples(predicted: Any, gold: Any = None, *, match: str = "relation"):
    """Precision, recall and F1 of extracted facts against gold facts, overall and per relation.

    Taught in chapter "From text to a knowledge graph". Facts are compared as
    ``(subject, relation, object)`` with case-insensitive names; ``(a, BUYS_FROM, b)`` counts as
    ``(b, SUPPLIES_TO, a)`` and COMPETES_WITH ignores direction. Names are compared as given:
    reconcile the predicted names first, or every "Kestrel" counts as a miss.

    Parameters
    ----------
    predicted : graph, list of Triple, dicts or (s, r, o) tuples
    gold : same, optional
        Default: :func:`gaba.data.news.load_gold_triples`.
    match : {"relation", "pair"}
        ``"relation"`` (default) compares whole facts, relation labels included: right for a
        schema whose labels the gold uses. ``"pair"`` compares only which two entities are
        linked (either direction), the fair measure for open extraction, whose predicates are
        the text's words ("will supply", "supplies") rather than the gold's labels. A pair
        result has only the ``overall`` row.

    Returns
    -------
    pandas.DataFrame
        Index: each relation, then ``overall``. Columns: ``gold``, ``extracted``, ``correct``,
        ``precision``, ``recall``, ``f1`` (NaN where undefined).

    Examples
    --------
    >>> gold = [("A", "SUPPLIES_TO", "B"), ("C", "CEO_OF", "A")]
    >>> float(score_triples([("B", "BUYS_FROM", "A"), ("C", "FOUNDED", "A")], gold).loc["overall", "recall"])
    0.5
    >>> float(score_triples([("B", "buys_from", "A"), ("A", "founded_by", "C")], gold, match="pair").loc["overall", "recall"])
    1.0
    """
    import pandas as pd

    if match not in ("relation", "pair"):
        raise ValueError(f"match must be 'relation' or 'pair', not {match!r}")
    if gold is None:
        gold = load_gold_triples()
    P, G = _facts(predicted), _facts(gold)
    if match == "pair":
        P = {frozenset((s, o)) for s, _, o in P if s != o}
        G = {frozenset((s, o)) for s, _, o in G if s != o}

    def row(p: set, g: set) -> dict:
        c = len(p & g)
        prec = c / len(p) if p else float("nan")
        rec = c / len(g) if g else float("nan")
        f1 = 2 * prec * rec / (prec + rec) if p and g and (prec + rec) > 0 else (
            0.0 if p and g else float("nan"))
        return {"gold": len(g), "extracted": len(p), "correct": c,
                "precision": prec, "recall": rec, "f1": f1}

    if match == "pair":
        df = pd.DataFrame.from_dict({"overall": row(P, G)}, orient="index")
        df.index.name = "relation"
        return df
    rels = sorted({f[1] for f in P | G}, key=lambda r: (RELATIONS.index(r) if r in RELATIONS else 99, r))
    rows = {r: row({f for f in P if f[1] == r}, {f for f in G if f[1] == r}) for r in rels}
    rows["overall"] = row(P, G)
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "relation"
    return df


def triple_differences(predicted: Any, gold: Any = None) -> tuple[list, list]:
    """The gold facts a prediction misses, and the predicted facts that are not gold.

    Taught in chapter "From text to a knowledge graph". Facts are matched as in
    :func:`score_triples`. Items are returned as given (a graph's edges as :class:`Triple`).

    Returns
    -------
    (missing, extra) : (list, list)

    Examples
    --------
    >>> triple_differences([("A", "CEO_OF", "B")], [("A", "FOUNDED", "B")])
    ([('A', 'FOUNDED', 'B')], [('A', 'CEO_OF', 'B')])
    """
    import networkx as nx

    if gold is None:
        gold = load_gold_triples()
    if isinstance(predicted, nx.Graph):
        predicted = graph_triples(predicted)
    P, G = _facts(predicted), _facts(gold)
    missing = [g for g in gold if not (_facts([g]) <= P)]
    extra = [p for p in predicted if not (_facts([p]) <= G)]
    return missing, extra


# --- the graph ----------------------------------------------------------------------------

def build_knowledge_graph(documents: Any = None, *, schema: Any = None,
                          cache_dir: str | Path | None = None, rebuild: bool = False,
                          concurrency: int | None = None,
                          progress: bool = True, cooccurrence: bool | None = None):
    """Build the knowledge graph of a corpus: extraction (cached), validation, reconciliation.

    Taught in chapter "From text to a knowledge graph". Public as
    ``gaba.graph.build_knowledge_graph``.

    Parameters
    ----------
    documents : None, list or path
        Default: the book's 14 news snippets. Also a list of strings or ``{"id", "text"}``
        dicts, a JSON file of such a list, or a folder of ``.txt``/``.md`` files.
    schema : None, dict or list, optional
        None (default): open extraction, each relation a short predicate from the text
        (``founded``, ``born_in``). A domain schema such as :data:`gaba.prompts.NEWS_SCHEMA`
        restricts relations to its names (schema-guided extraction).
    cache_dir : str or Path, optional
        Folder of the per-document triples cache (default ``assets/kg-cache``, or
        ``GABA_KG_CACHE``). Delete it (or pass ``rebuild=True``) to re-extract.
    rebuild : bool
        Re-extract every document, ignoring cached triples.
    progress : bool
        Show a progress bar over the documents.
    concurrency : int, optional
        Extraction calls in flight (see :func:`extract_corpus`; default ``GABA_CONCURRENCY``,
        else 1 for the local model and 8 for an OpenAI-compatible endpoint). Each document's
        extraction is recorded as soon as it is done, so an interrupted build, run again,
        only extracts the documents it had not finished; the graph is built once, at the end.
    cooccurrence : bool, optional
        Also link two names that share a sentence when the model linked them nowhere
        (:func:`cooccurrence_triples`, a rule; a one-word name only if the model used it
        somewhere). Default: on for open extraction, off with a schema.

    Returns
    -------
    networkx.MultiDiGraph
        Nodes are canonical entity names with attributes ``aliases`` (sorted list of the other
        surface forms, titled forms such as "Dr. Lena Marsh" included) and, in open mode,
        ``type``. Edges go subject -> object with key = relation and attributes ``relation``,
        ``doc_id``, ``evidence`` (first source), ``sources`` (every ``[doc_id, evidence]``),
        for RELATED_TO ``verb``, and ``rule="co-occurrence"`` on edges the rule added.
        ``G.graph`` records ``documents``, ``failed`` (doc_id -> error), ``cache`` counts,
        ``schema`` (``"open"`` or the relation names), ``prompt_version`` and
        ``cooccurrence``.

    Raises
    ------
    DocumentError
        A document is empty, not text, or too long (raised before any model call).

    Examples
    --------
    >>> G = build_knowledge_graph(progress=False)                     # doctest: +SKIP
    >>> G.edges["Aurora Cell Works", "Kestrel Motors", "SUPPLIES_TO"]["doc_id"]  # doctest: +SKIP
    'n01'
    """
    import networkx as nx

    docs = load_documents(documents)
    ex = extract_corpus(docs, schema=schema, cache_dir=cache_dir, rebuild=rebuild, progress=progress,
                        concurrency=concurrency)
    names = sorted({t.subject for t in ex.triples} | {t.object for t in ex.triples})
    table = reconcile_entities(names, docs, extended_titles=schema is None)
    triples = apply_aliases(ex.triples, table)
    if cooccurrence is None:
        cooccurrence = schema is None
    rule_triples: set[Triple] = set()
    if cooccurrence:
        linked = {frozenset((t.subject, t.object)) for t in triples}
        # a one-word capitalised run may be an ordinary word at a sentence start ("Later"):
        # the rule links it only if the model used it as a name somewhere in the corpus
        used = {m.casefold() for n in names for m in (n, table.get(n, n))}
        raw = [r for d in docs for r in cooccurrence_triples(
            d, [n for n in candidate_names(d["text"]) if " " in n or n.casefold() in used])]
        extra = reconcile_entities(sorted({r.subject for r in raw} | {r.object for r in raw}), docs,
                                   extended_titles=schema is None)
        for r in apply_aliases(raw, {**extra, **table}):
            pair = frozenset((r.subject, r.object))
            if pair not in linked:
                linked.add(pair)
                rule_triples.add(r)
                triples.append(r)
    G = nx.MultiDiGraph(documents=len(docs), failed=dict(ex.failed), cache=dict(ex.cache),
                        schema="open" if schema is None else list(_schema_relations(schema)),
                        prompt_version=prompt_version(schema), cooccurrence=bool(cooccurrence))
    types: dict[str, Counter] = {}
    for t in triples:
        for n, ty in ((t.subject, t.subject_type), (t.object, t.object_type)):
            if n not in G:
                G.add_node(n, aliases=[])
            if ty:
                types.setdefault(n, Counter())[ty] += 1
        if G.has_edge(t.subject, t.object, key=t.relation):
            G.edges[t.subject, t.object, t.relation]["sources"].append([t.doc_id, t.evidence])
            continue
        attrs = {"relation": t.relation, "doc_id": t.doc_id, "evidence": t.evidence,
                 "sources": [[t.doc_id, t.evidence]]}
        if t.verb:
            attrs["verb"] = t.verb
        if t in rule_triples:
            attrs["rule"] = "co-occurrence"
        G.add_edge(t.subject, t.object, key=t.relation, **attrs)
    for alias, canonical in table.items():
        if canonical in G and alias != canonical and alias not in G.nodes[canonical]["aliases"]:
            G.nodes[canonical]["aliases"].append(alias)
    for n, c in types.items():
        G.nodes[n]["type"] = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    _add_titled_aliases(G, docs, extended=schema is None)
    for n in G:
        G.nodes[n]["aliases"] = sorted(G.nodes[n]["aliases"])
    parts = ex.cache["hits"] + ex.cache["misses"]    # extract_corpus counts every passage once
    G.graph["passages"] = parts
    if ex.failed:
        what = (f"{len(ex.failed)} of {len(docs)} documents" if parts == len(docs) else
                f"{len(ex.failed)} of {parts} passages ({len(docs)} documents)")
        warnings.warn(f"{what} could not be extracted and are "
                      f"missing from the graph: " + "; ".join(f"{k}: {v}" for k, v in
                                                              sorted(ex.failed.items())),
                      stacklevel=2)
    return G


def _add_titled_aliases(G, docs: list[dict], *, extended: bool = False) -> None:
    """Add "Dr. Lena Marsh" as an alias of person node "Lena Marsh" where a text writes it so.

    With ``extended``, any title of :data:`ALL_TITLES` that :func:`strip_title` would drop
    ("Coach Elin Rasmark") counts too.
    """
    text = "\n".join(d["text"] for d in docs)
    for n, data in G.nodes(data=True):
        if data.get("type") != "person":
            continue
        for m in re.finditer(rf"\b([A-Z][\w'’-]*)\.?\s+{re.escape(n)}\b", text):
            alias = m.group(0)
            if m.group(1).lower() in TITLES or (extended and strip_title(alias, extended=True) == n):
                if alias not in data["aliases"]:
                    data["aliases"].append(alias)


def graph_triples(G, *, rules: bool = True) -> list[Triple]:
    """The edges of a graph built by :func:`build_knowledge_graph`, as triples (sorted).

    ``rules=False`` leaves out the edges a rule added (``rule`` attribute), keeping the model's.
    """
    out = [Triple(u, d.get("relation", k), v, d.get("doc_id", ""), d.get("evidence", ""),
                  d.get("verb", "")) for u, v, k, d in G.edges(keys=True, data=True)
           if rules or not d.get("rule")]
    return sorted(out, key=lambda t: (t.subject, t.relation, t.object))


def save_graph(G, path: str | Path) -> Path:
    """Write a knowledge graph to JSON (node-link) or, for a ``.graphml`` path, GraphML.

    Taught in chapter "From text to a knowledge graph". List attributes (``aliases``,
    ``sources``) are stored as JSON strings in GraphML. The write is atomic.

    Examples
    --------
    >>> import networkx as nx, tempfile, pathlib
    >>> G = nx.MultiDiGraph(); G.add_node("A", aliases=["a"])
    >>> G.add_edge("A", "B", key="ACQUIRED", relation="ACQUIRED", doc_id="d1", evidence="A bought B.")
    'ACQUIRED'
    >>> p = save_graph(G, pathlib.Path(tempfile.mkdtemp()) / "g.json")
    >>> H = load_graph(p); H.nodes["A"]["aliases"], H.edges["A", "B", "ACQUIRED"]["doc_id"]
    (['a'], 'd1')
    """
    import networkx as nx

    path = Path(path)
    # atomic (a reader sees the old graph or the whole new one), mode 0666 minus the umask
    with atomic_writer(path, binary=True) as f:
        if path.suffix.lower() == ".graphml":
            H = G.copy()
            for _, d in H.nodes(data=True):
                for k, v in list(d.items()):
                    if isinstance(v, (list, dict)):
                        d[k] = "json:" + json.dumps(v, ensure_ascii=False)
            for *_, d in H.edges(keys=True, data=True) if H.is_multigraph() else H.edges(data=True):
                for k, v in list(d.items()):
                    if isinstance(v, (list, dict)):
                        d[k] = "json:" + json.dumps(v, ensure_ascii=False)
            H.graph = {k: (v if isinstance(v, (str, int, float, bool)) else
                           "json:" + json.dumps(v, ensure_ascii=False)) for k, v in H.graph.items()}
            nx.write_graphml(H, f)
        else:
            data = nx.node_link_data(G, edges="edges")
            f.write((json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode())
    return path


def load_graph(path: str | Path):
    """Read a graph written by :func:`save_graph` (JSON node-link or GraphML).

    Raises
    ------
    GabaError
        The file is missing or is not a saved graph.
    """
    import networkx as nx

    path = Path(path)
    if not path.is_file():
        raise GabaError(f"no graph file at {path}; write one with save_graph(G, path).")

    def decode(d: dict) -> None:
        for k, v in list(d.items()):
            if isinstance(v, str) and v.startswith("json:"):
                d[k] = json.loads(v[5:])

    try:
        if path.suffix.lower() == ".graphml":
            G = nx.read_graphml(path, force_multigraph=True)
            if not G.is_directed():
                G = nx.MultiDiGraph(G)
            for _, d in G.nodes(data=True):
                decode(d)
            for *_, d in G.edges(keys=True, data=True):
                decode(d)
            decode(G.graph)
        else:
            data = json.loads(path.read_text(encoding="utf-8"))
            _check_node_link(data)
            G = nx.node_link_graph(data, directed=True, multigraph=True, edges="edges")
        _check_graph_attributes(G)
        return G
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GabaError(f"{path} is not a graph written by save_graph ({exc}).") from exc


#: Edge attributes that must be text in a loaded graph (they are quoted into prompts and pages).
_TEXT_EDGE_ATTRS = ("relation", "evidence", "doc_id", "verb")


def _check_node_link(data: Any) -> None:
    """Raise ValueError unless ``data`` is node-link JSON whose nodes and edges name string ids
    (NetworkX would number a node without ``id`` 0 and carry on)."""
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) \
            or not isinstance(data.get("edges", data.get("links")), list):
        raise ValueError("expected an object with 'nodes' and 'edges' lists")
    for i, n in enumerate(data["nodes"]):
        if not isinstance(n, dict) or not isinstance(n.get("id"), str) or not n["id"].strip():
            raise ValueError(f"node #{i} has no name ('id' must be a non-empty string): {n!r:.80}")
    for i, e in enumerate(data.get("edges", data.get("links"))):
        if not isinstance(e, dict) or not all(isinstance(e.get(k), str) for k in ("source", "target")):
            raise ValueError(f"edge #{i} needs 'source' and 'target' names (strings): {e!r:.80}")


def _check_graph_attributes(G) -> None:
    """Raise ValueError when an edge's relation, evidence, document id or verb is not text, or a
    node's aliases are not a list of text."""
    for u, v, k, d in G.edges(keys=True, data=True):
        for a in _TEXT_EDGE_ATTRS:
            if a in d and not isinstance(d[a], str):
                raise ValueError(f"edge {u!r} -> {v!r} ({k}): {a!r} must be text, not "
                                 f"{type(d[a]).__name__} {d[a]!r:.40}")
    for n, d in G.nodes(data=True):
        al = d.get("aliases")
        if al is not None and not (isinstance(al, list) and all(isinstance(x, str) for x in al)):
            raise ValueError(f"node {n!r}: 'aliases' must be a list of text, not {al!r:.60}")


def draw_knowledge_graph(G, *, ax=None, highlight: Sequence[tuple[str, str]] = (), seed: int = 0):
    """Draw a knowledge graph: entity names on nodes, relation names on edges.

    Taught in chapter "From text to a knowledge graph".

    Parameters
    ----------
    G : networkx.MultiDiGraph
        A graph from :func:`build_knowledge_graph`.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    highlight : sequence of (u, v)
        Edges drawn thick and red (e.g. a path).
    seed : int
        Seed of the layout, so the figure is the same on every build.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt
    import networkx as nx

    if ax is None:
        _, ax = plt.subplots(figsize=(11, 7.5))
    U = nx.Graph(G)
    pos = nx.kamada_kawai_layout(U) if U.number_of_nodes() > 1 else nx.spring_layout(U, seed=seed)
    hi = {frozenset(e) for e in highlight}
    plain = [(u, v) for u, v in G.edges() if frozenset((u, v)) not in hi]
    bold = [(u, v) for u, v in G.edges() if frozenset((u, v)) in hi]
    nx.draw_networkx_nodes(G, pos, ax=ax, node_size=260, node_color="#dbe9f6", edgecolors="#0969da")
    nx.draw_networkx_edges(G, pos, edgelist=plain, ax=ax, edge_color="#8c959f", arrows=True,
                           arrowsize=10, node_size=260)
    if bold:
        nx.draw_networkx_edges(G, pos, edgelist=bold, ax=ax, edge_color="#cf222e", width=2.5,
                               arrows=True, arrowsize=12, node_size=260)
    nx.draw_networkx_labels(G, pos, ax=ax, font_size=8,
                            labels={n: n.replace(" ", "\n", 1) if len(n) > 14 else n for n in G})
    labels: dict[tuple, list[str]] = {}     # one label per pair of nodes, both directions
    first: dict[frozenset, tuple] = {}
    for u, v, d in G.edges(data=True):
        pair = first.setdefault(frozenset((u, v)), (u, v))
        labels.setdefault(pair, []).append(d.get("relation", ""))
    nx.draw_networkx_edge_labels(G, pos, ax=ax, font_size=6, font_color="#57606a",
                                 edge_labels={k: "\n".join(sorted(set(v))) for k, v in labels.items()},
                                 rotate=False, bbox={"alpha": 0})
    ax.set_axis_off()
    ax.margins(0.08)
    return ax
