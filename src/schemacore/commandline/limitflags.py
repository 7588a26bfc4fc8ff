"""One command-line flag per :class:`schemacore.Limits` field, made from the dataclass.

``--max-schema-depth`` sets ``max_schema_depth`` and so on: a field added to Limits
gets its flag without a change here. A flag not given leaves the field at its
default (the defaults are meant for untrusted input); a value Limits refuses is a
usage error naming the flag.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import Field, fields
from typing import Any

from ..limits import Limits

__all__ = ["add_limit_arguments", "flag_for", "limits_from"]

_DEST = "limit_"
_NONE = ("none", "off")
_PARSERS: dict[str, Callable[[str], int | float]] = {"int": int, "float": float}


def flag_for(name: str) -> str:
    """The flag of the Limits field ``name``."""
    return "--" + name.replace("_", "-")


def _base_type(field: Field[Any]) -> tuple[str, bool]:
    # Annotations are strings here ("int", "float | None"): the module defining Limits
    # uses postponed evaluation.
    spelled = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", "")
    parts = [part.strip() for part in str(spelled).split("|")]
    optional = "None" in parts
    names = [part for part in parts if part != "None"]
    if len(names) != 1 or names[0] not in _PARSERS:
        raise TypeError(f"no command-line flag for Limits.{field.name} of type {spelled}")
    return names[0], optional


def _descriptions() -> dict[str, str]:
    """First sentence of each field's entry in the Limits docstring."""
    text = Limits.__doc__ or ""
    found: dict[str, str] = {}
    for match in re.finditer(r"^\s+(\w+): (.+?)(?=^\s+\w+: |^\s*$|\Z)", text, re.M | re.S):
        sentence = " ".join(match.group(2).split()).replace("``", "")
        found[match.group(1)] = sentence.split(". ")[0].rstrip(".")
    return found


def _value_parser(field: Field[Any]) -> Callable[[str], Any]:
    base, optional = _base_type(field)
    parse_number = _PARSERS[base]

    def parse(text: str) -> Any:
        if optional and text.strip().lower() in _NONE:
            return None
        try:
            value = parse_number(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of type {base}: {text!r}") from None
        try:
            Limits(**{field.name: value})  # type: ignore[arg-type]  # Limits checks it
        except (TypeError, ValueError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    parse.__name__ = base  # argparse names the type in its messages
    return parse


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """Add a flag for every Limits field to ``parser``."""
    group = parser.add_argument_group(
        "limits", "resource bounds (schemacore.Limits); the defaults are meant for untrusted input"
    )
    descriptions = _descriptions()
    kinds = {field.name: _base_type(field) for field in fields(Limits)}  # fails before use
    defaults = Limits()
    for field in fields(Limits):
        _, optional = kinds[field.name]
        default = getattr(defaults, field.name)
        shown = "none" if default is None else f"{default:,}"
        group.add_argument(
            flag_for(field.name),
            dest=_DEST + field.name,
            type=_value_parser(field),
            default=argparse.SUPPRESS,
            metavar="N" if not optional else "N|none",
            # argparse %-formats help texts.
            help=f"{descriptions.get(field.name, field.name)} (default: {shown})".replace(
                "%", "%%"
            ),
        )


def limits_from(args: argparse.Namespace) -> Limits | None:
    """The Limits the flags ask for, or None when no flag was given."""
    given = {
        field.name: getattr(args, _DEST + field.name)
        for field in fields(Limits)
        if hasattr(args, _DEST + field.name)
    }
    return Limits(**given) if given else None
