"""Every check of every spec in ``specs.py``, as pytest items: ``test_ops[softsign-float32-numpy-backward]``..."""

import pathlib

from minigrad.testing import op_tests

test_ops = op_tests(str(pathlib.Path(__file__).parent / "specs.py"))
