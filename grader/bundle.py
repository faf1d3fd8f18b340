"""The learner bundle: the zip an instructor hands out.

It holds the release (``notebooks/``, ``minitorch/``), the pinned environment
(``environment.yml``, ``requirements.lock``, ``pyproject.toml``), a Makefile with the one
set-up command and a README for learners; never ``solutions/``, the grader or hidden tests.
"""

from __future__ import annotations

import pathlib
import zipfile

from .release import ROOT

ENTRIES = ["notebooks", "minitorch", "environment.yml", "requirements.lock", "pyproject.toml",
           "etc/jupyterlab-overrides.json"]
SKIP = {"__pycache__", ".ipynb_checkpoints"}

README = """# minitorch: build autograd yourself

Six notebooks take you from the chain rule on single numbers to training neural
networks. You write the code in the package `minitorch/`; the notebooks explain, draw,
and check your work.

## Set up (once), then open the notebooks

With Python 3.11 to 3.13 and `make`:

    make lab

This creates a virtual environment in `.venv/`, installs the pinned packages and your
package in editable mode, and opens JupyterLab on `notebooks/`. Without `make`:

    python3 -m venv .venv
    .venv/bin/pip install -r requirements.lock
    .venv/bin/pip install --no-deps --no-build-isolation -e .
    .venv/bin/jupyter lab --notebook-dir=notebooks

Conda users: `conda env create -f environment.yml`, activate it, then `pip install -e .`.

## How to work

Go through `01_chain_rule` to `06_training` in order. Each "Your task X.Y" section names
a file and a function in `minitorch/`. Fill it in, save, and re-run the check cell below
the section: your edits are picked up without restarting the kernel. An error
`NotImplementedError: Task X.Y: ...` means that stub is still empty.

When you are done, hand in the whole folder (or a zip of it) as your instructor asks.
"""

MAKEFILE = """VENV  := .venv
BIN   := $(VENV)/bin
READY := $(VENV)/.ready
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab

$(READY): requirements.lock pyproject.toml
\ttest -x $(BIN)/python || python3 -m venv $(VENV)
\t$(BIN)/python -m pip install --quiet -r requirements.lock
\t$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
\tmkdir -p $(VENV)/share/jupyter/lab/settings
\tcp etc/jupyterlab-overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
\ttouch $(READY)

lab: $(READY)
\t$(BIN)/jupyter lab --notebook-dir=notebooks $(ALLOW_ROOT)
"""


def build(target: pathlib.Path, folder: str = "minitorch-course") -> pathlib.Path:
    """Write the bundle to ``target`` (a .zip), everything inside one top folder."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in ENTRIES:
            path = ROOT / entry
            files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
            for file in files:
                if SKIP.isdisjoint(file.relative_to(ROOT).parts):
                    archive.write(file, f"{folder}/{file.relative_to(ROOT)}")
        archive.writestr(f"{folder}/README.md", README)
        archive.writestr(f"{folder}/Makefile", MAKEFILE)
    return target
