"""ECMA-262 regular expressions, translated for the ``regex`` package.

JSON Schema patterns are ECMA-262 regular expressions (with Unicode code point
semantics, as with the ``u`` flag), and Python's dialect differs in ways that
change answers: ``$`` also matches before a final newline, ``\\d`` and ``\\w``
match non-ASCII digits and letters, ``\\s`` is another set of characters, ``.``
lets U+2028 through, and ``\\a`` or ``(?P<n>...)`` mean something where ECMA-262
has an error. A small tokenizer rewrites each construct instead of patching the
source text with replacements (a ``$`` inside ``[...]`` is a plain character).

Compiled patterns are cached by source. Matching runs with a time limit when one
is given, and running out of time raises :class:`~schemacore.errors.ExecutionFailure`
rather than answering "no match".
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import regex

from .errors import ExecutionFailure

__all__ = ["SHORT", "PatternError", "compile_pattern", "is_valid_pattern", "translate"]


class PatternError(ValueError):
    """The pattern is not a valid ECMA-262 regular expression."""


# ECMA-262 WhiteSpace and LineTerminator code points: what \s matches.
_SPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_LINE_TERMINATORS = "\n\r\u2028\u2029"
_MAX = 0x10FFFF


def _hex(cp: int) -> str:
    return f"\\U{cp:08x}"


def _ranges(codepoints: str) -> list[tuple[int, int]]:
    points = sorted({ord(c) for c in codepoints})
    out: list[tuple[int, int]] = []
    for cp in points:
        if out and out[-1][1] == cp - 1:
            out[-1] = (out[-1][0], cp)
        else:
            out.append((cp, cp))
    return out


def _class_body(ranges: list[tuple[int, int]]) -> str:
    return "".join(_hex(a) if a == b else f"{_hex(a)}-{_hex(b)}" for a, b in ranges)


def _complement(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    start = 0
    for a, b in ranges:
        if a > start:
            out.append((start, a - 1))
        start = b + 1
    if start <= _MAX:
        out.append((start, _MAX))
    return out


_DIGIT = "0123456789"
_WORD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
# Class bodies (without brackets) for \d \D \w \W \s \S, ASCII as ECMA-262 says.
_CLASS_ESCAPES = {
    "d": "0-9",
    "D": _class_body(_complement(_ranges(_DIGIT))),
    "w": "A-Za-z0-9_",
    "W": _class_body(_complement(_ranges(_WORD))),
    "s": _class_body(_ranges(_SPACE)),
    "S": _class_body(_complement(_ranges(_SPACE))),
}
_DOT = "[^" + _class_body(_ranges(_LINE_TERMINATORS)) + "]"
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
# In u-mode an identity escape may only escape a syntax character or "/" ("-" too,
# inside a class): "\\@" or "\\é" is an error, not the character.
_IDENTITY = _SYNTAX
_CLASS_IDENTITY = _SYNTAX | {"-"}
# DecimalDigit is ASCII only: str.isdigit() would take "\u0660" or "\u00b2" for one.
_ASCII_DIGITS = frozenset("0123456789")


class _Translator:
    """One pass over an ECMA-262 pattern, emitting the ``regex`` equivalent."""

    def __init__(self, source: str) -> None:
        self.src = source
        self.pos = 0
        self.out: list[str] = []
        self.group_names: list[str] = []
        self.groups = 0
        self.backrefs: list[int] = []
        self.named_refs: list[str] = []
        # The groups open at the current position: (kind, number or 0, name or "").
        # kind is "(" for a capturing group, ":" non-capturing, "=" "!" lookahead,
        # "<=" "<!" lookbehind.
        self.open: list[tuple[str, int, str]] = []
        # What can make a backtracking match slow: a quantified group, two or more
        # unbounded quantifiers, back references.
        self.quantified_groups = 0
        # Groups made optional by "?": each at most doubles the ways to match, so a
        # few of them keep a short match short.
        self.optional_groups = 0
        self.unbounded = 0
        self.last_was_group = False

    @property
    def risky(self) -> bool:
        """Whether a match may take exponential (or high polynomial) time."""
        return bool(
            self.quantified_groups
            or self.optional_groups > 2
            or self.unbounded > 3
            or self.backrefs
            or self.named_refs
        )

    @property
    def safe_below(self) -> int:
        """Length under which a match cannot take long (k unbounded quantifiers can
        backtrack about n**k steps), so no timer need be armed: 0 for risky patterns."""
        if self.risky:
            return 0
        return SHORT if self.unbounded <= 2 else SHORT // 4

    def error(self, message: str) -> PatternError:
        return PatternError(f"invalid ECMA-262 regular expression {self.src!r}: {message}")

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.src[index] if index < len(self.src) else ""

    def translate(self) -> str:
        src = self.src
        after_atom = False  # whether a quantifier may follow
        while self.pos < len(src):
            c = src[self.pos]
            closing = c == ")"
            if c == "\\":
                after_atom = self.escape()
            elif c == "[":
                self.char_class()
                after_atom = True
            elif c == "(":
                self.group_open()
                after_atom = False
            elif c == ")":
                if not self.open:
                    raise self.error(f"unmatched ')' at position {self.pos}")
                kind = self.open.pop()[0]
                self.out.append(")")
                self.pos += 1
                # In u-mode a lookaround cannot be quantified.
                after_atom = kind in ("(", ":")
            elif c in "*+?":
                if not after_atom:
                    raise self.error(f"nothing to repeat at position {self.pos}")
                if c == "?":
                    self.optional_groups += self.last_was_group
                else:
                    self.quantified_groups += self.last_was_group
                    self.unbounded += 1
                self.out.append(c)
                self.pos += 1
                self.lazy_suffix()
                after_atom = False
            elif c == "{":
                end = self.quantifier_end()
                if end is None:
                    raise self.error(f"lone '{{' at position {self.pos}")
                if not after_atom:
                    raise self.error(f"nothing to repeat at position {self.pos}")
                self.quantified_groups += self.last_was_group
                self.unbounded += src[end - 2] == ","
                self.out.append(src[self.pos : end])
                self.pos = end
                self.lazy_suffix()
                after_atom = False
            elif c in "}]":
                raise self.error(f"lone {c!r} at position {self.pos}")
            elif c == ".":
                self.out.append(_DOT)
                self.pos += 1
                after_atom = True
            elif c == "$":
                self.out.append("\\Z")  # the end of input, never before a final "\n"
                self.pos += 1
                after_atom = False
            elif c == "^":
                self.out.append("^")
                self.pos += 1
                after_atom = False
            elif c == "|":
                self.out.append("|")
                self.pos += 1
                after_atom = False
            else:
                self.out.append(regex.escape(c))
                self.pos += 1
                after_atom = True
            self.last_was_group = closing
        if self.open:
            raise self.error("missing ')'")
        for number in self.backrefs:
            if number > self.groups:
                raise self.error(f"back reference \\{number} names no group")
        for name in self.named_refs:
            if name not in self.group_names:
                raise self.error(f"back reference \\k<{name}> names no group")
        return "".join(self.out)

    def lazy_suffix(self) -> None:
        if self.peek() == "?":
            self.out.append("?")
            self.pos += 1
        if self.peek() in ("*", "+", "?", "{") and (
            self.peek() != "{" or self.quantifier_end() is not None
        ):
            # ECMA-262 has no possessive quantifiers; "a*+" is an error there.
            raise self.error(f"nothing to repeat at position {self.pos}")

    def quantifier_end(self) -> int | None:
        match = regex.compile(r"\{([0-9]+)(,([0-9]*))?\}").match(self.src, self.pos)
        if match is None:
            return None
        low = int(match.group(1))
        high = match.group(3)
        if high and int(high) < low:
            raise self.error(f"numbers out of order in quantifier at position {self.pos}")
        return int(match.end())

    def group_open(self) -> None:
        src, pos = self.src, self.pos
        if src.startswith("(?:", pos) or src.startswith("(?=", pos) or src.startswith("(?!", pos):
            self.open.append((src[pos + 2], 0, ""))
            self.out.append(src[pos : pos + 3])
            self.pos += 3
        elif src.startswith("(?<=", pos) or src.startswith("(?<!", pos):
            self.open.append((src[pos + 2 : pos + 4], 0, ""))
            self.out.append(src[pos : pos + 4])
            self.pos += 4
        elif src.startswith("(?<", pos):
            end = src.find(">", pos + 3)
            name = src[pos + 3 : end] if end != -1 else ""
            if not name or not regex.fullmatch(r"[^\W\d]\w*", name):
                raise self.error(f"bad group name at position {pos}")
            if name in self.group_names:
                raise self.error(f"duplicate group name {name!r}")
            self.group_names.append(name)
            self.groups += 1
            self.open.append(("(", self.groups, name))
            self.out.append(f"(?P<{name}>")
            self.pos = end + 1
        elif src.startswith("(?", pos):
            # (?P<n>, (?i), (?#...), (?>...) and the rest are Python-only syntax.
            raise self.error(f"unsupported group syntax at position {pos}")
        else:
            self.groups += 1
            self.open.append(("(", self.groups, ""))
            self.out.append("(")
            self.pos += 1

    def code_point_escape(self) -> int | None:
        """Parse \\uXXXX, \\u{X...}, \\xHH, \\cX, \\0 and control escapes at pos+1."""
        src = self.src
        c = self.peek(1)
        if c == "u":
            if self.peek(2) == "{":
                end = src.find("}", self.pos + 3)
                digits = src[self.pos + 3 : end] if end != -1 else ""
                if not regex.fullmatch(r"[0-9A-Fa-f]+", digits) or int(digits, 16) > _MAX:
                    raise self.error(f"bad \\u{{...}} escape at position {self.pos}")
                self.pos = end + 1
                return int(digits, 16)
            digits = src[self.pos + 2 : self.pos + 6]
            if not regex.fullmatch(r"[0-9A-Fa-f]{4}", digits):
                raise self.error(f"bad \\u escape at position {self.pos}")
            self.pos += 6
            cp = int(digits, 16)
            # A surrogate pair written as two escapes is one code point.
            if 0xD800 <= cp <= 0xDBFF and src.startswith("\\u", self.pos):
                low = src[self.pos + 2 : self.pos + 6]
                if regex.fullmatch(r"[0-9A-Fa-f]{4}", low) and 0xDC00 <= int(low, 16) <= 0xDFFF:
                    self.pos += 6
                    return 0x10000 + ((cp - 0xD800) << 10) + (int(low, 16) - 0xDC00)
            return cp
        if c == "x":
            digits = src[self.pos + 2 : self.pos + 4]
            if not regex.fullmatch(r"[0-9A-Fa-f]{2}", digits):
                raise self.error(f"bad \\x escape at position {self.pos}")
            self.pos += 4
            return int(digits, 16)
        if c == "c":
            letter = self.peek(2)
            if not ("a" <= letter <= "z" or "A" <= letter <= "Z"):
                raise self.error(f"bad \\c escape at position {self.pos}")
            self.pos += 3
            return ord(letter) % 32
        if c == "0" and self.peek(2) not in _ASCII_DIGITS:
            self.pos += 2
            return 0
        if c in _CONTROL_ESCAPES:
            self.pos += 2
            return _CONTROL_ESCAPES[c]
        return None

    def property_escape(self) -> str | None:
        c = self.peek(1)
        if c not in ("p", "P"):
            return None
        end = self.src.find("}", self.pos)
        if self.peek(2) != "{" or end == -1:
            raise self.error(f"bad \\{c} escape at position {self.pos}")
        body = self.src[self.pos + 3 : end]
        if not regex.fullmatch(r"[A-Za-z_]+(=[A-Za-z0-9_]+)?", body):
            raise self.error(f"bad Unicode property {body!r}")
        text = f"\\{c}{{{body}}}"
        try:
            regex.compile(text)
        except regex.error:
            raise self.error(f"unknown Unicode property {body!r}") from None
        self.pos = end + 1
        return text

    def escape(self) -> bool:
        """Translate an escape outside a class; return whether it is an atom."""
        c = self.peek(1)
        if c == "":
            raise self.error("trailing backslash")
        if c in "bB":
            # Word boundaries between ASCII word characters only, as in ECMA-262.
            self.out.append(f"(?a:\\{c})")
            self.pos += 2
            return False
        if c in _CLASS_ESCAPES:
            self.out.append(f"[{_CLASS_ESCAPES[c]}]")
            self.pos += 2
            return True
        if c == "k":
            end = self.src.find(">", self.pos)
            if self.peek(2) != "<" or end == -1:
                raise self.error(f"bad \\k escape at position {self.pos}")
            name = self.src[self.pos + 3 : end]
            self.named_refs.append(name)
            defined = name in self.group_names
            self.out.append(self.backreference(name, defined, f"(?P={name})"))
            self.pos = end + 1
            return True
        if "1" <= c <= "9":
            end = self.pos + 2
            while end < len(self.src) and self.src[end] in _ASCII_DIGITS:
                end += 1
            digits = self.src[self.pos + 1 : end]
            number = int(digits)
            self.backrefs.append(number)
            defined = number <= self.groups
            self.out.append(self.backreference(number, defined, f"\\{digits}"))
            self.pos = end
            return True
        prop = self.property_escape()
        if prop is not None:
            self.out.append(prop)
            return True
        cp = self.code_point_escape()
        if cp is not None:
            self.out.append(_hex(cp))
            return True
        if c in _IDENTITY:
            self.out.append(regex.escape(c))
            self.pos += 2
            return True
        raise self.error(f"unknown escape \\{c} at position {self.pos}")

    def backreference(self, group: int | str, defined: bool, ref: str) -> str:
        """The translation of a back reference to ``group`` (number or name).

        In ECMA-262 a back reference to a group that has not captured matches the
        empty string, where Python's fails: a group that did not participate, is
        still open (``(a\\1)``), or comes later (``\\1(a)``, outside lookbehinds,
        which match right to left).
        """
        behind = any(kind in ("<=", "<!") for kind, _, _ in self.open)
        if any(group in (number, name) for kind, number, name in self.open if kind == "("):
            return "(?:)"  # a group still open has not captured yet
        if not defined and not behind:
            return "(?:)"  # a later group has not captured yet
        return f"(?({group}){ref})"

    def class_atom(self) -> tuple[str, int | None]:
        """One class member: (regex text, code point if it is a single character)."""
        c = self.src[self.pos]
        if c != "\\":
            self.pos += 1
            return regex.escape(c) if c in "\\]^-[" or not c.isalnum() else c, ord(c)
        e = self.peek(1)
        if e == "":
            raise self.error("trailing backslash")
        if e in _CLASS_ESCAPES:
            self.pos += 2
            return _CLASS_ESCAPES[e], None
        if e == "b":
            self.pos += 2
            return _hex(8), 8
        if e == "-":
            self.pos += 2
            return "\\-", ord("-")
        prop = self.property_escape()
        if prop is not None:
            return prop, None
        cp = self.code_point_escape()
        if cp is not None:
            return _hex(cp), cp
        if e in _CLASS_IDENTITY:
            self.pos += 2
            return regex.escape(e), ord(e)
        raise self.error(f"unknown escape \\{e} in a class at position {self.pos}")

    def char_class(self) -> None:
        src = self.src
        self.pos += 1
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        if self.peek() == "]":
            self.pos += 1
            # "[]" matches nothing and "[^]" matches any character.
            self.out.append("(?s:.)" if negated else "(?!)")
            return
        parts: list[str] = []
        while True:
            if self.pos >= len(src):
                raise self.error("unterminated character class")
            if src[self.pos] == "]":
                self.pos += 1
                break
            text, low = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                high_text, high = self.class_atom()
                if low is None or high is None:
                    raise self.error("a class escape cannot bound a range")
                if high < low:
                    raise self.error("range out of order in character class")
                parts.append(f"{text}-{high_text}")
            else:
                parts.append(text)
        self.out.append(("[^" if negated else "[") + "".join(parts) + "]")


_CACHE: dict[str, tuple[Any, int, Any]] = {}
_CACHE_SIZE = 4096
# Held to insert into or evict from _CACHE; lookups need no lock.
_CACHE_LOCK = threading.Lock()
# Below this length a pattern with at most two unbounded quantifiers cannot take long
# enough to be worth arming the timer (several times the cost of a short match).
SHORT = 256


def translate(pattern: str) -> str:
    """Translate an ECMA-262 pattern into ``regex`` syntax, or raise PatternError."""
    return _Translator(pattern).translate()


_LITERAL = re.compile(r"(\^?)((?:[^\\^$.|?*+()\[\]{}]|\\[-/.^$|?*+()\[\]{}\\])*)(\$?)")
_NO_LIMIT = 1 << 62


def _literal_search(pattern: str) -> Callable[[str], Any] | None:
    """A str method for a pattern that is a plain string, maybe anchored:
    ``^abc`` is startswith, ``abc$`` endswith, ``^abc$`` equality, ``abc`` ``in``."""
    match = _LITERAL.fullmatch(pattern)
    if match is None:
        return None
    start, body, end = match.groups()
    literal = re.sub(r"\\(.)", r"\1", body)
    if start and end:
        return lambda text: True if text == literal else None
    if start:
        return lambda text: True if text.startswith(literal) else None
    if end:
        return lambda text: True if text.endswith(literal) else None
    return lambda text: True if literal in text else None


# Syntax the standard library's engine reads differently: only regex runs it.
_SLOW_ONLY = ("\\p{", "\\P{", "\\B")


def _build(pattern: str) -> tuple[Any, int, Any]:
    """(``regex`` pattern, the length below which matching is safe without a timer,
    a faster search for those strings or None: a str method for plain strings, the
    stdlib ``re`` engine otherwise)."""
    translator = _Translator(pattern)
    text = translator.translate()
    literal = _literal_search(pattern)
    try:
        compiled = regex.compile(text, cache_pattern=False)
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        # regex's own message counts positions in the translated text: drop them.
        reason = getattr(exc, "msg", None) or type(exc).__name__
        raise PatternError(f"invalid regular expression {pattern!r}: {reason}") from None
    if literal is not None:
        return compiled, _NO_LIMIT, literal
    fast = None
    # Python's re never finds \B in an empty string, where ECMA-262 (and regex) do.
    if translator.safe_below and not any(part in text for part in _SLOW_ONLY):
        # The translation uses only syntax both engines read alike; the standard
        # library's engine matches short strings several times faster, and without
        # risky constructs it cannot backtrack badly on them.
        try:
            fast = re.compile(text).search
        except (re.error, ValueError, OverflowError, RecursionError):
            fast = None
    return compiled, translator.safe_below, fast


def _compiled(pattern: str) -> tuple[Any, int, Any]:
    entry = _CACHE.get(pattern)
    if entry is None:
        entry = _build(pattern)  # outside the lock: compiling can take a while
        with _CACHE_LOCK:
            # Threads compiling at once would otherwise pick the same oldest entry
            # and the second deletion raise KeyError (or iterate a changing dict).
            raced = _CACHE.get(pattern)
            if raced is not None:
                return raced
            while len(_CACHE) >= _CACHE_SIZE:
                # Schemas' patterns are few; evict the oldest rather than grow forever.
                del _CACHE[next(iter(_CACHE))]
            _CACHE[pattern] = entry
    return entry


def is_valid_pattern(pattern: str) -> bool:
    """Whether ``pattern`` is an ECMA-262 regular expression schemacore can run.

    Not cached: the ``regex`` format checks instance strings, which are unbounded.
    """
    try:
        _build(pattern)
    except PatternError:
        return False
    return True


def compile_pattern(
    pattern: str,
    timeout: float | None = None,
    max_input: int | None = None,
    where: str = "",
) -> Callable[[str], Any]:
    """Return a ``search`` function for ``pattern``: truthy when it matches anywhere.

    With ``timeout`` (seconds), a match that runs longer raises ExecutionFailure; it
    is armed for every match of a pattern with nested or repeated unbounded
    quantifiers or back references, and for long inputs otherwise. With
    ``max_input``, a longer string raises ExecutionFailure before any matching.
    ``where`` (the schema location of the keyword) locates those failures.
    """
    compiled, armed_from, fast = _compiled(pattern)
    search = compiled.search
    if timeout is None and max_input is None:
        return search  # type: ignore[no-any-return]
    longest = max_input if max_input is not None else float("inf")

    def guarded_search(text: str) -> Any:
        size = len(text)
        if size < armed_from and fast is not None and size <= longest:
            return fast(text)
        if size > longest:
            raise ExecutionFailure(
                f"a string of {size} characters is longer than max_pattern_input={max_input}",
                schema_location=where,
                limit="max_pattern_input",
                value=max_input,
            )
        if timeout is None or size < armed_from:
            return search(text)
        try:
            return search(text, timeout=timeout)
        except TimeoutError:
            raise ExecutionFailure(
                f"the pattern {pattern!r} ran longer than regex_timeout={timeout} s",
                schema_location=where,
                limit="regex_timeout",
                value=timeout,
            ) from None

    # Generated code tests short strings with the fast search itself (no call to
    # this wrapper); strings of SHORT characters or more always come here.
    guarded_search.short = fast if armed_from else None  # type: ignore[attr-defined]
    guarded_search.safe_below = armed_from  # type: ignore[attr-defined]
    return guarded_search
