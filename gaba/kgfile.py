"""A knowledge graph on disk: :func:`save_graph` and :func:`load_graph` (JSON node-link or GraphML)."""
from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError

import networkx as nx

from .errors import GabaError
from .fileio import atomic_write_json, atomic_writer


#: Characters XML 1.0 cannot hold (a form feed from a PDF's page break, ...): escaped in GraphML.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def edge_rows(G) -> Iterable[tuple[Any, Any, Any, dict]]:
    """Every edge of a NetworkX graph as ``(u, v, key, data)``, in the graph's order; key None in a simple graph."""
    if G.is_multigraph():
        return G.edges(keys=True, data=True)
    return ((u, v, None, d) for u, v, d in G.edges(data=True))


def edge_relation(key: Any, data: dict, *, unnamed: str | None = "None") -> str | None:
    """The relation type of an edge of :func:`edge_rows`: its ``relation``, else its key, as text.

    An edge with neither gives ``unnamed`` (by default the text ``"None"``).

    >>> edge_relation(0, {"relation": "OWNS"}), edge_relation(0, {}), edge_relation(None, {}, unnamed="")
    ('OWNS', '0', '')
    """
    rel = data.get("relation")
    if rel is None:
        rel = key
    return unnamed if rel is None else str(rel)


def _json_values(G, *, decode: bool = False) -> None:
    """Write list, dict and None attributes as ``"json:..."`` text for GraphML (``decode=True``: read)."""
    for d in (G.graph, *(d for _, d in G.nodes(data=True)), *(d for *_, d in G.edges(data=True))):
        for k, v in d.items():
            if decode and isinstance(v, str) and v.startswith("json:"):
                d[k] = json.loads(v[5:])
            elif not decode and (v is None or isinstance(v, (list, tuple, dict)) or isinstance(v, str)
                                 and (v.startswith("json:") or _NOT_XML.search(v))):   # text as written
                text = json.dumps(v, ensure_ascii=False)
                d[k] = "json:" + (json.dumps(v) if _NOT_XML.search(text) else text)


def save_graph(G, path: str | Path) -> Path:
    """Write a knowledge graph atomically to JSON (node-link) or, for a ``.graphml`` path, GraphML.

    >>> import networkx as nx, tempfile, pathlib
    >>> G = nx.MultiDiGraph(); G.add_node("A", aliases=["a"])
    >>> p = save_graph(G, pathlib.Path(tempfile.mkdtemp()) / "g.graphml")
    >>> load_graph(p).nodes["A"]["aliases"]
    ['a']
    """
    if not isinstance(G, nx.Graph):
        raise TypeError(f"save_graph writes a networkx graph, not a {type(G).__name__}; build one with "
                        "build_knowledge_graph(documents).")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"cannot save the graph to {path}: it is a folder; give a file name ending in "
                         ".json or .graphml.")
    bad = next((n for n in G if not isinstance(n, str) or not n.strip()), None)
    if bad is not None:      # load_graph refuses it: a file that cannot be read back is not written
        raise ValueError(f"cannot save the graph to {path}: node {bad!r} is not a non-empty name; "
                         "name every node with text (networkx.relabel_nodes(G, str)).")
    try:
        _check_graph_attributes(G)
    except ValueError as exc:
        raise ValueError(f"cannot save the graph to {path}: {exc}, so load_graph could not read it back; "
                         "fix that attribute first.") from exc
    graphml = path.suffix.lower() == ".graphml"
    if graphml:            # node names and edge keys (None in a simple graph) become XML text
        names = itertools.chain(G, (k for _, _, k, _ in edge_rows(G)))
        if (bad := next((x for x in names if isinstance(x, str) and _NOT_XML.search(x)), None)):
            raise ValueError(f"cannot save the graph to {path}: the name {bad!r} holds a character GraphML "
                             "cannot store; save it as .json instead.")
    try:
        if graphml:
            H = G.copy()
            _json_values(H)
            with atomic_writer(path, binary=True) as f:
                nx.write_graphml(H, f)
        else:
            atomic_write_json(path, nx.node_link_data(G, edges="edges"))
    except (TypeError, ValueError, nx.NetworkXError) as exc:    # a set, a function, a lone surrogate
        raise TypeError(f"cannot save the graph to {path} ({exc}); attribute values must be text, "
                        "numbers, booleans, None, lists or dicts (write a set as a sorted list).") from exc
    return path


def load_graph(path: str | Path):
    """Read a graph written by :func:`save_graph` (GabaError if missing or not a saved graph)."""
    path = Path(path)
    if not path.is_file():
        raise GabaError(f"no graph file at {path}; build one with `python -m gaba build-graph <folder> --out {path}`, "
                        f"or save_graph(G, path) in Python.")
    try:
        if path.suffix.lower() == ".graphml":
            G = nx.MultiDiGraph(nx.read_graphml(path, force_multigraph=True))
            _json_values(G, decode=True)
        else:
            data = json.loads(path.read_text(encoding="utf-8-sig"))     # a BOM from a text editor
            _check_node_link(data)
            G = nx.node_link_graph(data, directed=True, multigraph=True,
                                   edges="edges" if "edges" in data else "links")
            if not isinstance(G, nx.MultiDiGraph):    # a DiGraph or Graph saved: as GraphML reads it
                G = nx.MultiDiGraph(G)
        _check_graph_attributes(G)
        return G
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError, ParseError,
            nx.NetworkXError) as exc:
        raise GabaError(f"{path} is not a graph written by save_graph ({exc}).") from exc


#: Edge attributes that must be text in a loaded graph (they are quoted into prompts and pages).
_TEXT_EDGE_ATTRS = ("relation", "evidence", "doc_id", "verb")


def _check_node_link(data: Any) -> None:
    """Raise ValueError unless ``data`` is node-link JSON whose nodes and edges name string ids."""
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) \
            or not isinstance(data.get("edges", data.get("links")), list):
        raise ValueError("expected an object with 'nodes' and 'edges' lists")
    if not isinstance(data.get("graph", {}), dict):
        raise ValueError(f"'graph' must be an object of graph attributes, not {data['graph']!r:.60}")
    names: set[str] = set()
    for i, n in enumerate(data["nodes"]):
        if not isinstance(n, dict) or not isinstance(n.get("id"), str) or not n["id"].strip():
            raise ValueError(f"node #{i} has no name ('id' must be a non-empty string): {n!r:.80}")
        if n["id"] in names:          # read as one node: the first entry's attributes would be lost
            raise ValueError(f"node {n['id']!r} is listed twice (#{i}); keep one entry per node")
        names.add(n["id"])
    keys: set[tuple] = set()
    for i, e in enumerate(data.get("edges", data.get("links"))):
        if not isinstance(e, dict) or not all(isinstance(e.get(k), str) for k in ("source", "target")):
            raise ValueError(f"edge #{i} needs 'source' and 'target' names (strings): {e!r:.80}")
        if e.get("key") is None:
            continue
        if not isinstance(e["key"], (str, int)):
            raise ValueError(f"edge #{i} has the key {e['key']!r:.40}; a key must be text or a whole number")
        if (e["source"], e["target"], e["key"]) in keys:
            raise ValueError(f"edge {e['source']!r} -> {e['target']!r} ({e['key']}) is listed twice (#{i}); "
                             "keep one entry per edge (several sources go in its 'sources' list)")
        keys.add((e["source"], e["target"], e["key"]))


def _check_graph_attributes(G) -> None:
    """Raise ValueError when an edge's text attributes or sources, or a node's aliases or type, are not text."""
    for u, v, k, d in edge_rows(G):
        k = d.get("relation") if k is None else k         # a simple graph's edge is named by its relation
        for a in _TEXT_EDGE_ATTRS:
            if a in d and not isinstance(d[a], str):
                raise ValueError(f"edge {u!r} -> {v!r} ({k}): {a!r} must be text, not "
                                 f"{type(d[a]).__name__} {d[a]!r:.40}")
        src = d.get("sources")
        if src is not None and not (isinstance(src, list) and all(
                isinstance(x, list) and len(x) == 2 and all(isinstance(t, str) for t in x) for x in src)):
            raise ValueError(f"edge {u!r} -> {v!r} ({k}): 'sources' must be a list of [doc_id, evidence] "
                             f"text pairs, not {src!r:.60}")
    for n, d in G.nodes(data=True):
        al = d.get("aliases")
        if al is not None and not (isinstance(al, list) and all(isinstance(x, str) for x in al)):
            raise ValueError(f"node {n!r}: 'aliases' must be a list of text, not {al!r:.60}")
        if d.get("type") is not None and not isinstance(d["type"], str):
            raise ValueError(f"node {n!r}: 'type' must be text, not {d['type']!r:.40}")
