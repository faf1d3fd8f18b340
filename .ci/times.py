"""Where the suite's time went, from pytest's JUnit XML: the time of each test folder, the
15 slowest tests, and the whole run against CI's budget.

    python .ci/times.py build/junit.xml --wall SECONDS --budget SECONDS

Exits 1 when the wall-clock time of the suite passes the budget (CI's own check, not a
test: a slow machine fails CI, never a test). A test's time is its set-up, call and
tear-down; a fixture shared by a folder's tests is counted where it is first set up. With
several pytest workers the folders' times add up to more than the wall-clock time.
"""

from __future__ import annotations

import argparse
import collections
import sys
import xml.etree.ElementTree as ET


def tests(path: str) -> list[tuple[str, float, str]]:
    """(test id, seconds, outcome) for every test case of the report."""
    found = []
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        name = case.get("name", "")
        if name.rfind("@") > name.rfind("]"):   # xdist's group, after the test's own id
            name = name[:name.rfind("@")]
        found.append((f"{module}.py::{name}", float(case.get("time") or 0), outcome))
    return found


def folder(test: str) -> str:
    parts = test.split("::")[0].split("/")
    return "/".join(parts[:2]) if len(parts) > 1 else parts[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit")
    parser.add_argument("--wall", type=float, required=True, help="the suite's wall-clock seconds")
    parser.add_argument("--budget", type=float, required=True, help="the most the suite may take, in seconds")
    args = parser.parse_args()
    cases = tests(args.junit)
    by_folder: dict[str, list[float]] = collections.defaultdict(list)
    for test, seconds, _ in cases:
        by_folder[folder(test)].append(seconds)
    print(f"\n{'folder':<22} {'tests':>6} {'seconds':>9}")
    for name, times in sorted(by_folder.items(), key=lambda kv: -sum(kv[1])):
        print(f"{name:<22} {len(times):>6} {sum(times):>9.1f}")
    print(f"{'all (summed)':<22} {len(cases):>6} {sum(t for _, t, _ in cases):>9.1f}")
    print("\nthe 15 slowest tests:")
    for test, seconds, outcome in sorted(cases, key=lambda c: -c[1])[:15]:
        print(f"{seconds:>8.1f} s  {test}{'' if outcome == 'passed' else f'  ({outcome})'}")
    verdict = "within" if args.wall <= args.budget else "OVER"
    print(f"\nthe suite took {args.wall:.0f} s of wall-clock time: {verdict} CI's budget of {args.budget:.0f} s")
    return 0 if args.wall <= args.budget else 1


if __name__ == "__main__":
    sys.exit(main())
