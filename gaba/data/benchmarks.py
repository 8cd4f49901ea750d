"""Public multi-hop QA benchmarks (HotpotQA, 2WikiMultihopQA, MuSiQue) read into one form,
:class:`MultiHopExample` (chapter "Measuring graph against flat"; files: :data:`SOURCES`).
Offline, :func:`load_public` reads the shipped first rows and :func:`load_sample` the fictional
samples."""
from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from ..config import ASSETS
from ..errors import DocumentError

#: Folder of the generated fictional samples.
SAMPLE_DIR = ASSETS / "data" / "benchmark_samples"
#: Sample file per dataset (written by ``assets/data/benchmark_samples/make_samples.py``).
SAMPLE_FILES = {"hotpotqa": "hotpotqa_dev_distractor_sample.json",
                "2wiki": "2wikimultihopqa_dev_sample.json",
                "musique": "musique_ans_dev_sample.jsonl"}
#: Every fact stated in the samples' paragraphs, as a perfect extractor would return it.
SAMPLE_TRIPLES_FILE = "paragraph_triples.json"
#: Folder of the real public samples (with their licences and a README).
PUBLIC_DIR = ASSETS / "data" / "benchmarks"
#: Real sample file per dataset, relative to :data:`PUBLIC_DIR`.
PUBLIC_FILES = {"hotpotqa": "hotpotqa/dev_sample.jsonl", "2wiki": "2wikimultihopqa/dev_sample.jsonl",
                "musique": "musique/dev_sample.jsonl"}

#: Where the real files come from; a checksum is ``None`` when we know of none published.
SOURCES: dict[str, dict[str, Any]] = {
    "hotpotqa": {"name": "HotpotQA (distractor setting)", "homepage": "https://hotpotqa.github.io/",
                 "url": "http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json",
                 "file": "hotpot_dev_distractor_v1.json", "format": "one JSON array",
                 # SHA-1 and size as listed by gluon-nlp (scripts/datasets/url_checksums/hotpotqa.txt)
                 "sha256": None, "sha1": "825b6cfc34a61db41e82bbb14d978d5a834925f8",
                 "bytes": 46_320_117, "license": "CC BY-SA 4.0"},
    "2wiki": {"name": "2WikiMultihopQA", "homepage": "https://github.com/Alab-NII/2wikimultihop",
              "url": "https://www.dropbox.com/s/ms2m13252h6xubs/data_ids_april7.zip",
              "file": "dev.json (inside data_ids_april7.zip)", "format": "one JSON array",
              "sha256": None, "sha1": None, "bytes": None, "license": "Apache-2.0"},
    "musique": {"name": "MuSiQue (MuSiQue-Ans)", "homepage": "https://github.com/StonyBrookNLP/musique",
                "url": "https://drive.google.com/file/d/1tGdADlNjWFaHLeZZGShh2IRcpO6Lv24h/view",
                "file": "musique_ans_v1.0_dev.jsonl (inside musique_v1.0.zip)", "format": "JSON Lines",
                "sha256": None, "sha1": None, "bytes": None, "license": "CC BY 4.0"},
}


class BenchmarkFileNotFound(DocumentError, FileNotFoundError):
    """A benchmark file is not at the given path (the message says where to download it)."""


@dataclasses.dataclass(frozen=True)
class MultiHopExample:
    """One multi-hop question in a form common to HotpotQA, 2WikiMultihopQA and MuSiQue.

    ``paragraphs``: ``(title, sentences)``, gold and distractors; ``supporting_facts``: ``(title,
    sentence index or None)``; ``supporting_paragraphs`` index ``paragraphs``; ``evidence_triples``:
    2Wiki's ``evidences`` or MuSiQue's decomposition, else empty.
    """

    id: str
    question: str
    answer: str
    paragraphs: tuple[tuple[str, tuple[str, ...]], ...]
    supporting_facts: tuple[tuple[str, int | None], ...]
    supporting_paragraphs: tuple[int, ...]
    evidence_triples: tuple[tuple[str, str, str], ...] = ()
    answer_aliases: tuple[str, ...] = ()
    kind: str = ""
    source: str = ""                 # "hotpotqa", "2wiki" or "musique"

    @property
    def supporting_titles(self) -> list[str]:
        """Titles of the gold paragraphs, in order of first mention."""
        return list(dict.fromkeys(self.paragraphs[i][0] for i in self.supporting_paragraphs))

    @property
    def hops(self) -> int:
        """Number of gold paragraphs (a proxy for the number of hops)."""
        return len(self.supporting_paragraphs)

    def paragraph_text(self, index: int) -> str:
        """The text of paragraph ``index``, sentences joined by single spaces."""
        return " ".join(s.strip() for s in self.paragraphs[index][1])


def _records(path: str | Path, dataset: str, limit: int | None) -> Iterator[tuple[int, dict]]:
    """Yield (record number, record) from a JSON array, or (line number, record) from JSON Lines."""
    path, src = Path(path).expanduser(), SOURCES[dataset]
    expected = src["format"]
    if path.is_dir():
        listing = ", ".join(sorted(p.name for p in path.iterdir())[:10]) or "nothing"
        raise DocumentError(f"{path} is a folder (it holds {listing}); pass the path of the "
                            f"{src['file']} file itself.")
    if not path.is_file():
        raise BenchmarkFileNotFound(
            f"{path} does not exist. The book ships only a sample of {src['name']} (license "
            f"{src['license']}): load_public({dataset!r}). For the full set, download {src['file']} "
            f"from {src['url']} (see {src['homepage']}) and pass its path, or run on the fictional "
            f"sample with load_sample({dataset!r}).")
    if limit is not None and (int(limit) != limit or limit < 0):
        raise ValueError(f"limit must be a non-negative integer or None, got {limit!r}")
    raw = path.read_bytes()
    if raw.startswith(b"PK\x03\x04"):
        raise DocumentError(f"{path} is a zip archive; unzip it and pass the "
                            f"{src['file']} file inside.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{path} is not UTF-8 text; expected {expected}.") from exc
    if not text.strip():
        raise DocumentError(f"{path} is empty; expected {expected}.")
    if text.lstrip().startswith("["):
        yield from enumerate(_parse(text, path, 1, expected)[:limit], start=1)
        return
    lines = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    for n, line in lines[:limit]:
        yield n, _parse(line, path, n, expected)


def _parse(text: str, path: Path, first_line: int, expected: str) -> Any:
    """``json.loads`` of text that starts at line ``first_line`` of ``path``; DocumentError names the line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{path}: line {first_line + exc.lineno - 1} is not valid JSON ({exc.msg}); "
                            f"expected {expected} as published.") from exc


def _field(rec: Any, name: str, where: str) -> Any:
    if not isinstance(rec, dict):
        raise DocumentError(f"{where} is a {type(rec).__name__}, not a JSON object.")
    if name not in rec:
        raise DocumentError(f"{where} has no {name!r} field (it has {sorted(rec)}); is this the "
                            f"right loader for this file?")
    return rec[name]


def _titled_example(rec: Any, where: str, source: str) -> MultiHopExample:
    """A HotpotQA-shaped record (``_id``, ``context`` of titled sentences, ``supporting_facts``)."""
    raw = _field(rec, "context", where)
    try:
        paras = tuple((str(title), tuple(str(s) for s in sents)) for title, sents in raw)
    except (TypeError, ValueError) as exc:
        raise DocumentError(f"{where}: 'context' must be a list of [title, [sentences]]") from exc
    facts = _field(rec, "supporting_facts", where)
    try:
        sf = tuple((str(t), int(s)) for t, s in facts)
    except (TypeError, ValueError) as exc:
        raise DocumentError(f"{where}: 'supporting_facts' must be a list of [title, sentence]") from exc
    titles = [t for t, _ in paras]
    missing = sorted({t for t, _ in sf if t not in titles})
    if missing:
        raise DocumentError(f"{where}: supporting fact title(s) {missing} are not in its context.")
    return MultiHopExample(
        id=str(_field(rec, "_id", where)), question=str(_field(rec, "question", where)),
        answer=str(_field(rec, "answer", where)), paragraphs=paras, supporting_facts=sf,
        supporting_paragraphs=tuple(dict.fromkeys(titles.index(t) for t, _ in sf)),  # first of a title
        kind=str(rec.get("type", "")), source=source)


def load_hotpotqa(path: str | Path, *, limit: int | None = None) -> list[MultiHopExample]:
    """Read a HotpotQA distractor-setting file (a JSON array or JSON Lines; see :data:`SOURCES`);
    ``limit``: read only the first records. A malformed record raises ``DocumentError``."""
    return [_titled_example(rec, f"{Path(path).name} record {n}", "hotpotqa")
            for n, rec in _records(path, "hotpotqa", limit)]


def load_2wiki(path: str | Path, *, limit: int | None = None) -> list[MultiHopExample]:
    """Read a 2WikiMultihopQA ``dev.json``, as :func:`load_hotpotqa`, with ``evidence_triples``."""
    out = []
    for n, rec in _records(path, "2wiki", limit):
        where = f"{Path(path).name} record {n}"
        example = _titled_example(rec, where, "2wiki")
        try:
            ev = tuple((str(s), str(r), str(o)) for s, r, o in _field(rec, "evidences", where))
        except (TypeError, ValueError) as exc:
            raise DocumentError(f"{where}: 'evidences' must be a list of [subject, relation, object]") from exc
        out.append(dataclasses.replace(example, evidence_triples=ev))
    return out


_STEP = re.compile(r"^\s*(.+?)\s*>>\s*(.+?)\s*$")
_REF = re.compile(r"^#(\d+)$")


def _musique_triples(steps: Sequence[dict]) -> tuple[tuple[str, str, str], ...]:
    """Triples from a decomposition whose every step reads ``subject >> relation`` (else ``()``)."""
    triples = []
    for step in steps:
        m = _STEP.match(str(step.get("question", "")))
        if not m:
            return ()
        subject, relation = m.groups()
        ref = _REF.match(subject)
        if ref:
            k = int(ref.group(1)) - 1
            if not 0 <= k < len(steps):
                return ()
            subject = str(steps[k].get("answer", ""))
        triples.append((subject, relation, str(step.get("answer", ""))))
    return tuple(triples)


def load_musique(path: str | Path, *, limit: int | None = None) -> list[MultiHopExample]:
    """Read a MuSiQue-Ans ``.jsonl`` file, skipping unanswerable records; evidence triples come
    from the ``question_decomposition`` when every step reads ``"X >> relation"``."""
    out = []
    for n, rec in _records(path, "musique", limit):
        where = f"{Path(path).name} line {n}"
        if rec.get("answerable", True) is False:
            continue
        raw = _field(rec, "paragraphs", where)
        try:
            paras = tuple((str(p["title"]), (str(p["paragraph_text"]),)) for p in raw)
            sp = tuple(i for i, p in enumerate(raw) if p.get("is_supporting"))
        except (TypeError, KeyError) as exc:
            raise DocumentError(f"{where}: each paragraph needs 'title', 'paragraph_text' and "
                                f"'is_supporting'") from exc
        steps = rec.get("question_decomposition") or []
        out.append(MultiHopExample(
            id=str(_field(rec, "id", where)), question=str(_field(rec, "question", where)),
            answer=str(_field(rec, "answer", where)), paragraphs=paras,
            supporting_facts=tuple((paras[i][0], None) for i in sp), supporting_paragraphs=sp,
            evidence_triples=_musique_triples(steps),
            answer_aliases=tuple(str(a) for a in rec.get("answer_aliases") or ()),
            kind=str(rec["id"]).split("__")[0] if "__" in str(rec["id"]) else "",
            source="musique"))
    return out


_LOADERS = {"hotpotqa": load_hotpotqa, "2wiki": load_2wiki, "musique": load_musique}


def _loader(dataset: str):
    if dataset not in _LOADERS:
        raise ValueError(f"dataset must be one of {sorted(_LOADERS)}, not {dataset!r}")
    return _LOADERS[dataset]


def load_sample(dataset: str) -> list[MultiHopExample]:
    """The book's fictional sample of ``dataset`` (``hotpotqa``, ``2wiki`` or ``musique``)."""
    return _loader(dataset)(SAMPLE_DIR / SAMPLE_FILES[dataset])


def load_public(dataset: str, *, limit: int | None = None) -> list[MultiHopExample]:
    """The shipped first rows of the real ``dataset`` (licences in ``assets/data/benchmarks/``).

    >>> ex = load_public("2wiki", limit=1)[0]
    >>> ex.source, ("Forbidden Ground", "director", "Pál Gábor") in ex.evidence_triples
    ('2wiki', True)
    """
    return _loader(dataset)(PUBLIC_DIR / PUBLIC_FILES[dataset], limit=limit)


def load_sample_triples() -> dict[str, list[tuple[str, str, str, int]]]:
    """Every fact in the samples' paragraphs: title -> ``[(subject, relation, object, sentence index)]``."""
    raw = json.loads((SAMPLE_DIR / SAMPLE_TRIPLES_FILE).read_text(encoding="utf-8"))
    return {title: [tuple(t) for t in triples] for title, triples in raw.items()}


def pooled_paragraphs(examples: Iterable[MultiHopExample]) -> list[tuple[str, str]]:
    """All distinct ``(title, text)`` paragraphs of ``examples``, in first-seen order (a shared corpus)."""
    return list(dict.fromkeys((ex.paragraphs[i][0], ex.paragraph_text(i))
                              for ex in examples for i in range(len(ex.paragraphs))))


def to_graph(examples: Iterable[MultiHopExample], *, triples: dict | None = None):
    """A knowledge graph in the book's format from benchmark facts: with ``triples``
    (:func:`load_sample_triples`) every fact, distractors included; without, only the gold evidence
    triples (an optimistic graph)."""
    examples = list(examples)
    sentence: dict[tuple[str, int], str] = {}
    for ex in examples:
        for title, sents in ex.paragraphs:
            for j, s in enumerate(sents):
                sentence.setdefault((title, j), s.strip())
    G = nx.MultiDiGraph()

    def add(s, r, o, title, j):
        if not G.has_edge(s, o, key=r):
            G.add_edge(s, o, key=r, relation=r, doc_id=title,
                       evidence=sentence.get((title, j), "") if j is not None else "")

    if triples is None:
        for ex in examples:
            for s, r, o in ex.evidence_triples:
                j = next((j for t, j in ex.supporting_facts if t == s), None)
                add(s, r, o, s, j)
    else:
        titles = {title for ex in examples for title, _ in ex.paragraphs}
        for title in sorted(titles):
            for s, r, o, j in triples.get(title, []):
                add(s, r, o, title, j)
    for node in G.nodes:
        G.nodes[node].setdefault("aliases", [])
    return G
