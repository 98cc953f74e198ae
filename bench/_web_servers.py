"""The two web servers Reflex 0.10.1 can serve prod with (reflex/utils/exec.py, `should_use_granian`), as
environments for scripts/serve.sh or `reflex run --env prod`, so a bench can measure each with the same code:
  uvicorn (shipped since issue 44): REFLEX_USE_GRANIAN=false: Reflex runs `gunicorn --preload --worker-class
    uvicorn.workers.UvicornH11Worker`; GUNICORN_CMD_ARGS swaps in hitl_dashboard/web_worker.py's worker
    (wsproto, no permessage-deflate) and sets the worker count, as scripts/common.sh's web_server_env does. A
    tree without that module (an older commit) gets this checkout's copy. If gunicorn is not importable here
    (a .venv from before issue 44), pip installs it into a folder of its own, put on PYTHONPATH.
  granian: REFLEX_USE_GRANIAN=true (the web tier before issue 44)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SERVERS = ("granian", "uvicorn")
WORKER = "hitl_dashboard.web_worker.WebWorker"
ROOT = Path(__file__).resolve().parent.parent
GUNICORN_DIR = Path(tempfile.gettempdir()) / "hitl-bench-gunicorn"


def gunicorn_path() -> str | None:
    """A folder to put on PYTHONPATH for gunicorn (None: .venv has it)."""
    if importlib.util.find_spec("gunicorn") is not None:
        return None
    if not (GUNICORN_DIR / "gunicorn").is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--target", str(GUNICORN_DIR), "-c", str(ROOT / "constraints.txt"), "gunicorn"],
                       check=True)
    return str(GUNICORN_DIR)


def server_env(server: str, code_dir: Path, workers: int = 1) -> dict[str, str]:
    """Environment that makes Reflex prod serve `code_dir` with `server`, `workers` web workers."""
    if server == "granian":
        return {"REFLEX_USE_GRANIAN": "true", "GRANIAN_WORKERS": str(workers)}
    worker = code_dir / "hitl_dashboard" / "web_worker.py"
    if not worker.exists():  # an older commit's temporary copy: serve it with this checkout's worker
        shutil.copy(ROOT / "hitl_dashboard" / "web_worker.py", worker)
    extra = gunicorn_path()
    return {"REFLEX_USE_GRANIAN": "false", "PYTHONPATH": ":".join(filter(None, [str(code_dir), extra])),
            "WEB_WORKERS": str(workers), "GRANIAN_WORKERS": str(workers),
            "GUNICORN_CMD_ARGS": f"--workers {workers} --worker-class {WORKER} --timeout 120"}


def serving(server_pid: int) -> str:
    """Which server the process tree under `server_pid` runs (from the processes' command lines)."""
    from bench.live_transcript import _processes, descendants

    for pid in descendants(server_pid, _processes()):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "gunicorn" in command:
            return "uvicorn (gunicorn, " + ("WebWorker" if "WebWorker" in command else "uvicorn's own worker") + ")"
    return "granian"
