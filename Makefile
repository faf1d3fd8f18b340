# Two commands do all the set-up on a fresh machine:
#   make lab    open the course in JupyterLab (notebooks/ and minitorch/ side by side)
#   make test   run every test
# Both create the virtual environment in .venv/ on first use.

PYTHON ?= python3

# One BLAS thread unless you ask for more: the course's matrices are small, and several
# BLAS threads on a busy machine mostly wait for each other (notebook 07 trains ten times
# slower with two threads than with one on a shared two-core machine).
export OPENBLAS_NUM_THREADS ?= 1
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
VENV   := .venv
BIN    := $(VENV)/bin
READY  := $(VENV)/.ready
# Lab's saved layouts for this course (JupyterLab's "workspaces"), kept apart from your others.
WORKSPACES := $(VENV)/share/jupyter/lab/workspaces

.PHONY: lab progress handin test test-fast lint bench release bundle venv lock clean

# Root (a container) may only start JupyterLab with --allow-root.
ALLOW_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)

$(READY): requirements.lock pyproject.toml etc/jupyterlab-overrides.json etc/jupyter_server_config.json \
		etc/jupyterlab-workspace.json
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	# JupyterLab's defaults for this course: no pop-up asking to fetch Jupyter news.
	mkdir -p $(VENV)/share/jupyter/lab/settings
	cp etc/jupyterlab-overrides.json $(VENV)/share/jupyter/lab/settings/overrides.json
	# A quiet terminal: kernels talk to the server encrypted (CurveZMQ), no search for
	# language servers, one websocket timeout; the course's notebooks are trusted.
	mkdir -p $(VENV)/etc/jupyter
	cp etc/jupyter_server_config.json $(VENV)/etc/jupyter/jupyter_server_config.json
	$(BIN)/jupyter trust notebooks/*.ipynb > /dev/null
	# Lab's first layout: notebook 01 open, the file browser at the course folder (notebooks/
	# and minitorch/ side by side). Lab saves your layout over it from then on, so it is
	# copied only once. The file name is JupyterLab's for its workspace "default" (/lab).
	mkdir -p $(WORKSPACES)
	test -f $(WORKSPACES)/default-37a8.jupyterlab-workspace || \
		cp etc/jupyterlab-workspace.json $(WORKSPACES)/default-37a8.jupyterlab-workspace
	touch $(READY)

venv: $(READY)

# JupyterLab at http://localhost:8888/lab: notebook 01 and, in the file browser, the whole
# course (notebooks/ and the package minitorch/) the first time; your own layout after that.
lab: $(READY)
	$(BIN)/jupyter lab --ServerApp.root_dir=. --LabApp.workspaces_dir=$(WORKSPACES) $(ALLOW_ROOT)

# Every visible check against your package, as a table (no hidden tests).
progress: $(READY)
	$(BIN)/python minitorch/course/progress.py

# The zip to hand in: minitorch/ and notebooks/, nothing else.
handin: $(READY)
	$(BIN)/python minitorch/course/handin.py

# Two workers (pytest-xdist): a module's tests stay together in one, the longest groups
# first (tests/conftest.py). PYTEST_ARGS adds pytest's own, e.g. PYTEST_ARGS="-m task2_2".
XDIST := -n 2 --dist loadgroup --no-loadscope-reorder

test: $(READY)
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# Everything but the slow layer (a class graded twice, the browser, the bundle, the hub).
test-fast: $(READY)
	$(BIN)/python -m pytest $(XDIST) -m "not slow" $(PYTEST_ARGS)

# ruff on the grader, the reference package, the tests and the benchmarks; mypy on the grader.
lint: $(READY)
	$(BIN)/ruff check grader solutions tests benchmarks
	$(BIN)/mypy

# The speed a learner feels, side by side with NumPy and PyTorch (benchmarks/README.md).
bench: $(READY)
	$(BIN)/python benchmarks/bench_mlp.py
	$(BIN)/python benchmarks/bench_gpt_step.py
	$(BIN)/python benchmarks/bench_gpt.py

# Regenerate the learner's minitorch/ and notebooks/ from solutions/ (commit the result).
release: $(READY)
	$(BIN)/python -m grader release

# The zip to hand to learners: release, environment, a learner README; no solutions.
bundle: $(READY)
	$(BIN)/python -m grader bundle --out build/minitorch-course.zip

# Re-pin everything after changing the direct pins in pyproject.toml.
lock:
	rm -rf build/lock-venv && $(PYTHON) -m venv build/lock-venv
	$(PYTHON) -c "import tomllib; print('\\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > build/direct.txt
	build/lock-venv/bin/python -m pip install --quiet -r build/direct.txt
	head -n 2 requirements.lock > build/requirements.lock
	build/lock-venv/bin/python -m pip freeze --all --exclude pip >> build/requirements.lock
	mv build/requirements.lock requirements.lock
	# The learner's own, leaner environment (the bundle ships it): only what the notebooks need.
	rm -rf build/learner-venv && $(PYTHON) -m venv build/learner-venv
	build/learner-venv/bin/python -m pip install --quiet -c requirements.lock numpy scipy matplotlib jupyterlab ipykernel
	head -n 2 requirements-learner.lock > build/requirements-learner.lock
	build/learner-venv/bin/python -m pip freeze --all --exclude pip >> build/requirements-learner.lock
	mv build/requirements-learner.lock requirements-learner.lock

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
