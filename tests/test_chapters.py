"""Every chapter has the book's shape: objectives, a summary, and exercises whose solutions execute.

Also checks notebook hygiene: no committed outputs, a first code cell that prints the backend,
and hidden assertion cells tagged ``remove-cell``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_TOC = set(re.findall(r"file:\s*(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8")))
# The book's notebooks are the ones _toc.yml lists; a notebook outside it is a draft.
CHAPTERS = sorted(p for p in (ROOT / "chapters").rglob("*.ipynb")
                  if ".ipynb_checkpoints" not in p.parts
                  and str(p.relative_to(ROOT).with_suffix("")) in _TOC)
# Labs are workbooks with their own shape (tasks + a checker), not chapters.
BOOK_CHAPTERS = [p for p in CHAPTERS if "labs" not in p.parts]


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _src(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def test_there_are_chapters():
    assert BOOK_CHAPTERS, "no chapter notebooks under chapters/"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_outputs_committed(path):
    for c in _cells(path):
        if c["cell_type"] == "code":
            assert not c.get("outputs") and not c.get("execution_count"), \
                f"{path.name} has outputs: run `make strip`"


@pytest.mark.parametrize("path", BOOK_CHAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_chapter_shape(path):
    cells = _cells(path)
    md = [_src(c) for c in cells if c["cell_type"] == "markdown"]
    assert md and md[0].lstrip().startswith("# "), f"{path.name}: first cell must hold the # title"
    objectives = re.search(r"\*\*In this chapter you will\*\*\s*\n((?:\s*[-*] .+\n?){2,4})", md[0])
    assert objectives, f"{path.name}: the opening cell needs 2-4 learning objectives"
    text = "\n".join(md)
    assert re.search(r"^## Summary\s*$", text, re.M), f"{path.name}: no '## Summary' section"
    assert re.search(r"^## Exercises\s*$", text, re.M), f"{path.name}: no '## Exercises' section"
    assert "{exercise-start}" in text, f"{path.name}: exercises must use exercise-start blocks"
    # every solution opens a block whose code cells execute and end with an assertion
    solved = 0
    for i, c in enumerate(cells):
        if c["cell_type"] == "markdown" and "{solution-start}" in _src(c):
            code = []
            for d in cells[i + 1:]:
                if d["cell_type"] == "markdown" and "{solution-end}" in _src(d):
                    break
                if d["cell_type"] == "code":
                    code.append(_src(d))
            assert code, f"{path.name}: a solution block has no code cell"
            last = [ln for ln in code[-1].strip().splitlines() if ln.strip()]
            assert any(ln.lstrip().startswith("assert") for ln in last), \
                f"{path.name}: a solution's code must contain an assert"
            solved += 1
    assert solved >= 1, f"{path.name}: no executing solution"


@pytest.mark.parametrize("path", BOOK_CHAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_first_code_cell_describes_backend(path):
    code = [c for c in _cells(path) if c["cell_type"] == "code"]
    assert code and "describe()" in _src(code[0]), f"{path.name}: first code cell must print describe()"


@pytest.mark.parametrize("path", BOOK_CHAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_hidden_assertions(path):
    hidden = [c for c in _cells(path) if c["cell_type"] == "code"
              and "remove-cell" in c.get("metadata", {}).get("tags", [])]
    assert hidden and all("assert" in _src(c) for c in hidden), \
        f"{path.name}: needs hidden remove-cell assertion cells"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_kernel_metadata(path):
    """JupyterLab opens every notebook of the book on the project's Python kernel without asking."""
    meta = json.loads(path.read_text(encoding="utf-8"))["metadata"]
    spec = meta.get("kernelspec", {})
    assert spec.get("name") == "python3" and spec.get("language") == "python", \
        f"{path.name}: metadata needs kernelspec {{name: python3, language: python}}"
    assert meta.get("language_info", {"name": "python"}).get("name") == "python", path.name


# Chapters whose Reference line still sits in the first solution (none now); a name here makes
# the check below an expected failure.
_REFERENCE_IN_SOLUTION_PENDING: set[str] = set()


def _reference_params():
    for p in CHAPTERS:
        stem = str(p.relative_to(ROOT).with_suffix(""))
        marks = [pytest.mark.xfail(reason="chapter being rewritten; its Reference line is still in a solution",
                                   strict=False)] if stem in _REFERENCE_IN_SOLUTION_PENDING else []
        yield pytest.param(p, marks=marks, id=stem)


@pytest.mark.parametrize("path", list(_reference_params()))
def test_reference_line_is_in_the_chapter_body(path):
    """The "**Reference.**" line of API links is read in the chapter, not hidden in a solution dropdown."""
    inside, found = False, 0
    for c in _cells(path):
        if c["cell_type"] != "markdown":
            continue
        for line in _src(c).splitlines():
            if "{solution-start}" in line:
                inside = True
            elif "{solution-end}" in line:
                inside = False
            elif line.lstrip().startswith("**Reference.**"):
                found += 1
                assert not inside, f"{path.name}: the Reference line sits inside a solution block"
    assert found <= 1, f"{path.name}: {found} Reference lines"


_LITERALINCLUDE = re.compile(r"```\{literalinclude\}\s+(\S+)\n(?:\s*:[\w-]+:.*\n)*?\s*:pyobject:\s*(\S+)")


def test_the_code_a_chapter_shows_exists():
    """Every ``literalinclude`` of a chapter names a file of the repository and, with ``:pyobject:``,
    a function or class defined in it, so the code shown is the code the chapter runs."""
    import ast

    shown = 0
    for path in CHAPTERS:
        for cell in _cells(path):
            if cell["cell_type"] != "markdown":
                continue
            for target, obj in _LITERALINCLUDE.findall(_src(cell)):
                source = (path.parent / target).resolve()
                assert source.is_file() and ROOT in source.parents, f"{path.name}: {target} is not a file"
                defined = set()   # qualified names, as :pyobject: takes them ("Class.method")
                todo = [("", n) for n in ast.parse(source.read_text()).body]
                while todo:
                    prefix, n = todo.pop()
                    if isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                        defined.add(prefix + n.name)
                        if isinstance(n, ast.ClassDef):
                            todo += [(f"{prefix}{n.name}.", m) for m in n.body]
                assert obj in defined, f"{path.name}: {obj} is not defined in {target}"
                shown += 1
    assert shown >= 9, "the chapters show the functions they teach"
