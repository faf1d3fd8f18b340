"""The arguments of ``task`` and ``stage`` (``grader/__main__.py`` adds them to its parser);
each command's ``main`` takes them as keyword arguments."""

from __future__ import annotations


def add_parsers(commands) -> None:  # argparse's _SubParsersAction
    p = commands.add_parser("task", help="add a task to a stage: manifest, notebook section, checks, tests")
    p.add_argument("action", choices=["add"])
    p.add_argument("task", help="its id, STAGE.N, for example 3.4")
    p.add_argument("--title", required=True, help="what the learner builds, for example 'Softplus.backward'")
    p.add_argument("--file", required=True, help="the package file the learner fills in, relative to minitorch/")
    p.add_argument("--calls", nargs="*", default=[], help="the package names its checks call, e.g. ops_unary.Softplus")
    p.add_argument("--swaps", nargs="*", default=[], help="names its checks replace with given versions ([given])")
    p.add_argument("--part", dest="parts", action="append", default=[], metavar="NAME=POINTS",
                   help="a part and its points (multiples of 0.5); repeat for each part")
    p = commands.add_parser("stage", help="add a stage (its notebook, checks, tests) or drop one")
    p.add_argument("action", choices=["add", "drop"])
    p.add_argument("stage", help="its number")
    p.add_argument("--notebook", help="add: its notebook's name, NN_name")
    p.add_argument("--title", help="add: what it builds")

