"""The sweep's plan: op selection, case seeds, and shards that partition the sweep, balanced by durations."""

from __future__ import annotations

import dataclasses
import json

import pytest

from minigrad.testing.op_specs import all_specs
from minigrad.testing.sweep import derive_case_seed
from minigrad.testing.sweep_plan import (
    DEFAULT_SPECS,
    estimate,
    parse_shard,
    plan_cases,
    read_durations,
    select_specs,
    shard,
    split_patterns,
)


def test_op_names_with_brackets_and_commas_select_that_spec_alone():
    # used to select nothing: the brackets read as a glob's character set, the comma split the name
    specs = all_specs()
    selected = select_specs(specs, split_patterns("matmul[transa,transb],pad[edge]"))
    assert sorted(s.name for s in selected) == ["matmul[transa,transb]", "pad[edge]"]
    assert [s.name for s in select_specs(specs, ["broadcast"])] == ["broadcast"]  # a name: not its variants
    assert {s.name for s in select_specs(specs, ["broadcast*"])} == {"broadcast", "broadcast[one input]",
                                                                     "broadcast_to"}
    assert {s.name for s in select_specs(specs, ["pad"])} >= {"pad[edge]", "pad[reflect]"}  # a public name: all


def test_every_pattern_must_select_something():
    with pytest.raises(ValueError, match=r"'tanhh' matches no op \(did you mean tanh"):
        select_specs(all_specs(), ["relu", "tanhh"])
    with pytest.raises(ValueError, match=r"'zz_nothing\*' matches no op"):
        plan_cases([DEFAULT_SPECS], ops="zz_nothing*")


def test_unknown_dtype_backend_or_check_is_refused():
    for options, message in (({"dtypes": ["float8"]}, "unknown dtype 'float8'"),
                             ({"backends": ["tpu"]}, "unknown backend 'tpu'"),
                             ({"checks": ["forward", "sideways"]}, "unknown check 'sideways'")):
        with pytest.raises(ValueError, match=message):
            plan_cases([DEFAULT_SPECS], ops="exp", **options)


def test_a_case_has_the_same_seed_whatever_else_is_planned():
    alone = plan_cases([DEFAULT_SPECS], ops="tanh", dtypes=["float16"], checks=["double"], seed=3)
    everything = plan_cases([DEFAULT_SPECS], seed=3)
    same = [c for c in everything if c.key == alone[0].key]
    assert len(alone) == len(same) == 1
    assert alone[0].seed == same[0].seed == derive_case_seed("tanh", "float16", 3)
    assert {c.seed for c in plan_cases([DEFAULT_SPECS], ops="tanh", case_seed=11)} == {11}


def test_shards_partition_the_sweep_and_balance_the_static_estimate():
    cases = plan_cases([DEFAULT_SPECS])
    parts = [shard(cases, k, 4) for k in range(1, 5)]
    assert sorted(c for part in parts for c in part) == cases  # every case once
    loads = [sum(estimate(c) for c in part) for part in parts]
    assert max(loads) / (sum(loads) / 4) < 1.01
    assert shard(cases, 2, 4) == parts[1]  # deterministic


def test_recorded_durations_steer_the_shards(tmp_path):
    cases = plan_cases([DEFAULT_SPECS], ops="exp,log,tanh,sin", dtypes=["float64"])
    slow = cases[0]
    records = [{"op": c.op, "backend": c.backend, "dtype": c.dtype, "check": c.check,
                "seconds": 10.0 if c == slow else 0.01} for c in cases]
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({"results": records}))
    durations = read_durations(str(path))
    first, second = shard(cases, 1, 2, durations), shard(cases, 2, 2, durations)
    assert first == [slow] and sorted(first + second) == cases  # the slow case gets a shard of its own


def test_bad_shards_and_durations_files_are_refused(tmp_path):
    for text in ("0/4", "5/4", "2", "a/b", "2/4/1", "-1/2"):
        with pytest.raises(ValueError, match="expected K/N"):
            parse_shard(text)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="cannot read durations from .*bad.json"):
        read_durations(str(tmp_path / "bad.json"))


def test_cases_are_plain_values():
    case = plan_cases([DEFAULT_SPECS], ops="exp", dtypes=["float32"], checks=["forward"])[0]
    assert dataclasses.astuple(case) == (0, DEFAULT_SPECS, "exp", "float32", "numpy", "forward", case.seed)
