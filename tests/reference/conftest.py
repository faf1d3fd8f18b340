"""The tests in this folder run against the reference package in solutions/, and prove it."""

import pathlib
import sys

SOLUTIONS = pathlib.Path(__file__).resolve().parents[2] / "solutions"
sys.path.insert(0, str(SOLUTIONS))
for name in [m for m in sys.modules if m == "minitorch" or m.startswith("minitorch.")]:
    del sys.modules[name]

import minitorch

assert pathlib.Path(minitorch.__file__).resolve().parent == SOLUTIONS / "minitorch", (
    f"expected the reference package in {SOLUTIONS}, imported {minitorch.__file__}")
