"""Counted words as people read them: "1 point", "0.5 points", "3 learners"."""

from __future__ import annotations


def plural(count: float, word: str, words: str | None = None) -> str:
    """``count`` with ``word`` in the singular when it is exactly one, else ``words``
    (default: ``word`` + "s"); the count is printed with ``:g`` (4.5, not 4.500000)."""
    return f"{count:g} {word if count == 1 else words or word + 's'}"


def spans(stages: list[str], order: list[str]) -> str:
    """Stages as ranges in the manifest's order: ["1", "2", "3", "5"] -> "stages 1-3 and 5"."""
    runs: list[list[str]] = []
    for stage in sorted(stages, key=order.index):
        if runs and order.index(stage) == order.index(runs[-1][-1]) + 1:
            runs[-1].append(stage)
        else:
            runs.append([stage])
    texts = [run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs]
    named = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]
    return f"{'stage' if len(stages) == 1 else 'stages'} {named}"
