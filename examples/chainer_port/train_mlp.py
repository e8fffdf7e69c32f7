"""A Chainer v7 training script, ported to minigrad by changing only the four import lines.

It defines a Chain of links, trains it with MomentumSGD plus weight decay while
the first layer stays frozen (``update_rule.enabled = False``), evaluates in
test mode, and saves and reloads the model and the optimizer with
``serializers``. The data are three Gaussian clusters, so nothing is downloaded.

    python examples/chainer_port/train_mlp.py --epoch 20 --out result
"""

import argparse
import os

import numpy as np

import minigrad as chainer  # was: import chainer
import minigrad.functions as F  # was: import chainer.functions as F
import minigrad.links as L  # was: import chainer.links as L
from minigrad import optimizers, serializers  # was: from chainer import optimizers, serializers


class MLP(chainer.Chain):

    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            # the size of their inputs is inferred on the first call
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def make_clusters(n, centers, rng):
    t = rng.integers(0, len(centers), size=n).astype(np.int32)
    x = centers[t] + rng.standard_normal((n, centers.shape[1])).astype(np.float32)
    return x, t


def main(argv=None):
    parser = argparse.ArgumentParser(description='Chainer example: MLP on Gaussian clusters')
    parser.add_argument('--batchsize', '-b', type=int, default=50)
    parser.add_argument('--epoch', '-e', type=int, default=20)
    parser.add_argument('--unit', '-u', type=int, default=32)
    parser.add_argument('--device', '-d', type=str, default='-1',
                        help='Device specifier: -1 or @numpy for the CPU, 0 or @cupy:0 for a GPU')
    parser.add_argument('--out', '-o', default='result')
    args = parser.parse_args(argv)

    device = chainer.get_device(args.device)
    device.use()

    rng = np.random.default_rng(0)
    centers = 2 * rng.standard_normal((3, 10)).astype(np.float32)
    x_train, t_train = make_clusters(600, centers, rng)
    x_test, t_test = make_clusters(300, centers, rng)

    model = L.Classifier(MLP(args.unit, 3))
    model.to_device(device)

    optimizer = optimizers.MomentumSGD(lr=0.05)
    optimizer.setup(model)
    optimizer.add_hook(chainer.optimizer_hooks.WeightDecay(1e-4))
    # keep the first layer fixed: only l2 and l3 learn
    model.predictor.l1.W.update_rule.enabled = False
    model.predictor.l1.b.update_rule.enabled = False

    n = len(x_train)
    for epoch in range(1, args.epoch + 1):
        perm = rng.permutation(n)
        for i in range(0, n, args.batchsize):
            x = device.send(x_train[perm[i:i + args.batchsize]])
            t = device.send(t_train[perm[i:i + args.batchsize]])
            optimizer.update(model, x, t)
        with chainer.using_config('train', False), chainer.no_backprop_mode():
            model(device.send(x_test), device.send(t_test))
        loss, accuracy = float(model.loss.array), float(model.accuracy.array)
        print(f'epoch {epoch}: test loss {loss:.4f}, test accuracy {accuracy:.3f}')

    os.makedirs(args.out, exist_ok=True)
    serializers.save_npz(os.path.join(args.out, 'mlp.model'), model)
    serializers.save_npz(os.path.join(args.out, 'mlp.state'), optimizer)

    # resume from the snapshot, as one would in a new process
    restored = L.Classifier(MLP(args.unit, 3))
    serializers.load_npz(os.path.join(args.out, 'mlp.model'), restored)
    restored_optimizer = optimizers.MomentumSGD(lr=0.05)
    restored_optimizer.setup(restored)
    serializers.load_npz(os.path.join(args.out, 'mlp.state'), restored_optimizer)
    with chainer.using_config('train', False), chainer.no_backprop_mode():
        restored(x_test, t_test)
    print(f'restored model: test accuracy {float(restored.accuracy.array):.3f}')
    return model, restored, optimizer, restored_optimizer


if __name__ == '__main__':
    main()
