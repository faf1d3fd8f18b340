"""The docs' task table (``docs/CURRICULUM.md``), made from the manifest's data, which the
release writes into the doc (``write``) so that it never goes stale."""

from __future__ import annotations

import pathlib

START = "<!-- made by `python -m grader tasks`"  # the table follows this line in the doc


def markdown_table(data: dict) -> str:
    stages, tasks = data["stage"], data["task"]
    rows = ["| task | stage (notebook) | what | parts (points) | points |", "| --- | --- | --- | --- | --- |"]
    total = 0.0
    for task, spec in tasks.items():
        stage, points = task.split(".")[0], sum(spec["parts"].values())
        total += points
        parts = ", ".join(f"{name} ({value:g})" for name, value in spec["parts"].items())
        rows.append(f"| {task} | {stage} ({stages[stage]['notebook']}) | {spec['title']} | {parts} | {points:g} |")
    rows.append(f"| | | **total** | | **{total:g}** |")
    return "\n".join(rows)


def write(doc: pathlib.Path, data: dict) -> bool:
    """Replace the table after the ``START`` line of ``doc``; True when it changed."""
    lines = doc.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith(START)), None)
    if start is None:
        raise ValueError(f"{doc}: no line starting {START!r} to put the task table after")
    end = start + 1
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    new = lines[:start + 1] + [markdown_table(data) + "\n"] + lines[end:]
    if new == lines:
        return False
    doc.write_text("".join(new), encoding="utf-8")
    return True
