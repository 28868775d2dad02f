"""`make run` checks for Pango before anything else (issue 32): WeasyPrint, which prints the PDFs, needs Pango 1.44
or newer from the system, and without it `import weasyprint` raises OSError. The check says, in one sentence, what
is missing and what to install, and stops `make run` with a non-zero exit before the migration."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent   # the venv running the tests, as `make run`'s $(BIN)
SENTENCE = ("make run: WeasyPrint, which prints the PDFs, cannot load Pango 1.44 or newer from the system: install it"
            " (Debian/Ubuntu: sudo apt install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0; macOS: brew"
            " install pango) and run make run again.")

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="runs make -n run")


def pango_check() -> str:
    """The check as `make run` runs it: the commands `make -n run` prints before the migration."""
    env = {name: value for name, value in os.environ.items() if name not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    printed = subprocess.run(["make", "--no-print-directory", "-n", "run", f"BIN={BIN}"], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=30, check=True).stdout
    check = printed.index(f'{BIN}/python -c "import weasyprint"')
    migration = printed.index(f"{BIN}/flask --app wsgi db upgrade")
    assert check < migration, printed
    return printed[check:migration]


def run_check(pythonpath: Path | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run(["sh", "-c", pango_check()], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_make_run_imports_weasyprint_before_the_migration():
    assert pango_check().startswith(f'{BIN}/python -c "import weasyprint"')


def test_without_pango_make_run_says_what_to_install_and_stops(tmp_path):
    # What WeasyPrint does when the system has no Pango: its import raises OSError.
    (tmp_path / "weasyprint.py").write_text('raise OSError("cannot load library \'libpango-1.0-0\'")\n')
    result = run_check(tmp_path)
    assert result.returncode != 0
    assert result.stdout == ""
    assert result.stderr.strip() == SENTENCE


def test_with_weasyprint_loadable_the_check_passes_silently():
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError) as exc:
        pytest.skip(f"WeasyPrint does not load here: {exc}")
    result = run_check(None)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
