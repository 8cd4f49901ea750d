"""gaba.store: the embedded FalkorDB, loading, parameterized Cypher, failures; NetworkX parity.

One embedded server is started for the whole module (about half a second).
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import networkx as nx
import pytest

from gaba import multihop as M
from gaba import paths as P
from gaba import traversal as T
from gaba.data.westeros import PARENT_RELATIONS, load_westeros
from gaba.errors import EntityNotFound, QueryTimeout, StoreError
from gaba.falkor_server import EmbeddedServer
from gaba.store import FalkorStore, open_store


@pytest.fixture(scope="module")
def G():
    return load_westeros()


@pytest.fixture(scope="module")
def store(G):
    with FalkorStore.start(graph="test_westeros") as st:
        st.load_networkx(G)
        yield st


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); look at its state
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


# --- loading and Cypher --------------------------------------------------------------------------

def test_load_counts(store, G):
    assert store.counts() == (G.number_of_nodes(), G.number_of_edges())
    assert store.relation_types() == T.relation_types(G)
    idx = store.query("CALL db.indexes()").rows
    assert any(r[0] == "Character" and "name" in r[1] for r in idx)


def test_one_and_two_hop_cypher(store):
    father = store.query("MATCH (f:Character)-[:FATHER_OF]->(:Character {name: $name}) RETURN f.name",
                         {"name": "Jon Snow"})
    assert father.rows == [["Rhaegar Targaryen"]] and father.columns == ["f.name"]
    aunt = store.query("MATCH (:Character {name: $name})<-[:FATHER_OF]-()-[:SIBLING_OF]-(a:Character) "
                       "WHERE a.gender = 'female' RETURN a.name", {"name": "Jon Snow"})
    assert aunt.rows == [["Daenerys Targaryen"]]
    assert aunt.to_frame().shape == (1, 1)


# --- the same answers as NetworkX ---------------------------------------------------------------

PAIRS = [("Jon Snow", "Daenerys Targaryen"), ("Arya Stark", "Tyrion Lannister"),
         ("Aerys II Targaryen", "Daenerys Targaryen"), ("Bran Stark", "Jaime Lannister")]


@pytest.mark.parametrize("a, b", PAIRS)
@pytest.mark.parametrize("kwargs", [dict(max_depth=2), dict(max_depth=4, limit=None),
                                    dict(max_depth=3, cycles="detect", limit=None),
                                    dict(max_depth=3, cycles="keep", limit=None),
                                    dict(max_depth=4, direction="in", rel_types=PARENT_RELATIONS),
                                    dict(max_depth=4, direction="out", rel_types=PARENT_RELATIONS),
                                    dict(max_depth=3, rel_types=["SIBLING_OF", "MARRIED_TO", "FATHER_OF"])])
def test_paths_match_networkx(store, G, a, b, kwargs):
    x = P.paths_between(G, a, b, **kwargs)
    y = P.paths_between(store, a, b, **kwargs)
    assert x.keys() == y.keys()
    assert x.paths == y.paths           # same deterministic order
    assert (x.stats.explored, x.stats.cyclic_pruned, x.stats.returned) == \
        (y.stats.explored, y.stats.cyclic_pruned, y.stats.returned)
    assert y.stats.backend == "falkordb" and y.stats.queries >= 1


@pytest.mark.parametrize("a, b", PAIRS)
def test_ranking_beam_and_shortest_match(store, G, a, b):
    assert P.top_paths(G, a, b, k=5).keys() == P.top_paths(store, a, b, k=5).keys()
    bx, by = P.beam_search(G, a, b, beam_width=5), P.beam_search(store, a, b, beam_width=5)
    assert bx.paths == by.paths and bx.scores == by.scores
    assert P.shortest_paths(G, a, b).keys() == P.shortest_paths(store, a, b).keys()


@pytest.mark.parametrize("name", ["Jon Snow", "Aerys II Targaryen", "Hot Pie", "Walder Frey"])
@pytest.mark.parametrize("kwargs", [dict(depth=1), dict(depth=3), dict(depth=4, direction="in", rel_types=PARENT_RELATIONS),
                                    dict(depth=4, direction="out", rel_types=PARENT_RELATIONS)])
def test_neighbors_match_networkx(store, G, name, kwargs):
    assert P.neighbors(G, name, **kwargs).nodes == P.neighbors(store, name, **kwargs).nodes


def test_seed_numbers_on_falkordb(store):
    assert [len(P.paths_between(store, "Jon Snow", "Daenerys", max_depth=d, limit=None)) for d in (2, 4)] == [2, 45]
    up = P.neighbors(store, "Jon Snow", depth=4, direction="in", rel_types=PARENT_RELATIONS)
    assert {"Rhaegar Targaryen", "Lyanna Stark", "Aerys II Targaryen"} <= set(up.nodes)
    assert len(P.neighbors(store, "Jon Snow", depth=4, direction="out", rel_types=PARENT_RELATIONS)) == 0
    assert "Jon Snow" in P.neighbors(store, "Jon Snow", depth=4)


def test_pipeline_on_falkordb(store, G):
    a = M.multi_hop_query(store, "How is Jon Snow related to Daenerys?", explain=False)
    b = M.multi_hop_query(G, "How is Jon Snow related to Daenerys?", explain=False)
    assert a.context == b.context and a.stats.backend == "falkordb"


# --- injection -----------------------------------------------------------------------------------

EVIL = ["x'}) DETACH DELETE n //", 'x"}) DETACH DELETE n //', "x\\'}) MATCH (n) DETACH DELETE n //",
        'x\\"}) MATCH (n) DETACH DELETE n RETURN 1 //', "Jon Snow' OR 1=1 //", "}) RETURN 1 UNION MATCH (n) DELETE n //"]


@pytest.mark.parametrize("evil", EVIL)
def test_names_are_parameters_not_code(store, G, evil):
    before = store.counts()
    with pytest.raises(EntityNotFound):
        P.paths_between(store, evil, "Jon Snow")
    with pytest.raises(EntityNotFound):
        P.neighbors(store, evil)
    # straight to the database as a parameter: matched as a literal string, nothing deleted
    rows = store.query("MATCH (c:Character {name: $name}) RETURN c.name", {"name": evil}).rows
    assert rows == []
    assert store.counts() == before


def test_parameters_round_trip_exactly(store):
    scratch = FalkorStore(store.url, graph="test_scratch")
    try:
        for evil in EVIL:
            scratch.query("CREATE (:Character {name: $name})", {"name": evil}, read_only=False)
        got = sorted(r[0] for r in scratch.query("MATCH (c:Character) RETURN c.name").rows)
        assert got == sorted(EVIL)
    finally:
        scratch.drop()
        scratch.close()
    assert store.counts()[0] > 250          # the main graph is untouched


def test_read_only_queries_cannot_write(store):
    before = store.counts()
    with pytest.raises(StoreError, match="read-only"):
        store.query("MATCH (n) DETACH DELETE n")
    assert store.counts() == before


@pytest.mark.parametrize("bad", ["FATHER_OF]->() DETACH DELETE n //", "father_of", "FATHER OF"])
def test_relation_types_are_validated(store, bad):
    with pytest.raises(ValueError, match="relation type .* is not a valid name"):
        P.paths_between(store, "Jon Snow", "Daenerys", rel_types=[bad])
    with pytest.raises(ValueError, match="relation type .* must look like FATHER_OF"):
        store.load_records([{"name": "a"}, {"name": "b"}], [("a", bad, "b")], replace=False)


def test_query_argument_checks(store):
    with pytest.raises(ValueError, match="cypher must be a non-empty string"):
        store.query("")
    with pytest.raises(ValueError, match="params must be a dict"):
        store.query("RETURN $x", {"x y": 1})
    with pytest.raises(ValueError, match="timeout=0"):
        store.query("RETURN 1", timeout=0)
    with pytest.raises(StoreError, match="rejected"):
        store.query("MATCH (n RETURN n")


# --- time limits and failures ---------------------------------------------------------------------

def test_query_timeout_cancels(store):
    t0 = time.perf_counter()
    with pytest.raises(QueryTimeout):
        store.query("MATCH p = ()-[*1..8]-() RETURN count(p)", timeout=0.2)
    assert time.perf_counter() - t0 < 3
    res = P.paths_between(store, "Jon Snow", "Daenerys", max_depth=8, limit=None, timeout=0.2)
    assert res.stats.timed_out and res.paths == []
    assert store.query("RETURN 1").rows == [[1]]          # the store still works


def test_server_dies_mid_query(G):
    st = FalkorStore.start(graph="doomed")
    try:
        st.load_networkx(G)
        pid = st.server.pid
        threading.Timer(0.4, os.kill, (pid, signal.SIGKILL)).start()
        t0 = time.perf_counter()
        with pytest.raises(StoreError, match="exited|Lost the connection"):
            st.query("MATCH p = ()-[*1..9]-() RETURN count(p)", timeout=60)
        assert time.perf_counter() - t0 < 10
        with pytest.raises(StoreError):
            P.paths_between(st, "Jon Snow", "Daenerys")
    finally:
        st.close()


def test_server_that_cannot_start(tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        EmbeddedServer(executable=str(tmp_path / "nope"), module=str(tmp_path / "nope.so")).start()
    fake = tmp_path / "fake.so"
    fake.write_text("")
    with pytest.raises(StoreError, match="did not start"):
        EmbeddedServer(executable="/bin/false", module=str(fake), startup_timeout=5).start()


def test_unreachable_url(monkeypatch):
    t0 = time.perf_counter()
    with pytest.raises(StoreError, match="Cannot connect to FalkorDB") as info:
        FalkorStore("redis://127.0.0.1:1", graph="x")
    assert "Lost the connection" not in str(info.value)       # there never was one
    assert time.perf_counter() - t0 < 5
    monkeypatch.delenv("FALKORDB_URL", raising=False)
    with pytest.raises(StoreError, match="FALKORDB_URL"):
        FalkorStore.connect()
    with pytest.raises(ValueError):
        FalkorStore("redis://127.0.0.1:1", graph="bad name; DROP")


def test_falkordb_url_connects_without_starting(store, monkeypatch):
    monkeypatch.setenv("FALKORDB_URL", store.url)
    other = open_store(graph="test_url")
    try:
        assert other.server is None and other.url == store.url
        with pytest.raises(StoreError, match="empty"):
            P.paths_between(other, "Jon Snow", "Daenerys")
    finally:
        other.close()
    assert store.query("RETURN 1").rows == [[1]]           # closing a connection keeps the server


def test_close_stops_server_and_refuses_queries():
    st = FalkorStore.start(graph="short_lived")
    pid = st.server.pid
    assert _pid_alive(pid)
    st.close()
    assert not _pid_alive(pid)
    with pytest.raises(StoreError, match="closed"):
        st.query("RETURN 1")


def test_server_dies_with_its_parent(tmp_path):
    code = ("import sys, time; from gaba.store import FalkorStore; s = FalkorStore.start(graph='orphan'); "
            "print(s.server.pid, s.server.dir, flush=True); time.sleep(60)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    folder = None
    try:
        pid, folder = proc.stdout.readline().split()
        pid = int(pid)
        assert _pid_alive(pid)
        proc.kill()                       # no atexit, no close(): only the parent-death signal
        proc.wait(10)
        deadline = time.time() + 10
        while _pid_alive(pid) and time.time() < deadline:
            time.sleep(0.1)
        assert not _pid_alive(pid)
    finally:
        proc.kill()
        if folder and folder.startswith(tempfile.gettempdir()):
            shutil.rmtree(folder, ignore_errors=True)      # nobody was left to clean it up


def test_load_records_checks(store):
    scratch = FalkorStore(store.url, graph="test_records")
    try:
        rep = scratch.load_records([{"name": "a", "n": 1}, {"name": "b", "tags": {"y", "x"}}],
                                   [("a", "KNOWS", "b")])
        assert (rep.nodes, rep.edges) == (2, 1)
        assert scratch.query("MATCH (c {name: 'b'}) RETURN c.tags").rows == [[["x", "y"]]]
        with pytest.raises(StoreError, match="1 of 2 edges|0 of 1 edges"):
            scratch.load_records([{"name": "a"}], [("a", "KNOWS", "ghost")])
        with pytest.raises(ValueError, match="name"):
            scratch.load_records([{"title": "a"}], [])
        H = nx.MultiDiGraph()
        H.add_edge("p", "q")
        with pytest.raises(ValueError, match="relation"):
            scratch.load_networkx(H)
    finally:
        scratch.drop()
        scratch.close()
