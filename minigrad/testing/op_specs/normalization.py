"""Specs for ``minigrad.functions.normalization``."""

from __future__ import annotations

import warnings

import numpy

import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import positive, uniform, with_dtype


def _batch_norm_reference(x, gamma, beta, mean, var, eps, axis):
    kept = tuple(1 if i in axis else n for i, n in enumerate(x.shape))
    return (gamma.reshape(kept) * (x - mean.reshape(kept)) / numpy.sqrt(var.reshape(kept) + eps)
            + beta.reshape(kept))


def _batch_norm(axis, eps=2e-5):
    def reference(x, gamma, beta):
        mean = x.mean(axis=axis)
        var = ((x - x.mean(axis=axis, keepdims=True)) ** 2).mean(axis=axis)
        return _batch_norm_reference(x, gamma, beta, mean, var, eps, axis)
    return reference


def _per_channel(x_shape, channel_shape):
    return lambda rng, dt: (uniform(rng, x_shape, dt), positive(rng, channel_shape, dt),
                            uniform(rng, channel_shape, dt))


# --- batch_normalization (batch statistics) ---
register(OpSpec("batch_normalization", F.batch_normalization, _per_channel((5, 3), (3,)), _batch_norm((0,))))
register(OpSpec("batch_normalization[4d]", F.batch_normalization, _per_channel((3, 2, 2, 3), (2,)),
                _batch_norm((0, 2, 3)), covers=("batch_normalization",)))
register(OpSpec("batch_normalization[gamma2d]", F.batch_normalization, _per_channel((3, 2, 2, 2), (2, 2)),
                _batch_norm((0, 3)), covers=("batch_normalization",)))
register(OpSpec("batch_normalization[axis=(0,1),eps=0.1]",
                lambda x, g, b: F.batch_normalization(x, g, b, eps=0.1, axis=(0, 1)),
                _per_channel((3, 2, 2), (2,)), _batch_norm((0, 1), eps=0.1), covers=("batch_normalization",)))

# --- batch_renormalization: running statistics far from the batch's, so r and d sit at their bounds
# (constants near every input: the gradient, which treats them as constants as Chainer does, is then exact)
def _batch_renormalization(x, gamma, beta):
    shape = (x.shape[1],)
    return F.batch_renormalization(x, gamma, beta, 1.5, 0.5, running_mean=x.xp.full(shape, 10.0, dtype=x.dtype),
                                   running_var=x.xp.full(shape, 0.01, dtype=x.dtype))


def _batch_renormalization_reference(x, gamma, beta):
    normalized = _batch_norm((0,))(x, numpy.ones_like(gamma), numpy.zeros_like(beta))
    return gamma * (normalized * 1.5 - 0.5) + beta  # r = rmax, d = -dmax


register(OpSpec("batch_renormalization[r, d at their bounds]", _batch_renormalization, _per_channel((5, 3), (3,)),
                _batch_renormalization_reference, covers=("batch_renormalization",)))
register(OpSpec("batch_renormalization[rmax=1,dmax=0: batch_normalization]",
                lambda x, g, b: F.batch_renormalization(x, g, b, 1.0, 0.0), _per_channel((3, 2, 2, 3), (2,)),
                _batch_norm((0, 2, 3)), covers=("batch_renormalization",)))

# --- fixed_batch_normalization (given statistics) ---
register(OpSpec("fixed_batch_normalization", F.fixed_batch_normalization,
                lambda rng, dt: (uniform(rng, (3, 2, 2, 2), dt), positive(rng, (2,), dt), uniform(rng, (2,), dt),
                                 uniform(rng, (2,), dt), positive(rng, (2,), dt)),
                lambda x, g, b, m, v: _batch_norm_reference(x, g, b, m, v, 2e-5, (0, 2, 3))))

# --- mixed input dtypes, as in Chainer: x in the sweep's dtype, gamma, beta (and the statistics) in
# another; computed in the promoted dtype, the output in x's, each gradient in its own input's dtype
for _other in ("float32", "float16"):
    register(OpSpec(f"batch_normalization[gamma,beta {_other}]", F.batch_normalization,
                    with_dtype(_per_channel((3, 2, 2, 3), (2,)), _other, (1, 2)), _batch_norm((0, 2, 3)),
                    covers=("batch_normalization",)))
register(OpSpec("fixed_batch_normalization[gamma,beta,mean,var float32]", F.fixed_batch_normalization,
                with_dtype(lambda rng, dt: (uniform(rng, (3, 2, 2), dt), positive(rng, (2,), dt),
                                            uniform(rng, (2,), dt), uniform(rng, (2,), dt), positive(rng, (2,), dt)),
                           "float32", (1, 2, 3, 4)),
                lambda x, g, b, m, v: _batch_norm_reference(x, g, b, m, v, 2e-5, (0, 2)),
                covers=("fixed_batch_normalization",)))
register(OpSpec("batch_renormalization[gamma,beta float32]", _batch_renormalization,
                with_dtype(_per_channel((5, 3), (3,)), "float32", (1, 2)), _batch_renormalization_reference,
                covers=("batch_renormalization",)))

# --- layer_normalization, normalize (composed of minigrad ops) ---
register(OpSpec("layer_normalization", F.layer_normalization, _per_channel((3, 4), (4,)),
                lambda x, g, b: g * (x - x.mean(axis=1, keepdims=True))
                / numpy.sqrt(x.var(axis=1, keepdims=True) + 1e-5) + b))


def _normalize_reference(eps=1e-5, axis=1):
    def reference(x):
        return x / (numpy.sqrt((x ** 2).sum(axis=axis, keepdims=True)) + eps)
    return reference


register(OpSpec("normalize", F.normalize, lambda rng, dt: (uniform(rng, (3, 4), dt),), _normalize_reference(),
                kinks="the zero vector"))
register(OpSpec("normalize[axis=(1,2),eps=0.1]", lambda x: F.normalize(x, eps=0.1, axis=(1, 2)),
                lambda rng, dt: (uniform(rng, (2, 2, 3), dt),), _normalize_reference(0.1, (1, 2)),
                covers=("normalize",)))


# --- local_response_normalization: the reference sums each channel's window with a loop ---
def _lrn_reference(n, k, alpha, beta):
    def reference(x):
        y = numpy.empty_like(x)
        channels = x.shape[1]
        for c in range(channels):
            lo, hi = max(0, c - n // 2), min(channels, c + n // 2 + 1)
            window = sum(x[:, j] ** 2 for j in range(lo, hi))
            y[:, c] = x[:, c] / (k + alpha * window) ** beta
        return y
    return reference


register(OpSpec("local_response_normalization", F.local_response_normalization,
                lambda rng, dt: (uniform(rng, (2, 7, 2, 2), dt, -3, 3),), _lrn_reference(5, 2.0, 1e-4, 0.75)))
register(OpSpec("local_response_normalization[n=3,alpha=0.5]",
                lambda x: F.local_response_normalization(x, n=3, k=1.0, alpha=0.5, beta=0.6),
                lambda rng, dt: (uniform(rng, (3, 4), dt, -2, 2),), _lrn_reference(3, 1.0, 0.5, 0.6),
                covers=("local_response_normalization",)))


# --- group_normalization: the reference normalises each (sample, group) block by hand ---
def _group_norm_reference(groups, eps=1e-5):
    def reference(x, gamma, beta):
        blocks = x.reshape(x.shape[0], groups, -1)
        blocks = (blocks - blocks.mean(axis=2, keepdims=True)) / numpy.sqrt(blocks.var(axis=2, keepdims=True) + eps)
        per_channel = (1, x.shape[1]) + (1,) * (x.ndim - 2)
        return blocks.reshape(x.shape) * gamma.reshape(per_channel) + beta.reshape(per_channel)
    return reference


register(OpSpec("group_normalization", lambda x, g, b: F.group_normalization(x, 2, g, b),
                _per_channel((2, 4, 2, 2), (4,)), _group_norm_reference(2)))
register(OpSpec("group_normalization[groups=C,3d,eps=0.1]", lambda x, g, b: F.group_normalization(x, 3, g, b, 0.1),
                _per_channel((2, 3, 4), (3,)), _group_norm_reference(3, 0.1), covers=("group_normalization",)))
register(OpSpec("group_normalization[gamma,beta float32]", lambda x, g, b: F.group_normalization(x, 2, g, b),
                with_dtype(_per_channel((2, 4, 3), (4,)), "float32", (1, 2)), _group_norm_reference(2),
                covers=("group_normalization",)))  # (mixed dtypes, as batch_normalization's above)


def _fixed_batch_renormalization(*args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return F.fixed_batch_renormalization(*args)


register(OpSpec("fixed_batch_renormalization", _fixed_batch_renormalization,
                lambda rng, dt: (uniform(rng, (3, 2, 2), dt), positive(rng, (2,), dt), uniform(rng, (2,), dt),
                                 uniform(rng, (2,), dt), positive(rng, (2,), dt)),
                lambda x, g, b, m, v: _batch_norm_reference(x, g, b, m, v, 2e-5, (0, 2))))


# --- decorrelated batch normalization: per-group loops, Sigma^-1/2 from an SVD (not the op's eigh) ---
def _channels_as_groups(x, groups):
    order = (1, 0) + tuple(range(2, x.ndim))
    return x.transpose(order).reshape(groups, x.shape[1] // groups, -1), order


def _decorrelated_reference(groups, eps):
    def reference(x):
        samples, order = _channels_as_groups(x, groups)
        out = numpy.empty_like(samples)
        for g, rows in enumerate(samples):
            centred = rows - rows.mean(axis=1, keepdims=True)
            u, s, _ = numpy.linalg.svd(centred @ centred.T / rows.shape[1] + eps * numpy.eye(len(rows)))
            out[g] = u @ numpy.diag(s ** -0.5) @ u.T @ centred
        return out.reshape((x.shape[1], x.shape[0]) + x.shape[2:]).transpose(order)
    return reference


def _separated_channels(shape, groups):
    """Channels whose centred covariance, group by group, has the eigenvalues 0.4, 1.0, 1.6, ...: gaps well
    clear of 0 (the gradient divides by them) and of the eps added."""
    def inputs(rng, dt):
        x = rng.uniform(-1, 1, shape)
        samples, order = _channels_as_groups(x, groups)
        for rows in samples:
            mean = rows.mean(axis=1, keepdims=True)
            u, _, vh = numpy.linalg.svd(rows - mean, full_matrices=False)
            eigenvalues = 0.4 + 0.6 * numpy.arange(len(rows))
            rows[...] = u @ numpy.diag(numpy.sqrt(eigenvalues * rows.shape[1])) @ vh + mean
        x = samples.reshape((shape[1], shape[0]) + shape[2:]).transpose(order)
        return (numpy.ascontiguousarray(x).astype(dt),)
    return inputs


register(OpSpec("decorrelated_batch_normalization",
                lambda x: F.decorrelated_batch_normalization(x, groups=2, eps=1e-3),
                _separated_channels((5, 4), 2), _decorrelated_reference(2, 1e-3),
                kinks="equal eigenvalues of a group's covariance (inputs have them 0.6 apart)"))
register(OpSpec("decorrelated_batch_normalization[3d,groups=1]",
                lambda x: F.decorrelated_batch_normalization(x, groups=1, eps=0.5),
                _separated_channels((3, 3, 2), 1), _decorrelated_reference(1, 0.5),
                covers=("decorrelated_batch_normalization",)))
register(OpSpec("decorrelated_batch_normalization[fewer samples than channels]",
                lambda x: F.decorrelated_batch_normalization(x, groups=1, eps=0.5),
                # 5 samples of 8 channels (Chainer's test): the covariance has the eigenvalue eps 4 times over
                lambda rng, dt: (rng.uniform(-1, 1, (5, 8)).astype(dt),), _decorrelated_reference(1, 0.5),
                covers=("decorrelated_batch_normalization",)))


def _fixed_decorrelated_reference(groups):
    def reference(x, mean, projection):
        samples, order = _channels_as_groups(x, groups)
        out = numpy.stack([p @ (rows - m[:, None]) for rows, m, p in zip(samples, mean, projection)])
        return out.reshape((x.shape[1], x.shape[0]) + x.shape[2:]).transpose(order)
    return reference


register(OpSpec("fixed_decorrelated_batch_normalization",
                lambda x, m, p: F.fixed_decorrelated_batch_normalization(x, m, p, groups=2),
                lambda rng, dt: (uniform(rng, (3, 4, 2), dt), uniform(rng, (2, 2), dt), uniform(rng, (2, 2, 2), dt)),
                _fixed_decorrelated_reference(2)))
