"""Command line: ``python -m grader release``; more commands come with the autograder."""

from __future__ import annotations

import argparse
import sys

from . import release


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The minitorch course's tools.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("release", help="rebuild minitorch/ and notebooks/ from solutions/")
    args = parser.parse_args(argv)
    if args.command == "release":
        release.build()
        print(f"rebuilt {release.ROOT / 'minitorch'} and {release.ROOT / 'notebooks'} "
              f"from {len(release.source_notebooks())} notebook(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
