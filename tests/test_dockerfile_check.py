"""scripts/check_dockerfile.py (run by `make lint`): the Dockerfile, which CI cannot build, installs and
starts only through the scripts CI runs, hides no failure, runs as a user and is checked for health."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

CHECK = ROOT / "scripts" / "check_dockerfile.py"
DOCKERFILE = (ROOT / "Dockerfile").read_text()


def check(text: str, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    return subprocess.run([sys.executable, str(CHECK), str(path)], capture_output=True, text=True, timeout=30)


def test_the_projects_dockerfile_passes(tmp_path) -> None:
    result = check(DOCKERFILE, tmp_path)
    assert (result.returncode, result.stderr) == (0, "")


@pytest.mark.parametrize(("change", "said"), [
    (('RUN ["scripts/bootstrap.sh"]', "RUN scripts/bootstrap.sh || true"), "hides a failure ('|| true')"),
    (('RUN ["scripts/bootstrap.sh"]', "RUN scripts/bootstrap.sh && apt-get install -y curl"),
     "only scripts/bootstrap.sh (what CI runs)"),
    (('RUN ["scripts/bootstrap.sh"]', "RUN pip install -r requirements.txt"), "only scripts/bootstrap.sh"),
    (('CMD ["scripts/serve.sh"]', 'CMD [".venv/bin/reflex", "run"]'), "the web worker starts with scripts/serve.sh"),
    (("USER 10001:10001", "USER root"), "runs as root"),
    (("USER 10001:10001", ""), "runs as root"),
    (("/api/health", "/ping"), "no HEALTHCHECK on /api/health"),
    (("FROM python:3.11-slim-bookworm", "FROM python:3.11"), "not a slim Python image"),
], ids=["or-true", "more-than-the-script", "hand-written-install", "own-start", "root", "no-user",
        "no-health-check", "full-base"])
def test_a_dockerfile_that_leaves_ci_s_way_is_refused_with_the_reason(tmp_path, change, said) -> None:
    old, new = change
    assert old in DOCKERFILE
    result = check(DOCKERFILE.replace(old, new), tmp_path)
    assert result.returncode == 1 and said in result.stderr, result.stderr
