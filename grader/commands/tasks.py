"""``python -m grader tasks``: the task manifest as the docs' table (docs/CURRICULUM.md)."""

from __future__ import annotations


def main() -> int:
    from grader.tasks import markdown_table
    print(markdown_table())
    return 0
