"""The learner bundle: the zip an instructor hands out.

It holds the release (``notebooks/``, ``minitorch/``), the learner's own pinned
environment (``requirements-learner.lock`` shipped as ``requirements.lock``, with an
``environment.yml`` and a ``pyproject.toml`` that list only what a learner needs: no
nbgrader, test or browser tooling), a Makefile (``lab``, ``progress``, ``handin``) and a
README for learners; never ``solutions/``, the grader or hidden tests.
"""

from __future__ import annotations

import pathlib
import zipfile

from grader.release.build import ROOT

ENTRIES = ["notebooks", "minitorch", "etc/jupyterlab-overrides.json", "etc/jupyter_server_config.json"]
SKIP = {"__pycache__", ".ipynb_checkpoints"}
LEARNER_LOCK = ROOT / "requirements-learner.lock"

README = """# minitorch: build autograd yourself

Seven notebooks take you from the chain rule on single numbers to training a small GPT
that makes up names. You write the code in the package `minitorch/`; the notebooks
explain, draw, and check your work.

## Start

With Python 3.11 to 3.13 and `make`:

    make lab

The first time, this creates a virtual environment in `.venv/` and installs the pinned
packages and your package (a minute or two). Then JupyterLab opens on the course
folder: its file browser shows `notebooks/` and `minitorch/` side by side. Work through
`notebooks/01_chain_rule.ipynb` to `07_gpt.ipynb` in order.

## How to work

Each "Your task X.Y" section of a notebook names a file and a function in `minitorch/`.
Open that file from JupyterLab's file browser (double-click `minitorch/`, then the file),
fill in the function where it says `raise NotImplementedError("Task X.Y: ...")`, save
(Ctrl+S, or Cmd+S on a Mac), and re-run the check cell below the section. Your edits
reach the running notebook without restarting the kernel. An error
`NotImplementedError: Task X.Y: ...` means that stub is still empty; a check that needs
an earlier task says which one.

The check cells in the notebooks are *visible checks*: quick tests of the main cases.
Your grade comes from hidden tests, run by your instructor on your package, that check
many more cases, part by part. Passing the visible checks is a good sign, not a grade.

## Your progress

    make progress

runs every visible check of every notebook against your package and prints a table:
each task, its points, and whether it is done, not started, or failing (with why). From
any notebook cell: `from minitorch.progress import show; show()`.

## Hand in

    make handin

writes `handin.zip`: your `minitorch/` package and your `notebooks/`, nothing else.
Upload that file as your instructor asks. Only your package is graded; your notebooks
travel with it.

## Without make (Windows, or a machine without make)

macOS and Linux:

    python3 -m venv .venv
    .venv/bin/pip install -r requirements.lock
    .venv/bin/pip install --no-deps --no-build-isolation -e .
    cp etc/jupyter_server_config.json .venv/etc/jupyter/    # a quiet terminal
    .venv/bin/jupyter trust notebooks/*.ipynb
    .venv/bin/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/01_chain_rule.ipynb
    .venv/bin/python -m minitorch.progress      # your progress
    .venv/bin/python -m minitorch.handin        # handin.zip

Windows (PowerShell), with Python from python.org:

    py -3.11 -m venv .venv
    .venv\\Scripts\\pip install -r requirements.lock
    .venv\\Scripts\\pip install --no-deps --no-build-isolation -e .
    Copy-Item etc\\jupyter_server_config.json .venv\\etc\\jupyter\\
    .venv\\Scripts\\jupyter trust (Get-ChildItem notebooks\\*.ipynb)
    .venv\\Scripts\\jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/01_chain_rule.ipynb
    .venv\\Scripts\\python -m minitorch.progress
    .venv\\Scripts\\python -m minitorch.handin

Conda: `conda env create -f environment.yml`, `conda activate minitorch`, then
`pip install --no-deps -e .`, `cp etc/jupyter_server_config.json $CONDA_PREFIX/etc/jupyter/`,
and the `jupyter trust` and `jupyter lab` lines above.

## Troubleshooting

- **`make: command not found`**: use the commands of the section above. On macOS,
  `xcode-select --install` installs `make`.
- **The port is in use** (`[Errno 98] Address already in use`, or Lab opens someone
  else's session): another JupyterLab is running. Close it, or start this one on another
  port: `JUPYTER_PORT=8890 make lab`.
- **No browser opens** (a remote machine, WSL): copy the `http://localhost:8888/lab?token=...`
  address that the terminal prints into your browser. The line `No web browser found`
  in the terminal means only that; it is harmless.
- **A cell runs forever, or the kernel seems stuck**: press the stop button (Kernel >
  Interrupt Kernel); if that does not help, Kernel > Restart Kernel, then run the
  notebook's first cell again (it turns on the automatic reloading of your edits).
- **My edit is not picked up**: save the file (the tab's dot disappears), then re-run
  the cell. If you added a new function or file, restart the kernel once.
- **Windows paths**: keep the course in a folder whose path has no spaces if `pip` fails
  to install; use PowerShell, not the old `cmd.exe`.
- **Python version**: 3.11, 3.12 or 3.13; `python3 --version` tells. Another version may
  fail to install the pinned packages.
"""

MAKEFILE = """VENV  := .venv
BIN   := $(VENV)/bin
READY := $(VENV)/.ready
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab progress handin

$(READY): requirements.lock pyproject.toml etc/jupyterlab-overrides.json etc/jupyter_server_config.json
\ttest -x $(BIN)/python || python3 -m venv $(VENV)
\t$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
\t$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
\tmkdir -p $(VENV)/share/jupyter/lab/settings $(VENV)/etc/jupyter
\tcp etc/jupyterlab-overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
\tcp etc/jupyter_server_config.json $(VENV)/etc/jupyter/jupyter_server_config.json
\t$(BIN)/jupyter trust notebooks/*.ipynb > /dev/null
\ttouch $(READY)

# JupyterLab on the whole course: notebooks/ and minitorch/ side by side.
lab: $(READY)
\t$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.default_url=/lab/tree/notebooks/01_chain_rule.ipynb $(ALLOW_ROOT)

progress: $(READY)
\t$(BIN)/python -m minitorch.progress

handin: $(READY)
\t$(BIN)/python -m minitorch.handin
"""

ENVIRONMENT = """# conda env create -f environment.yml && conda activate minitorch && pip install --no-deps -e .
name: minitorch
channels:
  - conda-forge
dependencies:
  - python=3.11
  - pip
  - pip:
      - -r requirements.lock
"""

PYPROJECT = """[project]
name = "minitorch-course"
version = "0.1.0"
description = "Build reverse-mode automatic differentiation on tensors, one notebook at a time."
requires-python = ">=3.11,<3.14"
# What a learner needs; requirements.lock pins these and everything they pull in.
dependencies = ["numpy==2.4.6", "scipy==1.17.1", "matplotlib==3.11.2", "jupyterlab==4.6.6", "ipykernel==7.4.0"]

[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[tool.setuptools]
packages = ["minitorch"]

[tool.setuptools.package-data]
minitorch = ["data/*"]
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
        archive.write(LEARNER_LOCK, f"{folder}/requirements.lock")
        for name, text in (("README.md", README), ("Makefile", MAKEFILE), ("environment.yml", ENVIRONMENT),
                           ("pyproject.toml", PYPROJECT)):
            archive.writestr(f"{folder}/{name}", text)
    return target
