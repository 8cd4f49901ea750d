"""Public multi-hop QA benchmarks in their published formats, and small fictional samples of them.

Taught in chapter "Measuring graph against flat".

Three loaders read a file the reader downloaded and normalise every record into a
:class:`MultiHopExample` (question, answer, paragraphs as ``(title, sentences)``, supporting
facts, evidence triples when the dataset has them):

- :func:`load_hotpotqa` - HotpotQA, distractor setting (Yang et al., EMNLP 2018; CC BY-SA 4.0);
- :func:`load_2wiki` - 2WikiMultihopQA, with its evidence triples (Ho et al., COLING 2020; Apache-2.0);
- :func:`load_musique` - MuSiQue-Ans (Trivedi et al., TACL 2022; CC BY 4.0).

Each accepts the official file (a JSON array for HotpotQA and 2Wiki, JSON Lines for MuSiQue)
and also JSON Lines versions of the first two. Nothing is downloaded: where the files come
from is listed in :data:`SOURCES` (official URLs; the checksums we know, and where none is
published we say so). A missing file raises :class:`BenchmarkFileNotFound`, which says where
to get it.

The book ships two kinds of small samples, so every code path runs offline:

- real records: the first rows of each public benchmark (164 of 2WikiMultihopQA, 200 of
  HotpotQA, 200 of MuSiQue), under their own licences in ``assets/data/benchmarks/`` (see
  :data:`PUBLIC_DIR` and the README there); :func:`load_public` reads them;
- fictional records that :func:`make_benchmark_sample` generates in the same formats from
  templates about a world that does not exist (people, towns, films, studios), under
  ``assets/data/benchmark_samples/`` (see :data:`SAMPLE_DIR`); :func:`load_sample` reads them.

Examples
--------
>>> from gaba.data.benchmarks import load_sample
>>> ex = load_sample("2wiki")[0]
>>> ex.source, len(ex.paragraphs), len(ex.evidence_triples) >= 2
('2wiki', 10, True)
>>> ex.supporting_titles == sorted(set(ex.supporting_titles), key=ex.supporting_titles.index)
True
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..config import ASSETS
from ..errors import DocumentError

#: Folder of the generated fictional samples.
SAMPLE_DIR = ASSETS / "data" / "benchmark_samples"
#: Sample file per dataset (written by :func:`write_samples`).
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
#: SHA-256 of each real sample file, as published with it.
PUBLIC_SHA256 = {"hotpotqa": "b7b66894184bfb424ab24aeafc6938f9cc1768bae8eec7d9135f4adf7747b476",
                 "2wiki": "535a190a85588fc743dbb9edb5b450609ecc167695638d925c06a8a4a14314dd",
                 "musique": "bbc98ab676941cf3a481cb3361cfab334cd2a24c74ed42473e4d5c14cf7577d4"}

#: Where the real files come from. Checksums: only those we could verify from a public record;
#: ``None`` means no checksum is published that we know of (record your own with
#: :func:`sha256_file` after downloading).
SOURCES: dict[str, dict[str, Any]] = {
    "hotpotqa": {
        "name": "HotpotQA (distractor setting)",
        "homepage": "https://hotpotqa.github.io/",
        "url": "http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json",
        "file": "hotpot_dev_distractor_v1.json",
        "format": "one JSON array",
        "sha256": None,
        # SHA-1 and size as listed by gluon-nlp (scripts/datasets/url_checksums/hotpotqa.txt)
        "sha1": "825b6cfc34a61db41e82bbb14d978d5a834925f8",
        "bytes": 46_320_117,
        "license": "CC BY-SA 4.0",
    },
    "2wiki": {
        "name": "2WikiMultihopQA",
        "homepage": "https://github.com/Alab-NII/2wikimultihop",
        "url": "https://www.dropbox.com/s/ms2m13252h6xubs/data_ids_april7.zip",
        "file": "dev.json (inside data_ids_april7.zip)",
        "format": "one JSON array",
        "sha256": None,
        "sha1": None,
        "bytes": None,
        "license": "Apache-2.0",
    },
    "musique": {
        "name": "MuSiQue (MuSiQue-Ans)",
        "homepage": "https://github.com/StonyBrookNLP/musique",
        "url": "https://drive.google.com/file/d/1tGdADlNjWFaHLeZZGShh2IRcpO6Lv24h/view",
        "file": "musique_ans_v1.0_dev.jsonl (inside musique_v1.0.zip)",
        "format": "JSON Lines",
        "sha256": None,
        "sha1": None,
        "bytes": None,
        "license": "CC BY 4.0",
    },
}


class BenchmarkFileNotFound(DocumentError, FileNotFoundError):
    """A benchmark file is not at the given path (the message says where to download it)."""


@dataclasses.dataclass(frozen=True)
class MultiHopExample:
    """One multi-hop question in a form common to HotpotQA, 2WikiMultihopQA and MuSiQue.

    Attributes
    ----------
    id, question, answer : str
    paragraphs : tuple of (title, tuple of sentences)
        The context given with the question: gold paragraphs plus distractors. MuSiQue
        paragraphs are not split into sentences (each is one "sentence").
    supporting_facts : tuple of (title, sentence index or None)
        As published; ``None`` for MuSiQue, whose support is a whole paragraph.
    supporting_paragraphs : tuple of int
        Indices into ``paragraphs`` of the gold paragraphs (titles can repeat in MuSiQue).
    evidence_triples : tuple of (subject, relation, object)
        2Wiki's ``evidences``; for MuSiQue, derived from the decomposition when every step is
        of the form ``"X >> relation"``; empty otherwise (HotpotQA has none).
    answer_aliases : tuple of str
    kind : str
        The dataset's question type (``bridge``, ``comparison``, ``compositional``, ``2hop``...).
    source : {"hotpotqa", "2wiki", "musique"}
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
    source: str = ""

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


# ----------------------------------------------------------------------------- reading files

def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file, read in 1 MiB blocks (to record or compare a download)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _missing(path: Path, dataset: str) -> BenchmarkFileNotFound:
    src = SOURCES[dataset]
    return BenchmarkFileNotFound(
        f"{path} does not exist. The book ships only a sample of {src['name']} (license "
        f"{src['license']}): load_public({dataset!r}). For the full set, download {src['file']} "
        f"from {src['url']} (see {src['homepage']}) and pass its path, or run on the fictional "
        f"sample with load_sample({dataset!r}).")


def _records(path: str | Path, dataset: str, limit: int | None) -> Iterator[tuple[int, dict]]:
    """Yield (record number, record) from a JSON array or a JSON Lines file."""
    path = Path(path).expanduser()
    if path.is_dir():
        listing = ", ".join(sorted(p.name for p in path.iterdir())[:10]) or "nothing"
        raise DocumentError(f"{path} is a folder (it holds {listing}); pass the path of the "
                            f"{SOURCES[dataset]['file']} file itself.")
    if not path.is_file():
        raise _missing(path, dataset)
    if limit is not None and (int(limit) != limit or limit < 0):
        raise ValueError(f"limit must be a non-negative integer or None, got {limit!r}")
    with open(path, "rb") as fb:
        if fb.read(4) == b"PK\x03\x04":
            raise DocumentError(f"{path} is a zip archive; unzip it and pass the "
                                f"{SOURCES[dataset]['file']} file inside.")
    lineno = 0
    with open(path, encoding="utf-8") as f:
        try:
            head = f.read(1)
            while head and head.isspace():
                head = f.read(1)
            f.seek(0)
            if not head:
                raise DocumentError(f"{path} is empty; expected {SOURCES[dataset]['format']}.")
            if head == "[":
                data = json.load(f)
                for i, rec in enumerate(data[:limit] if limit is not None else data):
                    yield i + 1, rec
                return
            count = 0
            for lineno, line in enumerate(f, start=1):
                if limit is not None and count >= limit:
                    return
                if not line.strip():
                    continue
                yield lineno, json.loads(line)
                count += 1
        except json.JSONDecodeError as exc:
            where = f"line {lineno}" if head != "[" else f"line {exc.lineno}"
            raise DocumentError(f"{path}: {where} is not valid JSON ({exc.msg}); expected "
                                f"{SOURCES[dataset]['format']} as published.") from exc
        except UnicodeDecodeError as exc:
            raise DocumentError(f"{path} is not UTF-8 text; expected "
                                f"{SOURCES[dataset]['format']}.") from exc


def _field(rec: Any, name: str, where: str) -> Any:
    if not isinstance(rec, dict):
        raise DocumentError(f"{where} is a {type(rec).__name__}, not a JSON object.")
    if name not in rec:
        raise DocumentError(f"{where} has no {name!r} field (it has {sorted(rec)}); is this the "
                            f"right loader for this file?")
    return rec[name]


def _context(raw: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    try:
        paras = tuple((str(title), tuple(str(s) for s in sents)) for title, sents in raw)
    except (TypeError, ValueError) as exc:
        raise DocumentError(f"{where}: 'context' must be a list of [title, [sentences]]") from exc
    return paras


def _support_from_titles(paras, facts, where: str):
    index = {}
    for i, (title, _) in enumerate(paras):
        index.setdefault(title, i)
    try:
        sf = tuple((str(t), int(s)) for t, s in facts)
    except (TypeError, ValueError) as exc:
        raise DocumentError(f"{where}: 'supporting_facts' must be a list of [title, sentence]") from exc
    missing = sorted({t for t, _ in sf if t not in index})
    if missing:
        raise DocumentError(f"{where}: supporting fact title(s) {missing} are not in its context.")
    return sf, tuple(dict.fromkeys(index[t] for t, _ in sf))


def load_hotpotqa(path: str | Path, *, limit: int | None = None) -> list[MultiHopExample]:
    """Read a HotpotQA distractor-setting file (``hotpot_dev_distractor_v1.json``).

    Official file: http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json
    (46,320,117 bytes; SHA-1 ``825b6cfc34a61db41e82bbb14d978d5a834925f8`` as listed by
    gluon-nlp; no SHA-256 is published that we know of). License CC BY-SA 4.0.

    Parameters
    ----------
    path : str or Path
        The downloaded file: a JSON array as published, or JSON Lines with the same records.
    limit : int, optional
        Read only the first ``limit`` records.

    Returns
    -------
    list of MultiHopExample
        ``kind`` is ``bridge`` or ``comparison``; no evidence triples.

    Raises
    ------
    BenchmarkFileNotFound
        No file at ``path`` (the message says where to download it).
    DocumentError
        The file is not in the published format (the message names the record).

    Examples
    --------
    >>> from gaba.data.benchmarks import SAMPLE_DIR, SAMPLE_FILES
    >>> ex = load_hotpotqa(SAMPLE_DIR / SAMPLE_FILES["hotpotqa"], limit=2)
    >>> len(ex), ex[0].source, ex[0].evidence_triples
    (2, 'hotpotqa', ())
    """
    out = []
    for n, rec in _records(path, "hotpotqa", limit):
        where = f"{Path(path).name} record {n}"
        paras = _context(_field(rec, "context", where), where)
        sf, sp = _support_from_titles(paras, _field(rec, "supporting_facts", where), where)
        out.append(MultiHopExample(
            id=str(_field(rec, "_id", where)), question=str(_field(rec, "question", where)),
            answer=str(_field(rec, "answer", where)), paragraphs=paras, supporting_facts=sf,
            supporting_paragraphs=sp, kind=str(rec.get("type", "")), source="hotpotqa"))
    return out


def load_2wiki(path: str | Path, *, limit: int | None = None) -> list[MultiHopExample]:
    """Read a 2WikiMultihopQA file (``dev.json`` from ``data_ids_april7.zip``) with its evidence triples.

    Official download: https://www.dropbox.com/s/ms2m13252h6xubs/data_ids_april7.zip, linked
    from https://github.com/Alab-NII/2wikimultihop (no checksum is published that we know of).
    License Apache-2.0.

    Parameters
    ----------
    path : str or Path
        A JSON array as published, or JSON Lines with the same records.
    limit : int, optional
        Read only the first ``limit`` records.

    Returns
    -------
    list of MultiHopExample
        ``evidence_triples`` from the ``evidences`` field; ``kind`` is ``compositional``,
        ``comparison``, ``inference`` or ``bridge_comparison``.

    Examples
    --------
    >>> from gaba.data.benchmarks import SAMPLE_DIR, SAMPLE_FILES
    >>> ex = load_2wiki(SAMPLE_DIR / SAMPLE_FILES["2wiki"], limit=1)[0]
    >>> all(len(t) == 3 for t in ex.evidence_triples)
    True
    """
    out = []
    for n, rec in _records(path, "2wiki", limit):
        where = f"{Path(path).name} record {n}"
        paras = _context(_field(rec, "context", where), where)
        sf, sp = _support_from_titles(paras, _field(rec, "supporting_facts", where), where)
        try:
            ev = tuple((str(s), str(r), str(o)) for s, r, o in _field(rec, "evidences", where))
        except (TypeError, ValueError) as exc:
            raise DocumentError(f"{where}: 'evidences' must be a list of [subject, relation, object]") from exc
        out.append(MultiHopExample(
            id=str(_field(rec, "_id", where)), question=str(_field(rec, "question", where)),
            answer=str(_field(rec, "answer", where)), paragraphs=paras, supporting_facts=sf,
            supporting_paragraphs=sp, evidence_triples=ev, kind=str(rec.get("type", "")),
            source="2wiki"))
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
    """Read a MuSiQue-Ans file (``musique_ans_v1.0_dev.jsonl`` from ``musique_v1.0.zip``).

    Official download: the Google Drive file
    https://drive.google.com/file/d/1tGdADlNjWFaHLeZZGShh2IRcpO6Lv24h/view used by
    ``download_data.sh`` in https://github.com/StonyBrookNLP/musique (no checksum is
    published that we know of). License CC BY 4.0.

    Unanswerable records (``answerable: false``, in the MuSiQue-Full files) are skipped.
    Evidence triples are derived from ``question_decomposition`` when every step has the
    form ``"X >> relation"`` (``#k`` replaced by the answer of step k); otherwise empty.

    Examples
    --------
    >>> from gaba.data.benchmarks import SAMPLE_DIR, SAMPLE_FILES
    >>> ex = load_musique(SAMPLE_DIR / SAMPLE_FILES["musique"], limit=1)[0]
    >>> len(ex.paragraphs), ex.hops >= 2, ex.supporting_facts[0][1] is None
    (20, True, True)
    """
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


def load_sample(dataset: str) -> list[MultiHopExample]:
    """The book's fictional sample of ``dataset`` (``hotpotqa``, ``2wiki`` or ``musique``)."""
    if dataset not in _LOADERS:
        raise ValueError(f"dataset must be one of {sorted(_LOADERS)}, not {dataset!r}")
    return _LOADERS[dataset](SAMPLE_DIR / SAMPLE_FILES[dataset])


def load_public(dataset: str, *, limit: int | None = None) -> list[MultiHopExample]:
    """The shipped sample of the real ``dataset`` (``hotpotqa``, ``2wiki`` or ``musique``).

    Records from the published datasets, under their own licences (see
    ``assets/data/benchmarks/README.md``): 200 HotpotQA, 164 2WikiMultihopQA and 200 MuSiQue
    questions.

    Examples
    --------
    >>> ex = load_public("2wiki", limit=1)[0]
    >>> ex.source, ("Forbidden Ground", "director", "Pál Gábor") in ex.evidence_triples
    ('2wiki', True)
    """
    if dataset not in _LOADERS:
        raise ValueError(f"dataset must be one of {sorted(_LOADERS)}, not {dataset!r}")
    return _LOADERS[dataset](PUBLIC_DIR / PUBLIC_FILES[dataset], limit=limit)


def load_sample_triples() -> dict[str, list[tuple[str, str, str, int]]]:
    """Every fact stated in the samples' paragraphs: title -> [(subject, relation, object, sentence)].

    This is what a perfect extractor would return for the sample's paragraphs, distractors
    included; a graph built from it holds the noise a real graph holds, unlike a graph of the
    gold evidence triples alone.
    """
    raw = json.loads((SAMPLE_DIR / SAMPLE_TRIPLES_FILE).read_text(encoding="utf-8"))
    return {title: [tuple(t) for t in triples] for title, triples in raw.items()}


# ------------------------------------------------------------------ generating fictional samples

_FIRST = ["Ilse", "Bastian", "Odile", "Teodor", "Marit", "Casimir", "Leontine", "Ansel", "Noor",
          "Emeric", "Saskia", "Lorcan", "Fenna", "Dorian", "Agathe", "Jurre", "Mirela", "Osric",
          "Valda", "Tobiah", "Ysolde", "Piers", "Katrin", "Remy"]
_SURNAME_A = ["Vel", "Harn", "Ost", "Brem", "Kall", "Dun", "Sar", "Wend", "Mor", "Tess", "Quill",
              "Rav", "Fenw", "Lom", "Gard", "Ehr"]
_SURNAME_B = ["ander", "sky", "enko", "ová", "rick", "ens", "holm", "etti", "ard", "ovic", "berg"]
_TOWN_A = ["Ast", "Brem", "Cor", "Dal", "Elm", "Fal", "Gor", "Hav", "Isk", "Jor", "Kel", "Lund",
           "Mar", "Nor", "Ost", "Pell", "Quar", "Ros", "Sel", "Tarn", "Ulv", "Varn", "Wes", "Yar"]
_TOWN_B = ["holt", "mere", "bridge", "ford", "wick", "stead", "by", "haven", "moor", "dale"]
_PROVINCES = ["Kessary", "Lower Vantmark", "Ostrelia Coast", "Brannoch", "Highmere Reach",
              "Duvain"]
_ADJ = ["Silent", "Copper", "Hollow", "Last", "Northern", "Paper", "Winter", "Crimson", "Quiet",
        "Broken", "Glass", "Distant", "Salt", "Iron", "Lantern", "Amber"]
_NOUN = ["Harbour", "Ferry", "Garden", "Archive", "Comet", "Bell", "Compass", "Lighthouse",
         "Violin", "Frontier", "Tide", "Mirror", "Orbit", "Meadow", "Signal", "Quarry"]
_STUDIO_A = ["Lumen", "Bright", "Halcyon", "Kettle", "Ninefold", "Saffron", "Tallow", "Wren"]
_STUDIO_B = ["Pictures", "Film Works", "Studios", "Motion Company"]
_GENRES = ["drama", "comedy", "thriller", "musical", "documentary", "western"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]
_OCCUPATIONS = ["film director", "novelist", "architect", "composer", "painter"]


def _unique(rng: random.Random, make, n: int, taken: set[str]) -> list[str]:
    out = []
    while len(out) < n:
        name = make()
        if name not in taken:
            taken.add(name)
            out.append(name)
    return out


def _world(seed: int) -> dict:
    """A fictional world: provinces, towns, people, studios, films, with every fact as a triple."""
    rng = random.Random(seed)
    taken: set[str] = set()
    towns = _unique(rng, lambda: rng.choice(_TOWN_A) + rng.choice(_TOWN_B), 24, taken)
    people = _unique(rng, lambda: f"{rng.choice(_FIRST)} {rng.choice(_SURNAME_A)}{rng.choice(_SURNAME_B)}",
                     40, taken)
    studios = _unique(rng, lambda: f"{rng.choice(_STUDIO_A)} {rng.choice(_STUDIO_B)}", 8, taken)
    films = _unique(rng, lambda: rng.choice([f"The {rng.choice(_ADJ)} {rng.choice(_NOUN)}",
                                             f"{rng.choice(_NOUN)} of {rng.choice(towns)}"]),
                    36, taken)
    entities: dict[str, dict] = {}
    for t in towns:
        entities[t] = {"type": "town", "province": rng.choice(_PROVINCES),
                       "population": rng.randrange(2, 90) * 1000 + rng.randrange(0, 1000, 10)}
    directors = people[:24]
    for i, p in enumerate(people):
        year = rng.randrange(1901, 1976)
        entities[p] = {"type": "person", "birthplace": rng.choice(towns),
                       "born": f"{rng.randrange(1, 29)} {rng.choice(_MONTHS)} {year}", "year": year,
                       "occupation": "film director" if p in directors else rng.choice(_OCCUPATIONS[1:])}
    for s in studios:
        entities[s] = {"type": "studio", "hq": rng.choice(towns), "founder": rng.choice(people[24:]),
                       "founded": rng.randrange(1920, 1990)}
    for f in films:
        d = rng.choice(directors)
        year = max(entities[d]["year"] + 22, rng.randrange(1935, 2015))
        entities[f] = {"type": "film", "director": d, "year": min(year, 2019),
                       "studio": rng.choice(studios), "genre": rng.choice(_GENRES)}
    return {"towns": towns, "people": people, "directors": directors, "studios": studios,
            "films": films, "e": entities}


def _paragraph(name: str, w: dict) -> tuple[list[str], list[tuple[str, str, str, int]]]:
    """Sentences about one entity and the triples they state (with the sentence index)."""
    e = w["e"][name]
    if e["type"] == "town":
        return ([f"{name} is a town in the province of {e['province']}.",
                 f"At the last census it had {e['population']:,} inhabitants."],
                [(name, "located in the administrative territorial entity", e["province"], 0)])
    if e["type"] == "person":
        return ([f"{name} (born {e['born']} in {e['birthplace']}) is {_a(e['occupation'])} {e['occupation']}.",
                 f"{name.split()[0]} began working in {e['year'] + _stable_offset(name)}."],
                [(name, "place of birth", e["birthplace"], 0), (name, "date of birth", e["born"], 0),
                 (name, "occupation", e["occupation"], 0)])
    if e["type"] == "studio":
        return ([f"{name} is a film production company based in {e['hq']}.",
                 f"It was founded by {e['founder']} in {e['founded']}."],
                [(name, "headquarters location", e["hq"], 0), (name, "founded by", e["founder"], 1)])
    return ([f"{name} is a {e['year']} {e['genre']} film directed by {e['director']}.",
             f"It was produced by {e['studio']}."],
            [(name, "director", e["director"], 0), (name, "publication date", str(e["year"]), 0),
             (name, "production company", e["studio"], 1)])


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _stable_offset(name: str) -> int:
    """A stable small number derived from a name (keeps paragraphs independent of call order)."""
    return 18 + int(hashlib.sha256(name.encode()).hexdigest(), 16) % 9


def _examples(w: dict, n: int, seed: int, *, kinds: Sequence[str]) -> list[dict]:
    """Question records with their gold entities; the format writers add context and ids."""
    rng = random.Random(seed + 1)
    e = w["e"]
    out = []
    films = list(w["films"])
    while len(out) < n:
        kind = kinds[len(out) % len(kinds)]
        f1, f2 = rng.sample(films, 2)
        d1, d2 = e[f1]["director"], e[f2]["director"]
        if kind == "compositional":
            town = e[d1]["birthplace"]
            out.append({"type": kind, "question": f"Where was the director of film {f1} born?",
                        "answer": town, "gold": [f1, d1],
                        "evidences": [[f1, "director", d1], [d1, "place of birth", town]],
                        "steps": [(f"{f1} >> director", d1, f1), ("#1 >> place of birth", town, d1)]})
        elif kind == "three-hop":
            town = e[d1]["birthplace"]
            prov = e[town]["province"]
            out.append({"type": kind,
                        "question": f"In which province was the director of {f1} born?",
                        "answer": prov, "gold": [f1, d1, town],
                        "evidences": [[f1, "director", d1], [d1, "place of birth", town],
                                      [town, "located in the administrative territorial entity", prov]],
                        "steps": [(f"{f1} >> director", d1, f1), ("#1 >> place of birth", town, d1),
                                  ("#2 >> located in the administrative territorial entity", prov, town)]})
        elif kind == "studio":
            studio = e[f1]["studio"]
            hq = e[studio]["hq"]
            out.append({"type": "compositional",
                        "question": f"In which town is the company that produced {f1} based?",
                        "answer": hq, "gold": [f1, studio],
                        "evidences": [[f1, "production company", studio],
                                      [studio, "headquarters location", hq]],
                        "steps": [(f"{f1} >> production company", studio, f1),
                                  ("#1 >> headquarters location", hq, studio)]})
        elif kind == "comparison":
            y1, y2 = e[f1]["year"], e[f2]["year"]
            if y1 == y2:
                continue
            out.append({"type": kind, "question": f"Which film came out first, {f1} or {f2}?",
                        "answer": f1 if y1 < y2 else f2, "gold": [f1, f2],
                        "evidences": [[f1, "publication date", str(y1)],
                                      [f2, "publication date", str(y2)]], "steps": None})
        elif kind == "bridge_comparison":
            if d1 == d2 or e[d1]["born"] == e[d2]["born"]:
                continue
            older = f1 if (e[d1]["year"], _MONTHS.index(e[d1]["born"].split()[1]),
                           int(e[d1]["born"].split()[0])) < (
                e[d2]["year"], _MONTHS.index(e[d2]["born"].split()[1]), int(e[d2]["born"].split()[0])) else f2
            out.append({"type": kind,
                        "question": f"Which film has the director born earlier, {f1} or {f2}?",
                        "answer": older, "gold": [f1, f2, d1, d2],
                        "evidences": [[f1, "director", d1], [f2, "director", d2],
                                      [d1, "date of birth", e[d1]["born"]],
                                      [d2, "date of birth", e[d2]["born"]]], "steps": None})
        else:  # pragma: no cover - internal
            raise ValueError(kind)
    return out


def _distractors(w: dict, gold: Sequence[str], k: int, rng: random.Random) -> list[str]:
    """Distractor entities of the same types as the gold ones (like the benchmarks' hard distractors)."""
    types = {w["e"][g]["type"] for g in gold}
    pool = sorted(n for n, v in w["e"].items() if v["type"] in types and n not in gold)
    return rng.sample(pool, k)


def make_benchmark_sample(dataset: str, n: int = 30, *, seed: int = 0) -> list[dict]:
    """Generate ``n`` fictional records in the published format of ``dataset``.

    The world (towns, provinces, people, studios, films) is invented from word lists with a
    fixed seed; every paragraph states facts of one entity, and the questions are built from
    templates over those facts (2-hop compositional, 3-hop, comparison, bridge-comparison).
    No model is called, so the output is identical on every machine.

    Parameters
    ----------
    dataset : {"hotpotqa", "2wiki", "musique"}
    n : int
        Number of records.
    seed : int

    Returns
    -------
    list of dict
        Records exactly as the dataset publishes them (write with :func:`write_samples`).

    Examples
    --------
    >>> recs = make_benchmark_sample("2wiki", 4)
    >>> sorted(recs[0])
    ['_id', 'answer', 'context', 'evidences', 'question', 'supporting_facts', 'type']
    >>> make_benchmark_sample("2wiki", 4) == recs
    True
    """
    if dataset not in _LOADERS:
        raise ValueError(f"dataset must be one of {sorted(_LOADERS)}, not {dataset!r}")
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    w = _world(seed)
    rng = random.Random(seed + 2)
    if dataset == "musique":
        kinds = ["compositional", "three-hop", "studio", "compositional", "three-hop"]
    else:
        kinds = ["compositional", "comparison", "bridge_comparison", "studio", "compositional"]
    records = []
    for i, ex in enumerate(_examples(w, n, seed + {"hotpotqa": 0, "2wiki": 10, "musique": 20}[dataset],
                                     kinds=kinds)):
        size = 20 if dataset == "musique" else 10
        names = list(ex["gold"]) + _distractors(w, ex["gold"], size - len(ex["gold"]), rng)
        rng.shuffle(names)
        paras = {name: _paragraph(name, w) for name in names}
        # supporting facts: the sentence of each gold entity that states an evidence triple
        sf = []
        for s, r, o in ex["evidences"]:
            for ts, tr, to, sent in paras[s][1]:
                if (ts, tr, to) == (s, r, o) and [s, sent] not in sf:
                    sf.append([s, sent])
        uid = hashlib.sha256(f"{dataset}|{seed}|{i}|{ex['question']}".encode()).hexdigest()
        if dataset == "hotpotqa":
            records.append({
                "_id": uid[:24], "answer": ex["answer"], "question": ex["question"],
                "supporting_facts": sf,
                # HotpotQA keeps the space before each later sentence
                "context": [[name, [s if j == 0 else " " + s for j, s in enumerate(paras[name][0])]]
                            for name in names],
                "type": "comparison" if "comparison" in ex["type"] else "bridge", "level": "hard"})
        elif dataset == "2wiki":
            records.append({
                "_id": uid[:32], "type": ex["type"], "question": ex["question"],
                "context": [[name, paras[name][0]] for name in names], "supporting_facts": sf,
                "evidences": ex["evidences"], "answer": ex["answer"]})
        else:
            pidx = {name: j for j, name in enumerate(names)}
            steps = ex["steps"]
            ids = [int(uid[j * 6:(j + 1) * 6], 16) % 900_000 + 100_000 for j in range(len(steps))]
            prefix = {2: "2hop", 3: "3hop1"}[len(steps)]
            records.append({
                "id": f"{prefix}__{'_'.join(map(str, ids))}",
                "paragraphs": [{"idx": j, "title": name, "paragraph_text": " ".join(paras[name][0]),
                                "is_supporting": name in ex["gold"]} for j, name in enumerate(names)],
                "question": ex["question"],
                "question_decomposition": [
                    {"id": sid, "question": q, "answer": a, "paragraph_support_idx": pidx[src]}
                    for sid, (q, a, src) in zip(ids, steps)],
                "answer": ex["answer"], "answer_aliases": [], "answerable": True})
    return records


def sample_triples(seed: int = 0) -> dict[str, list[list]]:
    """Every fact of every entity of the fictional world, keyed by paragraph title (see
    :func:`load_sample_triples`)."""
    w = _world(seed)
    return {name: [list(t) for t in _paragraph(name, w)[1]] for name in sorted(w["e"])}


def write_samples(folder: str | Path = SAMPLE_DIR, *, n: int = 30, seed: int = 0) -> list[Path]:
    """Write the three fictional samples and their paragraph triples into ``folder``.

    HotpotQA and 2Wiki samples are JSON arrays (as published), MuSiQue is JSON Lines; every
    file is written the way the datasets write theirs (``ensure_ascii=False``).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for dataset, name in SAMPLE_FILES.items():
        recs = make_benchmark_sample(dataset, n, seed=seed)
        path = folder / name
        if name.endswith(".jsonl"):
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)
        else:
            text = json.dumps(recs, ensure_ascii=False, indent=1) + "\n"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    path = folder / SAMPLE_TRIPLES_FILE
    path.write_text(json.dumps(sample_triples(seed), ensure_ascii=False, indent=1) + "\n",
                    encoding="utf-8")
    written.append(path)
    return written


def pooled_paragraphs(examples: Iterable[MultiHopExample]) -> list[tuple[str, str]]:
    """All distinct ``(title, text)`` paragraphs of ``examples``, in first-seen order.

    Pooling the contexts of many questions gives a retrieval corpus in which each question's
    gold paragraphs compete with every other question's paragraphs.
    """
    seen: dict[tuple[str, str], None] = {}
    for ex in examples:
        for i in range(len(ex.paragraphs)):
            seen.setdefault((ex.paragraphs[i][0], ex.paragraph_text(i)), None)
    return list(seen)


def to_graph(examples: Iterable[MultiHopExample], *, triples: dict | None = None):
    """A knowledge graph in the book's format from benchmark facts.

    With ``triples`` (title -> [(subject, relation, object, sentence index)], e.g.
    :func:`load_sample_triples`), every fact of every paragraph the examples contain becomes
    an edge, distractors included; without it, the examples' gold evidence triples do (an
    optimistic graph: it holds no noise). Edges carry ``relation``, ``doc_id`` (the paragraph
    title) and ``evidence`` (the stated sentence, when known).

    Examples
    --------
    >>> G = to_graph(load_sample("2wiki"))
    >>> G.number_of_edges() > 30
    True
    """
    import networkx as nx

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
