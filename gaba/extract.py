"""From text to triples: extract one document, or a whole corpus through the triples cache.

Taught in chapter "From text to a knowledge graph". :func:`extract_triples` sends one document's
extraction request (:mod:`gaba.request`) and validates the answer (:mod:`gaba.validate`);
:func:`extract_corpus` does it for every passage of a corpus (:func:`gaba.passages.split_document`),
several calls at a time, recording each answer in the triples cache (:mod:`gaba.kgcache`) so an
interrupted run resumes and a rebuild makes no model call.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from . import llm
from .data.news import load_documents
from .data.triple import Triple
from .errors import CacheMiss, GabaError, LLMOutputError
from .kgcache import (CACHE_FORMAT, kg_cache_dir, read_entry, recorded_seconds, triples_cache_key,
                      write_entry)
from .names import candidate_names
from .passages import as_document, check_document, split_document
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
        If given, the :class:`~gaba.validate.Rejection` records are appended to it.

    Returns
    -------
    list of Triple
        Names as written in the text (not yet reconciled).

    Raises
    ------
    DocumentError
        The document is empty, not text, or longer than :data:`~gaba.passages.MAX_DOCUMENT_TOKENS`.
    LLMOutputError
        The model's answer failed the schema after retries (the message names the document).

    Examples
    --------
    >>> from gaba.data.news import load_documents                    # doctest: +SKIP
    >>> for t in extract_triples(load_documents()[0]): print(t)       # doctest: +SKIP
    Aurora Cell Works -[SUPPLIES_TO]-> Kestrel Motors
    """
    d = as_document(doc)
    if schema is None and len(candidate_names(d["text"])) < 2:
        return []                          # a fact links two names; no model call
    resp = _call_extractor(d, schema)
    kept, refused = validate_triples(resp.data["facts"], d, schema)
    if rejected is not None:
        rejected.extend(refused)
    return kept


def _extract_one(d: dict, key: str, path: Path, schema: Any) -> dict:
    """Extract one document and record its entry in the triples cache (the unit of resumption)."""
    resp = _call_extractor(d, schema)
    entry = {"format": CACHE_FORMAT, "key": key, "doc_id": d["id"],
             "prompt_version": prompt_version(schema), "model": resp.model,
             "seconds": recorded_seconds(resp), "usage": resp.usage,
             "llm_key": resp.key, "facts": resp.data["facts"]}
    write_entry(path, entry)
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
    stored in ``<cache_dir>/<key>.json``, keyed by :func:`~gaba.kgcache.triples_cache_key` (document text,
    prompt version, model), as soon as that document is done. A hit makes no model call, so an
    interrupted run (Ctrl-C, a crash) resumes where it stopped; a corrupt entry is re-extracted
    and rewritten; a document whose extraction fails is reported in ``Extraction.failed``
    (message naming the document) while the others go on, and nothing is written for it.
    A document longer than :data:`~gaba.passages.PASSAGE_WORDS` words is extracted passage by passage
    (:func:`~gaba.passages.split_document`): its triples carry the passage id (``"wp01#2"``), and a passage
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
        Folder of the triples cache (default :func:`~gaba.kgcache.kg_cache_dir`).
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
