"""examples/digits.py runs end to end (one short epoch per model) and writes its curves."""

import importlib.util
import pathlib

import pytest

pytest.importorskip("sklearn", reason="the digits example needs the `examples` extra (scikit-learn)")
pytest.importorskip("matplotlib", reason="the digits example needs the `examples` extra (matplotlib)")

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "digits.py"


def test_digits_example_trains_both_models_and_plots(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("digits_example", SCRIPT)
    digits = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(digits)
    out = tmp_path / "curves.png"
    results = digits.main(["--epochs", "2", "--out", str(out)])
    assert set(results) == {"MLP", "CNN"}
    assert results["CNN"]["accuracy"] > 0.8  # two epochs are already far above chance (0.1)
    assert out.stat().st_size > 10_000
    printed = capsys.readouterr().out
    assert "epoch  2/2 [##############################]  43/43 batches" in printed
    assert "CNN: final test accuracy" in printed
