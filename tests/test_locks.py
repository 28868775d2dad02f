"""Issue 32: installs repeat. The lock files pin every package setup.cfg asks for, at versions its ranges admit,
and the checker that .ci/run runs says when they no longer do."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("check_locks", ROOT / "requirements" / "check_locks.py")
check_locks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_locks)


def test_the_committed_locks_satisfy_setup_cfg():
    assert check_locks.main() == 0


def test_a_stale_lock_is_named_with_what_to_do():
    pinned = {"flask": "3.1.3", "weasyprint": "66.0"}
    problems = check_locks.stale([Requirement("flask>=3.1,<4"), Requirement("weasyprint>=67"),
                                  Requirement("argon2-cffi>=23.1")], pinned, "runtime.txt")
    assert problems == ["runtime.txt: weasyprint==66.0 is outside setup.cfg's range >=67",
                        "runtime.txt: argon2-cffi is required by setup.cfg but not pinned"]


def test_every_lock_line_carries_hashes_and_no_machine_specific_index():
    for lock in ("runtime.txt", "test.txt"):
        text = (ROOT / "requirements" / lock).read_text(encoding="utf-8")
        assert "--hash=sha256:" in text
        options = [line for line in text.splitlines() if line.startswith("-")]   # pip options, not comments
        assert options == [] and "file://" not in text, (lock, options)
        assert len(check_locks.pins(lock)) == text.count("==")
