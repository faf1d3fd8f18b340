"""The hand-ins graded on the platforms: the reference, the blank release, a one-op bug, a
broken zip, and hostile ones built on the blank release (whatever they fake earns nothing,
so anything that reaches the grade or results.json is the attack succeeding)."""

import pathlib
import shutil
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE, RELEASE = ROOT / "solutions" / "minitorch", ROOT / "minitorch"
ONE_OP_BUG = ("ops_binary.py", "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
              "return grad * b, grad * a")   # Mul's backward forgets to unbroadcast
PLANTED = "/tmp/minitorch-platform-planted"
FORGED = '{"score": 1000, "gradable": true, "tests": [], "output": "forged"}'
RESULTS = ["/autograder/results/results.json", "/grade/results/results.json"]
# Where the platforms keep the checks (this machine's own copies in the repository are not
# in a platform's container; `check` here keeps them out of reach with Landlock).
CHECKS = ["/autograder/source/grader/checks/stage2.py",
          "/grade/serverFilesCourse/minitorch_grader/grader/checks/stage2.py",
          "/grade/shared/minitorch_grader/grader/checks/stage2.py",
          "/autograder/submission_metadata.json", "/grade/data/data.json"]   # and the platforms' job data

TRY = "\ndef _try(f):\n    try:\n        return f()\n    except BaseException:\n        return None\n"
LATER = (f"import time\nfor _ in range(8):\n    time.sleep(0.25)\n    for p in {RESULTS!r}:\n        try:\n"
         f"            open(p, 'w').write({FORGED!r})\n        except BaseException:\n            pass\n")
FORGES = TRY + f"""
import os as _o, subprocess as _s, sys as _y
for _path in {RESULTS!r}:
    _try(lambda: open(_path, 'w').write({FORGED!r}))
_try(lambda: open({PLANTED!r}, 'w').write('planted'))
_try(lambda: _o.kill(_o.getppid(), 9))
_try(lambda: _s.Popen([_y.executable, '-c', {LATER!r}], start_new_session=True))
"""
READS_CHECKS = TRY + f"""
import glob as _g
print(*[_try(lambda: open(p).read()) for p in {CHECKS!r}])
_found = [t for t in (_try(lambda: open(p).read()) for p in {CHECKS!r} + _g.glob('/autograder/source/**/*.py',
          recursive=True) + _g.glob('/grade/**/*.py', recursive=True)) if t]
if _found:
    raise ImportError(_found[0][:1500])
"""


def patches_numpy(platform_paths: tuple[str, ...]) -> str:
    """NumPy patched in the learner's process, and on disk where the platform keeps it."""
    return TRY + f"""
import numpy as _n, os as _o
_n.allclose = lambda *a, **k: True
_n.array_equal = lambda *a, **k: True
_n.testing.assert_allclose = lambda *a, **k: None
_here = _o.path.dirname(_n.__file__)
if _here.startswith({platform_paths!r}):
    _patch = 'import numpy as n\\nn.allclose = lambda *a, **k: True\\n'
    _try(lambda: open(_o.path.join(_here, '_distributor_init_local.py'), 'w').write(_patch))
    _try(lambda: open(_o.path.join(_here, '__init__.py'), 'a').write(_patch))
"""


def folder(target: pathlib.Path, source: pathlib.Path = REFERENCE, patches=(), on_import: str = "") -> pathlib.Path:
    """A course folder: minitorch/ (``source`` with ``patches``) and the release notebooks."""
    package = target / "minitorch"
    shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__"))
    for file, old, new in patches:
        text = (package / file).read_text()
        assert text.count(old) == 1, (file, old)
        (package / file).write_text(text.replace(old, new))
    if on_import:
        init = package / "__init__.py"
        init.write_text(on_import + "\n" + init.read_text())
    shutil.copytree(ROOT / "notebooks", target / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return target


def zipped(course: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    """handin.zip as `make handin` writes it: minitorch/ and notebooks/ at its root."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(course.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(course).as_posix())
    return target


def build(where: pathlib.Path, platform_paths: tuple[str, ...]) -> dict[str, pathlib.Path]:
    """Every hand-in, by name, as a handin.zip in its own folder."""
    made = {}
    courses = {"reference": {}, "blank": {"source": RELEASE}, "one-op bug": {"patches": [ONE_OP_BUG]},
               "forges results": {"source": RELEASE, "on_import": FORGES},
               "reads the checks": {"source": RELEASE, "on_import": READS_CHECKS},
               "patches NumPy": {"source": RELEASE, "on_import": patches_numpy(platform_paths)}}
    for name, options in courses.items():
        course = folder(where / name.replace(" ", "-") / "course", **options)
        made[name] = zipped(course, course.parent / "handin.zip")
    sys.path.insert(0, str(ROOT / "tests" / "grader"))
    from borrowers import BORROWERS
    for name, builder in (BORROWERS[0], BORROWERS[1]):   # the control, and the borrower through the module table
        course = builder(where / name, "course")
        shutil.copytree(ROOT / "notebooks", course / "notebooks", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        made[name] = zipped(course, course.parent / "handin.zip")
    broken = where / "broken-zip"
    broken.mkdir()
    (broken / "handin.zip").write_bytes(b"PK\x03\x04 this is not a zip at all")
    made["broken zip"] = broken / "handin.zip"
    return made
