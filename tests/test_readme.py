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


def readme_python_blocks():
    """Every ```python block of the README, in order."""
    text = (ROOT / "README.md").read_text()
    return [part.split("```", 1)[0] for part in text.split("```python\n")[1:]]


def test_readme_has_python_blocks():
    assert len(readme_python_blocks()) >= 3


def test_every_readme_python_block_runs(tmp_path, monkeypatch):
    """The README's Python blocks run as written, in order, in one namespace (a reader pastes
    them into one session); a block that fails names itself."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__readme__"}
    for number, block in enumerate(readme_python_blocks(), start=1):
        code = compile(block, f"README.md python block {number}", "exec")
        exec(code, namespace)  # noqa: S102 - the README is ours
    # The lazy-prediction example pays only for the features its paths test.
    assert len(namespace["pred"]) == 3 and (namespace["paid"] >= 0).all()
