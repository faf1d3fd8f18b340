"""Re-run every hidden check in a fresh process that the learner's code cannot prepare.

    python -m grader.verify PACKAGE_DIR SECONDS TASK...

prints one JSON line per task as it finishes: {"task": "2.3", "error": null or why}.

Inside the notebook kernel, the learner's package is imported before the hidden tests
run, so it could replace the grader's checks or the NumPy functions they rely on. Here the
grader and NumPy are imported first, the functions the checks use are recorded, and after
the learner's package is imported they must be the very same objects; the checks then run
against it. A task counts only if it passes both in the kernel and here.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import signal
import sys
import types


def snapshot(modules: list[types.ModuleType]) -> dict[tuple[str, str], tuple]:
    """What each function of ``modules`` is: the object, and its code and defaults (which
    can be swapped without replacing the object)."""
    return {(m.__name__, name): (id(value), id(getattr(value, "__code__", None)),
                                 id(getattr(value, "__defaults__", None)), id(getattr(value, "__kwdefaults__", None)))
            for m in modules for name, value in vars(m).items() if callable(value) and not name.startswith("__")}


def report(task: str, error: str | None) -> None:
    print(json.dumps({"task": task, "error": error}), flush=True)


def _timeout(signum, frame):
    raise TimeoutError("took too long (an endless loop?)")


def main(argv: list[str]) -> int:
    package, seconds, tasks = pathlib.Path(argv[0]).resolve(), int(argv[1]), argv[2:]
    sys.path[:] = [p for p in sys.path if pathlib.Path(p or ".").resolve() != package.parent]
    import numpy
    import numpy.testing

    from grader import checks, numeric, registry
    for n in range(1, 7):
        importlib.import_module(f"grader.stage{n}")
    import builtins
    watched = [builtins, numpy, numpy.testing, numpy.linalg, checks, numeric, registry] + \
        [sys.modules[f"grader.stage{n}"] for n in range(1, 7)]
    before = snapshot(watched)
    try:
        spec = importlib.util.spec_from_file_location("minitorch", package / "__init__.py",
                                                      submodule_search_locations=[str(package)])
        mt = importlib.util.module_from_spec(spec)
        sys.modules["minitorch"] = mt
        spec.loader.exec_module(mt)
    except BaseException as error:  # noqa: BLE001 - any failure to import is reported, not raised
        for task in tasks:
            report(task, f"the package could not be imported: {type(error).__name__}: {error}")
        return 0
    after = snapshot(watched)
    changed = sorted(f"{m}.{n}" for key, what in before.items() for m, n in [key] if after.get(key) != what)
    if changed:
        for task in tasks:
            report(task, "importing the package changed the grader or NumPy (" + ", ".join(changed[:5]) + ")")
        return 0
    signal.signal(signal.SIGALRM, _timeout)
    for task in tasks:
        signal.alarm(seconds)
        try:
            registry.check(task, mt)
            error = None
        except BaseException as failure:  # noqa: BLE001
            error = str(failure) or type(failure).__name__
        finally:
            signal.alarm(0)
        report(task, error)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
