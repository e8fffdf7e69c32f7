"""Chainer's ``testing.BackendConfig``: which backend a test runs on, in Chainer's vocabulary.

minigrad has two backends, NumPy and CuPy; a configuration with
``use_cuda=True`` is CuPy (on ``cuda_device``), any other is NumPy. ChainerX
and iDeep do not exist in minigrad: their configurations are refused.
``FunctionTestCase`` sets ``self.backend_config`` for each case, and the
``device`` its ``forward`` gets is a :class:`BackendName`: the backend's name
(``"numpy"`` or ``"cupy"``), which also sends arrays as Chainer's device does.

Example:
    >>> import numpy as np
    >>> from minigrad.testing import BackendConfig
    >>> config = BackendConfig({})
    >>> config.xp is np, config.device, config.use_cudnn
    (True, <CpuDevice (numpy)>, 'never')
    >>> with config:
    ...     x = config.get_array(np.ones(2))
"""

from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any

from minigrad.configuration import using_config
from minigrad.device import Device, get_device, using_device

__all__ = ["BackendConfig", "BackendName"]

_DEFAULTS = (("use_chainerx", False), ("chainerx_device", None), ("use_cuda", False), ("cuda_device", None),
             ("use_cudnn", "never"), ("cudnn_deterministic", False), ("autotune", False),
             ("cudnn_fast_batch_normalization", False), ("use_ideep", "never"))


class BackendConfig:
    """One backend configuration: Chainer's attributes, minigrad's device.

    Args:
        params: a dict of Chainer's backend parameters (``use_cuda``, ``cuda_device``, ``use_cudnn``, ...); an
            unknown name is a ``ValueError``, and so is a ChainerX or iDeep configuration.
    """

    def __init__(self, params: dict[str, Any]) -> None:
        if not isinstance(params, dict):
            raise TypeError(f"BackendConfig: params must be a dict, got {type(params).__name__}")
        for name, value in _DEFAULTS:
            setattr(self, name, value)
        for name, value in params.items():
            if name not in dict(_DEFAULTS):
                raise ValueError(f"BackendConfig: unknown parameter {name!r}; Chainer's are "
                                 f"{', '.join(n for n, _ in _DEFAULTS)}")
            setattr(self, name, value)
        if not supported(params):
            raise ValueError(f"BackendConfig: minigrad has no ChainerX or iDeep backend ({params})")
        if self.use_cuda and self.cuda_device is None:
            self.cuda_device = 0
        self._contexts: list[contextlib.ExitStack] = []

    @property
    def backend(self) -> str:
        """``"cupy"`` or ``"numpy"``."""
        return "cupy" if self.use_cuda else "numpy"

    @property
    def device(self) -> Device:
        """The minigrad device (``@numpy`` or ``@cupy:N``)."""
        return get_device(f"@cupy:{self.cuda_device}" if self.use_cuda else "@numpy")

    @property
    def xp(self) -> ModuleType:
        """The array module."""
        return self.device.xp

    def get_array(self, arrays: Any) -> Any:
        """``arrays`` (NumPy, or a tuple or list of them) on this configuration's device."""
        return self.device.send(arrays)

    def __enter__(self) -> BackendConfig:
        stack = contextlib.ExitStack()
        for name in ("use_cudnn", "cudnn_deterministic", "autotune", "use_ideep"):
            stack.enter_context(using_config(name, getattr(self, name)))
        stack.enter_context(using_device(self.device))
        self._contexts.append(stack)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._contexts.pop().close()

    def __repr__(self) -> str:
        return "<BackendConfig " + " ".join(f"{name}={getattr(self, name)!r}" for name, _ in _DEFAULTS) + ">"


def supported(params: dict[str, Any]) -> bool:
    """Whether minigrad has the backend of a Chainer configuration (not ChainerX, not iDeep).

    Example:
        >>> from minigrad.testing.backend_config import supported
        >>> supported({}), supported({"use_cuda": True}), supported({"use_ideep": "always"})
        (True, True, False)
    """
    return not params.get("use_chainerx") and params.get("use_ideep", "never") == "never"


class BackendName(str):
    """The backend's name that ``FunctionTestCase.forward`` gets (``"numpy"`` or ``"cupy"``); it also sends
    arrays there, as the device Chainer passes does (``device.send(x)``, ``device.xp``).

    Example:
        >>> import numpy as np
        >>> from minigrad.testing.backend_config import BackendName
        >>> device = BackendName("numpy")
        >>> device == "numpy", device.xp is np, device.send(np.ones(1))
        (True, True, array([1.]))
    """

    @property
    def device(self) -> Device:
        """The minigrad device of this backend."""
        return get_device("@cupy:0" if self == "cupy" else "@numpy")

    @property
    def xp(self) -> ModuleType:
        return self.device.xp

    def send(self, arrays: Any) -> Any:
        """``arrays`` (one array, or a tuple or list of them) on this backend."""
        return self.device.send(arrays)

    def send_array(self, array: Any) -> Any:
        """One array on this backend (Chainer's ``device.send_array``).

        Example:
            >>> import numpy as np
            >>> from minigrad.testing.backend_config import BackendName
            >>> BackendName("numpy").send_array(np.zeros(2))
            array([0., 0.])
        """
        return self.device.send_array(array)
