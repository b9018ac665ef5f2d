"""docs/how-to-add-an-impurity.md works: its Python blocks run, in order, in one namespace."""

import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "how-to-add-an-impurity.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def test_the_page_has_a_worked_example():
    text = "\n".join(_blocks())
    assert "@impurity" in text and "@register(" in text and ".fit(" in text


def test_the_page_runs(capsys):
    from treesmith.criteria import _base

    registry, listed = dict(_base._REGISTRY), list(_base._LISTED)
    namespace = {"__name__": "how_to_add_an_impurity"}
    try:
        for index, block in enumerate(_blocks()):
            code = compile(block, f"{PAGE.name}[block {index}]", "exec")
            exec(code, namespace)  # noqa: S102 - our own documentation
        printed = capsys.readouterr().out
        assert "order must be a real number in [1.01, 100.0], got 0.5." in printed
        assert namespace["search"].best_params_["criterion__order"] in (1.5, 2.0, 4.0)
    finally:  # leave the registry as the other tests expect it
        _base._REGISTRY.clear()
        _base._REGISTRY.update(registry)
        _base._LISTED[:] = listed


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
