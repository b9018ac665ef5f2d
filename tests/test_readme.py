"""The README's two set-up commands: the main job runs as written, CI runs the test command."""

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands():
    """The first two lines of the README's first code block: (main job, test command)."""
    text = (ROOT / "README.md").read_text()
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    main_job, tests = block.strip().splitlines()[:2]
    return main_job, tests


def test_ci_runs_exactly_the_readme_test_command():
    _, tests = readme_commands()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert tests in ci


def test_readme_main_job_runs_as_written(tmp_path):
    main_job, _ = readme_commands()
    install, job = [part.strip() for part in main_job.split("&&")]
    assert install.startswith("pip install -e")  # set-up, already done in this environment
    argv = shlex.split(job)
    script = shutil.which(argv[0])
    command = [script, *argv[1:]] if script else [sys.executable, "-m", "treesmith.cli",
                                                   *argv[1:]]
    completed = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True,
                               timeout=600, check=False)
    assert completed.returncode == 0, completed.stderr
    out = tmp_path / "treesmith-output"
    for name in ("summary.csv", "summary.md", "runs.csv", "accuracy_vs_cost.png"):
        assert (out / name).stat().st_size > 0
    for method in ("cart", "c45", "cart-pruned", "cc45", "ec45", "pe-spruned", "tsallis-tuned"):
        assert method in completed.stdout
