"""What of python-jsonschema's own tests is out of schemacore.compat's scope, and why.

Read by ``upstream_plugin`` (which deselects it) and by ``test_upstream_suite``
(which checks that docs/migration.md states each reason and count). Importing this
module changes nothing: the name swap lives in ``upstream_plugin``.
"""

from __future__ import annotations

from dataclasses import dataclass

# The tests run message-neutral (patterns as in RULES): their assertions on
# python-jsonschema's wording accept any message, every other one stays.
MESSAGE_NEUTRAL = ("test_validators.py::TestValidationErrorDetails::*",)


# -- the scope --------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """Tests deselected for one reason, and the line of docs/migration.md giving it."""

    reason: str
    docs: str  # words of the docs/migration.md line the reason rests on
    patterns: tuple[str, ...]  # fnmatch patterns over "file.py::Class::test"


_EVERY_CLASS = "TestDraft*Validator"

# First match wins: a test is counted under one reason only.
RULES: tuple[Rule, ...] = (
    Rule(
        "Draft 3",
        "`Draft3Validator` | does not exist",
        (
            "test_validators.py::TestDraft3Validator::*",
            "test_validators.py::TestValidatorFor::test_draft_3",
            "test_validators.py::TestValidate::test_draft3_validator_is_chosen",
            "test_validators.py::TestValidationErrorMessages::test_*draft3",
            # These error-detail tests validate with Draft3Validator.
            "test_validators.py::TestValidationErrorDetails::test_type",
            "test_validators.py::TestValidationErrorDetails::test_single_nesting",
            "test_validators.py::TestValidationErrorDetails::test_multiple_nesting",
            "test_validators.py::TestValidationErrorDetails::test_additionalProperties",
            "test_validators.py::TestValidationErrorDetails::test_patternProperties",
            "test_validators.py::TestValidationErrorDetails::test_additionalItems",
            "test_validators.py::TestValidationErrorDetails::test_additionalItems_with_items",
        ),
    ),
    Rule(
        "message wording",
        "Messages are schemacore's own wording",
        (
            "test_validators.py::TestValidationErrorMessages::*",
            # "True is not of type" in str(error): the check itself passes.
            "test_validators.py::TestDraft4Validator::test_True_is_not_a_schema",
            "test_validators.py::TestDraft4Validator::test_False_is_not_a_schema",
            "test_validators.py::TestValidatorFor::test_warns_if_meta_schema_specified_was_not_found",
            # "12 is less than the minimum of 20" in str(error).
            "test_validators.py::TestValidate::test_it_uses_best_match",
            # str(), repr() and args of an error made by user code (all but
            # test_unset_error: the message alone when a field is unset, as compat does).
            "test_exceptions.py::TestErrorInitReprStr::test_[!u]*",
            "test_exceptions.py::TestErrorInitReprStr::test_uses_pprint",
            # "'foobar' is unknown to this type checker" in str(error).
            "test_types.py::TestTypeChecker::test_is_unknown_type",
        ),
    ),
    Rule(
        "RefResolver",
        "`resolver=` (a `RefResolver`) is refused with a `TypeError`",
        (
            "test_validators.py::TestRefResolver::*",
            f"test_validators.py::{_EVERY_CLASS}::test_it_creates_a_ref_resolver_if_not_provided",
            f"test_validators.py::{_EVERY_CLASS}::test_it_upconverts_from_*",
            "test_validators.py::TestLatestValidator::test_ref_resolvers_may_have_boolean_*",
            "test_validators.py::TestValidationErrorDetails::test_ref",
            # Builds the expected validator with the private `_resolver=` and compares
            # python-jsonschema's attrs equality.
            f"test_validators.py::{_EVERY_CLASS}::test_evolve",
        ),
    ),
    Rule(
        "type redefinition",
        "types are fixed (JSON's, as the class's draft counts them); "
        "`TypeChecker.redefine` does not exist",
        (
            f"test_validators.py::{_EVERY_CLASS}::test_it_can_validate_with_decimals",
            f"test_validators.py::{_EVERY_CLASS}::test_non_string_custom_type",
            f"test_validators.py::{_EVERY_CLASS}::test_it_properly_formats_tuples_in_errors",
            f"test_validators.py::{_EVERY_CLASS}::test_check_redefined_sequence",
            "test_types.py::TestTypeChecker::*",
            "test_types.py::TestCustomTypes::test_simple_type_can_be_extended",
            "test_types.py::TestCustomTypes::test_object_*",
        ),
    ),
    Rule(
        "deprecated APIs",
        "python-jsonschema's deprecated APIs",
        (
            "test_deprecations.py::*",
            "test_format.py::TestFormatChecker::test_it_can_register_cls_checkers",
            # Subclassing a validator class (deprecated there, with a warning).
            f"test_validators.py::{_EVERY_CLASS}::test_evolve_with_subclass",
        ),
    ),
    Rule(
        "create",
        "`jsonschema.validators.create` | does not exist",
        (
            # Every test of the class but the one extending a compat class.
            "test_validators.py::TestCreateAndExtend::test_[!e]*",
            "test_validators.py::TestCreateAndExtend::test_extend",
            "test_validators.py::TestCreateAndExtend::test_extend_idof",
            "test_validators.py::TestValidatorFor::test_custom_validator*",
        ),
    ),
    Rule(
        "best_match's rule",
        "best_match's rule",
        (
            # Where the two rules pick different errors. The other TestBestMatch tests
            # run: both rules pick the same error there.
            "test_exceptions.py::TestBestMatch::test_shallower_errors_are_better_matches",
            "test_exceptions.py::TestBestMatch::test_if_the_most_relevant_error_is_allOf_*",
            "test_exceptions.py::TestBestMatch::test_no_*_traversal_for_equally_relevant_errors",
            # relevance is schemacore's key (the deepest error first).
            "test_exceptions.py::TestByRelevance::test_short_paths_are_better_matches",
            "test_exceptions.py::TestByRelevance::test_global_errors_are_even_better_matches",
            # by_relevance(weak=, strong=) makes best_match(key=)'s key.
            "test_exceptions.py::TestByRelevance::test_*_keywords_are_*_priority",
        ),
    ),
    Rule(
        "error causes",
        "`error.cause` is `None`",
        (
            f"test_validators.py::{_EVERY_CLASS}::test_it_validates_formats_if_a_checker_is_*",
            "test_format.py::TestFormatChecker::test_format_error_causes_become_*",
        ),
    ),
    Rule(
        "minContains/maxContains location",
        "`minContains` / `maxContains` failures are located at their own keyword",
        (
            "test_validators.py::TestValidationErrorDetails::test_contains_too_many",
            "test_validators.py::TestValidationErrorDetails::test_contains_too_few",
            # No item matches: python-jsonschema blames contains, schemacore minContains.
            "test_validators.py::TestValidationErrorDetails::test_contains_none",
        ),
    ),
    Rule(
        "error order",
        "errors come in the engine's order, not in the schema's key order",
        (
            # Expects the $ref's error before its sibling's (the schema's key order).
            "test_validators.py::TestValidationErrorDetails::test_ref_sibling",
        ),
    ),
    Rule(
        "values outside the JSON data model",
        "Values outside the JSON data model",
        (
            # A schema keyed by object() and an instance that is an object().
            f"test_validators.py::{_EVERY_CLASS}::test_non_existent_properties_are_ignored",
        ),
    ),
    Rule(
        "unresolvable references",
        'a reference nothing provides is a `schemacore.SchemaError` ("cannot resolve '
        'reference ...")',
        (
            # Expects referencing.exceptions.Unresolvable.
            "test_validators.py::TestReferencing::test_custom_registries_do_not_autoretrieve_*",
        ),
    ),
    Rule(
        "the jsonschema command line",
        "the `jsonschema` command line",
        ("test_cli.py::*",),
    ),
)
