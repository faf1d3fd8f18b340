"""``python -m grader release``: rebuild minitorch/ and notebooks/ from solutions/."""

from __future__ import annotations


def main() -> int:
    from grader.release import build as release
    release.build()
    print(f"rebuilt {release.ROOT / 'minitorch'} and {release.ROOT / 'notebooks'} "
          f"from {len(release.source_notebooks())} notebook(s)")
    return 0
