"""Specs for ``minigrad.functions.loss``.

References loop over samples with plain Python arithmetic, from the
definitions (Chainer's normalization conventions included).
"""

from __future__ import annotations

import itertools
import math

import numpy

import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import away_from, integers, uniform


def _pair(shape):
    return lambda rng, dt: (uniform(rng, shape, dt), uniform(rng, shape, dt))


def _apart(shape, points=(0.0,), margin=0.1, low=-1.0, high=1.0):
    """``(x, t)`` whose difference ``x - t`` stays ``margin`` clear of ``points`` (after rounding to ``dt``)."""
    def draw(rng, dt):
        t = uniform(rng, shape, dt)
        x = (t.astype(numpy.float64) + away_from(rng, shape, numpy.float64, points, margin, low, high)).astype(dt)
        return x, t
    return draw


# --- regression ---
register(OpSpec("mean_squared_error", F.mean_squared_error, _pair((3, 4)),
                lambda a, b: numpy.array(math.fsum(((a - b) ** 2).ravel()) / a.size)))
register(OpSpec("squared_error", F.squared_error, _pair((3, 4)), lambda a, b: (a - b) * (a - b)))
register(OpSpec("mean_absolute_error", F.mean_absolute_error, _apart((3, 4)),
                lambda a, b: numpy.array(math.fsum(abs(a - b).ravel()) / a.size), kinks="x0 = x1"))


def _huber(d: float, delta: float) -> float:
    return 0.5 * d * d if abs(d) < delta else delta * (abs(d) - 0.5 * delta)


def _huber_reference(delta, reduce):
    def reference(x, t):
        each = numpy.vectorize(lambda d: _huber(d, delta), otypes=[numpy.float64])(x - t)
        return each.sum(axis=1) if reduce == "sum_along_second_axis" else each
    return reference


register(OpSpec("huber_loss", lambda x, t: F.huber_loss(x, t, delta=0.5),
                _apart((3, 4, 2), (-0.5, 0.5), low=-1.5, high=1.5), _huber_reference(0.5, "sum_along_second_axis"),
                kinks="|x - t| = delta"))
register(OpSpec("huber_loss[reduce=no]", lambda x, t: F.huber_loss(x, t, delta=1.0, reduce="no"),
                _apart((3, 4), (-1.0, 1.0), low=-2.0, high=2.0), _huber_reference(1.0, "no"),
                kinks="|x - t| = delta", covers=("huber_loss",)))


# --- cross entropies ---
def _softmax_ce_reference(class_weight=None, ignore_label=-1, reduce="mean", normalize=True):
    def reference(x, t):
        moved = numpy.moveaxis(x, 1, -1)  # (N, d..., C)
        losses = numpy.zeros(t.shape)
        for index in numpy.ndindex(t.shape):
            label = int(t[index])
            if label == ignore_label:
                continue
            row = moved[index]
            log_p = row[label] - math.log(math.fsum(math.exp(v) for v in row))
            losses[index] = -log_p * (1.0 if class_weight is None else class_weight[label])
        if reduce == "no":
            return losses
        count = int((t != ignore_label).sum()) if normalize else len(x)
        return numpy.array(losses.sum() / max(count, 1))
    return reference


def _scores_and_labels(shape, n_ignored=1):
    def draw(rng, dt):
        x = uniform(rng, shape, dt, -2, 2)
        t = integers(rng, shape[:1] + shape[2:], 0, shape[1])
        t.reshape(-1)[:n_ignored] = -1
        return x, t
    return draw


_WEIGHT = numpy.array([0.5, 1.0, 2.0, 1.5, 0.25])
register(OpSpec("softmax_cross_entropy", F.softmax_cross_entropy, _scores_and_labels((4, 5)),
                _softmax_ce_reference()))
register(OpSpec("softmax_cross_entropy[reduce=no]", lambda x, t: F.softmax_cross_entropy(x, t, reduce="no"),
                _scores_and_labels((4, 5)), _softmax_ce_reference(reduce="no"), covers=("softmax_cross_entropy",)))
register(OpSpec("softmax_cross_entropy[class_weight]",
                lambda x, t: F.softmax_cross_entropy(x, t, class_weight=_WEIGHT.astype(x.dtype), ignore_label=3),
                _scores_and_labels((4, 5), 0), _softmax_ce_reference(_WEIGHT, ignore_label=3),
                covers=("softmax_cross_entropy",)))
register(OpSpec("softmax_cross_entropy[nd,no normalize,no cache]",
                lambda x, t: F.softmax_cross_entropy(x, t, normalize=False, cache_score=False),
                _scores_and_labels((2, 3, 2, 2), 2), _softmax_ce_reference(normalize=False),
                covers=("softmax_cross_entropy",)))
register(OpSpec("softmax_cross_entropy[nd,reduce=no]", lambda x, t: F.softmax_cross_entropy(x, t, reduce="no"),
                _scores_and_labels((2, 3, 2), 1), _softmax_ce_reference(reduce="no"),
                covers=("softmax_cross_entropy",)))


# soft targets: a fixed distribution over the classes (axis 1) in the dtype and array module of x; it is
# bound in the spec's func, since t gets no gradient (as in Chainer) and the checker differentiates every input
def _soft_targets(shape):
    p = numpy.random.default_rng(7).uniform(0.0, 1.0, shape)
    p[(0,) * len(shape)] = 0.0  # one zero probability: 0 log 0 = 0 in the KL divergence
    return p / p.sum(axis=1, keepdims=True)


def _soft_ce(shape, kind, reduce):
    def func(x):
        t = x.xp.asarray(_soft_targets(shape).astype(x.dtype))
        return F.softmax_cross_entropy(x, t, reduce=reduce, soft_target_loss=kind)

    def reference(x):
        t = _soft_targets(shape)
        moved_x, moved_t = numpy.moveaxis(x, 1, -1), numpy.moveaxis(t, 1, -1)
        losses = numpy.zeros(moved_x.shape[:-1])
        for index in numpy.ndindex(losses.shape):
            row, target = moved_x[index], moved_t[index]
            log_z = math.log(math.fsum(math.exp(v) for v in row))
            losses[index] = math.fsum(-q * (v - log_z) + (q * math.log(q) if kind == "kl-divergence" and q > 0
                                                          else 0.0) for v, q in zip(row, target))
        return losses if reduce == "no" else numpy.array(losses.mean())

    register(OpSpec(f"softmax_cross_entropy[soft {kind},{'x'.join(map(str, shape))},reduce={reduce}]", func,
                    lambda rng, dt: (uniform(rng, shape, dt, -2, 2),), reference, covers=("softmax_cross_entropy",)))


_soft_ce((4, 5), "cross-entropy", "mean")
_soft_ce((4, 5), "kl-divergence", "mean")
_soft_ce((2, 3, 2), "kl-divergence", "no")


def _sigmoid_ce_reference(reduce="mean", normalize=True):
    def reference(x, t):
        each = numpy.zeros(x.shape)
        for index in numpy.ndindex(x.shape):
            if t[index] != -1:
                p = 1 / (1 + math.exp(-x[index]))
                each[index] = -math.log(p) if t[index] == 1 else -math.log(1 - p)
        if reduce == "no":
            return each
        count = int((t != -1).sum()) if normalize else len(x)
        return numpy.array(each.sum() / max(count, 1))
    return reference


def _logits_and_binary_labels(shape):
    def draw(rng, dt):
        t = integers(rng, shape, 0, 2)
        t.reshape(-1)[0] = -1
        return uniform(rng, shape, dt, -3, 3), t
    return draw


register(OpSpec("sigmoid_cross_entropy", F.sigmoid_cross_entropy, _logits_and_binary_labels((3, 4)),
                _sigmoid_ce_reference()))
register(OpSpec("sigmoid_cross_entropy[reduce=no]", lambda x, t: F.sigmoid_cross_entropy(x, t, reduce="no"),
                _logits_and_binary_labels((3, 4)), _sigmoid_ce_reference("no"), covers=("sigmoid_cross_entropy",)))
register(OpSpec("sigmoid_cross_entropy[no normalize]",
                lambda x, t: F.sigmoid_cross_entropy(x, t, normalize=False),
                _logits_and_binary_labels((3, 2, 2)), _sigmoid_ce_reference(normalize=False),
                covers=("sigmoid_cross_entropy",)))


# --- elementwise errors and the VAE losses: references term by term ---
register(OpSpec("squared_difference", F.squared_difference, _pair((3, 4)), lambda a, b: (a - b) ** 2))
register(OpSpec("absolute_error", F.absolute_error, _apart((3, 4)), lambda a, b: numpy.abs(a - b), kinks="x0 = x1"))


def _vae_reference(term, reduce):
    def reference(*arrays):
        terms = numpy.vectorize(term, otypes=[numpy.float64])(*arrays)
        if reduce == "no":
            return terms
        return numpy.array(math.fsum(terms.ravel()) / (terms.size if reduce == "mean" else 1))
    return reference


def _kl_term(m, v):
    return 0.5 * (m * m + math.exp(v) - v - 1.0)


def _nll_term(x, m, v):
    return 0.5 * (math.log(2 * math.pi) + v) + 0.5 * (x - m) ** 2 / math.exp(v)


def _bernoulli_term(x, y):
    return math.log1p(math.exp(y)) - x * y


for _reduce in ("sum", "mean", "no"):
    register(OpSpec(f"gaussian_kl_divergence[reduce={_reduce}]",
                    lambda m, v, r=_reduce: F.gaussian_kl_divergence(m, v, reduce=r), _pair((3, 4)),
                    _vae_reference(_kl_term, _reduce), covers=("gaussian_kl_divergence",)))
    register(OpSpec(f"gaussian_nll[reduce={_reduce}]", lambda x, m, v, r=_reduce: F.gaussian_nll(x, m, v, reduce=r),
                    lambda rng, dt: tuple(uniform(rng, (2, 3), dt) for _ in range(3)),
                    _vae_reference(_nll_term, _reduce), covers=("gaussian_nll",)))
    register(OpSpec(f"bernoulli_nll[reduce={_reduce}]", lambda x, y, r=_reduce: F.bernoulli_nll(x, y, reduce=r),
                    lambda rng, dt: (integers(rng, (3, 4), 0, 2).astype(dt), uniform(rng, (3, 4), dt, -3, 3)),
                    _vae_reference(_bernoulli_term, _reduce), covers=("bernoulli_nll",)))


# --- sampled softmax losses (word2vec): fixed samples, references loop over rows and samples ---
_NS_SAMPLES = numpy.array([[0, 3, 1, 3], [4, 2, 2, 0], [1, 0, 4, 4]], dtype=numpy.int32)  # column 0 becomes t


def _fixed_sampler(shape):
    assert shape == _NS_SAMPLES.shape, shape
    return _NS_SAMPLES.copy()


def _log_sigmoid(z: float) -> float:
    return -math.log1p(math.exp(-z)) if z >= 0 else z - math.log1p(math.exp(z))


def _negative_sampling_reference(reduce):
    def reference(x, t, W):
        losses = numpy.zeros(len(x))
        for n in range(len(x)):
            if t[n] == -1:
                continue
            terms = [_log_sigmoid(math.fsum(x[n] * W[t[n]]))]
            terms += [_log_sigmoid(-math.fsum(x[n] * W[s])) for s in _NS_SAMPLES[n, 1:]]
            losses[n] = -math.fsum(terms)
        return numpy.array(math.fsum(losses)) if reduce == "sum" else losses
    return reference


def _word2vec_inputs(t, n_vocab=5, n_units=4):
    def draw(rng, dt):
        return (uniform(rng, (len(t), n_units), dt), numpy.array(t, dtype=numpy.int32),
                uniform(rng, (n_vocab, n_units), dt))
    return draw


for _reduce, _labels in (("sum", (2, 0, 3)), ("no", (2, -1, 3))):
    register(OpSpec(f"negative_sampling[reduce={_reduce}]",
                    lambda x, t, W, r=_reduce: F.negative_sampling(x, t, W, _fixed_sampler, 3, reduce=r),
                    _word2vec_inputs(_labels), _negative_sampling_reference(_reduce), covers=("negative_sampling",),
                    kinks="none (smooth); a fixed sampler makes it deterministic, t = -1 ignores a row with reduce=no"))

_BO_SAMPLES = numpy.array([[1, 3, 3], [0, 2, 4], [4, 1, 0]], dtype=numpy.int32)


def _black_out_reference(reduce):
    def reference(x, t, W):
        losses = numpy.zeros(len(x))
        for n in range(len(x)):
            scores = [math.fsum(x[n] * W[t[n]])] + [math.fsum(x[n] * W[s]) for s in _BO_SAMPLES[n]]
            z = math.fsum(math.exp(v) for v in scores)
            p = [math.exp(v) / z for v in scores]
            losses[n] = -math.log(p[0]) - math.fsum(math.log(1 - q) for q in p[1:])
        return numpy.array(losses.mean()) if reduce == "mean" else losses
    return reference


for _reduce in ("mean", "no"):
    register(OpSpec(f"black_out[reduce={_reduce}]",
                    lambda x, t, W, r=_reduce: F.black_out(x, t, W, _BO_SAMPLES, reduce=r),
                    _word2vec_inputs((2, 0, 3)), _black_out_reference(_reduce), covers=("black_out",),
                    kinks="none (smooth); samples are fixed integers, x and W in [-1, 1] keep each p(s) clear of 1"))
# --- margin losses: hinge, contrastive, triplet (each reduce mode a variant) ---
def _hinge_reference(norm, reduce):
    def reference(x, t):
        each = numpy.zeros(x.shape)
        for n, k in numpy.ndindex(x.shape):
            delta = 1.0 if k == t[n] else -1.0
            each[n, k] = max(0.0, 1.0 - delta * x[n, k]) ** (1 if norm == "L1" else 2)
        return each if reduce == "no" else numpy.array(math.fsum(each.ravel()) / len(x))
    return reference


def _scores_clear_of_hinge(shape):
    # the kinks are at x = +1 (true class) and x = -1 (the others); keep every score 0.1 clear of both
    return lambda rng, dt: (away_from(rng, shape, dt, (-1.0, 1.0), 0.1, -2.0, 2.0),
                            integers(rng, shape[:1], 0, shape[1]))


for _norm in ("L1", "L2"):
    for _reduce in ("mean", "no"):
        register(OpSpec(f"hinge[norm={_norm},reduce={_reduce}]",
                        lambda x, t, nm=_norm, r=_reduce: F.hinge(x, t, norm=nm, reduce=r),
                        _scores_clear_of_hinge((4, 3)), _hinge_reference(_norm, _reduce),
                        kinks="x = 1 at the true class, x = -1 elsewhere (drawn 0.1 clear)", covers=("hinge",)))


def _rows_clear(shape, count, bad, rows=None):
    """``count`` float arrays of ``shape`` (rows redrawn until ``bad(*float64 arrays)``, a per-row mask, is all False)
    and then ``rows(rng)`` (integer arguments) if given."""
    def draw(rng, dt):
        arrays = [uniform(rng, shape, dt) for _ in range(count)]
        for _ in range(200):
            redo = bad(*(a.astype(numpy.float64) for a in arrays))
            if not redo.any():
                break
            for a in arrays:
                a[redo] = uniform(rng, (int(redo.sum()),) + tuple(shape[1:]), dt)
        else:
            raise RuntimeError("could not draw rows clear of the kinks")
        return tuple(arrays) + ((rows(rng),) if rows else ())
    return draw


def _contrastive_reference(margin, reduce):
    def reference(x0, x1, y):
        losses = numpy.zeros(len(x0))
        for n in range(len(x0)):
            d = math.sqrt(math.fsum((a - b) ** 2 for a, b in zip(x0[n], x1[n])))
            losses[n] = 0.5 * (d * d if y[n] == 1 else max(margin - d, 0.0) ** 2)
        return losses if reduce == "no" else numpy.array(math.fsum(losses) / len(x0))
    return reference


def _pair_distances_clear(margin):
    # d = 0 (the cone tip) and d = margin (the squared hinge) are kinks; keep every pair 0.1 clear of both
    def bad(x0, x1):
        d = numpy.sqrt(((x0 - x1) ** 2).sum(axis=1))
        return (d < 0.1) | (abs(d - margin) < 0.1)
    return bad


def _similar_labels(n):
    return lambda rng: rng.permutation(numpy.arange(n) % 2).astype(numpy.int32)


for _margin, _reduce in ((1.0, "mean"), (1.5, "no")):
    register(OpSpec(f"contrastive[margin={_margin},reduce={_reduce}]",
                    lambda x0, x1, y, m=_margin, r=_reduce: F.contrastive(x0, x1, y, margin=m, reduce=r),
                    _rows_clear((6, 3), 2, _pair_distances_clear(_margin), _similar_labels(6)),
                    _contrastive_reference(_margin, _reduce),
                    kinks="||x0 - x1|| = 0 and = margin (drawn 0.1 clear)", covers=("contrastive",)))


def _triplet_reference(margin, reduce):
    def reference(a, p, n):
        losses = numpy.array([max(math.fsum((a[i] - p[i]) ** 2) - math.fsum((a[i] - n[i]) ** 2) + margin, 0.0)
                              for i in range(len(a))])
        return losses if reduce == "no" else numpy.array(math.fsum(losses) / len(a))
    return reference


def _triplet_clear(margin):
    def bad(a, p, n):
        return abs(((a - p) ** 2).sum(axis=1) - ((a - n) ** 2).sum(axis=1) + margin) < 0.1
    return bad


for _margin, _reduce in ((0.2, "mean"), (0.5, "no")):
    register(OpSpec(f"triplet[margin={_margin},reduce={_reduce}]",
                    lambda a, p, n, m=_margin, r=_reduce: F.triplet(a, p, n, margin=m, reduce=r),
                    _rows_clear((6, 3), 3, _triplet_clear(_margin)), _triplet_reference(_margin, _reduce),
                    kinks="||a - p||^2 - ||a - n||^2 + margin = 0 (drawn 0.1 clear)", covers=("triplet",)))


# --- covariance penalties: polynomials of the inputs (no kinks); references by explicit sums ---
def _covariance_reference(a, b):
    n = len(a)
    mean_a = [math.fsum(a[:, i]) / n for i in range(a.shape[1])]
    mean_b = [math.fsum(b[:, j]) / n for j in range(b.shape[1])]
    return numpy.array([[math.fsum((a[s, i] - mean_a[i]) * (b[s, j] - mean_b[j]) for s in range(n)) / n
                         for j in range(b.shape[1])] for i in range(a.shape[1])])


def _reduced_reference(matrix, reduce):
    return matrix if reduce == "no" else numpy.array(0.5 * math.fsum((matrix ** 2).ravel()))


for _reduce in ("half_squared_sum", "no"):
    register(OpSpec(f"decov[reduce={_reduce}]", lambda h, r=_reduce: F.decov(h, reduce=r),
                    lambda rng, dt: (uniform(rng, (5, 3), dt),),
                    lambda h, r=_reduce: _reduced_reference(_covariance_reference(h, h) * (1 - numpy.eye(3)), r),
                    covers=("decov",)))
    register(OpSpec(f"cross_covariance[reduce={_reduce}]", lambda y, z, r=_reduce: F.cross_covariance(y, z, reduce=r),
                    lambda rng, dt: (uniform(rng, (5, 3), dt), uniform(rng, (5, 2), dt)),
                    lambda y, z, r=_reduce: _reduced_reference(_covariance_reference(y, z), r),
                    covers=("cross_covariance",)))


# --- crf1d / argmax_crf1d: three sequences of lengths 3, 2, 1 over 3 labels, against every labelling ---
_CRF_BATCHES = (3, 2, 1)  # the time steps' batch sizes
_CRF_LABELS = [numpy.array([0, 2, 1]), numpy.array([1, 1]), numpy.array([2])]


def _crf_paths(cost, xs):
    """``{b: [(labelling, score), ...]}``: every labelling of sequence ``b`` and its score, by enumeration."""
    paths = {}
    for b in range(len(xs[0])):
        length = sum(len(x) > b for x in xs)
        paths[b] = [(labels, sum(xs[t][b, j] for t, j in enumerate(labels))
                     + sum(cost[i, j] for i, j in zip(labels, labels[1:])))
                    for labels in itertools.product(range(cost.shape[0]), repeat=length)]
    return paths


def _crf1d_reference(reduce):
    def reference(cost, *xs):
        losses = []
        for b, scored in _crf_paths(cost, xs).items():
            log_z = numpy.logaddexp.reduce([score for _, score in scored])
            gold = tuple(int(y[b]) for y in _CRF_LABELS if len(y) > b)
            losses.append(log_z - dict(scored)[gold])
        return numpy.mean(losses) if reduce == "mean" else numpy.array(losses)
    return reference


def _crf_inputs(rng, dt):
    return (uniform(rng, (3, 3), dt),) + tuple(uniform(rng, (n, 3), dt) for n in _CRF_BATCHES)


for _reduce in ("mean", "no"):
    register(OpSpec(f"crf1d[reduce={_reduce}]",
                    lambda cost, *xs, reduce=_reduce: F.crf1d(cost, list(xs), [cost.xp.asarray(y) for y in _CRF_LABELS],
                                                              reduce=reduce),
                    _crf_inputs, _crf1d_reference(_reduce), covers=("crf1d",)))
register(OpSpec("argmax_crf1d", lambda cost, *xs: F.argmax_crf1d(cost, list(xs))[0], _crf_inputs,
                lambda cost, *xs: numpy.array([max(s for _, s in scored) for scored in _crf_paths(cost, xs).values()]),
                kinks="ties between the best labellings"))


# --- connectionist_temporal_classification: every alignment of each sample's frames, collapsed and compared ---
_CTC_T = numpy.array([[1, 2], [1, 1], [2, 0]])  # sample 2 has one label; its second column is padding
_CTC_FRAMES, _CTC_LABELS = numpy.array([4, 4, 2]), numpy.array([2, 2, 1])


def _ctc_reference(reduce):
    def reference(*x):
        losses = []
        for b in range(len(_CTC_T)):
            log_p = [a[b] - numpy.logaddexp.reduce(a[b]) for a in x[:_CTC_FRAMES[b]]]
            target = tuple(_CTC_T[b, :_CTC_LABELS[b]])
            total = -numpy.inf
            for path in itertools.product(range(3), repeat=len(log_p)):  # symbols 0 (the blank), 1, 2
                collapsed = tuple(k for k, _ in itertools.groupby(path) if k != 0)
                if collapsed == target:
                    total = numpy.logaddexp(total, sum(lp[k] for lp, k in zip(log_p, path)))
            losses.append(-total)
        return numpy.mean(losses) if reduce == "mean" else numpy.array(losses)
    return reference


for _reduce in ("mean", "no"):
    register(OpSpec(f"connectionist_temporal_classification[reduce={_reduce}]",
                    lambda *x, reduce=_reduce: F.connectionist_temporal_classification(
                        list(x), x[0].xp.asarray(_CTC_T), 0, x[0].xp.asarray(_CTC_FRAMES),
                        x[0].xp.asarray(_CTC_LABELS), reduce=reduce),
                    lambda rng, dt: tuple(uniform(rng, (3, 3), dt) for _ in range(4)), _ctc_reference(_reduce),
                    covers=("connectionist_temporal_classification",)))


# --- discriminative_margin_based_clustering_loss: clusters 1..3 with embeddings spread by their label and pixel,
# so the norms stay clear of their kinks (and of delta_v, 2 delta_d); cluster 3 is absent from image 1 ---
_CLUSTER_LABELS = numpy.array([[[1, 1, 2], [2, 3, 0]], [[1, 2, 2], [0, 0, 1]]], dtype=numpy.int32)


def _cluster_embeddings(rng, dt):
    spread = _CLUSTER_LABELS[:, None] + 0.3 * numpy.arange(3)[None, :, None, None] + \
        0.25 * numpy.arange(6).reshape(1, 1, 2, 3)
    return (spread + rng.uniform(-0.02, 0.02, spread.shape)).astype(dt), _CLUSTER_LABELS


def _discriminative_reference(delta_v, delta_d, norm, alpha, beta, gamma):
    def length(v):
        return numpy.abs(v).sum() if norm == 1 else numpy.sqrt((v ** 2).sum())

    def reference(embeddings, labels):
        n, k = embeddings.shape[:2]
        means = numpy.zeros((k, n, k))
        variance = 0.0
        for c in range(k):
            pulled, members = 0.0, 0
            for i in range(n):
                pixels = embeddings[i][:, labels[i] == c + 1].T
                if len(pixels):
                    means[c, i] = pixels.mean(axis=0)
                pulled += sum(max(length(means[c, i] - p) - delta_v, 0.0) ** 2 for p in pixels)
                members += len(pixels)
            variance += pulled / max(members, 1)
        distance = sum(max(2 * delta_d - length(means[a, i] - means[b, i]), 0.0) ** 2
                       for a in range(k) for b in range(a + 1, k) for i in range(n))
        regularization = sum(length(means[c]) for c in range(k))
        return (alpha * variance / k, beta * distance / max(k * (k - 1) // 2 * n, 1),
                gamma * regularization / (k * n))
    return reference


register(OpSpec("discriminative_margin_based_clustering_loss",
                lambda e, t: F.discriminative_margin_based_clustering_loss(e, t, 0.1, 2.5, 3, 1, 1.0, 0.5, 0.1),
                _cluster_embeddings, _discriminative_reference(0.1, 2.5, 1, 1.0, 0.5, 0.1),
                kinks="|.| at 0, delta_v and 2 delta_d: the inputs keep 0.1 or more away"))
register(OpSpec("discriminative_margin_based_clustering_loss[norm=2]",
                lambda e, t: F.discriminative_margin_based_clustering_loss(e, t, 0.1, 1.5, 3, 2, 0.5, 1.0, 1.0),
                _cluster_embeddings, _discriminative_reference(0.1, 1.5, 2, 0.5, 1.0, 1.0),
                covers=("discriminative_margin_based_clustering_loss",),
                kinks="the norm of a zero vector, delta_v and 2 delta_d: the inputs keep 0.1 or more away"))
