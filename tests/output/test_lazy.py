"""Evaluation works out each part when asked, and only what that part needs.

- ``flag``, ``valid`` and an invalid ``basic`` never walk the evaluation tree (the
  walk is made to fail here); ``flag`` and a valid ``basic`` never run iter_errors;
- the walk for annotations and the one for the list/detailed/hierarchical formats
  keep less than the whole tree, and still give the same results;
- every part of a lazy evaluation equals a direct recomputation (tests/output/
  recompute.py), over schemas written here and records documents (over the suite in
  test_output_suites.py, over generated schemas in tests/properties);
- the instance is read again when a part is asked, from a fresh call state;
- ``iter_json`` streams: an invalid ``basic`` is written as the errors come.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from typing import Any

import pytest

import schemacore
from benchmarks import workloads
from schemacore import Evaluation, Limits, ValidationError
from schemacore import validator as validator_module
from schemacore.output import FORMATS
from schemacore.units import Unit
from tests.output.recompute import check_agreement

SCHEMA = {
    "type": "object",
    "title": "Person",
    "properties": {
        "name": {"type": "string", "minLength": 1, "description": "full name"},
        "age": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": True},
        "contact": {"anyOf": [{"type": "string", "format": "email"}, {"required": ["phone"]}]},
    },
    "required": ["name"],
    "unevaluatedProperties": False,
}
VALID = {"name": "Ada", "age": 36, "tags": ["a"], "contact": "ada@example.com"}
INVALID = {"age": -1, "tags": ["a", "a", "c"], "extra": 1}


def _no_walk(*args: Any, **kwargs: Any) -> Unit:
    raise AssertionError("the evaluation tree was walked")


def _no_errors(self: schemacore.Validator, instance: Any) -> Iterator[ValidationError]:
    raise AssertionError("iter_errors ran")


def test_flag_and_an_invalid_basic_never_walk_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    validator = schemacore.compile(SCHEMA)
    expected_errors = [(e.keyword_location, e.message) for e in validator.iter_errors(INVALID)]
    monkeypatch.setattr(validator_module, "evaluate_node", _no_walk)
    for instance, valid in ((VALID, True), (INVALID, False)):
        evaluation = validator.evaluate(instance)
        assert evaluation.valid is valid
        assert evaluation.output("flag") == {"valid": valid}
        assert "".join(evaluation.iter_json("flag")) == json.dumps({"valid": valid})
    invalid = validator.evaluate(INVALID)
    basic = invalid.output("basic")
    assert [(e["keywordLocation"], e["error"]) for e in basic["errors"]] == expected_errors
    assert json.loads("".join(validator.evaluate(INVALID).iter_json("basic"))) == basic
    assert [(e.keyword_location, e.message) for e in invalid.errors] == expected_errors
    assert invalid.annotations == []
    assert repr(invalid) == f"<Evaluation valid=False errors={len(expected_errors)}>"
    # Whatever needs the units does walk.
    with pytest.raises(AssertionError, match="walked"):
        invalid.output("list")
    with pytest.raises(AssertionError, match="walked"):
        validator.evaluate(VALID).annotations  # noqa: B018


def test_flag_and_a_valid_result_never_run_iter_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    validator = schemacore.compile(SCHEMA)
    monkeypatch.setattr(schemacore.Validator, "iter_errors", _no_errors)
    evaluation = validator.evaluate(VALID)
    assert evaluation.errors == []
    assert evaluation.output("basic")["annotations"]
    for fmt in FORMATS:
        assert evaluation.output(fmt)["valid"] is True
    assert validator.evaluate(INVALID).output("flag") == {"valid": False}


def _units(tree: Unit) -> list[Unit]:
    found, pending = [], [tree]
    while pending:
        unit = pending.pop()
        found.append(unit)
        pending.extend(unit.children)
    return found


def test_the_walks_keep_only_what_their_outputs_report() -> None:
    validator = schemacore.compile(SCHEMA)
    for instance in (VALID, INVALID):
        every = _units(validator._walk(instance, "every"))
        results = _units(validator._walk(instance, "results"))
        # No passing keyword that reports nothing, and fewer units than the tree.
        assert not [
            u
            for u in results
            if u.keyword is not None and u.valid and not u.has_annotation and not u.children
        ]
        assert len(results) < len(every)
    annotated = _units(validator._walk(VALID, "annotations"))
    # Only passing units, each holding or leading to an annotation.
    assert all(u.valid and (u.has_annotation or u.children) for u in annotated[1:])
    assert len(annotated) < len(results)


def test_a_records_document_keeps_units_in_proportion_to_its_output() -> None:
    schema, records, bad, _ = workloads._record_docs(60, "lazy")
    validator = schemacore.compile(schema)
    document = workloads._doc(records)
    every = len(_units(validator._walk(document, "every")))
    results = len(_units(validator._walk(document, "results")))
    annotated = len(_units(validator._walk(document, "annotations")))
    # The walks keep units in proportion to their output, the whole tree does not.
    evaluation = validator.evaluate(document)
    assert annotated < 3 * len(evaluation.annotations)
    assert results < 2 * len(evaluation.output("list")["details"])
    assert every > 2 * results
    for instance in (document, workloads._doc(workloads._sprinkle(records, bad, 10))):
        check_agreement(validator, instance)


def test_the_instance_is_read_when_a_part_is_asked() -> None:
    validator = schemacore.compile(SCHEMA)
    instance: dict[str, Any] = dict(VALID)
    evaluation = validator.evaluate(instance)
    instance["age"] = -1  # documented: leave the instance unchanged meanwhile
    assert evaluation.valid is True  # worked out by evaluate()
    # Worked out now, from the changed instance.
    assert evaluation.output("list")["details"][0]["valid"] is False


def test_each_part_starts_from_a_fresh_call_state() -> None:
    # A schema whose is_valid remembers answers within a call (a cycle fanning
    # out): evaluations made first and read later, with other calls between, answer
    # for their own instance.
    schema = {
        "type": ["array", "integer"],
        "anyOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}, "minItems": 1}],
    }
    validator = schemacore.compile(schema, limits=Limits(max_inplace_applications=10**6))
    first: Any = [[[[]]]]
    second: Any = [[[["x"]]], 1]
    evaluations = [validator.evaluate(first), validator.evaluate(second)]
    assert not validator.is_valid(second) and not list(validator.iter_errors(first))
    for evaluation, instance in zip(evaluations, (first, second), strict=True):
        assert evaluation.output("list") == validator.evaluate(instance).output("list")
    for instance in (first, second, [1, [2, [3]]]):
        check_agreement(validator, instance)


def test_a_time_budget_holds_for_each_walk() -> None:
    validator = schemacore.compile(SCHEMA, limits=Limits(time_budget=5.0))
    check_agreement(validator, VALID)
    check_agreement(validator, INVALID)


def test_an_invalid_basic_streams_its_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    validator = schemacore.compile({"items": {"type": "string"}})
    yielded: list[int] = []
    real = schemacore.Validator.iter_errors

    def counted(self: schemacore.Validator, instance: Any) -> Iterator[ValidationError]:
        for error in real(self, instance):
            yielded.append(1)
            yield error

    monkeypatch.setattr(schemacore.Validator, "iter_errors", counted)
    pieces = validator.evaluate(list(range(5))).iter_json("basic")
    assert next(pieces).endswith('"errors": [')
    assert '"/0"' in next(pieces) and len(yielded) == 1  # the first error, alone
    assert "".join(pieces).endswith("]}") and len(yielded) == 5


def test_an_eagerly_made_evaluation_answers_as_before() -> None:
    validator = schemacore.compile(SCHEMA)
    for instance in (VALID, INVALID):
        errors = list(validator.iter_errors(instance))
        eager = Evaluation(not errors, errors, validator._walk(instance, "every"))
        lazy = validator.evaluate(instance)
        for fmt in FORMATS:
            assert eager.output(fmt) == lazy.output(fmt)
            assert "".join(eager.iter_json(fmt)) == json.dumps(lazy.output(fmt))
        assert eager.annotations == lazy.annotations and eager.errors == errors
        # Its tree is shared by every output: none takes it apart.
        assert eager.output("list") == eager.output("list")


def test_a_pickled_evaluation_holds_every_part() -> None:
    validator = schemacore.compile(SCHEMA)
    for instance in (VALID, INVALID):
        lazy = validator.evaluate(instance)
        loaded = pickle.loads(pickle.dumps(lazy))
        assert loaded.valid is lazy.valid and loaded.annotations == lazy.annotations
        assert [e.message for e in loaded.errors] == [e.message for e in lazy.errors]
        for fmt in FORMATS:
            assert loaded.output(fmt) == lazy.output(fmt)


def test_an_unknown_format_is_refused_by_iter_json_too() -> None:
    with pytest.raises(ValueError, match="unknown output format"):
        schemacore.compile({}).evaluate(1).iter_json("yaml")


def test_agreement_on_schemas_written_here() -> None:
    validator = schemacore.compile(SCHEMA)
    for instance in (VALID, INVALID, {}, 5, {"name": "", "contact": {"phone": 1}}):
        check_agreement(validator, instance)
    deep = schemacore.compile({"items": {"$ref": "#"}})
    nested: Any = []
    for _ in range(200):
        nested = [nested]
    check_agreement(deep, nested)  # the nested formats fail alike past the recursion limit
