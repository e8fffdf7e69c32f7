"""The README's Python examples run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index):
    namespace: dict = {}
    for block in BLOCKS[: index + 1]:  # later examples may use names from earlier ones
        exec(compile(block, f"README.md example {index}", "exec"), namespace)


def test_readme_has_the_two_setup_commands():
    text = README.read_text(encoding="utf-8")
    assert "pip install -e . && python -m minigrad check" in text
    assert 'pip install -e ".[test]" && pytest' in text
