"""The family graph's facts and the synthetic genealogy generator."""
from __future__ import annotations

import csv
import itertools

import pytest

from gaba.data.westeros import (PARENT_RELATIONS, RELATIONS, WESTEROS_DIR, genealogy_records,
                                load_westeros, synthetic_genealogy)


@pytest.fixture(scope="module")
def G():
    return load_westeros()


def rel_edges(G, rel):
    return {(u, v) for u, v, r in G.edges(data="relation") if r == rel}


def test_size_and_schema(G):
    assert 250 <= G.number_of_nodes() <= 400
    assert G.number_of_edges() >= 600
    assert {r for _, _, r in G.edges(data="relation")} == set(RELATIONS)
    for n, d in G.nodes(data=True):
        assert d["name"] == n
        assert d["gender"] in {"male", "female"}
        assert d["house"] and d["role"]
        assert isinstance(d["aliases"], list)
    for u, v, k, d in G.edges(keys=True, data=True):
        assert k == d["relation"]


def test_seed_facts(G):
    father = rel_edges(G, "FATHER_OF")
    mother = rel_edges(G, "MOTHER_OF")
    sib = {frozenset(e) for e in rel_edges(G, "SIBLING_OF")}
    married = {frozenset(e) for e in rel_edges(G, "MARRIED_TO")}
    assert ("Rhaegar Targaryen", "Jon Snow") in father
    assert ("Lyanna Stark", "Jon Snow") in mother
    assert frozenset({"Rhaegar Targaryen", "Daenerys Targaryen"}) in sib
    assert frozenset({"Aerys II Targaryen", "Rhaella Targaryen"}) in married
    assert frozenset({"Aerys II Targaryen", "Rhaella Targaryen"}) in sib
    assert ("Aerys II Targaryen", "Daenerys Targaryen") in father
    assert ("Rhaella Targaryen", "Daenerys Targaryen") in mother
    assert frozenset({"Arya Stark", "Sansa Stark"}) in sib
    assert frozenset({"Sansa Stark", "Tyrion Lannister"}) in married
    assert ("Eddard Stark", "Jon Snow") in rel_edges(G, "FOSTERED")
    # the weak-tie chain Arya - Hot Pie - cook - Tyrion
    assert frozenset({"Arya Stark", "Hot Pie"}) in {frozenset(e) for e in rel_edges(G, "MET_ONCE")}
    assert frozenset({"Hot Pie", "Masha Heddle"}) in {frozenset(e) for e in rel_edges(G, "WORKED_WITH")}
    assert ("Masha Heddle", "Tyrion Lannister") in rel_edges(G, "SERVED")
    assert "cook" in G.nodes["Masha Heddle"]["role"]
    # Jon has no children
    assert not [v for u, v in father | mother if u == "Jon Snow"]


def test_symmetric_stored_once_and_sorted(G):
    for u, v, r in G.edges(data="relation"):
        if RELATIONS[r].symmetric:
            assert u < v, (u, r, v)
            assert not G.has_edge(v, u, key=r)


def test_siblings_share_parents(G):
    parents = {}
    for u, v, r in G.edges(data="relation"):
        if r in PARENT_RELATIONS:
            parents.setdefault(v, set()).add(u)
    sib = {frozenset(e) for e in rel_edges(G, "SIBLING_OF")}
    for a, b in itertools.combinations(sorted(parents), 2):
        if parents[a] & parents[b]:
            assert frozenset({a, b}) in sib, (a, b)
    for pair in sib:
        a, b = sorted(pair)
        if a in parents and b in parents:
            assert parents[a] & parents[b], (a, b)


def test_aliases_unique(G):
    seen = {}
    for n, d in G.nodes(data=True):
        for a in d["aliases"]:
            assert a.lower() not in seen, (a, n, seen.get(a.lower()))
            seen[a.lower()] = n
            assert a not in G or a == n


def test_csv_files_match_graph(G):
    with open(WESTEROS_DIR / "relations.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == G.number_of_edges()
    assert (WESTEROS_DIR / "README.md").is_file()


def test_bad_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="characters.csv"):
        load_westeros(tmp_path)
    (tmp_path / "characters.csv").write_text("name,house,gender,role,aliases\nA,X,male,r,\n")
    (tmp_path / "relations.csv").write_text("source,relation,target\nA,FATHER_OF,B\n")
    with pytest.raises(ValueError, match="'B' is not in characters.csv"):
        load_westeros(tmp_path)
    (tmp_path / "characters.csv").write_text("name,house,gender,role,aliases\nA,X,male,r,\nB,X,male,r,\n")
    (tmp_path / "relations.csv").write_text("source,relation,target\nA,KNOWS,B\n")
    with pytest.raises(ValueError, match="unknown relation 'KNOWS'"):
        load_westeros(tmp_path)
    (tmp_path / "relations.csv").write_text("source,relation,target\nA,SIBLING_OF,B\nB,SIBLING_OF,A\n")
    with pytest.raises(ValueError, match="listed twice"):
        load_westeros(tmp_path)


def test_synthetic_is_deterministic_and_sized():
    a = genealogy_records(500, seed=3)
    b = genealogy_records(500, seed=3)
    c = genealogy_records(500, seed=4)
    assert a == b and a != c
    nodes, edges = a
    assert len(nodes) == 500
    names = {n["name"] for n in nodes}
    assert len(names) == 500
    assert all(s in names and t in names and s != t for s, _, t in edges)
    assert len(set(edges)) == len(edges)
    assert {r for _, r, _ in edges} <= set(RELATIONS)


def test_synthetic_graph_by_edges():
    G = synthetic_genealogy(n_edges=2000, seed=0)
    assert G.number_of_edges() == 2000
    rels = {r for _, _, r in G.edges(data="relation")}
    assert {"FATHER_OF", "MOTHER_OF", "SIBLING_OF", "MARRIED_TO"} <= rels
    # a genealogy: everyone born after generation 0 has both parents
    parents = {}
    for u, v, r in G.edges(data="relation"):
        if r in PARENT_RELATIONS:
            parents.setdefault(v, set()).add(r)
    assert all(p == {"FATHER_OF", "MOTHER_OF"} for p in parents.values())


@pytest.mark.parametrize("bad", [0, 5, -1, 1.5, True, 10**8])
def test_synthetic_rejects_bad_sizes(bad):
    with pytest.raises(ValueError):
        genealogy_records(bad)


def test_synthetic_needs_one_size():
    with pytest.raises(ValueError, match="exactly one"):
        genealogy_records()
    with pytest.raises(ValueError, match="exactly one"):
        genealogy_records(100, n_edges=100)
