"""A knowledge graph on disk: :func:`save_graph` and :func:`load_graph` (JSON node-link or GraphML)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import GabaError
from .fileio import atomic_write_json, atomic_writer


def _json_values(G, *, decode: bool = False) -> None:
    """Write list, dict and None attributes as ``"json:..."`` text for GraphML (``decode=True``: read)."""
    for d in (G.graph, *(d for _, d in G.nodes(data=True)), *(d for *_, d in G.edges(data=True))):
        for k, v in d.items():
            if decode and isinstance(v, str) and v.startswith("json:"):
                d[k] = json.loads(v[5:])
            elif not decode and (v is None or isinstance(v, (list, tuple, dict))):
                d[k] = "json:" + json.dumps(v, ensure_ascii=False)


def save_graph(G, path: str | Path) -> Path:
    """Write a knowledge graph atomically to JSON (node-link) or, for a ``.graphml`` path, GraphML.

    >>> import networkx as nx, tempfile, pathlib
    >>> G = nx.MultiDiGraph(); G.add_node("A", aliases=["a"])
    >>> p = save_graph(G, pathlib.Path(tempfile.mkdtemp()) / "g.graphml")
    >>> load_graph(p).nodes["A"]["aliases"]
    ['a']
    """
    import networkx as nx

    path = Path(path)
    if path.suffix.lower() == ".graphml":
        H = G.copy()
        _json_values(H)
        with atomic_writer(path, binary=True) as f:
            nx.write_graphml(H, f)
    else:
        atomic_write_json(path, nx.node_link_data(G, edges="edges"))
    return path


def load_graph(path: str | Path):
    """Read a graph written by :func:`save_graph` (GabaError if missing or not a saved graph)."""
    import networkx as nx

    path = Path(path)
    if not path.is_file():
        raise GabaError(f"no graph file at {path}; build one with `python -m gaba build-graph <folder> --out {path}`, "
                        f"or save_graph(G, path) in Python.")
    try:
        if path.suffix.lower() == ".graphml":
            G = nx.MultiDiGraph(nx.read_graphml(path, force_multigraph=True))
            _json_values(G, decode=True)
        else:
            data = json.loads(path.read_text(encoding="utf-8"))
            _check_node_link(data)
            G = nx.node_link_graph(data, directed=True, multigraph=True, edges="edges")
        _check_graph_attributes(G)
        return G
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GabaError(f"{path} is not a graph written by save_graph ({exc}).") from exc


#: Edge attributes that must be text in a loaded graph (they are quoted into prompts and pages).
_TEXT_EDGE_ATTRS = ("relation", "evidence", "doc_id", "verb")


def _check_node_link(data: Any) -> None:
    """Raise ValueError unless ``data`` is node-link JSON whose nodes and edges name string ids."""
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) \
            or not isinstance(data.get("edges", data.get("links")), list):
        raise ValueError("expected an object with 'nodes' and 'edges' lists")
    for i, n in enumerate(data["nodes"]):
        if not isinstance(n, dict) or not isinstance(n.get("id"), str) or not n["id"].strip():
            raise ValueError(f"node #{i} has no name ('id' must be a non-empty string): {n!r:.80}")
    for i, e in enumerate(data.get("edges", data.get("links"))):
        if not isinstance(e, dict) or not all(isinstance(e.get(k), str) for k in ("source", "target")):
            raise ValueError(f"edge #{i} needs 'source' and 'target' names (strings): {e!r:.80}")


def _check_graph_attributes(G) -> None:
    """Raise ValueError when a text attribute of an edge, or a node's aliases, are not text."""
    for u, v, k, d in G.edges(keys=True, data=True):
        for a in _TEXT_EDGE_ATTRS:
            if a in d and not isinstance(d[a], str):
                raise ValueError(f"edge {u!r} -> {v!r} ({k}): {a!r} must be text, not "
                                 f"{type(d[a]).__name__} {d[a]!r:.40}")
    for n, d in G.nodes(data=True):
        al = d.get("aliases")
        if al is not None and not (isinstance(al, list) and all(isinstance(x, str) for x in al)):
            raise ValueError(f"node {n!r}: 'aliases' must be a list of text, not {al!r:.60}")
