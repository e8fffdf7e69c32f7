"""Train an MLP and a small CNN on the handwritten digits that ship with scikit-learn.

The data set (``sklearn.datasets.load_digits``: 1,797 grey-scale 8x8 images of
the digits 0-9) is bundled with scikit-learn, so nothing is downloaded. The
split (75 % train / 25 % test, stratified) and every random number are fixed
by ``--seed``, so a run is reproducible.

Run (needs the ``examples`` extra: ``pip install minigrad[examples]``)::

    python examples/digits.py                  # both models, curves in digits.png
    python examples/digits.py --model cnn --epochs 10 --out cnn.png

Each epoch prints a plain-text progress bar; at the end each model reports its
test accuracy and training time, and the loss / accuracy curves of both models
are written to one PNG.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad import initializers, optimizers


class MLP(mg.Chain):
    """64 -> 128 -> 64 -> 10, ReLU, with dropout on the hidden layers."""

    def __init__(self, n_hidden: int = 128) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_hidden, initialW=initializers.HeNormal())
            self.l2 = L.Linear(n_hidden, n_hidden // 2, initialW=initializers.HeNormal())
            self.l3 = L.Linear(n_hidden // 2, 10)

    def forward(self, x: Any) -> mg.Variable:
        h = F.dropout(F.relu(self.l1(x)), 0.2)
        h = F.dropout(F.relu(self.l2(h)), 0.2)
        return self.l3(h)


class CNN(mg.Chain):
    """Two 3x3 convolutions with batch normalization, 2x2 max pooling, then two linear layers."""

    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(1, 16, ksize=3, pad=1, nobias=True, initialW=initializers.HeNormal())
            self.bn1 = L.BatchNormalization(16)
            self.conv2 = L.Convolution2D(16, 32, ksize=3, pad=1, nobias=True, initialW=initializers.HeNormal())
            self.bn2 = L.BatchNormalization(32)
            self.fc1 = L.Linear(32 * 4 * 4, 64, initialW=initializers.HeNormal())
            self.fc2 = L.Linear(64, 10)

    def forward(self, x: Any) -> mg.Variable:
        h = F.relu(self.bn1(self.conv1(x)))                       # 16 x 8 x 8
        h = F.max_pooling_2d(F.relu(self.bn2(self.conv2(h))), 2)  # 32 x 4 x 4
        h = F.dropout(F.relu(self.fc1(h)), 0.3)
        return self.fc2(h)


def load_data(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Images scaled to [0, 1] as float32 ``(N, 1, 8, 8)``, labels int32; a fixed stratified split."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError:
        sys.exit("this example needs scikit-learn and matplotlib: pip install minigrad[examples]")
    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    t = digits.target.astype(np.int32)
    x_train, x_test, t_train, t_test = train_test_split(x, t, test_size=0.25, stratify=t, random_state=seed)
    return x_train, x_test, t_train, t_test


def progress(epoch: int, epochs: int, done: int, total: int, loss: float, accuracy: float, width: int = 30) -> str:
    filled = width * done // total
    return (f"\repoch {epoch:2d}/{epochs} [{'#' * filled}{'.' * (width - filled)}] {done:3d}/{total} batches  "
            f"loss {loss:.4f}  acc {accuracy:.4f}")


def evaluate(model: mg.Chain, x: np.ndarray, t: np.ndarray, batch_size: int = 500) -> tuple[float, float]:
    """Mean loss and accuracy of a predictor in inference mode (no dropout; BatchNormalization's running stats)."""
    loss = correct = 0.0
    with mg.using_config("train", False), mg.no_backprop_mode():
        for start in range(0, len(x), batch_size):
            y = model(x[start:start + batch_size])
            tb = t[start:start + batch_size]
            loss += float(F.softmax_cross_entropy(y, tb).array) * len(tb)
            correct += float(F.accuracy(y, tb).array) * len(tb)
    return loss / len(x), correct / len(x)


def train(name: str, make_model: Callable[[], mg.Chain], data: tuple[np.ndarray, ...], epochs: int,
          batch_size: int, alpha: float, seed: int) -> dict[str, Any]:
    x_train, x_test, t_train, t_test = data
    initializers.set_default_rng(seed)  # the weights
    order_rng = np.random.default_rng(seed)  # the mini-batch order
    np.random.seed(seed)  # F.dropout's masks
    model = L.Classifier(make_model())
    optimizer = optimizers.Adam(alpha=alpha).setup(model)
    optimizer.add_hook(optimizers.WeightDecay(1e-4))
    history: dict[str, list[float]] = {"train_loss": [], "train_acc": [], "test_loss": [], "test_acc": []}
    n_batches = -(-len(x_train) // batch_size)
    interactive = sys.stdout.isatty()
    print(f"{name}: {model.count_params():,} parameters")
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        order = order_rng.permutation(len(x_train))
        loss_sum = acc_sum = 0.0
        seen = 0
        for i in range(n_batches):
            index = order[i * batch_size:(i + 1) * batch_size]
            optimizer.update(model, x_train[index], t_train[index])
            loss_sum += float(model.loss.array) * len(index)
            acc_sum += float(model.accuracy.array) * len(index)
            seen += len(index)
            if interactive or i == n_batches - 1:
                line = progress(epoch, epochs, i + 1, n_batches, loss_sum / seen, acc_sum / seen)
                print(line if interactive else line[1:], end="" if interactive else "", flush=True)
        optimizer.new_epoch()
        test_loss, test_acc = evaluate(model.predictor, x_test, t_test)
        history["train_loss"].append(loss_sum / seen)
        history["train_acc"].append(acc_sum / seen)
        history["test_loss"].append(test_loss)
        history["test_acc"].append(test_acc)
        print(f"  test loss {test_loss:.4f}  test acc {test_acc:.4f}")
    seconds = time.perf_counter() - start
    print(f"{name}: final test accuracy {history['test_acc'][-1]:.4f} ({history['test_acc'][-1] * len(x_test):.0f}/"
          f"{len(x_test)}), trained in {seconds:.1f} s\n")
    return {"history": history, "seconds": seconds, "accuracy": history["test_acc"][-1]}


def plot(results: dict[str, dict[str, Any]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    for (name, result), color in zip(results.items(), ("tab:blue", "tab:orange")):
        h = result["history"]
        epochs = range(1, len(h["train_loss"]) + 1)
        ax_loss.plot(epochs, h["train_loss"], color=color, linestyle="--", label=f"{name} train")
        ax_loss.plot(epochs, h["test_loss"], color=color, label=f"{name} test")
        ax_acc.plot(epochs, h["train_acc"], color=color, linestyle="--", label=f"{name} train")
        ax_acc.plot(epochs, h["test_acc"], color=color, label=f"{name} test ({result['accuracy']:.1%})")
    ax_loss.set(xlabel="epoch", ylabel="cross-entropy loss", yscale="log", title="loss")
    ax_acc.set(xlabel="epoch", ylabel="accuracy", ylim=(0.8, 1.0), title="accuracy")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("minigrad on scikit-learn's digits (8x8), 75/25 stratified split")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print(f"curves written to {path}")


def main(argv: list[str] | None = None) -> dict[str, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=("mlp", "cnn", "both"), default="both")
    parser.add_argument("--epochs", type=int, default=None, help="default: 40 for the MLP, 15 for the CNN")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="digits.png", help="where to write the loss/accuracy curves")
    args = parser.parse_args(argv)
    data = load_data(args.seed)
    print(f"digits: {len(data[0])} training and {len(data[1])} test images of 8x8 pixels\n")
    results = {}
    if args.model in ("mlp", "both"):
        results["MLP"] = train("MLP", MLP, data, args.epochs or 40, args.batch_size, 1e-3, args.seed)
    if args.model in ("cnn", "both"):
        results["CNN"] = train("CNN", CNN, data, args.epochs or 15, args.batch_size, 1e-3, args.seed)
    if args.out:
        plot(results, args.out)
    return results


if __name__ == "__main__":
    main()
