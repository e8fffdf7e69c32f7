"""Tests for minigrad.computational_graph: the walk, the DOT text, and rendering through Graphviz."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad import computational_graph as cg
from minigrad.computational_graph import ComputationalGraph, GraphvizNotFoundError, build_computational_graph

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz (dot) is not installed")


def _node_lines(dot: str) -> dict[str, str]:
    """DOT node name -> its attribute text."""
    return dict(re.findall(r"^  ([vf]\d+) \[(.*)\];$", dot, flags=re.M))


def _edge_lines(dot: str) -> list[tuple[str, str]]:
    return re.findall(r"^  ([vf]\d+) -> ([vf]\d+);$", dot, flags=re.M)


def _label(attrs: str) -> str:
    return re.match(r'label="((?:[^"\\]|\\.)*)"', attrs).group(1)


def test_dump_of_one_op_is_exact():
    x = mg.Variable(np.array([1.0, 2.0], dtype=np.float32), name="x")
    y = F.exp(x)
    y.name = "y"
    assert build_computational_graph(y).dump() == (
        "digraph computational_graph {\n"
        '  rankdir="TB";\n'
        '  graph [ranksep="0.3", nodesep="0.3"];\n'
        '  node [fontname="Helvetica,Arial,sans-serif", fontsize="11", height="0.3"];\n'
        '  v0 [label="y\\n(2,) float32", shape="ellipse", style="filled", fillcolor="#dae8fc"];\n'
        '  f0 [label="Exp", shape="box", style="filled", fillcolor="#e6e6e6"];\n'
        '  v1 [label="x\\n(2,) float32", shape="ellipse", style="filled", fillcolor="#fff2cc"];\n'
        "  f0 -> v0;\n"
        "  v1 -> f0;\n"
        "}\n"
    )


def test_nodes_and_edges_follow_the_forward_direction():
    x = mg.Variable(np.ones((2, 3)), name="x")
    w = mg.Variable(np.ones((3, 4)), name="w")
    h = x @ w
    y = F.sum(h)
    graph = build_computational_graph([y])
    assert graph.nodes[0] is y
    assert set(map(id, graph.variables)) == {id(x), id(w), id(h), id(y)}
    assert [f.label for f in graph.functions] == ["Sum", "MatMul"]
    matmul, total = h.creator, y.creator
    pairs = {(id(a), id(b)) for a, b in graph.edges}
    assert pairs == {(id(total), id(y)), (id(h), id(total)), (id(matmul), id(h)),
                     (id(x), id(matmul)), (id(w), id(matmul))}


def test_variables_are_ellipses_with_name_shape_dtype_and_functions_are_boxes():
    x = mg.Variable(np.ones((2, 3), dtype=np.float16), name="input")
    y = F.sum(x, axis=1)
    nodes = _node_lines(build_computational_graph(y).dump())
    assert _label(nodes["v1"]) == "input\\n(2, 3) float16"
    assert _label(nodes["v0"]) == "(2,) float16"  # unnamed: shape and dtype only
    assert 'shape="ellipse"' in nodes["v0"] and 'shape="ellipse"' in nodes["v1"]
    assert _label(nodes["f0"]) == "Sum" and 'shape="box"' in nodes["f0"]


def test_show_name_false_hides_names():
    x = mg.Variable(np.ones(2), name="secret")
    dot = build_computational_graph(-x, show_name=False).dump()
    assert "secret" not in dot


def test_leaves_intermediates_and_constants_are_styled_apart():
    x = mg.Variable(np.ones(2), name="x")
    c = mg.Variable(np.ones(2), name="c", requires_grad=False)
    y = x * c
    nodes = _node_lines(build_computational_graph(y).dump())
    by_label = {_label(attrs).split("\\n")[0]: attrs for attrs in nodes.values()}
    assert "#fff2cc" in by_label["x"]  # leaf that receives a gradient
    assert 'style="dashed"' in by_label["c"] and "fillcolor" not in by_label["c"]  # constant
    assert "#dae8fc" in nodes["v0"]  # made by an op


def test_a_variable_used_twice_gives_two_edges_but_one_node():
    x = mg.Variable(np.ones(2), name="x")
    graph = build_computational_graph(x * x)
    assert sum(1 for n in graph.nodes if n is x) == 1
    assert sum(1 for a, _ in graph.edges if a is x) == 2


def test_shared_subgraph_is_visited_once():
    x = mg.Variable(np.ones(2), name="x")
    a = F.exp(x)
    y1, y2 = a * 2.0, a + 1.0
    graph = build_computational_graph([y1, y2])
    assert graph.nodes[:2] == [y1, y2]
    assert sum(1 for n in graph.nodes if n is a) == 1
    assert sum(1 for f in graph.functions if f.label == "Exp") == 1
    ids = [id(n) for n in graph.nodes]
    assert len(ids) == len(set(ids))


def test_dump_is_deterministic_across_builds():
    def dump() -> str:
        x = mg.Variable(np.arange(3.0), name="x")
        return build_computational_graph(F.sum(F.exp(x) * x + x)).dump()

    assert dump() == dump()


def test_show_grad_shows_values_none_and_ranges():
    x = mg.Variable(np.array([1.0, 2.0]), name="x")
    big = mg.Variable(np.linspace(-1.0, 1.0, 20), name="big")
    h = x * x
    y = F.sum(h) + F.sum(big * 3.0)
    y.backward()
    nodes = _node_lines(build_computational_graph(y, show_grad=True).dump())
    labels = {_label(a).split("\\n")[0]: _label(a) for a in nodes.values()}
    assert labels["x"].endswith("grad: [2., 4.]")
    assert labels["big"].endswith("grad in [3, 3]")
    intermediate = [_label(a) for a in nodes.values() if _label(a).startswith("(2,) float64")]
    assert intermediate and all(lab.endswith("grad: None") for lab in intermediate)  # dropped after use


def test_show_rank_labels_match_the_engine():
    x = mg.Variable(np.ones(2), name="x")
    y = F.exp(F.exp(x))
    nodes = _node_lines(build_computational_graph(y, show_rank=True).dump())
    labels = [_label(a) for a in nodes.values()]
    assert "x\\n(2,) float64\\nrank 0" in labels
    assert "Exp\\nrank 1" in labels and "Exp\\nrank 0" in labels
    assert "(2,) float64\\nrank 2" in labels


def test_style_overrides_merge_over_the_defaults():
    x = mg.Variable(np.ones(2), name="x")
    dot = build_computational_graph(
        -x, rankdir="LR", variable_style={"fillcolor": "red"}, function_style={"shape": "octagon"}
    ).dump()
    nodes = _node_lines(dot)
    assert 'rankdir="LR"' in dot
    assert 'fillcolor="red"' in nodes["v0"] and 'shape="ellipse"' in nodes["v0"]
    assert 'shape="octagon"' in nodes["f0"] and 'shape="box"' not in nodes["f0"]


def test_labels_with_quotes_and_backslashes_are_escaped():
    x = mg.Variable(np.ones(2), name='say "hi" \\ bye')
    nodes = _node_lines(build_computational_graph(-x).dump())
    assert _label(nodes["v1"]).startswith('say \\"hi\\" \\\\ bye')


def test_walk_reads_the_graph_without_changing_it():
    x = mg.Variable(np.array([1.0, 2.0]), name="x")
    h = x * x
    y = F.sum(h)
    y.backward()
    before = (y.creator, h.creator, h.creator.inputs, x.grad.copy())
    build_computational_graph(y, show_grad=True).dump()
    assert (y.creator, h.creator, h.creator.inputs) == before[:3]
    np.testing.assert_array_equal(x.grad, before[3])


def test_a_100000_step_chain_needs_no_recursion():
    x = mg.Variable(np.ones(1), name="x")
    y = x
    for _ in range(100_000):
        y = -y
    graph = build_computational_graph(y)
    assert len(graph.nodes) == 200_001 and len(graph.edges) == 200_000
    assert graph.nodes[-1] is x


def test_unchained_graph_stops_at_the_cut():
    x = mg.Variable(np.ones(2))
    y = F.exp(F.exp(x))
    y.unchain_backward()
    assert build_computational_graph(y).nodes == [y]


def test_double_backprop_graph_contains_the_forward_inputs():
    x = mg.Variable(np.array([1.0, 2.0]), name="x")
    y = F.sum(x * x * x)
    y.backward(enable_double_backprop=True)
    graph = build_computational_graph(x.grad_var)
    assert x.grad_var.creator is not None
    assert any(n is x for n in graph.nodes)  # the gradient depends on x again
    assert len(graph.functions) >= 2


def test_without_double_backprop_the_gradient_is_a_lone_leaf():
    x = mg.Variable(np.array([1.0, 2.0]), name="x")
    F.sum(x * x).backward()
    assert build_computational_graph(x.grad_var).nodes == [x.grad_var]


@pytest.mark.parametrize("bad", [None, 3, "y", np.ones(2), [mg.Variable(np.ones(1)), np.ones(1)]])
def test_bad_outputs_are_a_type_error(bad):
    with pytest.raises(TypeError, match="build_computational_graph: outputs"):
        build_computational_graph(bad)


def test_dump_refuses_other_formats():
    graph = build_computational_graph(-mg.Variable(np.ones(1)))
    with pytest.raises(ValueError, match="format must be 'dot', got 'json'"):
        graph.dump("json")


def test_gradients_on_the_gpu_are_shown(xp):
    x = mg.Variable(xp.asarray([1.0, 2.0]), name="x")
    F.sum(x * x).backward()
    assert "grad: [2., 4.]" in build_computational_graph(x, show_grad=True).dump()


# --- rendering ----------------------------------------------------------------

def test_render_without_graphviz_says_how_to_install_it(tmp_path):
    graph = build_computational_graph(-mg.Variable(np.ones(1)))
    with pytest.raises(GraphvizNotFoundError, match="apt-get install graphviz") as info:
        cg.render(graph, tmp_path / "g.png", dot_command="no-such-dot-program")
    assert "'no-such-dot-program' was not found" in str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert not (tmp_path / "g.png").exists()


def test_render_without_dot_on_path(monkeypatch, tmp_path):
    monkeypatch.setattr(cg.shutil, "which", lambda name: None)
    graph = build_computational_graph(-mg.Variable(np.ones(1)))
    with pytest.raises(GraphvizNotFoundError, match="Install Graphviz"):
        graph.render(tmp_path / "g.svg")
    assert graph._repr_svg_() is None


@pytest.mark.parametrize("path, format", [("g.txt", None), ("g", None), ("g.png", "gif")])
def test_render_needs_a_known_format(tmp_path, path, format):
    graph = build_computational_graph(-mg.Variable(np.ones(1)))
    with pytest.raises(ValueError, match="render: cannot tell the picture format"):
        cg.render(graph, tmp_path / path, format)


def test_render_refuses_other_objects(tmp_path):
    with pytest.raises(TypeError, match="render: graph must be a ComputationalGraph or DOT text, got int"):
        cg.render(3, tmp_path / "g.png")


@needs_dot
@pytest.mark.parametrize("suffix, magic", [("png", b"\x89PNG"), ("svg", b"<svg"), ("pdf", b"%PDF")])
def test_render_writes_a_picture(tmp_path, suffix, magic):
    x = mg.Variable(np.ones(3, dtype=np.float32), name='x "quoted"')
    y = F.sum(F.exp(x) * x)
    y.backward(enable_double_backprop=True)
    graph = build_computational_graph([y, x.grad_var], show_grad=True, show_rank=True)
    path = graph.render(tmp_path / f"graph.{suffix}")
    assert path == str(tmp_path / f"graph.{suffix}")
    content = open(path, "rb").read()
    assert magic in content[:400]


@needs_dot
def test_render_with_explicit_format_and_dot_text(tmp_path):
    dot = build_computational_graph(-mg.Variable(np.ones(1), name="x")).dump()
    path = cg.render(dot, tmp_path / "picture.out", format="svg")
    text = open(path).read()
    assert "<svg" in text and ">Neg<" in text and ">x<" in text


@needs_dot
def test_render_reports_dot_errors(tmp_path):
    with pytest.raises(RuntimeError, match="failed with exit status"):
        cg.render("digraph { this is not dot", tmp_path / "bad.png")


@needs_dot
def test_repr_svg_for_notebooks():
    graph = build_computational_graph(-mg.Variable(np.ones(1)))
    assert isinstance(graph, ComputationalGraph)
    assert graph._repr_svg_().lstrip().startswith("<?xml")
