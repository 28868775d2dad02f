"""Fail when a lock file is stale against setup.cfg: every requirement setup.cfg declares (runtime in
requirements/runtime.txt; runtime and test in requirements/test.txt) must be pinned there at a version its range
admits, and the test lock must pin every runtime package at the runtime lock's version. `make lock` rewrites both.

    python requirements/check_locks.py    (run by .ci/run before the suite)
"""

from __future__ import annotations

import configparser
import re
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s\\;]+)", re.MULTILINE)


def declared(option: str, section: str = "options") -> list[Requirement]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    lines = config.get(section, option).splitlines()
    return [Requirement(line.split("#", 1)[0].strip()) for line in lines if line.split("#", 1)[0].strip()]


def pins(lock: str) -> dict[str, str]:
    text = (ROOT / "requirements" / lock).read_text(encoding="utf-8")
    return {canonicalize_name(name): version for name, version in PIN.findall(text)}


def stale(requirements: list[Requirement], pinned: dict[str, str], lock: str) -> list[str]:
    problems = []
    for req in requirements:
        version = pinned.get(canonicalize_name(req.name))
        if version is None:
            problems.append(f"{lock}: {req.name} is required by setup.cfg but not pinned")
        elif not req.specifier.contains(version, prereleases=True):
            problems.append(f"{lock}: {req.name}=={version} is outside setup.cfg's range {req.specifier}")
    return problems


def main() -> int:
    runtime, test = declared("install_requires"), declared("test", "options.extras_require")
    runtime_pins, test_pins = pins("runtime.txt"), pins("test.txt")
    problems = stale(runtime, runtime_pins, "runtime.txt") + stale(runtime + test, test_pins, "test.txt")
    problems += [f"test.txt: {name}=={test_pins.get(name)} differs from runtime.txt's {version}"
                 for name, version in runtime_pins.items() if test_pins.get(name) != version]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print("The lock files are stale against setup.cfg: run `make lock` and commit requirements/*.txt.",
              file=sys.stderr)
        return 1
    print(f"locks current: {len(runtime_pins)} runtime and {len(test_pins)} test pins")
    return 0


if __name__ == "__main__":
    sys.exit(main())
