"""Open extraction written as rows (``GABA_EXTRACT_FORMAT=rows``, issue 20).

The rows format asks for the same six fields by position instead of by name: fewer answer
tokens, and the instructions come before the document's names, so a server that reuses a
prompt prefix evaluates only what differs. These tests check it is the same extraction in another
shape: the same graph from the same facts, its own cache keys, a bad row refused with a reason.
Text and names are invented; the model is scripted.
"""
from __future__ import annotations

import json

import pytest

from gaba import config
from gaba.errors import ConfigError
from gaba.extract import extract_corpus, extract_triples
from gaba.kgbuild import build_knowledge_graph
from gaba.kgcache import triples_cache_key
from gaba.prompts import OPEN_ROWS_PROMPT
from gaba.request import ROW_FIELDS, extraction_request, facts_from_rows, prompt_version

DOC = {"id": "z1", "text": "Quillon Vey joined Tamsic Forge in 2019. Tamsic Forge glazes Orrel Baskets."}
DOC2 = {"id": "z2", "text": "Orrel Baskets is based in Drumlow. Varn Pike chairs Orrel Baskets."}
FACTS = [[1, "Quillon Vey", "joined", "Tamsic Forge", "person", "org"],
         [2, "Tamsic Forge", "glazes", "Orrel Baskets", "org", "org"]]
FACTS2 = [[1, "Orrel Baskets", "is based in", "Drumlow", "org", "place"],
          [2, "Varn Pike", "chairs", "Orrel Baskets", "person", "org"]]


def _objects(rows):
    return json.dumps({"facts": [dict(zip(ROW_FIELDS, r)) for r in rows]})


def _rows(rows):
    return json.dumps({"facts": rows})


@pytest.fixture
def use_format(monkeypatch, tmp_cache):
    """Set GABA_EXTRACT_FORMAT for the test; afterwards the settings are re-read without it (the
    settings are cached, so restoring the environment alone would leave "rows" in force)."""
    def use(value: str) -> None:
        monkeypatch.setenv("GABA_EXTRACT_FORMAT", value)
        config.reload()
    yield use
    monkeypatch.delenv("GABA_EXTRACT_FORMAT", raising=False)
    config.reload()


@pytest.fixture
def rows_mode(use_format):
    use_format("rows")


def test_the_setting_is_checked(use_format):
    with pytest.raises(ConfigError, match="GABA_EXTRACT_FORMAT='tuples' must be one of objects, rows"):
        use_format("tuples")
    use_format(" Rows ")
    assert config.get_settings().extract_format == "rows"
    use_format("")
    assert config.get_settings().extract_format == "objects"


def test_rows_request_shares_its_instructions_across_documents(rows_mode):
    a, b = extraction_request(DOC["text"]), extraction_request(DOC2["text"])
    item = a["schema"]["properties"]["facts"]["items"]
    assert item["type"] == "array" and len(item["prefixItems"]) == len(ROW_FIELDS)
    assert item["prefixItems"][1]["enum"] == ["Quillon Vey", "Tamsic Forge", "Orrel Baskets"]
    # everything up to the names is the same for both documents: a prefix the server can reuse
    head = OPEN_ROWS_PROMPT.split("{names}")[0].replace("{{", "{").replace("}}", "}")
    assert head.endswith("Names: ") and len(head) > 600
    assert a["prompt"].startswith(head) and b["prompt"].startswith(head)
    assert "[1] Quillon Vey joined Tamsic Forge in 2019." in a["prompt"]


def test_rows_and_objects_have_their_own_cache_keys(use_format):
    objects_version, objects_key = prompt_version(), triples_cache_key(DOC["text"])
    use_format("rows")
    assert prompt_version() != objects_version and triples_cache_key(DOC["text"]) != objects_key


def test_the_same_facts_give_the_same_graph(scripted, use_format, tmp_path):
    scripted.replies.extend([_objects(FACTS), _objects(FACTS2)])
    G = build_knowledge_graph([DOC, DOC2], cache_dir=tmp_path / "a", progress=False)
    use_format("rows")
    scripted.replies.extend([_rows(FACTS), _rows(FACTS2)])
    H = build_knowledge_graph([DOC, DOC2], cache_dir=tmp_path / "b", progress=False)
    assert len(scripted.requests) == 4 and "prefixItems" in json.dumps(scripted.requests[-1]["schema"])
    assert sorted(H.edges(keys=True, data=True)) == sorted(G.edges(keys=True, data=True))
    assert dict(H.nodes(data=True)) == dict(G.nodes(data=True))
    assert G.number_of_edges() >= 4
    assert H.graph["prompt_version"] != G.graph["prompt_version"]


def test_a_bad_row_is_refused_and_the_others_kept(scripted, rows_mode):
    scripted.replies.append(_rows([FACTS[0], [2, "Tamsic Forge", "glazes"], FACTS[1]]))
    refused = []
    kept = extract_triples(DOC, rejected=refused)
    assert [(t.subject, t.relation, t.object) for t in kept] == [
        ("Quillon Vey", "joined", "Tamsic Forge"), ("Tamsic Forge", "glazes", "Orrel Baskets")]
    assert len(refused) == 1


def test_rows_survive_the_triples_cache(scripted, rows_mode, tmp_path):
    scripted.replies.append(_rows(FACTS))
    first = extract_corpus([DOC], cache_dir=tmp_path / "kg", progress=False)
    again = extract_corpus([DOC], cache_dir=tmp_path / "kg", progress=False)
    assert len(scripted.requests) == 1 and again.triples == first.triples
    assert first.raw["z1"] == [dict(zip(ROW_FIELDS, r)) for r in FACTS]


def test_facts_from_rows_keeps_what_is_not_a_row():
    assert facts_from_rows([FACTS[0]]) == [dict(zip(ROW_FIELDS, FACTS[0]))]
    assert facts_from_rows([["x"], "y", {"a": 1}]) == [{"row": ["x"]}, {"row": "y"}, {"row": {"a": 1}}]
    assert facts_from_rows(None) is None


def test_a_bad_format_is_one_line_from_the_cli(tmp_path, monkeypatch):
    from test_faults_cli import _cli, _one_line_error

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text(DOC["text"], encoding="utf-8")
    monkeypatch.setenv("GABA_EXTRACT_FORMAT", "tuples")
    msg = _one_line_error(_cli("build-graph", "docs", cwd=tmp_path, tmp=tmp_path))
    assert "GABA_EXTRACT_FORMAT='tuples'" in msg
