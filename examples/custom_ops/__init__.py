"""A small op library verified by minigrad's registry: two ops and their specs.

- ``ops.py``: ``softsign`` (one input, one output) and ``sincos`` (one input,
  two outputs), each a ``FunctionNode`` plus its wrapper function;
- ``specs.py``: one ``OpSpec`` per op, registered with ``minigrad.testing.register``;
- ``test_custom_ops.py``: the whole battery as pytest items, in one line.

Check it from the repository root::

    python -m minigrad check --specs examples/custom_ops/specs.py
    pytest examples/custom_ops -n auto
"""

from .ops import SinCos, Softsign, sincos, softsign

__all__ = ["Softsign", "softsign", "SinCos", "sincos"]
