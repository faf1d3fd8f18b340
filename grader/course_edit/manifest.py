"""Edits of the manifest's text (``grader/tasks.toml``), table by table, so that its
comments and layout survive: a table is a ``[header]`` line and the lines up to the next."""

from __future__ import annotations

import json
import re

HEADER = re.compile(r'^\[(?:stage\.(\d+)|task\."(\d+)\.(\d+)"(?:\.parts)?)\]\s*$')


class EditError(ValueError):
    """An edit that cannot be made; the message says what was asked and why not."""


def tables(text: str) -> list[tuple[str | None, str]]:
    """``text`` cut into (the stage a table belongs to, or None, its text); the preamble is
    the first piece. Joining the texts gives ``text`` back."""
    pieces: list[tuple[str | None, str]] = [(None, "")]
    for line in text.splitlines(keepends=True):
        if line.startswith("["):
            match = HEADER.match(line)
            pieces.append(((match.group(1) or match.group(2)) if match else None, ""))
        stage, body = pieces[-1]
        pieces[-1] = (stage, body + line)
    return pieces


def _string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a TOML basic string


def drop_stage(text: str, stage: str) -> str:
    pieces = tables(text)
    if not any(s == stage for s, _ in pieces):
        raise EditError(f"the manifest declares no stage {stage}")
    return "".join(body for s, body in pieces if s != stage)


def add_task(text: str, task: str, title: str, calls: list[str], parts: dict[str, float],
             swaps: list[str] | None = None) -> str:
    stage = task.split(".")[0]
    pieces = tables(text)
    if not any(s == stage for s, _ in pieces):
        raise EditError(f"task {task}: the manifest declares no stage {stage} (add it first: python -m grader stage add)")
    if f'[task."{task}"]' in text:
        raise EditError(f"task {task} is in the manifest already")
    lines = [f'[task."{task}"]', f"title = {_string(title)}", f"calls = [{', '.join(_string(c) for c in calls)}]",
             *([f"swaps = [{', '.join(_string(s) for s in swaps)}]"] if swaps else []),
             f'[task."{task}".parts]', *(f"{_string(name)} = {points:g}" for name, points in parts.items())]
    last = max(i for i, (s, _) in enumerate(pieces) if s == stage)
    before = "".join(body for _, body in pieces[:last + 1]).rstrip("\n") + "\n\n"
    after = "".join(body for _, body in pieces[last + 1:])
    return before + "\n".join(lines) + "\n" + ("\n" + after if after else "")


def add_stage(text: str, stage: str, notebook: str, title: str) -> str:
    if any(s == stage for s, _ in tables(text)):
        raise EditError(f"the manifest declares stage {stage} already")
    table = f"[stage.{stage}]\nnotebook = {_string(notebook)}\ntitle = {_string(title)}\n"
    return text.rstrip("\n") + "\n\n" + table
