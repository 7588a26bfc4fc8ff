"""ECMA-262 regular expressions, translated for the ``regex`` package.

JSON Schema patterns are ECMA-262 regular expressions (with Unicode code point
semantics, as with the ``u`` flag), and Python's dialect differs in ways that
change answers: ``$`` also matches before a final newline, ``\\d`` and ``\\w``
match non-ASCII digits and letters, ``\\s`` is another set of characters, ``.``
lets U+2028 through, and ``\\a`` or ``(?P<n>...)`` mean something where ECMA-262
has an error. A small tokenizer rewrites each construct instead of patching the
source text with replacements (a ``$`` inside ``[...]`` is a plain character).

Back references follow ECMA-262 too (one to a group that has not captured matches
the empty string), and so do its errors in u-mode (``\\@``, ``\\-`` outside a class,
``\\p{lu}``, a quantified lookaround). The one known difference: ECMA-262 forgets the
captures of a repeated group at each repetition, Python's engines keep them.

Compiled patterns are cached by source. Matching runs with a time limit when one
is given, and running out of time raises :class:`~schemacore.errors.ExecutionFailure`
rather than answering "no match". The timer is left off (and the standard library's
faster engine used) only for strings short enough that the pattern's bound on
backtracking stays small (``_Translator.safe_below``). Patterns longer than
``max_length`` characters, a repeated piece counted as often as it must repeat, are
refused before compiling, with ExecutionFailure.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable
from typing import Any

import regex

from .errors import ExecutionFailure
from .limits import Limits

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
    # The shortest escape both engines read: a class of long escapes compiles slower.
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
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
# Class bodies (without brackets) for \d \D \w \W \s \S, ASCII as ECMA-262 says:
# what they add to a class they appear in.
_CLASS_ESCAPES = {
    "d": "0-9",
    "D": _class_body(_complement(_ranges(_DIGIT))),
    "w": "A-Za-z0-9_",
    "W": _class_body(_complement(_ranges(_WORD))),
    "s": _class_body(_ranges(_SPACE)),
    "S": _class_body(_complement(_ranges(_SPACE))),
}
# The same escapes as whole atoms: a negated class is shorter than the complement's
# ranges, and compiles several times faster (a long pattern of \S would otherwise
# take minutes to compile).
_ESCAPE_ATOMS = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": "[A-Za-z0-9_]",
    "W": "[^A-Za-z0-9_]",
    "s": "[" + _CLASS_ESCAPES["s"] + "]",
    "S": "[^" + _CLASS_ESCAPES["s"] + "]",
}
# The bodies that reach U+10FFFF: costly for the standard library's engine.
_COMPLEMENTS = frozenset(_CLASS_ESCAPES[c] for c in "DWS")
_DOT = "[^" + _class_body(_ranges(_LINE_TERMINATORS)) + "]"
_CONTROL_ESCAPES = {"t": 0x09, "n": 0x0A, "v": 0x0B, "f": 0x0C, "r": 0x0D}
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
# In u-mode an identity escape may only escape a syntax character or "/" ("-" too,
# inside a class): "\\@" or "\\é" is an error, not the character.
_IDENTITY = _SYNTAX
_CLASS_IDENTITY = _SYNTAX | {"-"}
# DecimalDigit is ASCII only: str.isdigit() would take "\u0660" or "\u00b2" for one.
_ASCII_DIGITS = frozenset("0123456789")


# Input lengths for which the bound on backtracking is computed, longest first.
_LENGTHS = (256, 128, 64, 32, 16)
_ONE = (1.0,) * len(_LENGTHS)
# Backtracking steps allowed without a timer: about 5 ms of the standard library's
# engine (measured: a*a*b on 255 "a"s, bound 5e7, takes 13 ms).
_STEP_BUDGET = float(1 << 24)
# Repeat counts above this are read as "no upper bound" (no string is that long) and
# refused as a least count (the regex package cannot repeat that often).
_MAX_COUNT = (1 << 31) - 1


# ECMA-262 RegExpIdentifierName, without \u escapes.
_GROUP_NAME = regex.compile(r"[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*")
# What \p{...} may name in ECMA-262 (Unicode property and value aliases).
_CATEGORY_NAMES = frozenset({"General_Category", "gc"})
_SCRIPT_NAMES = frozenset({"Script", "sc", "Script_Extensions", "scx"})
_CANONICAL_NAMES = {"Script_Extensions": "scx", "scx": "scx", "Script": "sc", "sc": "sc"}
# Script values: Title_Case words (Old_Italic) or four-letter codes (Ital).
_SCRIPT_VALUE = regex.compile(r"SignWriting|[A-Z][a-z]+(?:_[A-Z][a-z]*)*")
# fmt: off
_CATEGORIES = frozenset([
    "C", "Other", "Cc", "Control", "cntrl", "Cf", "Format", "Cn", "Unassigned", "Co",
    "Private_Use", "Cs", "Surrogate", "L", "Letter", "LC", "Cased_Letter", "Ll",
    "Lowercase_Letter", "Lm", "Modifier_Letter", "Lo", "Other_Letter", "Lt",
    "Titlecase_Letter", "Lu", "Uppercase_Letter", "M", "Mark", "Combining_Mark", "Mc",
    "Spacing_Mark", "Me", "Enclosing_Mark", "Mn", "Nonspacing_Mark", "N", "Number", "Nd",
    "Decimal_Number", "digit", "Nl", "Letter_Number", "No", "Other_Number", "P",
    "Punctuation", "punct", "Pc", "Connector_Punctuation", "Pd", "Dash_Punctuation", "Pe",
    "Close_Punctuation", "Pf", "Final_Punctuation", "Pi", "Initial_Punctuation", "Po",
    "Other_Punctuation", "Ps", "Open_Punctuation", "S", "Symbol", "Sc", "Currency_Symbol",
    "Sk", "Modifier_Symbol", "Sm", "Math_Symbol", "So", "Other_Symbol", "Z", "Separator",
    "Zl", "Line_Separator", "Zp", "Paragraph_Separator", "Zs", "Space_Separator"
])
# fmt: on
# Binary properties: long names, and the aliases, each read as its long name (regex
# takes some aliases for other properties: IDC for a block, space for POSIX).
_BINARY_LONG = """ASCII Any Assigned Cased Dash Emoji Math Radical ASCII_Hex_Digit:AHex
Alphabetic:Alpha Bidi_Control:Bidi_C Bidi_Mirrored:Bidi_M Case_Ignorable:CI
Changes_When_Casefolded:CWCF Changes_When_Casemapped:CWCM Changes_When_Lowercased:CWL
Changes_When_NFKC_Casefolded:CWKCF Changes_When_Titlecased:CWT Changes_When_Uppercased:CWU
Default_Ignorable_Code_Point:DI Deprecated:Dep Diacritic:Dia Emoji_Component:EComp
Emoji_Modifier:EMod Emoji_Modifier_Base:EBase Emoji_Presentation:EPres
Extended_Pictographic:ExtPict Extender:Ext Grapheme_Base:Gr_Base Grapheme_Extend:Gr_Ext
Hex_Digit:Hex IDS_Binary_Operator:IDSB IDS_Trinary_Operator:IDST ID_Continue:IDC
ID_Start:IDS Ideographic:Ideo Join_Control:Join_C Logical_Order_Exception:LOE
Lowercase:Lower Noncharacter_Code_Point:NChar Pattern_Syntax:Pat_Syn
Pattern_White_Space:Pat_WS Quotation_Mark:QMark Regional_Indicator:RI
Sentence_Terminal:STerm Soft_Dotted:SD Terminal_Punctuation:Term Unified_Ideograph:UIdeo
Uppercase:Upper Variation_Selector:VS White_Space:space XID_Continue:XIDC XID_Start:XIDS"""
_BINARY_PROPERTIES = {
    name: entry.partition(":")[0] for entry in _BINARY_LONG.split() for name in entry.split(":")
}
# Script values with no characters of their own, which ECMA-262 does not accept.
_NO_SCRIPTS = frozenset({"Katakana_Or_Hiragana", "Hrkt"})

_BRACES = regex.compile(r"\{([0-9]+)(,([0-9]*))?\}")


def _count(digits: str) -> int:
    """A decimal count, without int()'s cost (and limit) on thousands of digits."""
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= 10 else _MAX_COUNT + 1


class PatternTooLarge(Exception):
    """Translation stopped: the pattern expands beyond the size allowed."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def _repeat_ways(ways: float, low: int, high: int | None, length: int, single: bool) -> float:
    """Ways to match ``piece{low,high}`` in a string of ``length`` characters when
    the piece alone can match in ``ways`` ways.

    A piece of one character repeats at most ``length`` times; any other piece can
    repeat beyond ``low`` only while each repetition consumes a character (an empty
    repetition ends the loop), so at most ``low + length`` times. A piece with more
    than one way to match, repeated without bound, is not bounded at all.
    """
    top = low + length if high is None else min(high, low + length)
    if single:
        top = min(top, length)
        return float(max(top - min(low, length), 0) + 1)
    if ways <= 1.0:
        return float(top - low + 1)
    if high is None:
        return math.inf
    try:
        return (ways ** (top + 1) - ways**low) / (ways - 1.0)  # sum of ways**k, low..top
    except OverflowError:
        return math.inf


class _Frame:
    """One group (or the whole pattern) while it is translated: a bound on the ways
    a backtracking engine can match it, per length in _LENGTHS, and its size.

    A sequence matches in at most the product of its pieces' ways, alternatives in
    the sum of theirs; a quantifier multiplies its piece's ways (_repeat_ways). The
    bound is crude (it ignores that a piece may fail at once), so it only ever errs
    towards the timer.
    """

    __slots__ = (
        "alternated",
        "alts",
        "alts_size",
        "last",
        "last_single",
        "last_size",
        "seq",
        "seq_size",
    )

    def __init__(self) -> None:
        self.alts: tuple[float, ...] = (0.0,) * len(_LENGTHS)
        self.seq: tuple[float, ...] = _ONE
        self.last: tuple[float, ...] = _ONE
        self.last_single = False
        self.alts_size = 0
        self.seq_size = 0
        self.last_size = 0
        self.alternated = False

    @property
    def size(self) -> int:
        return self.alts_size + self.seq_size + self.last_size

    def commit(self) -> None:
        if self.last is not _ONE:
            self.seq = tuple(a * b for a, b in zip(self.seq, self.last, strict=True))
        self.seq_size += self.last_size
        self.last, self.last_size, self.last_single = _ONE, 0, False

    def push(self, ways: tuple[float, ...], size: int, single: bool) -> None:
        """A new piece (atom, group or assertion): a quantifier applies to it."""
        self.commit()
        self.last, self.last_size, self.last_single = ways, size, single

    def repeat(self, low: int, high: int | None) -> None:
        single = self.last_single
        self.last = tuple(
            _repeat_ways(ways, low, high, length, single)
            for ways, length in zip(self.last, _LENGTHS, strict=True)
        )
        self.last_size *= max(low, 1)
        self.last_single = False

    def alternate(self) -> None:
        self.commit()
        self.alts = tuple(a + b for a, b in zip(self.alts, self.seq, strict=True))
        self.alts_size += self.seq_size
        self.seq, self.seq_size = _ONE, 0
        self.alternated = True

    def total(self) -> tuple[float, ...]:
        self.commit()
        return tuple(a + b for a, b in zip(self.alts, self.seq, strict=True))

    def size_total(self) -> int:
        return self.size


class _Translator:
    """One pass over an ECMA-262 pattern, emitting the ``regex`` equivalent."""

    def __init__(self, source: str, max_size: int | None = None) -> None:
        self.src = source
        self.max_size = max_size if max_size is not None else len(source) + _MAX_COUNT
        self.pos = 0
        self.out: list[str] = []
        # Named groups by name: translated to numbered groups (ECMA-262 names such
        # as "$a" are not Python identifiers), their references to numbers.
        self.names: dict[str, int] = {}
        # References to names not defined yet inside a lookbehind: (index in out,
        # name), resolved once every group is known.
        self.pending_refs: list[tuple[int, str]] = []
        # Open capturing groups by number and name, and open lookbehinds: counted so
        # that a back reference need not walk the stack of open groups.
        self.open_captures: set[int | str] = set()
        self.behind = 0
        self.groups = 0
        self.backrefs: list[int] = []
        self.named_refs: list[str] = []
        # The groups open at the current position: (kind, number or 0, name or "").
        # kind is "(" for a capturing group, ":" non-capturing, "=" "!" lookahead,
        # "<=" "<!" lookbehind.
        self.open: list[tuple[str, int, str]] = []
        # The bound on backtracking (see _Frame), one frame per open group and one
        # for the whole pattern.
        self.frames: list[_Frame] = [_Frame()]
        self.atoms = 0
        # Classes the standard library's engine compiles slowly (ranges beyond
        # Latin-1 are expanded into big bitmaps there, milliseconds each).
        self.heavy_classes = 0

    @property
    def expanded_size(self) -> int:
        """The pattern's size with each repeated piece counted as many times as its
        least repeat count: what the ``regex`` package unrolls while compiling."""
        return self.frames[0].size_total()

    @property
    def safe_below(self) -> int:
        """A length under which no match can take long, so that no timer need be
        armed and the standard library's engine may run: 0 if there is none.

        For each candidate length n the number of ways a backtracking engine can
        match is bounded (see _Frame) and multiplied by the starting positions (1
        when anchored by a leading ``^``) and by the pattern's atoms (the steps of
        one way); the longest n within _STEP_BUDGET wins. Back references are
        never bounded.
        """
        if self.backrefs or self.named_refs:
            return 0
        top = self.frames[0]
        ways = top.total()
        anchored = self.src.startswith("^") and not top.alternated
        for index, length in enumerate(_LENGTHS):
            starts = 1 if anchored else length + 1
            if starts * ways[index] * max(1, self.atoms) <= _STEP_BUDGET:
                return length
        return 0

    def error(self, message: str) -> PatternError:
        return PatternError(f"invalid ECMA-262 regular expression {self.src!r}: {message}")

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.src[index] if index < len(self.src) else ""

    def piece(self, single: bool) -> None:
        """Account for one atom (a quantifier may follow): ``single`` if it matches
        exactly one character."""
        self.atoms += 1
        self.frames[-1].push(_ONE, 1, single)

    def quantify(self, low: int, high: int | None) -> None:
        self.frames[-1].repeat(low, high)

    def translate(self) -> str:
        src = self.src
        after_atom = False  # whether a quantifier may follow
        while self.pos < len(src):
            c = src[self.pos]
            if c == "\\":
                kind = self.escape()
                after_atom = kind != "assertion"
                if after_atom:
                    self.piece(kind == "atom")
                else:
                    self.frames[-1].push(_ONE, 1, False)
            elif c == "[":
                self.char_class()
                self.piece(True)
                after_atom = True
            elif c == "(":
                self.group_open()
                self.frames.append(_Frame())
                after_atom = False
            elif c == ")":
                if not self.open:
                    raise self.error(f"unmatched ')' at position {self.pos}")
                kind, number, name = self.open.pop()
                if kind == "(":
                    self.open_captures.difference_update((number, name))
                elif kind in ("<=", "<!"):
                    self.behind -= 1
                inner = self.frames.pop()
                self.atoms += 1
                self.frames[-1].push(inner.total(), inner.size_total() + 1, False)
                self.out.append(")")
                self.pos += 1
                # In u-mode a lookaround cannot be quantified.
                after_atom = kind in ("(", ":")
            elif c in "*+?":
                if not after_atom:
                    raise self.error(f"nothing to repeat at position {self.pos}")
                self.quantify(1 if c == "+" else 0, 1 if c == "?" else None)
                self.out.append(c)
                self.pos += 1
                self.lazy_suffix()
                after_atom = False
            elif c == "{":
                quantifier = self.quantifier()
                if quantifier is None:
                    raise self.error(f"lone '{{' at position {self.pos}")
                if not after_atom:
                    raise self.error(f"nothing to repeat at position {self.pos}")
                end, low, high, text = quantifier
                self.quantify(low, high)
                self.out.append(text)
                self.pos = end
                self.lazy_suffix()
                after_atom = False
            elif c in "}]":
                raise self.error(f"lone {c!r} at position {self.pos}")
            elif c == ".":
                self.out.append(_DOT)
                self.pos += 1
                self.piece(True)
                after_atom = True
            elif c in "$^":
                # $ is the end of input, never before a final "\n".
                self.out.append("\\Z" if c == "$" else "^")
                self.pos += 1
                self.frames[-1].push(_ONE, 1, False)
                after_atom = False
            elif c == "|":
                self.frames[-1].alternate()
                self.out.append("|")
                self.pos += 1
                after_atom = False
            else:
                self.out.append(regex.escape(c))
                self.pos += 1
                self.piece(True)
                after_atom = True
            if self.frames[-1].size > self.max_size:
                raise PatternTooLarge(self.frames[-1].size)
        if self.open:
            raise self.error("missing ')'")
        if self.expanded_size > self.max_size:
            raise PatternTooLarge(self.expanded_size)
        for number in self.backrefs:
            if number > self.groups:
                raise self.error(f"back reference \\{number} names no group")
        for name in self.named_refs:
            if name not in self.names:
                raise self.error(f"back reference \\k<{name}> names no group")
        for index, name in self.pending_refs:
            number = self.names[name]
            self.out[index] = f"(?({number})\\{number})"
        return "".join(self.out)

    def lazy_suffix(self) -> None:
        if self.peek() == "?":
            self.out.append("?")
            self.pos += 1
        if self.peek() in ("*", "+", "?", "{") and (
            self.peek() != "{" or self.quantifier() is not None
        ):
            # ECMA-262 has no possessive quantifiers; "a*+" is an error there.
            raise self.error(f"nothing to repeat at position {self.pos}")

    def quantifier(self) -> tuple[int, int, int | None, str] | None:
        """A ``{m}``, ``{m,}`` or ``{m,n}`` at pos: (end, low, high, regex text)."""
        match = _BRACES.match(self.src, self.pos)
        if match is None:
            return None
        low = _count(match.group(1))
        high: int | None = low
        if match.group(2) is not None:
            high = _count(match.group(3)) if match.group(3) else None
        if high is not None and high < low:
            raise self.error(f"numbers out of order in quantifier at position {self.pos}")
        if low > _MAX_COUNT:
            raise self.error(f"repeat count too large at position {self.pos}")
        if high is not None and high > _MAX_COUNT:
            high = None  # no string is long enough to tell the difference
        text = f"{{{low}}}" if high == low else f"{{{low},{'' if high is None else high}}}"
        return match.end(), low, high, text

    def group_open(self) -> None:
        src, pos = self.src, self.pos
        if src.startswith("(?:", pos) or src.startswith("(?=", pos) or src.startswith("(?!", pos):
            self.open.append((src[pos + 2], 0, ""))
            self.out.append(src[pos : pos + 3])
            self.pos += 3
        elif src.startswith("(?<=", pos) or src.startswith("(?<!", pos):
            self.open.append((src[pos + 2 : pos + 4], 0, ""))
            self.behind += 1
            self.out.append(src[pos : pos + 4])
            self.pos += 4
        elif src.startswith("(?<", pos):
            end = src.find(">", pos + 3)
            name = src[pos + 3 : end] if end != -1 else ""
            if not name or not _GROUP_NAME.fullmatch(name):
                raise self.error(f"bad group name at position {pos}")
            if name in self.names:
                raise self.error(f"duplicate group name {name!r}")
            self.groups += 1
            self.names[name] = self.groups
            self.open.append(("(", self.groups, name))
            self.open_captures.update((self.groups, name))
            self.out.append("(")
            self.pos = end + 1
        elif src.startswith("(?", pos):
            # (?P<n>, (?i), (?#...), (?>...) and the rest are Python-only syntax.
            raise self.error(f"unsupported group syntax at position {pos}")
        else:
            self.groups += 1
            self.open.append(("(", self.groups, ""))
            self.open_captures.add(self.groups)
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
        name, _, value = body.partition("=")
        # The names and values are case-sensitive in ECMA-262, not in regex.
        if value and name in _CATEGORY_NAMES and value in _CATEGORIES:
            text = f"\\{c}{{gc={value}}}"
        elif (
            value
            and name in _SCRIPT_NAMES
            and _SCRIPT_VALUE.fullmatch(value) is not None
            and value not in _NO_SCRIPTS
        ):
            text = f"\\{c}{{{_CANONICAL_NAMES[name]}={value}}}"
        elif not value and name in _CATEGORIES:
            text = f"\\{c}{{gc={name}}}"
        elif not value and name in _BINARY_PROPERTIES:
            text = f"\\{c}{{{_BINARY_PROPERTIES[name]}}}"
        else:
            raise self.error(f"bad Unicode property {body!r}")
        try:
            regex.compile(text)
        except regex.error:
            raise self.error(f"unknown Unicode property {body!r}") from None
        self.pos = end + 1
        return text

    def escape(self) -> str:
        """Translate an escape outside a class; return what it is: "atom" (one
        character), "ref" (a back reference) or "assertion" (no quantifier)."""
        c = self.peek(1)
        if c == "":
            raise self.error("trailing backslash")
        if c in "bB":
            # Word boundaries between ASCII word characters only, as in ECMA-262.
            self.out.append(f"(?a:\\{c})")
            self.pos += 2
            return "assertion"
        if c in _ESCAPE_ATOMS:
            self.out.append(_ESCAPE_ATOMS[c])
            self.pos += 2
            return "atom"
        if c == "k":
            end = self.src.find(">", self.pos)
            if self.peek(2) != "<" or end == -1:
                raise self.error(f"bad \\k escape at position {self.pos}")
            name = self.src[self.pos + 3 : end]
            self.named_refs.append(name)
            number = self.names.get(name)
            if number is not None:
                self.out.append(self.backreference(number, True, f"\\{number}"))
            elif self.behind:
                self.pending_refs.append((len(self.out), name))
                self.out.append("")  # the group's number is not known yet
            else:
                self.out.append(self.backreference(name, False, ""))
            self.pos = end + 1
            return "ref"
        if "1" <= c <= "9":
            end = self.pos + 2
            while end < len(self.src) and self.src[end] in _ASCII_DIGITS:
                end += 1
            digits = self.src[self.pos + 1 : end]
            number = _count(digits)
            self.backrefs.append(number)
            defined = number <= self.groups
            self.out.append(self.backreference(number, defined, f"\\{digits}"))
            self.pos = end
            return "ref"
        prop = self.property_escape()
        if prop is not None:
            self.out.append(prop)
            return "atom"
        cp = self.code_point_escape()
        if cp is not None:
            self.out.append(_hex(cp))
            return "atom"
        if c in _IDENTITY:
            self.out.append(regex.escape(c))
            self.pos += 2
            return "atom"
        raise self.error(f"unknown escape \\{c} at position {self.pos}")

    def backreference(self, group: int | str, defined: bool, ref: str) -> str:
        """The translation of a back reference to ``group`` (number or name).

        In ECMA-262 a back reference to a group that has not captured matches the
        empty string, where Python's fails: a group that did not participate, is
        still open (``(a\\1)``), or comes later (``\\1(a)``, outside lookbehinds,
        which match right to left).
        """
        if group in self.open_captures:
            return "(?:)"  # a group still open has not captured yet
        if not defined and not self.behind:
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
        heavy = False
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
                heavy = heavy or (high > 0xFF and high - low > 0xFF)
            else:
                parts.append(text)
                heavy = heavy or (low is None and text in _COMPLEMENTS)
        self.heavy_classes += heavy
        self.out.append(("[^" if negated else "[") + "".join(parts) + "]")


_CACHE: dict[str, tuple[Any, int, Any, int]] = {}
_CACHE_SIZE = 4096
# Held to insert into or evict from _CACHE; lookups need no lock.
_CACHE_LOCK = threading.Lock()
# The longest length below which a match may run without a timer (_LENGTHS[0]).
SHORT = _LENGTHS[0]


def translate(pattern: str) -> str:
    """Translate an ECMA-262 pattern into ``regex`` syntax, or raise PatternError
    (or PatternTooLarge, past ``Limits().max_pattern_length``)."""
    return _translated(pattern, DEFAULT_MAX_LENGTH)[1]


_LITERAL = re.compile(r"(\^?)((?:[^\\^$.|?*+()\[\]{}]|\\[/.^$|?*+()\[\]{}\\])*)(\$?)")
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


# The standard library's engine is used only for patterns up to this long with at
# most _FAST_HEAVY classes reaching beyond Latin-1: compiling those takes it
# milliseconds each (a 10,000-character pattern of [\\W\\S] took 9 s), and long
# patterns gain little from the faster engine.
_FAST_SOURCE = 512
_FAST_HEAVY = 4
DEFAULT_MAX_LENGTH = Limits().max_pattern_length
DEFAULT_MAX_FORMAT_LENGTH = Limits().max_regex_format_length


def _too_large(
    pattern: str,
    size: int,
    limit: int,
    pointer: str,
    where: str,
    name: str = "max_pattern_length",
) -> ExecutionFailure:
    shown = pattern if len(pattern) <= 60 else pattern[:60] + "..."
    how = "" if size == len(pattern) else ", a repeated piece counted as often as it repeats"
    return ExecutionFailure(
        f"the pattern {shown!r} is longer than {name}={limit} ({size} characters{how})",
        location=pointer,
        schema_location=where,
        limit=name,
        value=limit,
    )


def _translated(pattern: str, max_length: int) -> tuple[_Translator, str]:
    """The translator (with its bounds) and the translation, or PatternError, or
    PatternTooLarge past ``max_length`` (checked before any compiling: the regex
    package unrolls repeats, so a{99999999} alone would take gigabytes)."""
    if len(pattern) > max_length:
        raise PatternTooLarge(len(pattern))
    translator = _Translator(pattern, max_length)
    return translator, translator.translate()


def _compile_regex(pattern: str, text: str) -> Any:
    try:
        return regex.compile(text, cache_pattern=False)
    except (regex.error, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        # regex's own message counts positions in the translated text: drop them.
        reason = getattr(exc, "msg", None) or type(exc).__name__
        raise PatternError(f"invalid regular expression {pattern!r}: {reason}") from None


def _build(pattern: str, max_length: int) -> tuple[Any, int, Any, int]:
    """(``regex`` pattern, the length below which matching is safe without a timer,
    a faster search for those strings or None: a str method for plain strings, the
    stdlib ``re`` engine otherwise; the pattern's size as max_pattern_length counts)."""
    translator, text = _translated(pattern, max_length)
    size = max(len(pattern), translator.expanded_size)
    compiled = _compile_regex(pattern, text)
    literal = _literal_search(pattern)
    if literal is not None:
        return compiled, _NO_LIMIT, literal, size
    fast = None
    safe_below = translator.safe_below
    if (
        safe_below
        and len(pattern) <= _FAST_SOURCE
        and translator.heavy_classes <= _FAST_HEAVY
        # Python's re never finds \B in an empty string, where ECMA-262 (and regex) do.
        and not any(part in text for part in _SLOW_ONLY)
    ):
        # The translation uses only syntax both engines read alike; the standard
        # library's engine matches short strings several times faster, and below
        # safe_below its worst case is small (see _Translator.safe_below).
        try:
            fast = re.compile(text).search
        except (re.error, ValueError, OverflowError, RecursionError):
            fast = None
    return compiled, safe_below, fast, size


def _compiled(pattern: str, max_length: int) -> tuple[Any, int, Any, int]:
    entry = _CACHE.get(pattern)
    if entry is None:
        entry = _build(pattern, max_length)  # outside the lock: compiling takes a while
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


def is_valid_pattern(pattern: str, max_length: int | None = None, where: str = "") -> bool:
    """Whether ``pattern`` (an instance string) is an ECMA-262 regular expression
    schemacore can run.

    A pattern longer than ``max_length`` (default:
    ``Limits().max_regex_format_length``) raises ExecutionFailure (``limit ==
    "max_regex_format_length"``), located at ``where``, without being compiled. Not
    cached: the ``regex`` format checks instance strings, which are unbounded.
    """
    limit = max_length if max_length is not None else DEFAULT_MAX_FORMAT_LENGTH
    try:
        _compile_regex(pattern, _translated(pattern, limit)[1])
    except PatternTooLarge as exc:
        raise _too_large(pattern, exc.size, limit, "", where, "max_regex_format_length") from None
    except PatternError:
        return False
    return True


def compile_pattern(
    pattern: str,
    timeout: float | None = None,
    max_input: int | None = None,
    where: str = "",
    *,
    max_length: int | None = None,
    pointer: str = "",
) -> Callable[[str], Any]:
    """Return a ``search`` function for ``pattern``: truthy when it matches anywhere.

    With ``timeout`` (seconds), a match that runs longer raises ExecutionFailure; it
    is armed for every match of a pattern whose worst case is not provably small
    for the string's length (see ``_Translator.safe_below``). With ``max_input``, a
    longer string raises ExecutionFailure before any matching. ``where`` (the schema
    location of the keyword) locates those failures.

    A pattern longer than ``max_length`` (default: ``Limits().max_pattern_length``),
    counting each repeated piece as often as it must repeat, raises ExecutionFailure
    located at ``pointer`` (the keyword's JSON pointer in the schema) and ``where``.
    """
    limit = max_length if max_length is not None else DEFAULT_MAX_LENGTH
    try:
        entry = _compiled(pattern, limit)
    except PatternTooLarge as exc:
        raise _too_large(pattern, exc.size, limit, pointer, where) from None
    if entry[3] > limit:  # compiled before under a larger limit
        raise _too_large(pattern, entry[3], limit, pointer, where)
    compiled, armed_from, fast, _ = entry
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

    # Generated code tests strings shorter than safe_below with the fast search
    # itself (no call to this wrapper); longer strings always come here.
    guarded_search.short = fast if armed_from else None  # type: ignore[attr-defined]
    guarded_search.safe_below = armed_from  # type: ignore[attr-defined]
    return guarded_search
