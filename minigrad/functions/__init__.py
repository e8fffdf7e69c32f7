"""The op library: ``import minigrad.functions as F``.

Each family is a subpackage whose modules hold FunctionNodes and their
lower-case wrapper functions; every public name is re-exported here.
Within a family, a module keeps its path as in Chainer:
``minigrad.functions.math.sparse_matmul`` is the module (which holds
``CooMatMul``) and ``F.sparse_matmul`` the function.
"""

import sys as _sys

from minigrad.functions.activation import *  # noqa: F401,F403
from minigrad.functions.array import *  # noqa: F401,F403
from minigrad.functions.connection import *  # noqa: F401,F403
from minigrad.functions.evaluation import *  # noqa: F401,F403
from minigrad.functions.loss import *  # noqa: F401,F403
from minigrad.functions.math import *  # noqa: F401,F403
from minigrad.functions.math.basic_math import install_variable_operators as _install
from minigrad.functions.noise import *  # noqa: F401,F403
from minigrad.functions.normalization import *  # noqa: F401,F403
from minigrad.functions.pooling import *  # noqa: F401,F403
from minigrad.functions.rnn import *  # noqa: F401,F403

_install()


def _keep_module_paths() -> None:
    """Bind each family's submodules back over the functions of the same name that its star imports put there.

    Chainer's ``chainer.functions.math`` holds its modules only, and its code and tests reach into them
    (``F.math.sparse_matmul.CooMatMul``, ``from chainer.functions.activation import relu``); minigrad's
    families also re-export their functions (``minigrad.functions.math.exp``), except where one would hide the
    module it lives in. ``minigrad.functions`` itself got the functions above, before this runs.
    """
    for qualified, module in list(_sys.modules.items()):
        parts = qualified.split(".")
        if len(parts) == 4 and parts[:2] == ["minigrad", "functions"] and not parts[3].startswith("_"):
            setattr(_sys.modules[".".join(parts[:3])], parts[3], module)


_keep_module_paths()
