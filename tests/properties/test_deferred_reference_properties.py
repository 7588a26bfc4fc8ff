"""A reference to nothing at a random place of a generated schema, compiled with
``defer_unresolved=True``.

Every way to ask about an instance (closures, generated code, iter_errors, validate,
evaluate and each output format, a pickled copy, schemacore.compat) either answers
or raises ExecutionFailure with reason ``unresolvable-reference``. The answers agree
with each other, and with the verdicts of the same schema holding ``true`` and
``false`` where the reference is: an answer is only given when no target of the
reference could have changed it (so it is never counted as valid, nor made a
failing branch). When those two verdicts differ, every way raises.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import event, given, note
from hypothesis import strategies as st

import schemacore
from schemacore import ExecutionFailure
from schemacore.compat import Draft202012Validator
from schemacore.display import show
from schemacore.output import FORMATS

from .profiles import PROFILE
from .strategies import documents, instances_for

# References that name nothing, each in another way.
NOTHING = [
    "https://absent.example/step.json",
    "https://absent.example/step.json#/$defs/x",
    "#/$defs/absent",
    "#/$defs/absent/items",
    "#absent",
]

# Where a subschema sits, by keyword shape (Draft 2020-12).
_ONE = {
    "additionalProperties", "propertyNames", "items", "contains", "unevaluatedItems",
    "unevaluatedProperties", "not", "if", "then", "else",
}  # fmt: skip
_MAP = {"properties", "patternProperties", "dependentSchemas", "$defs"}
_LIST = {"prefixItems", "allOf", "anyOf", "oneOf"}

Tokens = tuple[str | int, ...]


def positions(schema: Any, at: Tokens = ()) -> Iterator[Tokens]:
    """Every place of ``schema`` that holds a subschema, itself included."""
    yield at
    if not isinstance(schema, dict):
        return
    for keyword, value in schema.items():
        if keyword in _ONE:
            yield from positions(value, (*at, keyword))
        elif keyword in _MAP and isinstance(value, dict):
            for name, member in value.items():
                yield from positions(member, (*at, keyword, name))
        elif keyword in _LIST and isinstance(value, list):
            for index, item in enumerate(value):
                yield from positions(item, (*at, keyword, index))


def replaced(schema: Any, at: Tokens, value: Any) -> Any:
    """A copy of ``schema`` with ``value`` at ``at``."""
    if not at:
        return value
    result = copy.deepcopy(schema)
    parent = result
    for token in at[:-1]:
        parent = parent[token]
    parent[at[-1]] = value
    return result


@st.composite
def with_reference_to_nothing(draw: st.DrawFn) -> tuple[Any, Tokens, Any, Any]:
    """(schema with a reference to nothing, where it is, the schema with ``true``
    there, the schema with ``false`` there)."""
    schema = draw(documents())
    at = draw(st.sampled_from(list(positions(schema))))
    reference = {"$ref": draw(st.sampled_from(NOTHING))}
    return (
        replaced(schema, at, reference),
        at,
        replaced(schema, at, True),
        replaced(schema, at, False),
    )


# -- the ways to ask ------------------------------------------------------------------

Ask = Callable[[Any], bool]


def _validated(validator: Any) -> Ask:
    def ask(instance: Any) -> bool:
        try:
            validator.validate(instance)
        except schemacore.ValidationError:
            return False
        return True

    return ask


def _output(validator: schemacore.Validator, fmt: str) -> Ask:
    def ask(instance: Any) -> bool:
        verdict = validator.evaluate(instance).output(fmt)["valid"]
        assert isinstance(verdict, bool)
        return verdict

    return ask


def ways(schema: Any) -> dict[str, Ask]:
    """Each way to ask about an instance, on validators compiled for it (one stays
    on closures, one is promoted to generated code at once)."""
    closures = schemacore.compile(schema, defer_unresolved=True)
    generated = schemacore.compile(schema, defer_unresolved=True)
    generated._promote()
    pickled = pickle.loads(pickle.dumps(closures))
    compat = Draft202012Validator(schema, defer_unresolved=True)
    found: dict[str, Ask] = {
        "closures": closures.is_valid,
        "generated": generated.is_valid,
        "iter_errors": lambda instance: not list(closures.iter_errors(instance)),
        "validate": _validated(closures),
        "evaluate": lambda instance: closures.evaluate(instance).valid,
        "pickled": pickled.is_valid,
        "compat": compat.is_valid,
        "compat_iter_errors": lambda instance: not list(compat.iter_errors(instance)),
        "compat_validate": _validated(compat),
    }
    for fmt in FORMATS:
        found[f"output_{fmt}"] = _output(closures, fmt)
    return found


def shown(value: Any) -> str:
    return show(value, 100_000)


@PROFILE
@given(with_reference_to_nothing(), st.data())
def test_every_way_agrees_or_fails_closed(
    case: tuple[Any, Tokens, Any, Any], data: st.DataObject
) -> None:
    schema, at, with_true, with_false = case
    note(f"schema: {shown(schema)} (the reference at {at})")
    # Nothing but the reference differs: the schema compiles, strictly only with
    # true or false in its place (or when nothing compiles the reference).
    validator = schemacore.compile(schema, defer_unresolved=True)
    deferred = validator.deferred_references
    for record in deferred:
        assert record.schema_location.endswith("/$ref")
    locations = {record.schema_location for record in deferred}
    accepting = schemacore.compile(with_true)
    rejecting = schemacore.compile(with_false)
    asked = ways(schema)
    raised = False
    for instance in data.draw(instances_for(schema)):
        note(f"instance: {shown(instance)}")
        if_true, if_false = accepting.is_valid(instance), rejecting.is_valid(instance)
        verdicts: dict[str, bool] = {}
        for name, ask in asked.items():
            try:
                verdicts[name] = ask(instance)
            except ExecutionFailure as failure:
                # Only the reference may stop a call, and only one that was compiled.
                assert failure.reason == "unresolvable-reference", (name, failure)
                assert failure.limit is None
                assert failure.schema_location in locations, (name, failure)
                raised = True
        note(f"verdicts: {verdicts}; with true: {if_true}, with false: {if_false}")
        # An answer is one no target of the reference could change.
        for name, verdict in verdicts.items():
            assert verdict == if_true == if_false, name
        if if_true != if_false:
            assert not verdicts
        event("every way answered" if len(verdicts) == len(asked) else "some way raised")
    if raised:
        assert deferred
