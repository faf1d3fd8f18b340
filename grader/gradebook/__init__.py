"""The nbgrader course that records a class's grades: ``course.py`` the course folder and
its gradebook, ``batch.py`` a class recorded in one gradebook session, ``cells.py`` the
verdicts written into a notebook's graded cells, ``preprocessor.py`` what nbgrader's
autograde runs instead of executing a notebook, and the course's late rule, ``term.py`` what a term settles in a gradebook
(extensions, corrections, formgrader's grades), ``hubbook.py`` the JupyterHub course's
gradebook as a term's."""


def nbgrader_api():
    """``nbgrader.api``, imported without nbgrader's package ``__init__``, which imports its
    Jupyter server extensions (tornado, jupyter_server, nbconvert's filters: a third of a
    second of a core in every run that records grades) that a gradebook never uses. nbgrader's
    modules import each other relatively and its apps read only ``nbgrader.__version__`` of
    the package, which is set here. Where nbgrader is imported already (a Jupyter server,
    nbgrader's own commands) or cannot be found, nothing changes."""
    import importlib
    import importlib.util
    import sys
    spec = importlib.util.find_spec("nbgrader") if "nbgrader" not in sys.modules else None
    if spec is not None and spec.submodule_search_locations is not None:
        package = sys.modules["nbgrader"] = importlib.util.module_from_spec(spec)   # its __init__ not run
        try:
            package.__dict__["__version__"] = importlib.import_module("nbgrader._version").__version__
        except Exception:  # noqa: BLE001 - an nbgrader laid out otherwise: imported as it is
            del sys.modules["nbgrader"]
    return importlib.import_module("nbgrader.api")
