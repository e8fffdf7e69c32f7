"""Parameter containers: ``Link``, ``Chain``, ``ChainList`` and ``Sequential``.

A ``Link`` owns ``Parameter``s (and "persistent" values such as running
statistics that are saved but not trained). A ``Chain`` also owns child links
by attribute name, a ``ChainList`` by position, and ``Sequential`` calls its
layers one after another. Parameters and children are registered by assigning
them inside ``with self.init_scope():``; everything else (``namedparams``,
optimizers, ``save_npz``) walks that registry in registration order.

The ready-made layers (``Linear``, ``Convolution2D``, ...) live in
``minigrad/links/`` (``import minigrad.links as L``); these containers are
re-exported there too.

Example:
    >>> import numpy as np, minigrad as mg, minigrad.functions as F
    >>> class Affine(mg.Link):
    ...     def __init__(self, n):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.W = mg.Parameter(np.ones((n, n), dtype=np.float32))
    ...             self.b = mg.Parameter(np.zeros(n, dtype=np.float32))
    ...     def forward(self, x):
    ...         return F.matmul(x, self.W) + self.b
    >>> class Net(mg.Chain):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.l1 = Affine(2)
    ...             self.l2 = Affine(2)
    ...     def forward(self, x):
    ...         return self.l2(self.l1(x))
    >>> net = Net()
    >>> [name for name, _ in net.namedparams()]
    ['/l1/W', '/l1/b', '/l2/W', '/l2/b']
    >>> net(np.ones((1, 2), dtype=np.float32)).array
    array([[4., 4.]], dtype=float32)
"""

from __future__ import annotations

import contextlib
import copy as copy_module
import warnings
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import numpy

from minigrad import backend
from minigrad.optimizers.optimizer import Hyperparameter, UpdateRule
from minigrad.variable import Parameter

__all__ = ["Link", "Chain", "ChainList", "Sequential"]

_COPY_MODES = ("share", "copy", "init")


def _copy_param(param: Parameter, mode: str) -> Parameter:
    """A new Parameter for ``Link.copy``: same, copied or re-initialized array."""
    new = Parameter(param.initializer, name=param.name)
    data = param.array
    if data is not None:
        if mode == "share":
            new.array = data
        elif mode == "copy" or param.initializer is None:
            new.array = data.copy()
        else:  # "init": a fresh draw from the initializer, same shape, dtype and device
            new.initialize(data.shape, data.dtype, backend.get_array_module(data))
    return new


def _shape_and_dtype(name: str, value: Any) -> tuple[Any, Any]:
    if not (isinstance(value, tuple) and len(value) == 2):
        raise TypeError(f"Link: parameter {name}= must be a shape or a (shape, dtype) pair, got {value!r}")
    return value


class Link:
    """A building block that owns parameters; subclass it and write ``forward``.

    Register parameters inside ``with self.init_scope():`` (or with
    ``add_param``); calling the link calls ``forward``.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.W = mg.Parameter(np.zeros((2, 3), dtype=np.float32))
        >>> link.count_params()
        6
    """

    def __init__(self, **params: Any) -> None:
        """``params``: Chainer's older way to declare parameters, ``name=shape`` or ``name=(shape, dtype)``
        (float32 by default), each NaN-filled until set (``mg.Link(W=(2, 3))``, as ``add_param("W", (2, 3))``)."""
        self.__dict__.update(_params=[], _persistent=[], _within_init_scope=False, _device="cpu", name=None)
        for name, value in params.items():
            is_shape = isinstance(value, (int, numpy.integer)) or (
                isinstance(value, tuple) and all(isinstance(n, (int, numpy.integer)) for n in value))
            shape, dtype = (value, numpy.float32) if is_shape else _shape_and_dtype(name, value)
            self.add_param(name, shape, dtype=dtype)

    # --- registration -------------------------------------------------------
    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """Inside this ``with`` block, assigned Parameters (and, in a Chain, Links) are registered."""
        self._check_initialized()
        previous = self.__dict__["_within_init_scope"]
        self.__dict__["_within_init_scope"] = True
        try:
            yield
        finally:
            self.__dict__["_within_init_scope"] = previous

    @property
    def within_init_scope(self) -> bool:
        """Whether assignments are being registered right now."""
        return bool(self.__dict__.get("_within_init_scope", False))

    def initialize_from_input(self, param: Parameter, x: Any, min_ndim: int,
                              initialize: Callable[[Any, ModuleType], None], where: str | None = None) -> None:
        """Size a lazily sized link from its first input (Chainer's ``in_size=None``); later calls do nothing.

        While ``param`` has no array, ``x`` must be an array or Variable with at least ``min_ndim`` axes (else a
        TypeError/ValueError naming ``where``, the link's class by default); then ``initialize(x, xp)`` gives the
        parameters their shapes from ``x`` on its array module ``xp``.

        Example:
            >>> import numpy as np, minigrad as mg, minigrad.functions as F
            >>> class Scale(mg.Link):
            ...     def __init__(self):
            ...         super().__init__()
            ...         with self.init_scope():
            ...             self.w = mg.Parameter(mg.initializers.One())  # its size comes from the first input
            ...     def forward(self, x):
            ...         self.initialize_from_input(self.w, x, 2, lambda x, xp: self.w.initialize(x.shape[1:], xp=xp))
            ...         return x * F.broadcast_to(self.w, x.shape)
            >>> link = Scale()
            >>> link(np.ones((4, 3), np.float32)).shape, link.w.shape
            ((4, 3), (3,))
            >>> Scale()(np.ones(3, np.float32))
            Traceback (most recent call last):
            ...
            ValueError: Scale: the input needs at least 2 axes, got shape (3,)
        """
        if param.array is None:
            from minigrad.links._utils import require_input  # (the links import this module)

            require_input(type(self).__name__ if where is None else where, x, min_ndim)
            initialize(x, backend.get_array_module(x))

    def _check_initialized(self) -> None:
        if "_params" not in self.__dict__:
            raise RuntimeError(
                f"{type(self).__name__}: call super().__init__() at the top of __init__, before assigning "
                f"parameters or child links"
            )

    def _registered_names(self) -> list[str]:
        return self._params + self._persistent

    def _check_new_name(self, name: str, what: str) -> None:
        if name in self._registered_names():
            raise AttributeError(
                f"{type(self).__name__}: cannot register {what} {name!r}: that name is already registered in this "
                f"link; choose another name (or `del link.{name}` first to replace it)"
            )
        if name in self.__dict__ or hasattr(type(self), name):
            raise AttributeError(
                f"{type(self).__name__}: cannot register {what} {name!r}: an attribute of that name already exists"
            )

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, Parameter):
            self._check_initialized()
            if self.within_init_scope:
                self._check_new_name(name, "parameter")
                value.name = name
                self._params.append(name)
            elif name in self._params:  # replacing a registered parameter keeps its place
                value.name = name
            else:
                raise AttributeError(
                    f"{type(self).__name__}: parameter {name!r} was assigned outside `with self.init_scope():`, so no "
                    f"optimizer or serializer would see it; assign it inside the init_scope block "
                    f"(or call self.add_param({name!r}, shape))"
                )
        elif isinstance(value, Link):
            self._register_link(name, value)
            return
        object.__setattr__(self, name, value)

    def _register_link(self, name: str, value: Link) -> None:
        raise AttributeError(
            f"{type(self).__name__}: cannot hold the link {name!r}: only a Chain (or ChainList) can own child links; "
            f"make {type(self).__name__} a Chain and assign the link inside `with self.init_scope():`"
        )

    def __delattr__(self, name: str) -> None:
        for registry in (self._params, self._persistent):
            if name in registry:
                registry.remove(name)
        object.__delattr__(self, name)

    def add_param(self, name: str, shape: Any = None, dtype: Any = numpy.float32, initializer: Any = None) -> None:
        """Register a new parameter ``name`` (uninitialized when ``shape`` is None).

        Example:
            >>> import minigrad as mg
            >>> link = mg.Link()
            >>> link.add_param("b", (3,), initializer=0.0)
            >>> link.b.array
            array([0., 0., 0.], dtype=float32)
        """
        self._check_initialized()
        self._check_new_name(name, "parameter")
        param = Parameter(initializer)
        if shape is not None:
            param.initialize(shape, dtype, self.xp)
        with self.init_scope():
            setattr(self, name, param)

    def add_persistent(self, name: str, value: Any) -> None:
        """Register a value (array or scalar) that is saved and moved with the link but not trained."""
        self._check_initialized()
        self._check_new_name(name, "persistent value")
        self._persistent.append(name)
        object.__setattr__(self, name, value)

    def register_persistent(self, name: str) -> None:
        """Mark an existing attribute as persistent."""
        self._check_initialized()
        if not hasattr(self, name):
            raise AttributeError(f"{type(self).__name__}: register_persistent: there is no attribute {name!r}")
        if name in self._registered_names():
            raise AttributeError(f"{type(self).__name__}: {name!r} is already registered")
        self._persistent.append(name)

    # --- walking the tree ---------------------------------------------------
    def _named_children(self) -> Iterator[tuple[str, Link]]:
        return iter(())

    def children(self) -> Iterator[Link]:
        """The direct child links, in registration order."""
        for _, child in self._named_children():
            yield child

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """``(path, link)`` for this link (``'/'``) and every descendant, depth first."""
        if not skipself:
            yield "/", self
        for name, child in self._named_children():
            prefix = "/" + name
            yield prefix, child
            for path, link in child.namedlinks(skipself=True):
                yield prefix + path, link

    def links(self, skipself: bool = False) -> Iterator[Link]:
        """This link and every descendant."""
        for _, link in self.namedlinks(skipself):
            yield link

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(path, parameter)`` pairs such as ``('/l1/W', W)``, in registration order."""
        for name in self._params:
            param = self.__dict__[name]
            if include_uninit or param.array is not None:
                yield "/" + name, param
        for name, child in self._named_children():
            for path, param in child.namedparams(include_uninit):
                yield "/" + name + path, param

    def params(self, include_uninit: bool = True) -> Iterator[Parameter]:
        """Every parameter of this link and its descendants."""
        for _, param in self.namedparams(include_uninit):
            yield param

    def cleargrads(self) -> None:
        """Set every parameter's gradient to ``None`` (call before each backward)."""
        for param in self.params():
            param.cleargrad()

    def count_params(self) -> int:
        """The number of scalars in the initialized parameters."""
        return sum(param.size for param in self.params(include_uninit=False))

    def zerograds(self) -> None:
        """Deprecated (as in Chainer; it warns): fill every parameter's gradient with zeros; prefer ``cleargrads``."""
        warnings.warn("Link.zerograds is deprecated. Use Link.cleargrads instead.", DeprecationWarning, stacklevel=2)
        with warnings.catch_warnings():  # one warning, not one per parameter
            warnings.simplefilter("ignore", DeprecationWarning)
            for param in self.params():
                param.zerograd()

    def _same_params(self, link: Link, what: str) -> Iterator[tuple[str, Parameter, Parameter]]:
        """``(path, own, source)`` for each parameter, ``link`` having the same structure as this link."""
        if not isinstance(link, Link):
            raise TypeError(f"{type(self).__name__}.{what}: link must be a Link, got {type(link).__name__}")
        source = dict(link.namedparams())
        for path, param in self.namedparams():
            if path not in source:
                raise ValueError(f"{type(self).__name__}.{what}: the source link has no parameter {path!r}")
            yield path, param, source[path]

    def addgrads(self, link: Link) -> None:
        """Add the gradients of a link with the same structure to this one's (across devices).

        A parameter of ``link`` without a gradient adds nothing; one of this
        link without a gradient takes a copy of the other's.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> a, b = mg.links.Linear(2, 1), mg.links.Linear(2, 1)
            >>> a.cleargrads(); b.cleargrads()  # (a new link's gradients are NaN, as in Chainer)
            >>> b.W.grad = np.ones((1, 2), dtype=np.float32)
            >>> a.addgrads(b); a.addgrads(b); a.W.grad, a.b.grad
            (array([[2., 2.]], dtype=float32), None)
        """
        for _, param, source in self._same_params(link, "addgrads"):
            param.addgrad(source)

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copy the parameter values (and persistents) of a link with the same structure into this one."""
        for _, param, source in self._same_params(link, "copyparams"):
            data = source.array
            if data is not None:
                if param.array is None:
                    param.array = self._on_my_device(data)
                else:
                    param.array[...] = self._on_my_device(data)
        if copy_persistent:
            sources = dict(link.namedlinks())
            for path, target in self.namedlinks():
                for name in target._persistent:
                    value = getattr(sources[path], name)
                    value = target._on_my_device(value) if backend.is_array(value) else copy_module.copy(value)
                    object.__setattr__(target, name, value)

    def _on_my_device(self, array: Any) -> Any:
        """A copy of ``array`` on this link's device (``to_cpu``/``to_gpu``: CuPy refuses implicit moves)."""
        moved = backend.to_cpu(array) if self.xp is numpy else backend.to_gpu(array)
        return moved.copy() if moved is array else moved

    # --- devices --------------------------------------------------------------
    @property
    def xp(self) -> ModuleType:
        """``numpy`` or ``cupy``: where this link's arrays live."""
        return numpy if self.__dict__.get("_device", "cpu") == "cpu" else backend.cupy_or_none()

    def _move(self, device: str, convert: Callable[[Any], Any]) -> Link:
        for link in self.links():
            link.__dict__["_device"] = device
            for name in link._params:
                param = link.__dict__[name]
                param.to_cpu() if device == "cpu" else param.to_gpu()
            for name in link._persistent:
                value = link.__dict__[name]
                if backend.is_array(value):
                    object.__setattr__(link, name, convert(value))
            link._move_state(device)
        return self

    def _move_state(self, device: str) -> None:
        """Move state that is neither a parameter nor persistent (an LSTM's ``c`` and ``h``); none here."""

    def to_cpu(self) -> Link:
        """Deprecated, as in Chainer 7: ``to_device("@numpy")``, with a ``DeprecationWarning``; returns self."""
        warnings.warn("to_cpu is deprecated. Please use to_device('@numpy') instead.", DeprecationWarning,
                      stacklevel=2)
        return self._move("cpu", backend.to_cpu)

    def to_gpu(self, device: Any = None) -> Link:
        """Deprecated, as in Chainer 7: ``to_device("@cupy:N")``, with a ``DeprecationWarning``; returns self."""
        warnings.warn("to_gpu is deprecated. Please use to_device('@cupy:N') instead.", DeprecationWarning,
                      stacklevel=2)
        return self._to_gpu(device)

    def _to_gpu(self, device_id: int | None) -> Link:
        cupy = backend.cupy_or_none()
        if cupy is None:
            raise RuntimeError(
                f"{type(self).__name__}: moving to the GPU needs CuPy and a GPU; install them with "
                f"`pip install minigrad[cuda]`, or keep the model on the CPU (the default)"
            )
        scope = cupy.cuda.Device(device_id) if device_id is not None else contextlib.nullcontext()
        with scope:
            return self._move("gpu", backend.to_gpu)

    def to_device(self, device: Any) -> Link:
        """Move every parameter and persistent array to ``device``; returns self.

        ``device`` is any of Chainer's specifiers that minigrad has: ``'@numpy'``,
        ``'@cupy:N'``, an int (negative for the host), or a device object.
        Raises ``RuntimeError`` saying how to install CuPy when a GPU is asked for and CuPy or a GPU is missing.

        Example:
            >>> import minigrad as mg
            >>> mg.links.Linear(2, 3).to_device("@numpy").xp.__name__
            'numpy'
        """
        from minigrad.device import CpuDevice, get_device

        device = get_device(device)
        return self._move("cpu", backend.to_cpu) if isinstance(device, CpuDevice) else self._to_gpu(device.device.id)

    # --- freezing -----------------------------------------------------------
    def disable_update(self) -> None:
        """Freeze every parameter of this link and its descendants: optimizers leave them as they are.

        As in Chainer, this sets ``update_rule.enabled = False``; unlike
        Chainer, it also holds for parameters that have no update rule yet
        (the link is not set up with an optimizer, or the parameter is still
        uninitialized): the rule the optimizer gives them starts disabled.

        Example:
            >>> import numpy as np, minigrad as mg, minigrad.functions as F
            >>> model = mg.Sequential(mg.links.Linear(2, 2), mg.links.Linear(2, 1))
            >>> model[0].disable_update()
            >>> opt = mg.optimizers.SGD(lr=0.1).setup(model)
            >>> before = model[0].W.array.copy()
            >>> opt.update(lambda x: F.sum(model(x)), np.ones((1, 2), dtype=np.float32))
            >>> bool((model[0].W.array == before).all()), model[0].update_enabled, model.update_enabled
            (True, False, True)
        """
        for param in self.params():
            if param.update_rule is None:
                param.update_rule = UpdateRule(Hyperparameter())  # a placeholder the optimizer replaces, frozen
            param.update_rule.enabled = False

    def enable_update(self) -> None:
        """Undo ``disable_update``: every parameter of this link and its descendants is updated again."""
        for param in self.params():
            if type(param.update_rule) is UpdateRule:  # disable_update's placeholder: no rule is the same
                param.update_rule = None
            elif param.update_rule is not None:
                param.update_rule.enabled = True

    @property
    def update_enabled(self) -> bool:
        """Whether an optimizer would update at least one parameter of this link (a parameter without an
        update rule yet counts as enabled; Chainer counts only existing rules)."""
        return any(param.update_rule is None or param.update_rule.enabled for param in self.params())

    def repeat(self, n_repeat: int, mode: str = "init") -> Sequential:
        """A ``Sequential`` of ``n_repeat`` copies of this link, made by ``copy(mode)``.

        With the default ``"init"``, each copy draws fresh parameters from the
        initializers; ``"copy"`` copies the arrays, ``"share"`` shares them.
        ``n_repeat=0`` gives an empty ``Sequential``.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> blocks = mg.links.Linear(3, 3).repeat(2)
            >>> len(blocks), blocks(np.ones((1, 3), dtype=np.float32)).shape
            (2, (1, 3))
        """
        if isinstance(n_repeat, bool) or not isinstance(n_repeat, (int, numpy.integer)) or n_repeat < 0:
            raise ValueError(f"{type(self).__name__}.repeat: n_repeat must be an int >= 0, got {n_repeat!r}")
        if mode not in _COPY_MODES:
            raise ValueError(f"{type(self).__name__}.repeat: mode must be one of {_COPY_MODES}, got {mode!r}")
        return Sequential(*[self.copy(mode) for _ in range(n_repeat)])

    # --- copies -------------------------------------------------------------
    def copy(self, mode: str = "share") -> Link:
        """A copy of the link tree with new Parameter objects.

        Args:
            mode: ``"share"`` (the copies share arrays with this link),
                ``"copy"`` (independent copies of the arrays) or ``"init"``
                (arrays freshly drawn from each parameter's initializer).

        Example:
            >>> import numpy as np, minigrad as mg
            >>> link = mg.Link()
            >>> with link.init_scope():
            ...     link.W = mg.Parameter(np.ones(2, dtype=np.float32))
            >>> twin = link.copy(mode="copy")
            >>> twin.W.array[0] = 5
            >>> link.W.array
            array([1., 1.], dtype=float32)
        """
        if mode not in _COPY_MODES:
            raise ValueError(f"{type(self).__name__}.copy: mode must be one of {_COPY_MODES}, got {mode!r}")
        return self._copy(mode)

    def _copy(self, mode: str) -> Link:
        new = copy_module.copy(self)
        state = new.__dict__
        state["_params"] = list(self._params)
        state["_persistent"] = list(self._persistent)
        state["_within_init_scope"] = False
        state["name"] = None
        for name in self._params:
            state[name] = _copy_param(self.__dict__[name], mode)
        if mode != "share":
            for name in self._persistent:
                state[name] = copy_module.deepcopy(self.__dict__[name])
        return new

    # --- saving ---------------------------------------------------------------
    def serialize(self, serializer: Any) -> None:
        """Write (or read) every parameter and persistent value through ``serializer``."""
        for name in self._params:
            param = self.__dict__[name]
            data = serializer(name, param.array)
            if param.array is None and data is not None:  # a lazily initialized parameter learns its shape
                param.array = self.xp.asarray(data)
        for name in self._persistent:
            value = self.__dict__[name]
            if backend.is_array(value):
                serializer(name, value)
                continue
            loaded = serializer(name, value)
            if value is None and backend.is_array(loaded):  # e.g. running statistics of a lazily sized layer
                loaded = self.xp.asarray(loaded)
            object.__setattr__(self, name, loaded)
        for name, child in self._named_children():
            child.serialize(serializer[name])

    # --- calling ----------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not define forward(); write forward(self, x) in it")

    def __repr__(self) -> str:
        children = [f"({name}): {child!r}".replace("\n", "\n  ") for name, child in self._named_children()]
        params = [f"{name}{tuple(self.__dict__[name].shape) if self.__dict__[name].array is not None else '(uninit)'}"
                  for name in self._params]
        head = f"{type(self).__name__}({', '.join(params)})"
        return head if not children else head + "\n  " + "\n  ".join(children)


class Chain(Link):
    """A link whose child links are registered by attribute name.

    ``namedparams`` paths are ``/child/param``. Assign children inside
    ``with self.init_scope():`` (or call ``add_link``).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> chain = mg.Chain()
        >>> with chain.init_scope():
        ...     chain.inner = mg.Link()
        >>> [path for path, _ in chain.namedlinks()]
        ['/', '/inner']
    """

    def __init__(self, **links: Link) -> None:
        super().__init__()
        self.__dict__["_children"] = []
        with self.init_scope():
            for name, link in links.items():
                setattr(self, name, link)

    def _registered_names(self) -> list[str]:
        return super()._registered_names() + self.__dict__.get("_children", [])

    def _register_link(self, name: str, value: Link) -> None:
        self._check_initialized()
        if self.within_init_scope:
            self._check_new_name(name, "child link")
            self._children.append(name)
            object.__setattr__(self, name, value)
        elif name in self._children:  # replacing a registered child keeps its place
            object.__setattr__(self, name, value)
        else:
            raise AttributeError(
                f"{type(self).__name__}: child link {name!r} was assigned outside `with self.init_scope():`, so its "
                f"parameters would not be trained or saved; assign it inside the init_scope block "
                f"(or call self.add_link({name!r}, link))"
            )
        value.name = name

    def __delattr__(self, name: str) -> None:
        if name in self.__dict__.get("_children", ()):
            self._children.remove(name)
        super().__delattr__(name)

    def __getitem__(self, name: str) -> Link:
        """The child link ``name``."""
        if name not in self._children:
            raise KeyError(f"{type(self).__name__} has no child link {name!r}; children: {self._children}")
        return self.__dict__[name]

    def add_link(self, name: str, link: Link) -> None:
        """Register ``link`` as the child ``name``."""
        if not isinstance(link, Link):
            raise TypeError(f"{type(self).__name__}.add_link: expected a Link, got {type(link).__name__}")
        with self.init_scope():
            setattr(self, name, link)

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        for name in self._children:
            yield name, self.__dict__[name]

    def _copy(self, mode: str) -> Link:
        new = super()._copy(mode)
        new.__dict__["_children"] = list(self._children)
        for name in self._children:
            child = self.__dict__[name]._copy(mode)
            child.name = name
            new.__dict__[name] = child
        return new


class ChainList(Link):
    """A link whose child links are kept in a list; ``namedparams`` paths are ``/0/W``, ``/1/W``, ...

    Example:
        >>> import minigrad as mg
        >>> chain = mg.ChainList(mg.Link(), mg.Link())
        >>> len(chain), [path for path, _ in chain.namedlinks(skipself=True)]
        (2, ['/0', '/1'])
    """

    def __init__(self, *links: Link) -> None:
        super().__init__()
        self.__dict__["_children"] = []
        for link in links:
            self.add_link(link)

    def _register_link(self, name: str, value: Link) -> None:
        raise AttributeError(
            f"{type(self).__name__}: a ChainList holds its links by position; use append(link) instead of "
            f"assigning the link {name!r}"
        )

    def add_link(self, link: Link) -> None:
        """Append ``link`` as the next child."""
        self._check_initialized()
        if not isinstance(link, Link):
            raise TypeError(f"{type(self).__name__}.add_link: expected a Link, got {type(link).__name__}")
        link.name = str(len(self._children))
        self._children.append(link)

    def append(self, link: Link) -> None:
        """Append ``link`` as the next child."""
        self.add_link(link)

    def __getitem__(self, index: int) -> Any:
        return self._children[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._children)

    def __len__(self) -> int:
        return len(self._children)

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        for index, child in enumerate(self._children):
            yield str(index), child

    def _copy(self, mode: str) -> Link:
        new = super()._copy(mode)
        new.__dict__["_children"] = [child._copy(mode) for child in self._children]
        for index, child in enumerate(new._children):
            child.name = str(index)
        return new


class Sequential(ChainList):
    """Call layers one after another: links, or any callable such as ``F.relu``.

    A layer's output is passed to the next (a tuple is unpacked into
    arguments). Parameter paths use the layer's position: in
    ``Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2))`` the last weight is
    ``/2/W``.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> double = lambda x: x * 2
        >>> model = mg.Sequential(double, double)
        >>> model(mg.Variable(np.ones(2))).array
        array([4., 4.])
    """

    def __init__(self, *layers: Any) -> None:
        super().__init__()
        self.__dict__["_layers"] = []
        for layer in layers:
            self.append(layer)

    def append(self, layer: Any) -> None:
        """Add ``layer`` (a Link or a callable) at the end."""
        self.insert(len(self._layers), layer)

    def insert(self, index: int, layer: Any) -> None:
        """Insert ``layer`` (a Link or a callable) before position ``index``."""
        if not callable(layer):
            raise TypeError(f"Sequential: a layer must be a Link or a callable, got {type(layer).__name__}")
        self._layers.insert(index, layer)
        self._renumber()

    def add_link(self, link: Link) -> None:
        if not isinstance(link, Link):
            raise TypeError(f"Sequential.add_link: expected a Link, got {type(link).__name__}")
        self.append(link)

    def _renumber(self) -> None:
        self.__dict__["_children"] = [layer for layer in self._layers if isinstance(layer, Link)]
        for index, layer in enumerate(self._layers):
            if isinstance(layer, Link):
                layer.name = str(index)

    def __getitem__(self, index: int) -> Any:
        return self._layers[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._layers)

    def __len__(self) -> int:
        return len(self._layers)

    def _named_children(self) -> Iterator[tuple[str, Link]]:
        for index, layer in enumerate(self._layers):
            if isinstance(layer, Link):
                yield str(index), layer

    def _copy(self, mode: str) -> Link:
        new = Link._copy(self, mode)
        new.__dict__["_layers"] = [layer._copy(mode) if isinstance(layer, Link) else layer for layer in self._layers]
        new._renumber()
        return new

    def forward(self, *x: Any) -> Any:
        if not self._layers:
            raise RuntimeError("Sequential: there are no layers to call; append some first")
        for layer in self._layers:
            x = layer(*x) if isinstance(x, tuple) else layer(x)
        return x
