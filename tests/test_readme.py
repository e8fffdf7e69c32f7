"""The README: its Python examples give the outputs they show, and CI runs its set-up commands verbatim."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)
SETUP = README[README.index("## Set up"):README.index("## A short example")]
SETUP_COMMANDS = re.findall(r"```\n(pip install[^\n]*)\n```", SETUP)


def run_readme_examples(upto: int) -> doctest.TestResults:
    """Run the README's Python blocks 0..upto as doctests sharing one namespace (later ones use earlier names)."""
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    namespace: dict = {}
    for index, block in enumerate(BLOCKS[: upto + 1]):
        test = parser.get_doctest(block, namespace, f"README.md example {index}", "README.md", 0)
        runner.run(test, clear_globs=False)
        namespace = test.globs  # a DocTest works on a copy of the namespace it is given
    return runner.summarize(verbose=False)


def test_every_readme_example_shows_its_output():
    assert BLOCKS, "the README has no ```python examples"
    for index, block in enumerate(BLOCKS):
        examples = doctest.DocTestParser().get_examples(block)
        assert examples, f"README example {index} is not written as a doctest (>>> lines)"
        assert any(example.want for example in examples), f"README example {index} shows no output to compare"


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_gives_the_output_it_shows(index):
    results = run_readme_examples(index)
    assert results.failed == 0, f"{results.failed} of {results.attempted} README doctest lines failed (see above)"


def test_a_wrong_output_in_the_readme_would_fail():
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    wrong = BLOCKS[0].replace("array([ 6., 12., 18.])", "array([ 6., 12., 19.])")
    assert wrong != BLOCKS[0]
    runner.run(parser.get_doctest(wrong, {}, "wrong", "README.md", 0), out=lambda text: None)
    assert runner.summarize(verbose=False).failed == 1


def test_readme_has_the_two_setup_commands():
    assert SETUP_COMMANDS == ['pip install -e . && python -m minigrad check', 'pip install -e ".[test]" && pytest']


def test_ci_runs_the_readme_setup_commands_verbatim():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assignments = dict(re.findall(r"^(MAIN_JOB|TEST_JOB)='([^'\n]*)'$", ci, flags=re.M))
    assert assignments == {"MAIN_JOB": SETUP_COMMANDS[0], "TEST_JOB": SETUP_COMMANDS[1]}, (
        "the commands .ci/run runs differ from the README's set-up commands")
    for name in ("MAIN_JOB", "TEST_JOB"):
        assert re.search(rf'bash -c "\${name}"', ci), f".ci/run defines {name} but does not run it"
    # The main job comes first, in a venv of its own that nothing else is installed into.
    assert ci.index('bash -c "$MAIN_JOB"') < ci.index('bash -c "$TEST_JOB"')
