"""IDNA2008 label and domain validation (RFC 5890-5893).

Code point classes are derived as RFC 5892 section 3 prescribes, from the Unicode
data that :mod:`unicodedata` carries, plus the three properties it lacks
(Default_Ignorable_Code_Point, Joining_Type, Script), which come from the generated
tables in :mod:`._ucd`. The derivation follows the Unicode version of the running
Python; the tables only matter for code points that version assigns.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from functools import lru_cache

from . import _ucd
from .punycode import decode as punycode_decode
from .punycode import encode as punycode_encode

__all__ = [
    "a_label_length",
    "check_bidi",
    "check_domain",
    "check_ldh_label",
    "check_u_label",
    "split_idn",
    "status",
]

PVALID = 0
CONTEXTJ = 1
CONTEXTO = 2
DISALLOWED = 3
UNASSIGNED = 4

# RFC 5892 section 2.6 (Exceptions, category F).
_EXCEPTIONS: dict[int, int] = {
    0x00DF: PVALID, 0x03C2: PVALID, 0x06FD: PVALID, 0x06FE: PVALID, 0x0F0B: PVALID,
    0x3007: PVALID,
    0x00B7: CONTEXTO, 0x0375: CONTEXTO, 0x05F3: CONTEXTO, 0x05F4: CONTEXTO, 0x30FB: CONTEXTO,
    **{cp: CONTEXTO for cp in range(0x0660, 0x066A)},
    **{cp: CONTEXTO for cp in range(0x06F0, 0x06FA)},
    0x0640: DISALLOWED, 0x07FA: DISALLOWED, 0x302E: DISALLOWED, 0x302F: DISALLOWED,
    0x3031: DISALLOWED, 0x3032: DISALLOWED, 0x3033: DISALLOWED, 0x3034: DISALLOWED,
    0x3035: DISALLOWED, 0x303B: DISALLOWED,
}  # fmt: skip

# RFC 5892 section 2.9 (IgnorableBlocks, category L): Combining Diacritical Marks for
# Symbols, Musical Symbols, Ancient Greek Musical Notation.
_IGNORABLE_BLOCKS = ((0x20D0, 0x20FF), (0x1D100, 0x1D1FF), (0x1D200, 0x1D24F))

# RFC 5892 section 2.9 (OldHangulJamo, category M): Hangul_Syllable_Type L, V and T.
_OLD_HANGUL_JAMO = ((0x1100, 0x11FF), (0xA960, 0xA97C), (0xD7B0, 0xD7C6), (0xD7CB, 0xD7FB))

# RFC 5892 section 2.1 (LetterDigits, category A).
_LETTER_DIGITS = frozenset({"Ll", "Lu", "Lo", "Nd", "Lm", "Mn", "Mc"})

_VIRAMA = 9  # Canonical_Combining_Class value Virama.


def _in(table: tuple[int, ...], cp: int) -> bool:
    return bisect_right(table, cp) & 1 == 1


def _in_spans(spans: tuple[tuple[int, int], ...], cp: int) -> bool:
    for first, last in spans:
        if first <= cp <= last:
            return True
    return False


def _noncharacter(cp: int) -> bool:
    return 0xFDD0 <= cp <= 0xFDEF or cp & 0xFFFE == 0xFFFE


@lru_cache(maxsize=4096)
def status(cp: int) -> int:
    """The IDNA2008 property of ``cp``, by the rules of RFC 5892 section 3."""
    exception = _EXCEPTIONS.get(cp)
    if exception is not None:
        return exception
    # BackwardCompatible (category G) is empty.
    ch = chr(cp)
    category = unicodedata.category(ch)
    if category == "Cn" and not _noncharacter(cp):
        return UNASSIGNED
    if cp == 0x2D or 0x30 <= cp <= 0x39 or 0x61 <= cp <= 0x7A:  # LDH (category D)
        return PVALID
    if cp in (0x200C, 0x200D):  # JoinControl (category H)
        return CONTEXTJ
    if category == "Cs":
        return DISALLOWED
    # Unstable (category B): changed by NFKC, case folding, NFKC.
    if unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", ch).casefold()) != ch:
        return DISALLOWED
    # IgnorableProperties (category C); White_Space characters are never LetterDigits.
    if _in(_ucd.DEFAULT_IGNORABLE, cp) or _noncharacter(cp):
        return DISALLOWED
    if _in_spans(_IGNORABLE_BLOCKS, cp) or _in_spans(_OLD_HANGUL_JAMO, cp):
        return DISALLOWED
    if category in _LETTER_DIGITS:
        return PVALID
    return DISALLOWED


def _joining_type(ch: str) -> str:
    cp = ord(ch)
    index = bisect_right(_ucd.JOINING_BOUNDS, cp)
    if index & 1:
        return _ucd.JOINING_KINDS[index >> 1]
    # ArabicShaping.txt: unlisted Mn, Me and Cf characters are transparent.
    return "T" if unicodedata.category(ch) in ("Mn", "Me", "Cf") else "U"


def _zwnj_joins(label: str, pos: int) -> bool:
    # RFC 5892 appendix A.1 regular expression:
    # (Joining_Type:{L,D})(Joining_Type:T)*\u200C(Joining_Type:T)*(Joining_Type:{R,D})
    i = pos - 1
    while i >= 0 and _joining_type(label[i]) == "T":
        i -= 1
    if i < 0 or _joining_type(label[i]) not in ("L", "D"):
        return False
    j = pos + 1
    while j < len(label) and _joining_type(label[j]) == "T":
        j += 1
    return j < len(label) and _joining_type(label[j]) in ("R", "D")


def _has_script(label: str, *tables: tuple[int, ...]) -> bool:
    for ch in label:
        for table in tables:
            if _in(table, ord(ch)):
                return True
    return False


def _context_ok(label: str, pos: int) -> bool:
    """The contextual rule of RFC 5892 appendix A for the code point at ``pos``."""
    cp = ord(label[pos])
    before = label[pos - 1] if pos > 0 else ""
    after = label[pos + 1] if pos + 1 < len(label) else ""
    if cp in (0x200C, 0x200D):  # A.1 ZERO WIDTH NON-JOINER, A.2 ZERO WIDTH JOINER
        if before and unicodedata.combining(before) == _VIRAMA:
            return True
        return cp == 0x200C and _zwnj_joins(label, pos)
    if cp == 0x00B7:  # A.3 MIDDLE DOT: between two 'l'.
        return before == "l" and after == "l"
    if cp == 0x0375:  # A.4 GREEK LOWER NUMERAL SIGN (KERAIA): Greek follows.
        return bool(after) and _in(_ucd.SCRIPT_GREEK, ord(after))
    if cp in (0x05F3, 0x05F4):  # A.5, A.6 HEBREW GERESH, GERSHAYIM: Hebrew precedes.
        return bool(before) and _in(_ucd.SCRIPT_HEBREW, ord(before))
    if cp == 0x30FB:  # A.7 KATAKANA MIDDLE DOT: some Hiragana, Katakana or Han.
        return _has_script(label, _ucd.SCRIPT_HIRAGANA, _ucd.SCRIPT_KATAKANA, _ucd.SCRIPT_HAN)
    if 0x0660 <= cp <= 0x0669:  # A.8 ARABIC-INDIC DIGITS: no extended ones.
        for ch in label:
            if "\u06f0" <= ch <= "\u06f9":
                return False
        return True
    if 0x06F0 <= cp <= 0x06F9:  # A.9 EXTENDED ARABIC-INDIC DIGITS: no plain ones.
        for ch in label:
            if "\u0660" <= ch <= "\u0669":
                return False
        return True
    return False


def check_u_label(label: str) -> bool:
    """Whether ``label`` is a valid U-label (RFC 5891 section 5.4), bidi aside."""
    if not label or not unicodedata.is_normalized("NFC", label):
        return False
    # RFC 5891 section 4.2.3.1: no "--" in positions 3 and 4, no leading or trailing
    # hyphen. Section 4.2.3.2: no leading combining mark.
    if label[2:4] == "--" or label[0] == "-" or label[-1] == "-":
        return False
    if unicodedata.category(label[0])[0] == "M":
        return False
    for pos, ch in enumerate(label):
        kind = status(ord(ch))
        if kind == PVALID:
            continue
        if kind in (CONTEXTJ, CONTEXTO) and _context_ok(label, pos):
            continue
        return False
    return True


_LDH = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


def check_ldh_label(label: str, reserved_ok: bool) -> str | None:
    """Check an ASCII label; return its Unicode form (decoded A-label) or ``None``.

    ``reserved_ok`` admits R-LDH labels ("??--") that are not A-labels, as RFC 1123
    host names may have them; RFC 5890 section 2.3.1 reserves them in IDNs.
    """
    if not 1 <= len(label) <= 63 or label[0] == "-" or label[-1] == "-":
        return None
    for ch in label:
        if ch not in _LDH:
            return None
    if label[2:4] != "--":
        return label
    if label[:2].lower() != "xn":
        return label if reserved_ok else None
    # RFC 5890 section 2.3.2.1: an A-label decodes to a U-label and is the exact
    # (case-insensitive) encoding of it; a decoding that is all ASCII is no U-label.
    encoded = label[4:].lower()
    decoded = punycode_decode(encoded)
    if decoded is None or decoded.isascii() or punycode_encode(decoded) != encoded:
        return None
    if not check_u_label(decoded):
        return None
    return decoded


def a_label_length(u_label: str) -> int:
    """Octets of the A-label form of the non-ASCII label ``u_label``."""
    return 4 + len(punycode_encode(u_label))


_BIDI_RTL = frozenset({"R", "AL", "AN"})
_BIDI_IN_RTL = frozenset({"R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})
_BIDI_IN_LTR = frozenset({"L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})


def _bidi_label_ok(label: str) -> bool:
    # RFC 5893 section 2, conditions 1-6.
    classes = [unicodedata.bidirectional(ch) for ch in label]
    if classes[0] not in ("L", "R", "AL"):  # 1
        return False
    last = len(classes) - 1
    while last > 0 and classes[last] == "NSM":
        last -= 1
    if classes[0] in ("R", "AL"):
        # An RTL label (a first R or AL is the only way condition 1 allows one).
        for c in classes:
            if c not in _BIDI_IN_RTL:  # 2
                return False
        if classes[last] not in ("R", "AL", "EN", "AN"):  # 3
            return False
        return not ("EN" in classes and "AN" in classes)  # 4
    for c in classes:
        if c not in _BIDI_IN_LTR:  # 5
            return False
    return classes[last] in ("L", "EN")  # 6


def _is_bidi_label(label: str) -> bool:
    for ch in label:
        if unicodedata.bidirectional(ch) in _BIDI_RTL:
            return True
    return False


def check_bidi(labels: list[str]) -> bool:
    """The Bidi rule (RFC 5893 section 2) over the Unicode forms of all labels.

    It applies only to a Bidi domain name: one with an R, AL or AN character.
    """
    bidi = False
    for label in labels:
        if not label.isascii() and _is_bidi_label(label):
            bidi = True
            break
    if not bidi:
        return True
    for label in labels:
        if not _bidi_label_ok(label):
            return False
    return True


def check_domain(labels: list[str], reserved_ok: bool) -> bool:
    """Validate labels (ASCII LDH labels, A-labels or U-labels) of one domain name.

    Lengths follow RFC 1034 section 3.1 as RFC 5890 section 2.3.2.1 applies them to
    the A-label form: 63 octets per label, 253 for the name without a trailing dot.
    """
    total = len(labels) - 1
    unicode_forms: list[str] = []
    for label in labels:
        if label.isascii():
            form = check_ldh_label(label, reserved_ok)
            if form is None:
                return False
            total += len(label)
        else:
            # Each code point takes at least one octet of the A-label, so a long label
            # is refused before it is encoded.
            if len(label) > 59 or not check_u_label(label):
                return False
            size = a_label_length(label)
            if size > 63:
                return False
            total += size
            form = label
        unicode_forms.append(form)
    if total > 253:
        return False
    return check_bidi(unicode_forms)


# RFC 3490 section 3.1 (kept by RFC 5895 section 2 for lookup): these full stops
# separate labels like ".".
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})


def split_idn(name: str) -> list[str]:
    """Split an internationalized domain name at any of the four full stops."""
    return name.translate(_DOTS).split(".")
