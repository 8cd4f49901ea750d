"""`make strip` / the notebook check: outputs and saved widget state never reach a commit."""
from __future__ import annotations

import nbformat

import gaba.__main__ as cli


def _notebook(path, *, outputs=False, widgets=False):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("1 + 1")
    if outputs:
        cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=1)]
        cell.execution_count = 1
    nb.cells.append(cell)
    if widgets:
        nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}, "version_major": 2}}
    nbformat.write(nb, path)
    return path


def test_check_reports_outputs_and_widget_state_and_strip_removes_both(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "ROOT", tmp_path)
    books = [_notebook(tmp_path / "a.ipynb", outputs=True), _notebook(tmp_path / "b.ipynb", widgets=True),
             _notebook(tmp_path / "c.ipynb")]
    monkeypatch.setattr(cli, "_notebooks", lambda: books)
    assert cli.check_notebooks() == 2
    out = capsys.readouterr().out
    assert "a.ipynb: has outputs" in out and "b.ipynb: has saved widget state" in out and "c.ipynb" not in out
    cli.strip_notebooks()
    assert cli.check_notebooks() == 0
    assert "widgets" not in nbformat.read(books[1], as_version=4).metadata
