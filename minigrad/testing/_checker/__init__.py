"""The machinery behind ``minigrad.testing.gradient_check`` (its public front).

``finite_differences``: the one finite-difference engine (stencils, error
estimate, kink test) that ``numerical_grad`` and ``check_backward`` share.
``problem``: the function under test, its inputs and the guards around it.
``probing``: random directions, probes along them, tolerances and the trust test.
``localisation``: which input and which elements disagree, or sit on a kink.
``report``: the records a check returns and the failure message.
"""
