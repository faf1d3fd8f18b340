"""A class of learners, one per failure mode, for the class-grading test.

Each learner is (id, how to build the hand-in, expectation, words its feedback or problems
must hold). Expectations: "reference" (the reference package's score), "zero",
"reference-0.5" (that many points less), "reference-stage N" (less stage N's points),
"reference-part TASK/PART" (less that part's points), "reference but six tasks" (the
reference's points in every task but the six borrowers take, borrowers.py, and fewer in
those), "like LEARNER" (every task's points those of LEARNER), or "refused" (no row of its
own: a refused one, whose reason holds the words). Builders get the folder of hand-ins and the
learner's id (the entry's name, less .zip); ``SHOWN`` gives the row's label where it
differs from the id.
"""

import os
import pathlib
import shutil
import stat
import zipfile

from conftest import REFERENCE, ROOT, write_package

PLANTED = "/tmp/minitorch-hostile-planted"


def folder(patches=(), source=REFERENCE, notebooks=True):
    def build(where: pathlib.Path, learner: str) -> pathlib.Path:
        target = where / learner
        write_package(target / "minitorch", patches, source)
        if notebooks:
            shutil.copytree(ROOT / "notebooks", target / "notebooks")
        return target
    return build


def zipped(build_folder, windows=False, extra=None):
    def build(where: pathlib.Path, learner: str) -> pathlib.Path:
        staging = build_folder(where / ".staging", learner)
        target = where / f"{learner}.zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(staging.rglob("*")):
                if path.is_file():
                    name = str(path.relative_to(staging))
                    archive.write(path, name.replace("/", "\\") if windows else name)
            if extra:
                extra(archive)
        shutil.rmtree(where / ".staging")
        return target
    return build


def renamed(build, name):
    """A hand-in built for one learner id, saved under the file name ``name``."""
    def build_as(where, learner):
        built = build(where, "." + learner)
        return built.rename(where / name)
    return build_as


def with_files(build_folder, edit):
    def build(where, learner):
        target = build_folder(where, learner)
        edit(target)
        return target
    return build


def on_import(code: str):
    """The reference, with ``code`` run when the package is imported."""
    return folder([("__init__.py", '"""minitorch', code + '\n"""minitorch')])


def stubbed_with(code: str):
    """The blank release with ``code`` run on import: whatever it fakes earns nothing."""
    return folder([("__init__.py", "from . import datasets", code + "\nfrom . import datasets")],
                  source=ROOT / "minitorch")


def appended(code: str, source=REFERENCE):
    """``source`` with ``code`` run at the end of the package's import."""
    def build(where: pathlib.Path, learner: str) -> pathlib.Path:
        target = folder(source=source)(where, learner)
        with (target / "minitorch" / "__init__.py").open("a") as init:
            init.write("\n" + code + "\n")
        return target
    return build


def raw(data: bytes, name_suffix=".zip"):
    def build(where, learner):
        target = where / f"{learner}{name_suffix}"
        target.write_bytes(data)
        return target
    return build


def in_its_first_copy(code: str):
    """A package in ``01_chain_rule/minitorch/`` (stage 1 grades it) and the same files in
    ``minitorch/`` (the other stages): ``code`` runs on import in the first copy only."""
    guarded = "import os as _o\nif _o.path.basename(_o.path.dirname(_o.path.dirname(__file__))) == 'package0':\n" \
              + "".join(f"    {line}\n" for line in code.splitlines())
    def build(where, learner):
        target = on_import(guarded)(where, learner)
        shutil.copytree(target / "minitorch", target / "01_chain_rule" / "minitorch")
        return target
    return build


def damaged_member(member: str, extra: str | None = None):
    """A zip of the reference (stored, not compressed) with one byte of ``member`` changed:
    its CRC no longer matches. ``extra``: a member added first (for damaging it)."""
    def build(where, learner):
        staging = folder(notebooks=False)(where / ".staging", learner)
        if extra:
            (staging / extra).write_text("HELPER = 1\n" * 20)
        target = where / f"{learner}.zip"
        with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
            for path in sorted(staging.rglob("*")):
                if path.is_file():
                    archive.write(path, str(path.relative_to(staging)))
        shutil.rmtree(where / ".staging")
        data = bytearray(target.read_bytes())
        with zipfile.ZipFile(target) as archive:
            info = archive.getinfo(member)
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
        data[start + 5] ^= 0x20
        target.write_bytes(bytes(data))
        return target
    return build


def another_package(target):
    shutil.copytree(target / "minitorch", target / "old" / "minitorch")


def fifo_in_package(target):
    os.mkfifo(target / "minitorch" / "pipe.py")


def dangling_link(target):
    (target / "minitorch" / "extra.py").symlink_to("/nonexistent/extra.py")


def link_to_grader(target):
    (target / "minitorch" / "checks").symlink_to(ROOT / "grader" / "checks")
    (target / "secrets.py").symlink_to(ROOT / "grader" / "checks" / "stage2.py")


def folder_named_py(target):
    (target / "minitorch" / "weird.py").mkdir()


def unused_syntax_error(target):
    (target / "minitorch" / "scratchpad.py").write_text("def broken(:\n")


def junk(target):
    (target / ".venv" / "lib").mkdir(parents=True)
    (target / ".venv" / "lib" / "big.bin").write_bytes(b"x" * 2**20)
    (target / "__pycache__").mkdir()
    (target / "notebooks" / ".ipynb_checkpoints").mkdir()
    (target / "build").mkdir()
    (target / "build" / "minitorch").mkdir()
    (target / "build" / "minitorch" / "__init__.py").write_text("raise SystemExit")


def bad_notebooks(target):
    (target / "notebooks" / "01_chain_rule.ipynb").write_text('{"cells": [1, "x", null], "nbformat": 4}')
    (target / "notebooks" / "02_broadcasting.ipynb").write_text("[" * 100000 + "]" * 100000)
    (target / "notebooks" / "03_reductions.ipynb").write_text('{"cells": [{"metadata": {"nbgrader": 7}}]}')


def encrypted_entries(archive):
    for info in archive.infolist():
        info.flag_bits |= 0x1


def long_entry(archive):
    archive.writestr("notes/" + "n" * 300 + ".txt", "hello")


def escaping_entry(archive):
    archive.writestr("../../outside.txt", "x")
    info = zipfile.ZipInfo("minitorch/evil_link.py")
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    archive.writestr(info, "/etc/passwd")


TRY = "\ndef _try(f):\n    try:\n        f()\n    except BaseException:\n        pass\n"
HOSTILE_IMPORTS = {
    "stray-process": "import subprocess as _s, sys as _y\n_s.Popen([_y.executable, '-c', 'import os,time\\nif os.fork()==0:\\n os.setsid(); time.sleep(600)  # minitorch-stray-marker'], start_new_session=True)",
    "chmod-own-files": TRY + "import os as _o\n_try(lambda: _o.chmod(__file__, 0o000))\n_try(lambda: _o.utime(__file__, (0, 0)))",
    "writes-dev-shm": TRY + "_try(lambda: open('/dev/shm/minitorch-hostile', 'w').write('x'))",
    "plants-files": TRY + f"_try(lambda: open({PLANTED!r}, 'w').write('x'))\nimport os as _o\n_try(lambda: _o.symlink('/etc', '../../planted-link'))\n_try(lambda: _o.mkfifo('../verdicts.json'))",
    "prints-garbage": "import os as _o, sys as _y\n_o.write(1, b'\\x00' * 100)\nprint('<b>noise</b>')\n_y.stderr.write('noise')",
    "children-hoard-memory": "import os as _o\nfor _ in range(3):\n    if _o.fork() == 0:\n        try:\n            import numpy as _n\n            _x = [_n.ones(2**27) for _ in range(4)]\n        finally:\n            _o._exit(0)",
    "reads-hidden-checks": TRY + f"_try(lambda: print(open({str(ROOT / 'grader' / 'checks' / 'stage2.py')!r}).read()))",
}
CHEATS = {
    "forges-verdicts": TRY + "_try(lambda: open('verdicts.json', 'w').write('{}'))\nprint('Task 2.3 passes')",
    "empties-checks": TRY + f"_try(lambda: open({str(ROOT / 'grader' / 'checks' / '__init__.py')!r}, 'w').write(''))",
    "imports-reference": TRY + f"import sys as _y\n_y.path.insert(0, {str(ROOT / 'solutions')!r})\n_try(lambda: __import__('minitorch.ops_binary'))",
    "patches-numpy": "import numpy as _n\n_n.allclose = lambda *a, **k: True\n_n.array_equal = lambda *a, **k: True\n_n.testing.assert_allclose = lambda *a, **k: None",
    "settrace": "import sys as _y\n_y.settrace(lambda *a: None)",
    "environment": "import os as _o\n_o.environ['MINITORCH_UNDER_TEST'] = '/'\n_o.environ['PYTHONPATH'] = '/work'",
    "patches-probes": "import sys as _y\n_p = _y.modules.get('grader.learner.probes')\nif _p: _p.PROBES['rule'] = lambda mt, **k: {'out': None, 'grads': [], 'upstream': k.get('upstream'), 'inputs': k.get('arrays')}",
    "reads-gradebook": TRY + "import glob as _g\n_try(lambda: print([open(p, 'rb').read(100) for p in _g.glob('/tmp/**/gradebook.db', recursive=True)]))",
    "hides-errors": "import builtins as _b\n_b.NotImplementedError = type('Quiet', (Exception,), {})",
}
SCRIPT_ERROR = '<script>alert(1)</script><img src=x onerror=alert(2)>'


HUGE_GRADIENT = """
import numpy as _np
from . import ops_norm as _norm
_backward = _norm.LayerNorm.backward
def _huge(ctx, grad):
    gx, _, gb = _backward(ctx, grad)
    return gx, _np.broadcast_to(_np.float64(0.0), (2**28,)), gb   # 2 GiB, next to correct gradients
_norm.LayerNorm.backward = staticmethod(_huge)
"""
BOMB_IN_CALLS = """
from . import function as _function
def _bomb(self, *args, **kwargs):
    import os, time
    while True:
        try:
            if os.fork() == 0:
                while True:
                    time.sleep(1)
        except OSError:
            pass
_function.Context.__init__ = _bomb
"""
NFC, NFD = "cr\u00e8me", "cre\u0300me"
NON_UTF8 = os.fsdecode(b"latin1-caf\xe9")
# entries whose row in grades.csv is labelled otherwise than their name
SHOWN = {"-leading-dash": "'-leading-dash", NON_UTF8: "latin1-caf\\xe9", NFC: "cr\\xe8me", NFD: "cre\\u0300me"}
SLOW = {"bomb-in-calls": 60.0}   # seconds a learner's grading may take at most (FLAGS' budgets)


def odd_names():
    """Issue 25's hand-ins that must not vanish or collide, and the maxima row's impostor."""
    return [
        ("...zip", renamed(zipped(folder(notebooks=False)), "...zip"), "refused", "starts with a dot"),
        (".DS_Store", raw(b"\x00\x00\x00\x01Bud1", ""), "refused", "starts with a dot"),
        ("   ", folder(notebooks=False), "reference", ""),
        ("-leading-dash", folder(notebooks=False), "reference", ""),
        ("l" * 200, zipped(folder(notebooks=False)), "reference", ""),
        (NON_UTF8, folder(notebooks=False), "reference", ""),
        ("Case-Twin", folder(notebooks=False), "reference", "differ only in case"),
        ("case-twin", folder(notebooks=False), "reference", "differ only in case"),
        (NFC, folder(notebooks=False), "reference", "Unicode normalisation"),
        (NFD, folder(notebooks=False), "reference", "Unicode normalisation"),
        ("(maximum)", folder(notebooks=False), "reference", ""),
    ]


def issue25():
    """One learner (or more) per hole of issue 25 beyond the names."""
    return [
        ("import-hangs-in-one-stage", in_its_first_copy("import time as _t\n_t.sleep(600)"), "reference-stage 1",
         "took longer"),
        ("import-exits-in-one-stage", in_its_first_copy("_o._exit(0)"), "reference-stage 1", "died"),
        ("huge-gradient", appended(HUGE_GRADIENT), "reference-part 7.1/gradients for weight and bias",
         "2,048 MiB"),
        ("damaged-unused-member", damaged_member("minitorch/extra_helpers.py", "minitorch/extra_helpers.py"),
         "reference", "the zip's member minitorch/extra_helpers.py is damaged (CRC mismatch"),
        ("damaged-tensor", damaged_member("minitorch/tensor.py"), "zero",
         "the zip's member minitorch/tensor.py is damaged (CRC mismatch"),
        ("two-packages", with_files(folder(), another_package), "reference", "old/minitorch/ (another minitorch"),
        ("bomb-in-calls", appended(BOMB_IN_CALLS, source=ROOT / "minitorch"), "zero", "process bomb"),
    ]


def learners():
    cls = [
        ("honest-a", folder(), "reference", ""),
        ("blank", folder(source=ROOT / "minitorch"), "zero", "not implemented"),
        ("corrupt-zip", raw(b"PK\x03\x04 this is not a zip"), "zero", "not a readable .zip file (no zip directory"),
        ("not-a-zip.tar.gz", raw(b"hello", ""), "refused", "not a hand-in"),
        ("encrypted-zip", zipped(folder(), extra=None), "reference", ""),
        ("windows-zip", zipped(folder(), windows=True), "reference", ""),
        ("long-entry-name", zipped(folder(), extra=long_entry), "reference", ""),
        ("escaping-entries", zipped(folder(), extra=escaping_entry), "reference", "out of the zip"),
        ("folder.zip", folder(), "reference", ""),
        ("named-pipe", with_files(folder(), fifo_in_package), "reference", "not a regular file"),
        ("dangling-link", with_files(folder(), dangling_link), "reference", "symbolic link"),
        ("links-to-grader", with_files(folder(), link_to_grader), "reference", "symbolic link"),
        ("folder-named-py", with_files(folder(), folder_named_py), "reference", ""),
        ("unused-syntax-error", with_files(folder(), unused_syntax_error), "reference",
         "minitorch/scratchpad.py has a syntax error"),
        ("junk-folders", with_files(folder(), junk), "reference", ".venv/"),
        ("broken-notebooks", with_files(folder(), bad_notebooks), "reference", ""),
        ("no-package", with_files(folder(), lambda t: shutil.rmtree(t / "minitorch")), "zero", "no minitorch/"),
        ("import-error", folder([("__init__.py", "from . import datasets", "from . import nonexistent_module")]),
         "zero", "could not be imported"),
        ("exits-on-import", on_import("import os as _o\n_o._exit(3)"), "zero", "died"),
        ("hangs-in-one-rule", folder([("ops_unary.py", "        return grad * out * (1 - out)",
                                       "        while True:\n            pass")]), "reference-0.5", "endless loop"),
        ("raises-html", folder([("ops_unary.py", "        return grad * out * (1 - out)",
                                 f"        raise ValueError({SCRIPT_ERROR!r})")]), "reference-0.5", "ValueError"),
        ("has space", folder(), "reference", ""), ("brackets[1]", folder(), "reference", ""),
        ("glob*?", folder(), "reference", ""), ("trailing ", folder(), "reference", ""),
        ("solutions", folder(), "reference", ""), ("<img src=x onerror=alert(3)>", folder(), "reference", ""),
        ("dup", folder(), "reference", "two hand-ins"), ("dup.zip", renamed(zipped(folder()), "dup.zip"), "reference",
                                                         "two hand-ins"),
        ("honest-b", zipped(folder()), "reference", ""),
    ]
    cls[4] = ("encrypted-zip", zipped(folder(), extra=encrypted_entries), "zero", "encrypted")
    cls += [(name, on_import(code), "reference", "") for name, code in HOSTILE_IMPORTS.items()]
    cls += [(name, stubbed_with(code), "zero", "") for name, code in CHEATS.items()]
    cls.append(("honest-c", folder(), "reference", ""))
    return [learner for learner in cls + odd_names() + issue25() + borrowers() if _course_has(learner)]


NEEDS = {"hangs-in-one-rule": "3.1", "raises-html": "3.1", "huge-gradient": "7.1"}  # the task each one's patch breaks


def _course_has(learner: tuple) -> bool:
    """Whether the course (the manifest) still has the task a learner's patch is about:
    an instructor may drop a stage (docs/INSTRUCTOR.md)."""
    from grader.tasks import STAGES, TASKS
    task = NEEDS.get(learner[0])
    return (task is None or task in TASKS) and ("stage 1" not in learner[2] or "1" in STAGES)


def borrowers():
    """Issue 31: learners who call the grader's own versions of six tasks, each graded
    exactly as the control that leaves them unwritten ("like CONTROL": every task's points)."""
    from borrowers import BORROWERS, CONTROL, EVERYTHING, SIX
    if not SIX:   # the course has none of the six tasks left
        return []
    made = [(CONTROL, BORROWERS[0][1], "reference but six tasks", "not implemented")]
    # what each one's feedback says: the grader's version refused; nothing to call, since the
    # everything-borrower leaves stand-ins for last; and the capture lost, since a process lent
    # a later stage's helper (stage 1's unbroadcast) ends with its stage
    said = {EVERYTHING[0]: "", "borrows-captured": "nothing captured yet"}
    return made + [(name, build, f"like {CONTROL}", said.get(name, "the grader's own version of"))
                   for name, build in [*BORROWERS[1:], EVERYTHING]]
