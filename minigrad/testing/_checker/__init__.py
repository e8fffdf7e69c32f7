"""The machinery behind ``minigrad.testing.gradient_check`` (its public front), one step per module.

``arguments``: step 1, the validator shared by check_backward and check_double_backward.
``problem``: the interface the steps work on (evaluate at arrays, a vjp at arrays) and its minigrad adapter.
``backprop``: steps 2 and 3, backprop under test (twice) and the reference gradients, with their guards.
``targets``: what is compared: inputs and parameters, their scale bands, the outputs' series.
``directions``: step 4, aligned and random directions.
``probing``: step 5, probes along a direction, tolerances and the trust test; ``finite_differences`` is
the one finite-difference engine; ``localisation`` finds the wrong elements and the kinks.
``pipeline``: the steps in order, steps 6 (verdicts) and 7 (report); ``precision`` the elementwise check
of low-precision gradients; ``guards`` the checks that need no numerical derivative.
``sensitivity``: what a passing check would have caught, and the derivation.
``first_order``: one order up, the gradient function check_double_backward checks.
``report``: the records a check returns and the text of a failure.
"""
