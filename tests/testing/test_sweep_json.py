"""The JSON report: records, merging the shards of one plan (and refusing anything else), the schema version."""

from __future__ import annotations

import json

import pytest

from minigrad.testing.sweep_json import SCHEMA_VERSION, build_report, merge_reports, read_report


def _shard(k, n, indexes, seed=0, complete=True, status="pass"):
    records = [{"index": i, "op": f"op{i}", "status": status} for i in indexes]
    report = build_report(records, arguments={"specs": ["m"], "seed": seed, "shard": f"{k}/{n}", "argv": [str(k)]},
                          plan_cases=4, seconds=float(k), interrupted=not complete)
    return report


def test_the_shards_of_one_plan_merge_into_the_whole_report():
    merged = merge_reports([_shard(2, 2, [1, 3]), _shard(1, 2, [0, 2])], names=["b.json", "a.json"])
    assert [r["index"] for r in merged["results"]] == [0, 1, 2, 3]
    assert merged["summary"]["cases"] == merged["summary"]["pass"] == 4 and merged["summary"]["seconds"] == 2.0
    assert merged["arguments"]["shard"] is None and merged["plan"] == {"cases": 4, "shard": None, "selected": 4}
    assert [s["file"] for s in merged["shards"]] == ["b.json", "a.json"]


@pytest.mark.parametrize("shards, message", [
    ([_shard(1, 2, [0, 2]), _shard(2, 2, [1, 3], seed=1)], "another plan than report 1 (differs in seed)"),
    ([_shard(1, 2, [0, 2]), _shard(2, 2, [1, 3], complete=False)], "report 2 is incomplete"),
    ([_shard(1, 2, [0, 2]), _shard(1, 2, [1, 3])], "shard 1/2 is given twice"),
    ([_shard(1, 3, [0, 2]), _shard(2, 3, [1, 3])], "shards 3/3 of 3 are missing"),
    ([_shard(1, 2, [0, 2]), _shard(2, 2, [1, 2])], "the shards hold 4 cases (3 distinct) of a plan of 4"),
])
def test_reports_that_are_not_the_shards_of_one_plan_are_refused(shards, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        merge_reports(shards)


def test_reading_checks_the_schema_version(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(_shard(1, 1, [0, 1, 2, 3])))
    assert read_report(str(path))["schema_version"] == SCHEMA_VERSION == 1
    path.write_text(json.dumps({"summary": {}, "results": []}))  # what the sweep wrote before the schema
    with pytest.raises(ValueError, match="not a minigrad check report of schema version 1"):
        read_report(str(path))
