"""Fault probes of the command line (``python -m gaba``) and of reading a reader's corpus
(gaba.data.news.load_documents): one-line errors, early failure, odd corpora.

In-process runs use the scripted backend (tests/conftest.py); subprocess runs are offline
(``GABA_OFFLINE=1``) with an empty temporary cache, so no language model is ever called.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from gaba import llm
from gaba.__main__ import graph_output, main
from gaba.data.news import load_documents
from gaba.errors import DocumentError

ROOT = Path(__file__).resolve().parent.parent
#: An open extraction reply for the sentence "Gamma Bank lends to Beta Foods." (sentence 1).
REPLY = json.dumps({"facts": [{"sentence": 1, "subject": "Gamma Bank", "predicate": "lends to",
                               "object": "Beta Foods", "subject_type": "org", "object_type": "org"}]})


def _cli(*args: str, cwd: Path, tmp: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "GABA_OFFLINE": "1", "GABA_IGNORE_DOTENV": "1",
           "GABA_CACHE_DIR": str(tmp / "llm-cache"), "GABA_KG_CACHE": str(tmp / "kg-cache"),
           "GABA_EMBED_CACHE": str(tmp / "embed-cache"),
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for v in ("GABA_BACKEND", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENROUTER_API_KEY"):
        env.pop(v, None)
    return subprocess.run([sys.executable, "-m", "gaba", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _one_line_error(p: subprocess.CompletedProcess, code: int = 1) -> str:
    assert p.returncode == code, (p.returncode, p.stderr)
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout
    lines = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1, p.stderr
    return lines[0]


# --- one-line errors ------------------------------------------------------------------------

def test_missing_corpus_subprocess(tmp_path):
    msg = _one_line_error(_cli("build-graph", "no/such/place", cwd=tmp_path, tmp=tmp_path))
    assert "no such file or folder" in msg
    assert len(_cli("build-graph", "no/such/place", cwd=tmp_path, tmp=tmp_path).stderr.splitlines()) == 1


def test_missing_graph_file_for_ask(tmp_path):
    msg = _one_line_error(_cli("ask", "Who?", "--graph", str(tmp_path / "none.json"), cwd=tmp_path,
                               tmp=tmp_path))
    assert "none.json" in msg
    assert "gaba build-graph" in msg          # says how to make one from the command line


def test_corrupt_graph_file_for_ask(tmp_path):
    bad = tmp_path / "bad.graph.json"
    bad.write_text("{not json")
    msg = _one_line_error(_cli("ask", "Who?", "--graph", str(bad), cwd=tmp_path, tmp=tmp_path))
    assert "bad.graph.json" in msg and "not a graph written by save_graph" in msg


def test_cache_verify_on_a_missing_folder(tmp_path):
    msg = _one_line_error(_cli("cache", "verify", "--dir", str(tmp_path / "nope"), cwd=tmp_path,
                               tmp=tmp_path))
    assert "nope" in msg


def test_usage_errors_exit_2(tmp_path, capsys):
    p = _cli("no-such-command", cwd=tmp_path, tmp=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "usage:" in p.stderr
    assert main(["build-graph"]) == 2
    assert main(["ask", "q", "--hops", "many"]) == 2
    capsys.readouterr()


def test_debug_shows_the_traceback(tmp_path, capsys):
    assert main(["build-graph", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err and err.count("\n") == 1
    assert main(["--debug", "build-graph", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "DocumentError" in err and "error: " in err
    assert main(["build-graph", str(tmp_path / "missing"), "--debug"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_invalid_hops_is_one_line(scripted, tmp_path, capsys):
    from gaba.graph import save_graph
    import networkx as nx

    G = nx.MultiDiGraph()
    G.add_edge("A", "B", key="R", relation="R", evidence="A R B.", doc_id="d1")
    save_graph(G, tmp_path / "g.json")
    code = main(["ask", "Who is A?", "--graph", str(tmp_path / "g.json"), "--hops", "-3"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("error: ") and err.count("\n") == 1


# --- build-graph: the output name and early failure ------------------------------------------

def test_output_name_for_dot_is_the_folder_name(tmp_path, monkeypatch):
    corpus = tmp_path / "my corpus"
    corpus.mkdir()
    monkeypatch.chdir(corpus)
    assert graph_output(".") == Path("my corpus.graph.json")
    assert graph_output("..") == Path(f"{tmp_path.name}.graph.json")
    assert graph_output("notes.json") == Path("notes.graph.json")
    assert graph_output("/") == Path("corpus.graph.json")


def test_build_graph_dot_writes_a_named_file(scripted, tmp_path, monkeypatch, capsys):
    corpus = tmp_path / "bank"
    corpus.mkdir()
    (corpus / "loan.txt").write_text("Gamma Bank lends to Beta Foods. The loan runs for five years.")
    monkeypatch.chdir(corpus)
    scripted.replies.append(REPLY)
    old = os.umask(0o022)
    try:
        assert main(["build-graph", "."]) == 0
    finally:
        os.umask(old)
    out = corpus / "bank.graph.json"
    assert out.is_file() and "bank.graph.json" in capsys.readouterr().out
    assert stat.S_IMODE(out.stat().st_mode) == 0o644          # not mkstemp's 0600


def test_unwritable_output_fails_before_any_model_call(scripted, tmp_path, monkeypatch, capsys):
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.txt").write_text("Gamma Bank lends to Beta Foods.")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for out in [str(blocker / "g.json"), str(tmp_path), str(tmp_path / "g.csv")]:
        assert main(["build-graph", str(corpus), "--out", out]) == 1
        err = capsys.readouterr().err
        assert err.startswith("error: cannot write the graph to") and err.count("\n") == 1
    assert scripted.requests == [] and llm.stats().calls == 0


def test_read_only_folder_fails_early_subprocess(tmp_path):
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.txt").write_text("Gamma Bank lends to Beta Foods.")
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    # offline with an empty cache: reaching extraction would fail with CacheMiss instead
    msg = _one_line_error(_cli("build-graph", str(corpus), "--out", str(blocker / "out.graph.json"),
                               cwd=tmp_path, tmp=tmp_path))
    assert "cannot write the graph" in msg and "GABA_OFFLINE" not in msg


def test_bad_corpus_fails_before_any_model_call(scripted, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["build-graph", str(tmp_path / "empty")]) == 1
    assert "holds no .txt or .md files" in capsys.readouterr().err
    assert scripted.requests == []


# --- odd corpora ------------------------------------------------------------------------------

def test_single_text_file_is_one_document(tmp_path):
    f = tmp_path / "story.txt"
    f.write_text("Gamma Bank lends to Beta Foods.")
    assert load_documents(f) == [{"id": "story", "title": "story", "date": None,
                                  "text": "Gamma Bank lends to Beta Foods."}]
    md = tmp_path / "Notes.MD"
    md.write_text("# Notes\nAcme buys from Beta.")
    assert load_documents(str(md))[0]["id"] == "Notes"


def test_single_text_file_through_the_cli(scripted, tmp_path, monkeypatch, capsys):
    f = tmp_path / "loan.txt"
    f.write_text("Gamma Bank lends to Beta Foods. The loan runs for five years.")
    monkeypatch.chdir(tmp_path)
    scripted.replies.append(REPLY)
    assert main(["build-graph", "loan.txt"]) == 0
    assert (tmp_path / "loan.graph.json").is_file()
    assert "invalid JSON" not in capsys.readouterr().err


def test_empty_or_binary_single_file(tmp_path):
    (tmp_path / "e.txt").write_text("  \n")
    with pytest.raises(DocumentError, match="'e' is empty"):
        load_documents(tmp_path / "e.txt")
    (tmp_path / "b.md").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(DocumentError, match="not UTF-8"):
        load_documents(tmp_path / "b.md")


def test_same_stem_different_suffix_get_distinct_ids(tmp_path):
    (tmp_path / "x.txt").write_text("Plain text.")
    (tmp_path / "x.md").write_text("Markdown text.")
    (tmp_path / "y.txt").write_text("Only one y.")
    docs = load_documents(tmp_path)
    assert [d["id"] for d in docs] == ["x.md", "x.txt", "y"]
    assert {d["text"] for d in docs} == {"Plain text.", "Markdown text.", "Only one y."}


def test_symlinks_are_skipped_with_a_warning(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("Private text that must not be read.")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "real.txt").write_text("A real document.")
    (corpus / "link.txt").symlink_to(secret)
    (corpus / "dirlink").symlink_to(outside, target_is_directory=True)
    with pytest.warns(UserWarning, match=r"skipped 2 symbolic link\(s\).*dirlink/, link.txt"):
        docs = load_documents(corpus)
    assert [d["id"] for d in docs] == ["real"]
    assert not any("Private" in d["text"] for d in docs)


def test_only_symlinks_is_an_error(tmp_path):
    (tmp_path / "t.txt").write_text("x")
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "l.txt").symlink_to(tmp_path / "t.txt")
    with pytest.warns(UserWarning):
        with pytest.raises(DocumentError, match=r"skipped 1 symbolic link"):
            load_documents(corpus)


def test_symlink_warning_is_one_line_on_the_cli(tmp_path):
    corpus = tmp_path / "c"
    corpus.mkdir()
    (tmp_path / "t.txt").write_text("Gamma Bank lends to Beta Foods.")
    (corpus / "l.txt").symlink_to(tmp_path / "t.txt")
    p = _cli("build-graph", str(corpus), cwd=tmp_path, tmp=tmp_path)
    _one_line_error(p)
    assert "warning: skipped 1 symbolic link(s)" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 2


def test_nfd_names_are_normalised(tmp_path):
    nfd = unicodedata.normalize("NFD", "Zoë Brandt joined Łódź Robotics.")
    nfc = unicodedata.normalize("NFC", nfd)
    assert nfd != nfc
    (tmp_path / unicodedata.normalize("NFD", "Zoë.txt")).write_text(nfd, encoding="utf-8")
    doc = load_documents(tmp_path)[0]
    assert doc["text"] == nfc and doc["id"] == "Zo\u00eb" and doc["title"] == "Zo\u00eb"
    assert load_documents([nfd])[0]["text"] == nfc
    assert load_documents([{"id": unicodedata.normalize("NFD", "Zoë"), "text": nfd}])[0]["id"] == "Zo\u00eb"


def test_every_command_line_argument_says_what_it_is():
    # `python -m gaba COMMAND --help` explains each argument, positional ones included
    from gaba.__main__ import _parser

    parser = _parser()
    commands = next(a for a in parser._actions if a.dest == "cmd").choices
    bare = [f"{name} {a.dest}" for name, sub in commands.items() for a in sub._actions
            if a.dest != "help" and not a.help]
    assert bare == []


# --- the reader's files are never the output; a build that gave nothing is an error ------------

def test_out_may_not_be_the_documents_file(scripted, tmp_path, capsys):
    docs = tmp_path / "notes.json"
    docs.write_text(json.dumps([{"id": "n1", "text": "Gamma Bank lends to Beta Foods."}]))
    before = docs.read_bytes()
    assert main(["build-graph", str(docs), "--out", str(docs)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: --out") and "overwrite your documents" in err and err.count("\n") == 1
    assert docs.read_bytes() == before and scripted.requests == []


def _two_notes(tmp_path: Path) -> tuple[Path, Path]:
    """A folder of two one-sentence notes, and where its graph goes."""
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "a.txt").write_text("Gamma Bank lends to Beta Foods.")
    (corpus / "b.txt").write_text("Delta Mills buys grain from Beta Foods.")
    return corpus, tmp_path / "g.json"


def test_a_build_where_every_document_failed_writes_nothing_and_exits_1(scripted, tmp_path, capsys):
    corpus, out = _two_notes(tmp_path)
    # no scripted reply is JSON ("ok"), so every document fails after its retries
    assert main(["build-graph", str(corpus), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and "no graph was written" in lines[0] and "run again" in lines[0]
    assert not out.exists() and scripted.requests


def test_a_build_where_one_document_failed_still_writes_the_graph(scripted, tmp_path, capsys):
    corpus, out = _two_notes(tmp_path)
    scripted.replies.append(REPLY)          # a.txt is extracted; b.txt gets "ok" and fails
    assert main(["build-graph", str(corpus), "--out", str(out)]) == 0
    assert out.is_file() and "1 failed" in capsys.readouterr().out
