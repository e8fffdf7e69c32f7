"""Run one docs page's ``>>>`` examples the way a reader pastes them: in order, in a fresh interpreter.

    python tests/docs_paste.py docs/tutorial/01-variable.rst [--gpu-available]

The examples share one namespace that starts empty (no set-up of any kind: what a page uses it must import or
define itself), outputs are compared as doctest does (ELLIPSIS, NORMALIZE_WHITESPACE), and every warning is an
error. An example inside a ``.. doctest::`` block with ``:skipif: not gpu_available`` is skipped when
``--gpu-available`` is not given (the only condition the pages use). Prints doctest's report of each failure, then
one line ``paste-result attempted=N failed=N skipped=N``. tests/test_docs_pasteable.py runs it per page; nothing
here imports minigrad, so the page's first import is the first one.
"""

from __future__ import annotations

import builtins
import doctest
import re
import sys
import warnings

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.DONT_ACCEPT_TRUE_FOR_1
DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. doctest::")
OPTION = re.compile(r"^\s+:(?P<name>[\w-]+):\s*(?P<value>.*)$")


def skip_conditions(text: str) -> list[tuple[int, int, str]]:
    """``(first line, end line, condition)`` of each ``.. doctest::`` block with a ``:skipif:`` option."""
    lines = text.splitlines()
    blocks = []
    for number, line in enumerate(lines):
        match = DIRECTIVE.match(line)
        if not match:
            continue
        indent, condition, end = len(match["indent"]), None, number + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            option = OPTION.match(lines[end])
            if option and option["name"] == "skipif":
                condition = option["value"].strip()
            end += 1
        if condition is not None:
            blocks.append((number, end, condition))
    return blocks


def page_examples(text: str, gpu_available: bool) -> tuple[list[doctest.Example], int]:
    """The page's examples in order, less those a ``:skipif:`` condition skips; and how many were skipped."""
    examples = doctest.DocTestParser().get_examples(text)
    kept, skipped = [], 0
    blocks = skip_conditions(text)
    for example in examples:
        conditions = [c for first, end, c in blocks if first <= example.lineno < end]
        if conditions and conditions[0] not in ("not gpu_available", "gpu_available"):
            raise ValueError(f"unknown :skipif: condition {conditions[0]!r}: only 'not gpu_available' is known")
        if conditions and eval(conditions[0], {"gpu_available": gpu_available}):
            skipped += 1
        else:
            kept.append(example)
    return kept, skipped


def run_page(path: str, gpu_available: bool) -> doctest.TestResults:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    examples, skipped = page_examples(text, gpu_available)
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    test = doctest.DocTest(examples, namespace, path, path, 0, text)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a page must not teach a call that warns
        results = runner.run(test, clear_globs=False)
    print(f"paste-result attempted={results.attempted} failed={results.failed} skipped={skipped}")
    return results


if __name__ == "__main__":
    sys.exit(1 if run_page(sys.argv[1], "--gpu-available" in sys.argv[2:]).failed else 0)
