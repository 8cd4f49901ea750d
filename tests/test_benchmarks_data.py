"""Tests of gaba.data.benchmarks and the sample generator beside its files: the loaders on our fictional
samples, on the real published samples shipped in assets/data/benchmarks, bad files, and the
sample generator."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaba.data import benchmarks as bm
from gaba.errors import DocumentError, GabaError
from gaba.fileio import sha256_file


def _load_generator():
    """assets/data/benchmark_samples/make_samples.py, imported as a module (it is not in gaba)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_samples", bm.SAMPLE_DIR / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()

LOADERS = {"hotpotqa": bm.load_hotpotqa, "2wiki": bm.load_2wiki, "musique": bm.load_musique}
#: SHA-256 of each real sample file, as published with it (assets/data/benchmarks/README.md).
PUBLIC_SHA256 = {"hotpotqa": "b7b66894184bfb424ab24aeafc6938f9cc1768bae8eec7d9135f4adf7747b476",
                 "2wiki": "535a190a85588fc743dbb9edb5b450609ecc167695638d925c06a8a4a14314dd",
                 "musique": "bbc98ab676941cf3a481cb3361cfab334cd2a24c74ed42473e4d5c14cf7577d4"}


def real(dataset: str) -> Path:
    """The shipped real sample of a dataset (part of the repository: never skipped)."""
    path = bm.PUBLIC_DIR / bm.PUBLIC_FILES[dataset]
    assert path.is_file(), f"{path} is missing: the book ships it (assets/data/benchmarks)"
    return path


# --- fictional samples ----------------------------------------------------------------------

def test_committed_samples_equal_a_fresh_generation(tmp_path):
    gen.write_samples(tmp_path)
    for name in [*bm.SAMPLE_FILES.values(), bm.SAMPLE_TRIPLES_FILE]:
        assert (tmp_path / name).read_bytes() == (bm.SAMPLE_DIR / name).read_bytes(), name


@pytest.mark.parametrize("dataset", sorted(bm.SAMPLE_FILES))
def test_samples_load_and_are_consistent(dataset):
    examples = bm.load_sample(dataset)
    assert len(examples) == 30
    assert len({e.id for e in examples}) == 30
    triples = bm.load_sample_triples()
    for ex in examples:
        assert ex.source == dataset and ex.question.endswith("?") and ex.answer
        assert len(ex.paragraphs) == (20 if dataset == "musique" else 10)
        assert 2 <= ex.hops <= 4
        # the answer is stated in a gold paragraph
        gold_text = " ".join(ex.paragraph_text(i) for i in ex.supporting_paragraphs)
        assert ex.answer in gold_text or ex.answer in ex.question
        # every evidence triple is a fact of the paragraph named by its subject
        for s, r, o in ex.evidence_triples:
            assert [s, r, o] in [t[:3] for t in map(list, triples[s])]


def test_sample_formats_match_the_published_ones():
    hp = json.loads((bm.SAMPLE_DIR / bm.SAMPLE_FILES["hotpotqa"]).read_text())
    assert isinstance(hp, list)
    assert set(hp[0]) == {"_id", "answer", "question", "supporting_facts", "context", "type", "level"}
    assert hp[0]["context"][0][1][1].startswith(" ")  # HotpotQA keeps the space between sentences
    wiki = json.loads((bm.SAMPLE_DIR / bm.SAMPLE_FILES["2wiki"]).read_text())
    assert {"evidences", "supporting_facts", "context", "type"} <= set(wiki[0])
    lines = (bm.SAMPLE_DIR / bm.SAMPLE_FILES["musique"]).read_text().splitlines()
    mu = json.loads(lines[0])
    assert set(mu) == {"id", "paragraphs", "question", "question_decomposition", "answer",
                       "answer_aliases", "answerable"}
    assert set(mu["paragraphs"][0]) == {"idx", "title", "paragraph_text", "is_supporting"}
    for step in mu["question_decomposition"]:
        assert mu["paragraphs"][step["paragraph_support_idx"]]["is_supporting"]


def test_generator_is_deterministic_and_validates():
    assert gen.make_benchmark_sample("musique", 3, seed=5) == gen.make_benchmark_sample("musique", 3, seed=5)
    assert gen.make_benchmark_sample("musique", 3, seed=5) != gen.make_benchmark_sample("musique", 3, seed=6)
    with pytest.raises(ValueError):
        gen.make_benchmark_sample("squad", 3)
    with pytest.raises(ValueError):
        gen.make_benchmark_sample("2wiki", 0)
    with pytest.raises(ValueError):
        bm.load_sample("squad")


def test_musique_triples_from_decomposition():
    steps = [{"question": "Film X >> director", "answer": "Ada"},
             {"question": "#1 >> place of birth", "answer": "Townsville"}]
    assert bm._musique_triples(steps) == (("Film X", "director", "Ada"),
                                          ("Ada", "place of birth", "Townsville"))
    assert bm._musique_triples([{"question": "who directed Film X", "answer": "Ada"}]) == ()
    assert bm._musique_triples([{"question": "#5 >> capital", "answer": "Y"}]) == ()


def test_pooled_paragraphs_deduplicates():
    examples = bm.load_sample("2wiki")
    pool = bm.pooled_paragraphs(examples)
    assert len(pool) == len(set(pool)) < sum(len(e.paragraphs) for e in examples)
    assert len(pool) <= 108


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("dataset", sorted(LOADERS))
def test_missing_file_says_where_to_download(dataset, tmp_path):
    with pytest.raises(bm.BenchmarkFileNotFound) as info:
        LOADERS[dataset](tmp_path / "nope.json")
    err = info.value
    assert isinstance(err, FileNotFoundError) and isinstance(err, GabaError)
    assert bm.SOURCES[dataset]["url"] in str(err) and "load_sample" in str(err)


def test_folder_empty_and_broken_files(tmp_path):
    with pytest.raises(DocumentError, match="folder"):
        bm.load_2wiki(tmp_path)
    empty = tmp_path / "empty.json"
    empty.write_text("  \n")
    with pytest.raises(DocumentError, match="empty"):
        bm.load_2wiki(empty)
    broken = tmp_path / "broken.jsonl"
    good = (bm.SAMPLE_DIR / bm.SAMPLE_FILES["musique"]).read_text().splitlines()[0]
    broken.write_text(good + "\n{not json\n")
    with pytest.raises(DocumentError, match="line 2"):
        bm.load_musique(broken)
    assert len(bm.load_musique(broken, limit=1)) == 1
    binary = tmp_path / "zipped.json"
    binary.write_bytes(b"PK\x03\x04\xff\xfe\x00")
    with pytest.raises(DocumentError):
        bm.load_hotpotqa(binary)


def test_wrong_loader_for_a_file_is_named():
    with pytest.raises(DocumentError, match="'evidences'"):
        bm.load_2wiki(bm.SAMPLE_DIR / bm.SAMPLE_FILES["hotpotqa"])
    with pytest.raises(DocumentError, match="'context'"):
        bm.load_hotpotqa(bm.SAMPLE_DIR / bm.SAMPLE_FILES["musique"])


def test_supporting_title_not_in_context(tmp_path):
    rec = json.loads((bm.SAMPLE_DIR / bm.SAMPLE_FILES["hotpotqa"]).read_text())[0]
    rec["supporting_facts"].append(["No Such Page", 0])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([rec]))
    with pytest.raises(DocumentError, match="No Such Page"):
        bm.load_hotpotqa(path)


def test_limit_validation():
    with pytest.raises(ValueError):
        bm.load_2wiki(bm.SAMPLE_DIR / bm.SAMPLE_FILES["2wiki"], limit=-1)
    assert len(bm.load_2wiki(bm.SAMPLE_DIR / bm.SAMPLE_FILES["2wiki"], limit=3)) == 3


def test_sha256_file(tmp_path):
    p = tmp_path / "x"
    p.write_bytes(b"abc")
    assert sha256_file(p) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


# --- the real published samples (shipped in assets/data/benchmarks) ------------------------

def test_real_samples_ship_with_licences_and_a_readme():
    readme = (bm.PUBLIC_DIR / "README.md").read_text(encoding="utf-8")
    for words in ("Apache-2.0", "CC BY-SA 4.0", "CC BY 4.0", "AdelWang/MIGRES", "Changes made"):
        assert words in readme
    for digest in PUBLIC_SHA256.values():
        assert digest in readme
    apache = (bm.PUBLIC_DIR / "2wikimultihopqa" / "LICENSE-Apache-2.0.txt").read_text(encoding="utf-8")
    assert "Apache License" in apache and "Version 2.0, January 2004" in apache
    assert "Apache License" in (bm.PUBLIC_DIR / "2wikimultihopqa" / "NOTICE.md").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in (bm.PUBLIC_DIR / "hotpotqa" / "LICENSE.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in (bm.PUBLIC_DIR / "musique" / "LICENSE.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("dataset", sorted(bm.PUBLIC_FILES))
def test_load_public_reads_the_shipped_samples(dataset):
    examples = bm.load_public(dataset)
    assert len(examples) == {"hotpotqa": 200, "2wiki": 164, "musique": 200}[dataset]
    assert examples[:3] == bm.load_public(dataset, limit=3)
    assert examples == LOADERS[dataset](real(dataset))
    with pytest.raises(ValueError):
        bm.load_public("squad")


def test_real_hotpotqa():
    ex = bm.load_hotpotqa(real("hotpotqa"))
    assert len(ex) == 200
    assert {e.kind for e in ex} == {"bridge", "comparison"}
    assert all(e.hops >= 2 and not e.evidence_triples for e in ex)
    first = ex[0]
    assert first.answer == "Rush" and first.supporting_titles == ["Nobody's Hero", "Neil Peart"]


def test_real_2wiki():
    ex = bm.load_2wiki(real("2wiki"))
    assert len(ex) == 164
    assert all(len(e.paragraphs) == 10 and 2 <= len(e.evidence_triples) <= 5 for e in ex)
    kinds = {k: sum(e.kind == k for e in ex) for k in {e.kind for e in ex}}
    assert kinds == {"compositional": 57, "comparison": 54, "bridge_comparison": 43, "inference": 10}
    first = ex[0]
    assert ("Forbidden Ground", "director", "Pál Gábor") in first.evidence_triples


def test_real_musique():
    ex = bm.load_musique(real("musique"))
    assert len(ex) == 200
    assert all(len(e.paragraphs) == 20 and 2 <= e.hops <= 4 for e in ex)
    assert sum(e.kind == "2hop" for e in ex) == 145
    first = ex[0]
    assert first.answer == "Stanley"
    assert "Mountrail County Courthouse" in first.supporting_titles
    assert first.supporting_facts[0][1] is None
    # duplicate titles are common in MuSiQue: support is kept by paragraph index
    assert any(len({t for t, _ in e.paragraphs}) < len(e.paragraphs) for e in ex)
    with_triples = [e for e in ex if e.evidence_triples]
    assert all(len(e.evidence_triples) == e.hops or e.kind != "2hop" for e in with_triples)


def test_real_checksums_match_the_readme():
    for dataset, digest in PUBLIC_SHA256.items():
        assert sha256_file(real(dataset)) == digest


def test_zip_and_non_utf8(tmp_path):
    z = tmp_path / "data.zip"
    z.write_bytes(b"PK\x03\x04rest")
    with pytest.raises(DocumentError, match="unzip"):
        bm.load_2wiki(z)
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"a": "\xe9"}\n')
    with pytest.raises(DocumentError, match="UTF-8"):
        bm.load_musique(latin)


def test_generator_examples_run():
    import doctest
    assert doctest.testmod(gen).failed == 0
