"""The news corpus of chapter "From text to a knowledge graph" (14 fictional snippets, none stating
a two-hop chain), its gold triples and aliases, and the document loader."""
from __future__ import annotations

import json
import os
import re
import unicodedata
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..checks import lone_surrogate
from ..config import ASSETS
from ..errors import DocumentError

#: Folder of the news corpus and its gold annotations.
KG_DIR = ASSETS / "data" / "kg"
#: The 14 news snippets: a JSON list of {"id", "title", "date", "text"}.
NEWS_PATH = KG_DIR / "news_snippets.json"
#: Hand-written gold triples: {"subject", "relation", "object", "doc_id", "evidence"}.
GOLD_TRIPLES_PATH = KG_DIR / "gold_triples.json"
#: Hand-written alias table: short form used in the text -> canonical entity name.
GOLD_ALIASES_PATH = KG_DIR / "gold_aliases.json"
#: Scoring folds of the news schema: ``(a, BUYS_FROM, b)`` is ``(b, SUPPLIES_TO, a)``; COMPETES_WITH is symmetric.
RELATION_FOLDS = {"inverse": {"BUYS_FROM": "SUPPLIES_TO"}, "symmetric": ("COMPETES_WITH",)}
#: File suffixes read from a folder of documents.
TEXT_SUFFIXES = (".txt", ".md")

#: Characters that show nothing: zero-width space, word joiner, byte-order mark, soft hyphen. (Not the
#: zero-width joiners, which change how Indic and Arabic letters join.)
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u2060\ufeff\u00ad"))


def plain_unicode(text: str) -> str:
    """One spelling of a text, NFC without invisible characters, so that NFD "Zoe\u0308" (macOS
    file names), NFC "Zo\u00eb" and a pasted "Zo\u00eb\u200b" match.

    >>> plain_unicode("Zoe\u0308 Bran\u00addt") == "Zo\u00eb Brandt"
    True
    """
    return unicodedata.normalize("NFC", text).translate(INVISIBLE)


#: A line that starts a block of its own: a Markdown heading, list item or quotation.
_BLOCK_START = re.compile(r"^[ \t]{0,3}(?:(#{1,6})[ \t]+|[-*+\u2022][ \t]+|\d{1,3}[.)][ \t]+|>[ \t]?)")
#: A line that is a block on its own: a field ("Subject: ...", "Founded: 1962") or a table row.
_ONE_LINE = re.compile(r"^[ \t]*(?:[^\W\d_][\w'\u2019 -]{0,24}:[ \t]+\S|\|)")
#: A line that only separates blocks: a rule ("---", "===") or a table's rule.
_SEPARATOR = re.compile(r"(?:[-*_=][ \t]*){3,}|\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?)?")
#: How a sentence ends: punctuation, then any closing quotes or brackets.
_ENDED = re.compile(r"[.!?:;\u2026][\"'\u201d\u2019)\]]*$")
#: A line of at most this many words that ends in a capitalised word, without a full stop, before a
#: capitalised line ends its block (a signature, a title): wrapped prose fills its lines.
SHORT_LINE_WORDS = 4


def plain_layout(text: str) -> str:
    r"""Text laid out as paragraphs of sentences, so that no sentence or name runs across a heading
    ("# About Acme" then "Acme makes vans." would read "About Acme Acme makes vans").

    Blank lines, headings, list items and quotations start a block; headings, table rows, fields
    ("Subject: ...") and short lines ending in a capitalised word before a capitalised line (a
    signature) are blocks of one line; other line breaks are spaces; code, Markdown marks and link
    targets go; each block ends a sentence. A field under a heading (or an opening title line) is
    written after it ("Acme — Founder: Ann Lee"). Text on one line is returned unchanged.

    >>> plain_layout("# About Acme\nAcme makes **vans** in\nLeeds.\n\n- founded by [Ann Lee](https://x.org)")
    'About Acme.\n\nAcme makes vans in Leeds.\n\nfounded by Ann Lee.'
    >>> plain_layout("From: Ann Lee\nSubject: Vans\n\nBest wishes,\nAnn Lee\nChair, Acme")
    'From: Ann Lee.\n\nSubject: Vans.\n\nBest wishes, Ann Lee.\n\nChair, Acme.'
    >>> plain_layout("Acme Vans\nFounded: 1962\nFounder: Ann Lee")
    'Acme Vans.\n\nAcme Vans — Founded: 1962.\n\nAcme Vans — Founder: Ann Lee.'
    >>> plain_layout("# Acme\n\n- Founder: Ann Lee\n- makes vans")
    'Acme.\n\nAcme — Founder: Ann Lee.\n\nmakes vans.'
    """
    if "\n" not in text.strip() and "\r" not in text.strip():
        return text
    blocks: list[str] = []
    lines: list[str] = []

    def end_block() -> None:
        if lines:
            block = re.sub(r"\[([^\]\n]+)\]\([^)\s]*\)", r"\1", " ".join(lines))   # [text](target) -> text
            block = re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", block)          # **bold** -> bold
            blocks.append(block if _ENDED.search(block) else block.rstrip(",") + ".")
            lines.clear()

    rows = text.splitlines()

    def field(i: int) -> bool:
        """Line ``i`` is a table row or looks like a field ("Subject: ..."); the caller also wants it
        beside another field or between blank lines, as prose can open "The mayor said: ..." too."""
        line = rows[i].strip() if 0 <= i < len(rows) else ""
        return line[:1] == "|" or bool(line[:1].isupper() and _ONE_LINE.match(line))

    def blank(i: int) -> bool:
        return not (0 <= i < len(rows)) or not rows[i].strip()

    fence = ""                                   # inside a fenced code block: its fence ("```")
    title = ""                                   # the heading the fields below belong to
    for n, line in enumerate(rows):
        words = line.strip()
        if fence or words.startswith(("```", "~~~")):      # code is no prose: the block is left out
            end_block()
            if words.startswith(fence or words[:3]):
                fence = "" if fence else words[:3]
            continue
        if not words or _SEPARATOR.fullmatch(words):
            end_block()
            continue
        start = _BLOCK_START.match(line)
        one_line = bool(start and start.group(1)) or (field(n) and (
            words[:1] == "|" or field(n - 1) or field(n + 1) or blank(n - 1) and blank(n + 1)))
        if start or one_line:
            end_block()
        if start:
            words = line[start.end():].strip()
            if start.group(1):                   # "## Title ##" loses its closing marks
                words = words.rstrip("#").strip()
        if start and start.group(1):
            title = words
        elif title and words[:1] != "|" and (one_line or start and words[:1].isupper()
                                              and _ONE_LINE.match(words)):
            words = f"{title} \u2014 {words}"    # a fact sheet's field (or listed field) names its subject
        if words:
            lines.append(words)
        following = rows[n + 1].strip() if n + 1 < len(rows) else ""
        last = words.split()[-1:] or [""]
        if one_line or (len(words.split()) <= SHORT_LINE_WORDS and not _ENDED.search(words)
                        and last[0][:1].isupper() and following[:1].isupper()):
            if not blocks and len(lines) == 1 and not one_line:
                title = words                    # a title line opening the text
            end_block()
    end_block()
    return "\n\n".join(blocks)


def _file_name(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 ("caf\\xe9" from an old archive) become U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _read_text(path: Path, hint: str = "") -> str:
    try:
        return path.read_text(encoding="utf-8-sig")       # an editor's byte-order mark is not text
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{path} is not UTF-8 text{hint}.") from exc
    except OSError as exc:
        raise DocumentError(f"cannot read {path}: {exc.strerror or exc}.") from exc


def _read_json(path: Path) -> Any:
    text = _read_text(path, "; give a JSON file of documents")
    try:
        return json.loads(text)
    except RecursionError:
        raise DocumentError(f"{path} nests JSON too deeply; expected a list of strings or of "
                            '{"id", "text"} objects.') from None
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}); expected a "
                            'list of strings or of {"id", "text"} objects.') from exc
    except ValueError as exc:            # a number of more than 4,300 digits
        raise DocumentError(f"{path} holds a number JSON cannot be read with ({str(exc)[:60]}...); "
                            'expected a list of strings or of {"id", "text"} objects.') from exc


def _one(item: Any, index: int, width: int) -> dict:
    """Normalise one document to {"id", "title", "date", "text"}; raise DocumentError if unusable."""
    default_id = f"d{index + 1:0{width}d}"
    if isinstance(item, str):
        doc = {"id": default_id, "title": "", "date": None, "text": item}
    elif isinstance(item, Mapping):
        if "text" not in item:
            raise DocumentError(f"document {item.get('id', default_id)!r} (position {index}) has no "
                                f"'text' field; each document needs 'text' (and optionally 'id').")
        doc = {"id": item.get("id", default_id), "title": item.get("title", "") or "",
               "date": item.get("date"), "text": item["text"]}
        if not isinstance(doc["id"], str) or not doc["id"].strip():
            raise DocumentError(f"document at position {index} has an id {doc['id']!r}; ids must be "
                                "non-empty strings.")
        if not isinstance(doc["title"], str):
            raise DocumentError(f"document {doc['id']!r} has a title of type {type(doc['title']).__name__}; "
                                "give a string or leave it out.")
    else:
        raise DocumentError(f"document at position {index} is a {type(item).__name__}, not text; "
                            'give strings or {"id", "text"} dicts.')
    if not isinstance(doc["text"], str):
        raise DocumentError(f"document {doc['id']!r} has text of type {type(doc['text']).__name__}, "
                            "not a string.")
    for field in ("id", "title", "text"):
        if isinstance(doc[field], str):
            doc[field] = plain_unicode(doc[field])
    doc["text"] = plain_layout(doc["text"])
    if not doc["text"].strip():
        raise DocumentError(f"document {doc['id']!r} is empty; remove it or give it some text.")
    if "\x00" in doc["text"]:
        raise DocumentError(f"document {doc['id']!r} contains NUL bytes: it looks like binary data, "
                            "not text.")
    for field in ("id", "title", "text"):     # a lone surrogate ("\ud800" in JSON) cannot be written as UTF-8
        if isinstance(doc[field], str) and not doc[field].isascii() and (at := lone_surrogate(doc[field])) is not None:
            raise DocumentError(f"document {doc['id']!r} has a lone surrogate ({doc[field][at]!r}) in its "
                                f"{field}, which is not Unicode text; remove it or decode the source properly.")
    return doc


def _normalise(items: Iterable[Any]) -> list[dict]:
    items = list(items)
    if not items:
        raise DocumentError("no documents: give at least one non-empty text.")
    width = max(2, len(str(len(items))))
    docs = [_one(item, i, width) for i, item in enumerate(items)]
    seen: set[str] = set()
    for d in docs:
        if d["id"] in seen:
            raise DocumentError(f"two documents share the id {d['id']!r}; ids must be unique.")
        seen.add(d["id"])
    return docs


def _from_folder(folder: Path) -> list[dict]:
    """The ``.txt``/``.md`` files under ``folder``, skipping symbolic links (they could loop)."""
    files: list[Path] = []
    links: list[str] = []
    other: Counter[str] = Counter()        # files of other kinds (a PDF, a web page) are not read
    for root, dirs, names in os.walk(folder):               # os.walk does not enter linked folders
        here = Path(root)
        links += [(here / d).relative_to(folder).as_posix() + "/" for d in dirs if (here / d).is_symlink()]
        other.update(Path(name).suffix.lower() or "(no suffix)" for name in names
                      if Path(name).suffix.lower() not in TEXT_SUFFIXES and not name.startswith("."))
        for p in (here / name for name in names if Path(name).suffix.lower() in TEXT_SUFFIXES):
            if p.is_symlink():
                links.append(p.relative_to(folder).as_posix())
            elif p.is_file():
                files.append(p)
    if links:
        shown = ", ".join(sorted(links)[:5]) + (", ..." if len(links) > 5 else "")
        warnings.warn(f"skipped {len(links)} symbolic link(s) in {folder} (links are not read as "
                      f"documents; copy the files in instead): {shown}", UserWarning, stacklevel=3)
    files.sort(key=lambda p: p.relative_to(folder).as_posix())
    kinds = ", ".join(f"{n} {suffix}" for suffix, n in sorted(other.items()))
    if not files:
        extra = f" (skipped {len(links)} symbolic link(s))" if links else ""
        extra += f"; it holds {kinds}: convert them to plain text first" if other else ""
        raise DocumentError(f"{folder} holds no {' or '.join(TEXT_SUFFIXES)} files{extra}.")
    if other:
        warnings.warn(f"read only the {' and '.join(TEXT_SUFFIXES)} files in {folder}; skipped "
                      f"{sum(other.values())} other file(s) ({kinds}): convert them to plain text to "
                      "include them", UserWarning, stacklevel=3)
    # id = path without suffix; when two files differ only by suffix (x.txt, x.md), keep it
    stems = Counter(p.relative_to(folder).with_suffix("").as_posix() for p in files)
    items, bad = [], []
    for p in files:
        rel = p.relative_to(folder)
        stem = rel.with_suffix("").as_posix()
        doc_id = _file_name(rel.as_posix() if stems[stem] > 1 else stem)
        try:          # one unreadable, empty or binary file does not cost the reader the others
            items.append(_one({"id": doc_id, "title": _file_name(p.stem), "text": _read_text(p)},
                              len(items), 2))
        except DocumentError as exc:
            bad.append(f"{rel.as_posix()} ({exc})")
    if bad and not items:
        raise DocumentError(f"{folder} holds no usable document: {'; '.join(bad[:3])}")
    if bad:
        warnings.warn(f"skipped {len(bad)} file(s) in {folder} that are not usable text: "
                      f"{'; '.join(bad[:5])}{'; ...' if len(bad) > 5 else ''}", UserWarning, stacklevel=3)
    return _normalise(items)     # again: file names that differ only in Unicode form share an id


def load_documents(source: Any = None) -> list[dict]:
    """Load documents as a list of ``{"id", "title", "date", "text"}`` dicts (text as :func:`plain_unicode`
    and :func:`plain_layout`).

    ``source``: ``None`` (the news snippets); a list of strings or dicts; or a path to a JSON list,
    a ``.txt``/``.md`` file or a folder of them (unreadable files skipped with a warning). Raises
    ``DocumentError`` for a missing or empty source, a document without text, or a repeated id.

    >>> load_documents([{"id": "a", "text": "Kestrel builds vans."}])
    [{'id': 'a', 'title': '', 'date': None, 'text': 'Kestrel builds vans.'}]
    """
    if source is None:
        source = NEWS_PATH
    if isinstance(source, (str, os.PathLike)):
        if not str(source).strip():       # Path("") is the working folder: every file in it would be read
            raise DocumentError("the path of the documents is empty; give a JSON file, a .txt or .md "
                                "file, or a folder of them.")
        path = Path(source)
        if not path.exists():
            raise DocumentError(f"no such file or folder: {path}. To pass texts directly, give a "
                                "list of strings.")
        if path.is_dir():
            return _from_folder(path)
        if path.suffix.lower() in TEXT_SUFFIXES:     # one document: id and title are the file's stem
            return _normalise([{"id": _file_name(path.stem or path.name), "title": _file_name(path.stem),
                                "text": _read_text(path)}])
        try:
            data = _read_json(path)
        except DocumentError:
            if path.suffix.lower() == ".json":
                raise
            raise DocumentError(f"{path} is neither a {' nor a '.join(TEXT_SUFFIXES)} file nor a JSON "
                                "list of documents; convert it to plain text first.") from None
        if not isinstance(data, list):
            raise DocumentError(f"{path} holds a JSON {type(data).__name__}; expected a list of "
                                'strings or of {"id", "text"} objects.')
        return _normalise(data)
    if isinstance(source, (bytes, bytearray, Mapping)) or not isinstance(source, Iterable):
        raise DocumentError(f"cannot read documents from a {type(source).__name__}; give a list of "
                            "strings, a list of dicts, or a path.")
    return _normalise(source)


def load_gold_triples() -> list[dict]:
    """The hand-written gold triples of the news corpus, as dicts (``evidence`` verbatim from ``doc_id``)."""
    return _read_json(GOLD_TRIPLES_PATH)


def load_gold_aliases() -> dict[str, str]:
    """The hand-written alias table of the news corpus: short form in the text -> canonical name."""
    return dict(sorted(_read_json(GOLD_ALIASES_PATH).items()))
