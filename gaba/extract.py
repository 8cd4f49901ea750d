"""From text to triples: extract one document, or a whole corpus through the triples cache.

Taught in chapter "From text to a knowledge graph". Each answer is recorded as it arrives, so an
interrupted run resumes and a rebuild makes no model call.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from tqdm import tqdm

from . import llm
from .coref import resolve_it, resolve_opening_pronoun, resolve_pronouns
from .descriptions import description_heads, resolve_descriptions
from .data.news import load_documents
from .data.triple import Triple
from .errors import CacheMiss, DocumentError, GabaError, LLMOutputError
from .kgcache import (CACHE_FORMAT, kg_cache_dir, read_entry, recorded_seconds, triples_cache_key,
                      write_entry)
from .names import candidate_names
from .passages import as_document, check_document, split_document, split_sentences
from .request import extraction_request, facts_from_rows, prompt_version
from .validate import Rejection, validate_triples


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

    def summary(self) -> str:
        """One line: documents, how many extracted/cached/failed, seconds and documents/s."""
        return extraction_summary(self.cache.get("hits", 0) + self.cache.get("misses", 0), self.cache,
                                  len(self.failed), self.wall_seconds, self.concurrency)


def extraction_summary(documents: int, cache: dict[str, int], failed: int, seconds: float,
                       concurrency: int) -> str:
    """The one-line report of an extraction run (:meth:`Extraction.summary`, ``gaba build-graph``)."""
    extracted = cache.get("misses", 0) - failed
    rate = extracted / seconds if seconds > 0 else 0.0
    return (f"{documents} documents in {seconds:.1f} s: {extracted} extracted "
            f"({rate:.2f} documents/s, {concurrency} in flight), "
            f"{cache.get('hits', 0)} from the cache, {failed} failed")


def _call_extractor(doc: dict, schema: Any = None):
    request = extraction_request(doc["text"], schema)
    mode = " (open)" if schema is None else ""
    rows = schema is None and "prefixItems" in request["schema"]["properties"]["facts"]["items"]
    try:
        resp = llm.call_llm(request.pop("prompt"), **request, schema_name="facts", temperature=0.0,
                            seed=0, purpose=f"extract triples{mode} from document {doc['id']}")
    except LLMOutputError as exc:
        raise LLMOutputError(f"document {doc['id']!r}: no usable extraction ({exc})") from exc
    if rows:                               # GABA_EXTRACT_FORMAT=rows: the same facts as objects
        resp = dataclasses.replace(resp, data={**resp.data, "facts": facts_from_rows(resp.data["facts"])})
    return resp


def extract_triples(doc: dict | str, *, schema: Any = None, rejected: list | None = None) -> list[Triple]:
    """Extract the facts of one document as validated triples (names as written, not reconciled).

    ``doc``: ``{"id", "text"}`` or a string; ``schema=None`` is open extraction; refused records go
    to ``rejected`` if given. Raises DocumentError (empty, non-text, too long) or LLMOutputError.

    >>> extract_triples("Acme said so.")      # one name: no fact possible, no model call
    []
    """
    if rejected is not None and not isinstance(rejected, list):
        raise TypeError(f"rejected must be a list (the refused records are appended to it) or None, "
                        f"not a {type(rejected).__name__}.")
    d = as_document(doc)
    d = {**d, "text": resolve_pronouns(resolve_descriptions(d["text"]))}
    if schema is None and len(candidate_names(d["text"])) < 2:
        return []                          # a fact links two names; no model call
    facts, _ = _extract_split(d, schema)
    kept, refused = validate_triples(facts, d, schema)
    if rejected is not None:
        rejected.extend(refused)
    return kept


def _extract_split(d: dict, schema: Any, *, top: bool = True) -> tuple[list[dict], list]:
    """The records of ``d`` and their responses; an unusable reply is retried as two halves of whole
    sentences (ids ``"<id>/1"``, ``"<id>/2"``), recursively."""
    try:
        resp = _call_extractor(d, schema)
        return resp.data["facts"], [resp]
    except LLMOutputError:
        sentences = split_sentences(d["text"])
        if len(sentences) < 2:
            raise
    mid = len(sentences) // 2
    records: list[dict] = []
    calls: list = []
    try:
        for i, (piece, offset) in enumerate(((sentences[:mid], 0), (sentences[mid:], mid)), 1):
            half = {**d, "id": f"{d['id']}/{i}", "text": " ".join(piece)}
            recs, resps = _extract_split(half, schema, top=False)
            for r in recs:
                n = r.get("sentence")
                shift = isinstance(n, int) and not isinstance(n, bool) and schema is None
                records.append({**r, "sentence": n + offset} if shift else r)
            calls += resps
    except LLMOutputError as part:
        if not top:
            raise
        raise LLMOutputError(f"document {d['id']!r}: no usable extraction, whole or cut into halves; "
                             f"{part}") from part
    return records, calls


def _extract_one(d: dict, key: str, folder: Path, schema: Any) -> dict:
    """Extract one document and record its entry in the triples cache (the unit of resumption)."""
    facts, calls = _extract_split(d, schema)
    usage: dict[str, int] = {}
    for r in calls:
        for k, v in (r.usage or {}).items():
            if isinstance(v, int):
                usage[k] = usage.get(k, 0) + v
    keys = [r.key for r in calls]
    entry = {"format": CACHE_FORMAT, "key": key, "doc_id": d["id"],
             "prompt_version": prompt_version(schema), "model": calls[0].model,
             "seconds": round(sum(recorded_seconds(r) for r in calls), 3),
             "usage": usage if len(calls) > 1 else calls[0].usage,
             "llm_key": keys[0] if len(keys) == 1 else keys, "facts": facts}
    write_entry(folder / f"{key}.json", entry)
    return entry


#: A document's error is cut to this many characters (a schema error can quote a whole reply).
MAX_FAILURE_CHARS = 600


def _failure(doc_id: str, exc: Exception) -> str:
    """The error of one document, naming it (at most :data:`MAX_FAILURE_CHARS` characters)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    text = text if text.startswith("document ") else f"document {doc_id!r}: {text}"
    return text if len(text) <= MAX_FAILURE_CHARS else text[:MAX_FAILURE_CHARS - 4] + " ..."


def extract_corpus(documents: Any = None, *, schema: Any = None, cache_dir: str | Path | None = None,
                   rebuild: bool = False, progress: bool = True,
                   concurrency: int | None = None) -> Extraction:
    """Extract every document through the per-document triples cache, several calls at a time.

    A long document goes passage by passage (ids ``"wp01#2"``); a corrupt entry is re-extracted; a
    failure lands in ``Extraction.failed``. Results keep document order. Raises DocumentError before
    any call, CacheMiss offline for an unrecorded extraction.
    """
    t0 = time.perf_counter()
    docs = []
    for d in load_documents(documents):
        earlier: dict[str, set[str]] = {}    # "the agency" -> its name, named in this or an earlier passage
        # an "It" that opens a passage too; "His main client ..." -> "Ann Lee's main client ..."; "The pair
        # ..." -> "Ann Lee and Bo Chan ..."; "Its leader, Bo Chan, ..." -> "Osk Rescue's leader, Bo Chan, ..."
        parts = split_document({**d, "text": resolve_pronouns(d["text"])})
        for i, p in enumerate(parts):
            heads = description_heads(p["text"])
            text = resolve_descriptions(p["text"], earlier, heads=heads)
            # a later passage's opening "He" -> the person the document opens with
            text = resolve_opening_pronoun(text, parts[0]["text"]) if i else text
            docs.append({**p, "text": resolve_it(text)})          # "It was founded ..." -> the name
            for head, names in heads.items():
                earlier.setdefault(head, set()).update(names)
    for d in docs:                  # a long document is fine; a passage the model cannot read is not
        check_document(d)
    # document "x#1" and passage 1 of a long "x": one id, one passage's records and failure lost
    if clash := next((i for i, n in Counter(d["id"] for d in docs).items() if n > 1), None):
        raise DocumentError(f"the id {clash!r} names a document and a passage of a longer document "
                            "(passages are '<id>#<n>'); give that document another id.")
    workers = llm.concurrency(concurrency)
    folder = kg_cache_dir(cache_dir)
    if folder.exists() and not folder.is_dir():     # else every answer is lost when it is written
        raise ValueError(f"the triples cache {folder} is a file, not a folder; give cache_dir (or "
                         "GABA_KG_CACHE) a folder.")
    out = Extraction([], [], {}, {}, {"hits": 0, "misses": 0, "rebuilt": 0}, concurrency=workers)
    entries: dict[int, dict | None] = {}     # document index -> entry (None: no fact possible)
    todo: dict[str, list[int]] = {}          # cache key -> indexes of the documents to extract
    for i, d in enumerate(docs):
        key = triples_cache_key(d["text"], schema)
        entry = None if rebuild else read_entry(folder / f"{key}.json", key)
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

    def finish(key: str, result) -> None:
        """Record ``result()`` (the entry) for the documents of ``key``, or its failure."""
        try:
            entry = result()
        except CacheMiss:
            raise                  # offline with no recording: a setup error, not this document's
        except GabaError as exc:   # malformed output, a context overflow, a failing endpoint
            for i in todo[key]:
                failed[i] = _failure(docs[i]["id"], exc)
        else:
            for i in todo[key]:
                entries[i] = entry
        bar.update(len(todo[key]))
        bar.set_postfix_str(f"cached {out.cache['hits']}, failed {len(failed)}", refresh=False)

    try:
        if workers == 1 or len(todo) <= 1:
            for key, idx in todo.items():
                finish(key, lambda: _extract_one(docs[idx[0]], key, folder, schema))
        else:
            import jsonschema  # noqa: F401 - imported once here, not raced for by the threads
            pool = ThreadPoolExecutor(max_workers=min(workers, len(todo)),
                                      thread_name_prefix="gaba-extract")
            futures = {pool.submit(_extract_one, docs[idx[0]], key, folder, schema): key
                       for key, idx in todo.items()}
            try:
                for fut in as_completed(futures):
                    finish(futures[fut], fut.result)
            finally:                       # on an error or Ctrl-C: the calls in flight finish, recorded
                pool.shutdown(wait=True, cancel_futures=True)
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
