"""Earlier tasks first: a visible check whose task runs the code of earlier tasks (its
``needs``, recorded by ``make release`` in ``known_mistakes.json``: the tasks whose
functions the check runs with the reference package) first runs their checks. When one
fails, the check says "Task 2.2 first" and blames nothing else: a wrong ``unbroadcast``
makes a right ``Sub.backward`` look wrong.

A check's verdict is kept for as long as the package's files are unchanged (``record``),
so a check that passed (or failed) in this kernel is not run again for a later one; one not
yet run here is run quietly from its notebook (beside the package, in ``notebooks/``).
"""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
from functools import cache
from typing import Any, Callable

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = PACKAGE.parent / "notebooks"

_verdicts: dict[str, tuple[Any, str]] = {}  # task -> (the package's stamp, "" if its check passed, else its first line)
_running: list[str] = []


@cache
def needs() -> dict[str, list[str]]:
    try:
        return json.loads(PACKAGE.joinpath("course", "known_mistakes.json").read_text(encoding="utf-8"))["needs"]
    except (OSError, ValueError, KeyError):
        return {}


def _stamp() -> tuple:
    """The package's files as they are now (names, sizes, times): a verdict holds while they do."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "course" not in path.relative_to(PACKAGE).parts[:1]:
            stat = path.stat()
            found.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(found)


def record(task: str, error: BaseException | None) -> None:
    """A check's verdict: passed (``error`` None) or its failure's first line."""
    _verdicts[task] = (_stamp(), "" if error is None else (str(error).strip().splitlines() or [type(error).__name__])[0])


def _check_source(task: str) -> tuple[str, str] | None:
    """The notebook's first code cell and ``task``'s visible check, if its notebook is beside the package."""
    for path in sorted(NOTEBOOKS.glob(f"0{task.split('.')[0]}_*.ipynb")):
        cells = [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c.get("cell_type") == "code"]
        for cell in cells:
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == f"task{task.replace('.', '_')}_visible":
                setup = "".join(cells[0]["source"])
                setup = "\n".join(line for line in setup.splitlines() if not line.lstrip().startswith(("%", "!")))
                return setup, "".join(cell["source"])
    return None


def _verdict(task: str, run: Callable[[str, str], None]) -> str | None:
    """"" if ``task``'s check passes, else its first line; None if it cannot be run here."""
    kept = _verdicts.get(task)
    if kept and kept[0] == _stamp():
        return kept[1]
    source = _check_source(task)
    if source is None:
        return None
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            run(*source)
    except Exception as error:  # noqa: BLE001 - any failure of that check: it is the earlier task's
        record(task, error)
    else:
        record(task, None)
    return _verdicts[task][1]


def first(task: str) -> str:
    """Why ``task``'s check must wait ("" when every earlier task it runs passes its own check)."""
    if task in _running:
        return ""
    _running.append(task)
    try:
        for earlier in needs().get(task, []):
            failed = _verdict(earlier, _run)
            if failed:
                return (f"Task {earlier} first: Task {task}'s check runs your Task {earlier} code, and Task {earlier}'s "
                        f"own check fails ({failed.rstrip('.:')}). Fix Task {earlier} and run its check, then run this "
                        "one again; until then this check blames nothing else.")
        return ""
    finally:
        _running.pop()


def _run(setup: str, check: str) -> None:
    namespace: dict[str, Any] = {"__name__": "__earlier__"}
    exec(compile(setup, "setup", "exec"), namespace)  # noqa: S102 - the notebook's own cells
    exec(compile(check, "check", "exec"), namespace)  # noqa: S102
