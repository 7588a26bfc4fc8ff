"""Content vocabulary: ``contentEncoding``, ``contentMediaType``, ``contentSchema``.

These are annotations in Draft 2020-12 unless ``content_assertion=True``. Then a
string must decode with its ``contentEncoding`` (base64, base64url, base32, base16),
the result must parse as its ``contentMediaType`` (``application/json`` and its
``+json`` relatives, as RFC 8259 JSON: ``NaN`` and ``Infinity`` are not), and the
parsed document must match ``contentSchema``. Text this process cannot parse (too
deep for Python, an integer longer than it converts) is an ExecutionFailure. Encodings
and media types schemacore does not know stay annotations. The instance itself is
never changed: decoding works on a copy.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator
from typing import Any

from ..calls import call_errors, call_valid
from ..errors import ExecutionFailure, ValidationError
from ..model import Keyword, SchemaContext, make_error
from ..paths import Path
from ..spec import Reach, Role, Shape, Spec

__all__ = ["CONTENT_ENCODING", "CONTENT_MEDIA_TYPE", "CONTENT_SCHEMA"]


def _b64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)


_URL_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_="


def _b64url(text: str) -> bytes:
    data = text.encode("ascii")
    if data.strip(_URL_ALPHABET):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(data)


DECODERS: dict[str, Callable[[str], bytes]] = {
    "base64": _b64,
    "base64url": _b64url,
    "base32": lambda text: base64.b32decode(text.encode("ascii")),
    "base16": lambda text: base64.b16decode(text.encode("ascii"), casefold=True),
}


def _is_json_media_type(media_type: str) -> bool:
    essence = media_type.split(";", 1)[0].strip().lower()
    return essence == "application/json" or (
        essence.startswith("application/") and essence.endswith("+json")
    )


_UNPARSED = object()


class _NotJSON(ValueError):
    """Text Python's json module reads but RFC 8259 does not allow."""


def _refuse_constant(name: str) -> Any:
    raise _NotJSON(f"{name} is not a JSON number")


def _parse_int(digits: str) -> int:
    try:
        return int(digits)
    except ValueError:
        # Valid JSON, but longer than Python converts (sys.get_int_max_str_digits):
        # a limit of this process, not a property of the instance.
        raise ExecutionFailure(
            f"the content holds an integer of {len(digits.lstrip('-'))} digits, more "
            "than Python converts (sys.get_int_max_str_digits)",
            limit="int_max_str_digits",
        ) from None


def parse_json_text(text: str) -> Any:
    """The document ``text`` holds, under RFC 8259: NaN and Infinity raise ValueError
    (a mismatch); a limit of the parser raises ExecutionFailure (never a mismatch,
    which ``not`` would turn into a pass)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_int=_parse_int)
    except RecursionError:
        raise ExecutionFailure(
            "the content is nested too deeply to parse within Python's recursion limit",
            limit="recursion",
        ) from None


def compile_content(ctx: SchemaContext, value: Any) -> Keyword | None:
    """Compiled once per schema object, by whichever content keyword comes first."""
    if not (ctx.options.content_assertion or ctx.dialect.asserts_content):
        return None
    schema = ctx.schema
    owner = "contentEncoding" if "contentEncoding" in schema else "contentMediaType"
    if owner not in schema or value is not schema[owner]:
        return None  # another content keyword of this object compiles the group
    encoding = schema.get("contentEncoding")
    media_type = schema.get("contentMediaType")
    decode = DECODERS.get(encoding.lower()) if isinstance(encoding, str) else None
    is_json = isinstance(media_type, str) and _is_json_media_type(media_type)
    child = None
    if is_json and "contentSchema" in schema:
        child = ctx.descend(schema["contentSchema"], "contentSchema")
    if decode is None and not is_json:
        return None
    check = call_valid(child) if child is not None else None
    child_errors = call_errors(child) if child is not None else None

    def parse(x: str) -> tuple[str | None, Any]:
        """(failing keyword, parsed document); the document is _UNPARSED when not JSON."""
        data: str | bytes = x
        if decode is not None:
            try:
                data = decode(x)
            except (ValueError, binascii.Error, UnicodeEncodeError):
                return "contentEncoding", _UNPARSED
        if not is_json:
            return None, _UNPARSED
        try:
            text = data.decode("utf-8") if isinstance(data, bytes) else data
            return None, parse_json_text(text)
        except ValueError:  # also UnicodeDecodeError and json.JSONDecodeError
            return "contentMediaType", _UNPARSED

    def valid(x: Any) -> bool:
        failed, document = parse(x)
        if failed is not None:
            return False
        return check is None or document is _UNPARSED or check(document)

    def errors(x: Any, ipath: Path, kpath: Path) -> Iterator[ValidationError]:
        failed, document = parse(x)
        if failed is not None:
            problem = (
                f"the string is not valid {encoding}"
                if failed == "contentEncoding"
                else f"the content is not valid {media_type}"
            )
            yield make_error(
                problem,
                failed,
                x,
                ipath,
                (kpath, failed),
                ctx.location(failed),
                params={failed: encoding if failed == "contentEncoding" else media_type},
            )
        elif child_errors is not None and document is not _UNPARSED:
            yield from child_errors(document, ipath, (kpath, "contentSchema"))

    return Keyword(owner, "string", valid, errors, cost=90)


CONTENT_ENCODING = Spec("contentEncoding", compile_content, Role.ANNOTATION, "string")
CONTENT_MEDIA_TYPE = Spec("contentMediaType", compile_content, Role.ANNOTATION, "string")
# Applied by the content keyword group it belongs to.
CONTENT_SCHEMA = Spec(
    "contentSchema",
    None,
    Role.ANNOTATION,
    "string",
    Shape.ONE,
    Reach.CONTENT,
    part_of="contentMediaType",
)
