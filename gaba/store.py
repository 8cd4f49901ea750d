"""FalkorDB as a graph store: bulk loading and parameterized Cypher, embedded or at a URL.

Chapter *Multi-hop queries in a graph database*. User values always travel as Cypher parameters;
every function of :mod:`gaba.paths` accepts a :class:`FalkorStore`.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import re
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any

from tqdm.auto import tqdm

from .cypher_paths import IDENT_RE, CypherPaths
from .entities import build_name_table, check_graph
from .errors import QueryTimeout, StoreError
from .falkor_server import EmbeddedServer
from .kgfile import edge_relation, edge_rows
from .traversal import _check_timeout

#: Graph name used when none is given.
DEFAULT_GRAPH = "westeros"
#: Node label of every loaded node.
DEFAULT_LABEL = "Character"
#: Default per-query time limit, seconds.
DEFAULT_TIMEOUT = 10.0
#: Rows sent per bulk-load query.
BATCH_SIZE = 5000
#: Longest node name, in UTF-8 bytes, that FalkorDB's name index finds again (longer ones are stored, not found).
MAX_NAME_BYTES = 4095
_PROP_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_GRAPH_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")
_URL_SCHEMES = ("redis://", "rediss://", "falkor://", "falkors://", "unix://")


@dataclasses.dataclass
class Result:
    """Rows of a Cypher query plus timings. Iterating yields the rows."""

    rows: list[list]
    columns: list[str]
    server_ms: float = 0.0        # execution time reported by FalkorDB
    seconds: float = 0.0          # wall time in Python, round trip included

    def __iter__(self):
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def to_frame(self):
        """The rows as a pandas DataFrame."""
        import pandas as pd
        return pd.DataFrame(self.rows, columns=self.columns)


@dataclasses.dataclass
class LoadReport:
    """What :meth:`FalkorStore.load_networkx` did."""

    graph: str
    nodes: int
    edges: int
    seconds: float

    def __str__(self) -> str:
        return (f"loaded {self.nodes:,} nodes and {self.edges:,} edges into graph {self.graph!r} "
                f"in {self.seconds:.2f} s (index created first)")


def _plain(value: Any) -> Any:
    """A property value FalkorDB can store (None for values to skip, NaN included: pandas' missing value)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        return [_plain(v) if isinstance(v, (bool, int, float, str)) else str(v) for v in items]
    return str(value)


def _check_value(value: Any, where: str) -> None:
    """ValueError for what FalkorDB's query parameters cannot carry, or would store as another value."""
    for v in value if isinstance(value, list) else [value]:
        if isinstance(v, str) and "\x00" in v:
            raise ValueError(f"{where} contains a NUL character (\\x00), which FalkorDB's query parameters "
                             "cannot carry; remove it before loading.")
        if isinstance(v, float) and math.isinf(v):
            raise ValueError(f"{where} is {v}; FalkorDB stores no infinite number, so give a finite one.")
        if isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63:
            raise ValueError(f"{where} is {v}, beyond FalkorDB's 64-bit integers; store it as text.")


class FalkorStore(CypherPaths):
    """One graph in the FalkorDB at ``url``; build it with :func:`open_store`, use it as a context manager."""

    _gaba_store = True

    def __init__(self, url: str, *, graph: str = DEFAULT_GRAPH, label: str = DEFAULT_LABEL,
                 server: EmbeddedServer | None = None):
        if not isinstance(graph, str) or not _GRAPH_RE.match(graph):
            raise ValueError(f"graph={graph!r}: use letters, digits and _ . : - (at most 100).")
        if not isinstance(label, str) or not IDENT_RE.match(label):
            raise ValueError(f"label={label!r} must look like 'Character' (a capital, then letters/digits/_).")
        if not isinstance(url, str) or not url.startswith(_URL_SCHEMES):
            raise ValueError(f"url={url!r} is not a FalkorDB address; give one like redis://127.0.0.1:6379 "
                             "(or leave FALKORDB_URL unset for an embedded server).")
        self.url, self.graph_name, self.label, self.server = url, graph, label, server
        self._clients: dict[int, Any] = {}
        self._lock = threading.Lock()
        self._names: dict[str, str] | None = None
        self._rel_types: list[str] | None = None
        self.loaded_graph: dict = {}          # G.graph of the NetworkX graph loaded last (its weights, ...)
        self.closed = False
        self._connected = False
        try:
            self._client(DEFAULT_TIMEOUT).connection.ping()
        except Exception as exc:
            raise self._translate(exc, "PING") from exc
        self._connected = True

    # construction ----------------------------------------------------------------------------
    @classmethod
    def start(cls, *, graph: str = DEFAULT_GRAPH, label: str = DEFAULT_LABEL,
              startup_timeout: float = 30.0) -> FalkorStore:
        """Start an embedded server and connect to it (the store owns the server)."""
        server = EmbeddedServer(startup_timeout=startup_timeout).start()
        try:
            return cls(server.url, graph=graph, label=label, server=server)
        except Exception:
            server.stop()
            raise

    @classmethod
    def connect(cls, url: str | None = None, *, graph: str = DEFAULT_GRAPH, label: str = DEFAULT_LABEL) -> FalkorStore:
        """Connect to a running server at ``url`` (default: the ``FALKORDB_URL`` variable)."""
        url = url or os.environ.get("FALKORDB_URL")
        if not url:
            raise StoreError("No URL given and FALKORDB_URL is not set; use FalkorStore.start() "
                             "for an embedded server.")
        return cls(url, graph=graph, label=label)

    def _client(self, timeout: float):
        """A client whose socket timeout exceeds ``timeout``, so the server cancels first."""
        from falkordb import FalkorDB
        bucket = int(math.ceil(timeout)) + 5
        with self._lock:
            client = self._clients.get(bucket)
            if client is None:
                client = FalkorDB.from_url(self.url, socket_timeout=bucket, socket_connect_timeout=5)
                self._clients[bucket] = client
        return client

    def close(self) -> None:
        """Close the connections and stop the embedded server, if this store owns one."""
        for client in self._clients.values():
            with contextlib.suppress(Exception):
                client.close()
        self._clients.clear()
        if self.server is not None:
            self.server.stop()
        self.closed = True

    def __enter__(self) -> FalkorStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"embedded pid {self.server.pid}" if self.server else self.url
        return f"FalkorStore(graph={self.graph_name!r}, {state})"

    # queries ---------------------------------------------------------------------------------
    def _translate(self, exc: Exception, cypher: str) -> StoreError:
        import redis
        first = " ".join(cypher.split())[:100]
        if isinstance(exc, redis.ResponseError) and "timed out" in str(exc).lower():
            return QueryTimeout(f"The query ran past its time limit and was cancelled: {first}")
        if isinstance(exc, (redis.ConnectionError, redis.TimeoutError, OSError)):
            why = str(exc) or type(exc).__name__
            if self.server is not None and not self.server.alive():
                code = self.server.proc.returncode if self.server.proc else None
                why = f"the embedded server process has exited (code {code})"
            elif isinstance(exc, redis.TimeoutError):
                why = "no answer from the server within the socket timeout"
            why = why.rstrip(". ")
            if not getattr(self, "_connected", False):
                return StoreError(f"Cannot connect to FalkorDB at {self.url}: {why}. Is the server "
                                  "running and the URL right (FALKORDB_URL)? Without a URL, "
                                  "gaba.store.open_store() starts an embedded server.")
            return StoreError(f"Lost the connection to FalkorDB at {self.url}: {why}. "
                              "Open a new store (gaba.store.open_store()) and load the graph again.")
        if isinstance(exc, redis.ResponseError):
            return StoreError(f"FalkorDB rejected the query ({exc}): {first}")
        return StoreError(f"FalkorDB failed ({type(exc).__name__}: {exc}): {first}")

    def query(self, cypher: str, params: dict | None = None, *, timeout: float = DEFAULT_TIMEOUT,
              read_only: bool = True) -> Result:
        """Run one Cypher query; user values go in ``params`` (``$name``), never in the text.

        QueryTimeout after ``timeout`` seconds, StoreError on other failures; ``read_only`` refuses writes.
        """
        if self.closed:
            raise StoreError("This store is closed; open a new one with gaba.store.open_store().")
        if not isinstance(cypher, str) or not cypher.strip():
            raise ValueError("cypher must be a non-empty string.")
        if params is not None and (not isinstance(params, dict)
                                   or not all(isinstance(k, str) and _PROP_RE.match(k) for k in params)):
            raise ValueError("params must be a dict whose keys are parameter names like 'name'.")
        timeout = _check_timeout(timeout)
        graph = self._client(timeout).select_graph(self.graph_name)
        t0 = time.perf_counter()
        try:
            run = graph.ro_query if read_only else graph.query
            res = run(cypher, params, timeout=max(1, int(math.ceil(timeout * 1000))))
        except Exception as exc:
            raise self._translate(exc, cypher) from exc
        columns = [h[1] if isinstance(h, (list, tuple)) else str(h) for h in (res.header or [])]
        return Result(rows=res.result_set or [], columns=columns, server_ms=float(res.run_time_ms or 0.0),
                      seconds=time.perf_counter() - t0)

    def counts(self) -> tuple[int, int]:
        """``(nodes, edges)`` in the graph."""
        n = self.query("MATCH (n) RETURN count(n)").rows[0][0]
        e = self.query("MATCH ()-[r]->() RETURN count(r)").rows[0][0]
        return int(n), int(e)

    def drop(self) -> None:
        """Delete the graph, if it exists (nothing else in the server)."""
        try:
            if self.graph_name in (self._client(DEFAULT_TIMEOUT).list_graphs() or []):
                self._client(60).select_graph(self.graph_name).delete()
        except Exception as exc:
            raise self._translate(exc, "GRAPH.DELETE") from exc
        self._names, self._rel_types, self.loaded_graph = None, None, {}

    # loading ---------------------------------------------------------------------------------
    def load_networkx(self, G, *, replace: bool = True, batch_size: int = BATCH_SIZE,
                      progress: bool | None = None) -> LoadReport:
        """Bulk-load a NetworkX graph (``relation`` becomes the edge type; ``replace`` deletes it first)."""
        check_graph(G)
        nodes = [{**d, "name": str(n)} for n, d in G.nodes(data=True)]
        edges = []
        for u, v, k, d in edge_rows(G):
            rel = edge_relation(k, d, unnamed=None)
            if rel is None:
                raise ValueError(f"edge {u!r} -> {v!r} has no 'relation' attribute.")
            edges.append((str(u), rel, str(v)))
        report = self.load_records(nodes, edges, replace=replace, batch_size=batch_size, progress=progress)
        self.loaded_graph = dict(G.graph)
        return report

    def load_records(self, nodes: Iterable[dict], edges: Iterable[Sequence[str]], *, replace: bool = True,
                     batch_size: int = BATCH_SIZE, progress: bool | None = None) -> LoadReport:
        """Bulk-load plain records: node dicts with a ``name``, edges ``(source, relation, target)``."""
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= 100_000:
            raise ValueError(f"batch_size={batch_size!r} must be an integer from 1 to 100,000.")
        clean, names = [], set()
        for n in nodes:
            if not isinstance(n, dict) or not isinstance(n.get("name"), str):
                raise ValueError(f"every node needs a string 'name'; got {n!r}.")
            try:
                size = len(n["name"].encode("utf-8"))
            except UnicodeEncodeError:
                raise ValueError(f"the node name {n['name']!r:.80} is not valid Unicode text (a lone "
                                 "surrogate); clean the name before loading.") from None
            if size > MAX_NAME_BYTES:
                raise ValueError(f"the node name {n['name']!r:.80} is {size:,} bytes long; FalkorDB's name "
                                 f"index finds names of at most {MAX_NAME_BYTES:,} bytes, so shorten it.")
            if n["name"] in names:
                raise ValueError(f"two nodes are named {n['name']!r}; names must be unique, so merge or rename them.")
            names.add(n["name"])
            props = {str(k): pv for k, v in n.items() if _PROP_RE.match(str(k)) and (pv := _plain(v)) is not None}
            for k, v in props.items():
                _check_value(v, f"the {k!r} of node {n['name']!r:.80}")
            clean.append(props)
        nodes, edges = clean, [tuple(e) for e in edges]
        by_type: dict[str, list[list[str]]] = {}
        for e in edges:
            if len(e) != 3:
                raise ValueError(f"edges are (source, relation, target) triples; got {e!r}.")
            s, r, t = e
            _check_value([s, t], f"the edge {e!r:.80}")
            if not isinstance(r, str) or not IDENT_RE.match(r):
                raise ValueError(f"relation type {r!r} must look like FATHER_OF (a capital, then "
                                 "letters, digits or _); it becomes part of the query text.")
            by_type.setdefault(r, []).append([s, t])
        if progress is None:
            progress = len(edges) > 50_000
        t0 = time.perf_counter()
        if replace:
            self.drop()
        label = self.label
        try:
            self.query(f"CREATE INDEX FOR (c:{label}) ON (c.name)", read_only=False, timeout=60)
        except StoreError as exc:
            if "already indexed" not in str(exc).lower():
                raise
        bar = tqdm(total=len(nodes) + len(edges), desc=f"loading {self.graph_name}", disable=not progress, unit="row")
        batches = [(f"UNWIND $rows AS r CREATE (c:{label}) SET c = r", nodes)] + [
            (f"UNWIND $rows AS r MATCH (a:{label} {{name: r[0]}}) MATCH (b:{label} {{name: r[1]}}) "
             f"CREATE (a)-[:{rel}]->(b)", by_type[rel]) for rel in sorted(by_type)]     # nodes first
        for cypher, rows in batches:
            for i in range(0, len(rows), batch_size):
                chunk = rows[i:i + batch_size]
                self.query(cypher, {"rows": chunk}, read_only=False, timeout=300)
                bar.update(len(chunk))
        bar.close()
        self._names, self._rel_types = None, None
        n, e = self.counts()
        if e != len(edges):
            raise StoreError(f"loaded {e} of {len(edges)} edges: some edges name nodes that are not in the node list.")
        return LoadReport(self.graph_name, n, e, time.perf_counter() - t0)

    # lookups used by gaba.paths ----------------------------------------------------------------
    def name_table(self) -> dict[str, str]:
        """Name or alias (:func:`gaba.entities.name_key`) -> name (cached until the next load)."""
        if self._names is None:
            try:
                rows = self.query(f"MATCH (c:{self.label}) RETURN c.name, c.aliases", timeout=60).rows
            except StoreError as exc:
                if "empty key" not in str(exc):      # FalkorDB's words for a graph never loaded
                    raise
                rows = []
            if not rows:
                raise StoreError(f"Graph {self.graph_name!r} is empty; load it first, e.g. "
                                 "store.load_networkx(gaba.data.westeros.load_westeros()).")
            self._names = build_name_table(rows)
        return self._names

    def relation_types(self) -> list[str]:
        """Relationship types in the graph, sorted (cached until the next load)."""
        if self._rel_types is None:
            self._rel_types = sorted(r[0] for r in self.query("CALL db.relationshipTypes()").rows)
        return list(self._rel_types)

    def node_attribute(self, names: Sequence[str], attr: str) -> dict[str, Any]:
        """``{name: value of attr}`` for the given nodes (missing values left out)."""
        if not isinstance(attr, str) or not _PROP_RE.match(attr):
            raise ValueError(f"attribute name {attr!r} must be letters, digits and _.")
        rows = self.query(f"UNWIND $names AS n MATCH (c:{self.label} {{name: n}}) RETURN c.name, c.{attr}",
                          {"names": list(names)}).rows
        return {n: v for n, v in rows if v is not None}


def open_store(url: str | None = None, *, graph: str = DEFAULT_GRAPH, label: str = DEFAULT_LABEL,
               startup_timeout: float = 30.0) -> FalkorStore:
    """A :class:`FalkorStore` at ``url`` (or ``FALKORDB_URL``), else on an embedded server; StoreError if not."""
    if url or os.environ.get("FALKORDB_URL"):
        return FalkorStore.connect(url, graph=graph, label=label)
    return FalkorStore.start(graph=graph, label=label, startup_timeout=startup_timeout)
