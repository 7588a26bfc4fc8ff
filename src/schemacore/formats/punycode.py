"""Punycode (RFC 3492), the Bootstring encoding used by IDNA A-labels.

Written from the RFC's pseudocode (section 6) with its parameter values (section 5).
:func:`decode` returns ``None`` instead of raising on bad input, so the format
checkers can stay exception-free.
"""

from __future__ import annotations

__all__ = ["decode", "encode"]

# RFC 3492 section 5: parameter values for Punycode.
_BASE = 36
_TMIN = 1
_TMAX = 26
_SKEW = 38
_DAMP = 700
_INITIAL_BIAS = 72
_INITIAL_N = 0x80
_DELIMITER = "-"
_MAX_CODE_POINT = 0x10FFFF


def _adapt(delta: int, numpoints: int, firsttime: bool) -> int:
    # RFC 3492 section 6.1: bias adaptation.
    delta = delta // _DAMP if firsttime else delta // 2
    delta += delta // numpoints
    k = 0
    while delta > ((_BASE - _TMIN) * _TMAX) // 2:
        delta //= _BASE - _TMIN
        k += _BASE
    return k + (((_BASE - _TMIN + 1) * delta) // (delta + _SKEW))


def _threshold(k: int, bias: int) -> int:
    if k <= bias:
        return _TMIN
    if k >= bias + _TMAX:
        return _TMAX
    return k - bias


def _digit_value(ch: str) -> int:
    # RFC 3492 section 5: a-z (either case) are 0-25, 0-9 are 26-35.
    o = ord(ch)
    if 0x61 <= o <= 0x7A:
        return o - 0x61
    if 0x41 <= o <= 0x5A:
        return o - 0x41
    if 0x30 <= o <= 0x39:
        return o - 0x30 + 26
    return _BASE


def _digit_char(d: int) -> str:
    return chr(d + 0x61) if d < 26 else chr(d - 26 + 0x30)


def decode(text: str) -> str | None:
    """Decode a Punycode string (without ``xn--``); ``None`` if it is not valid."""
    n = _INITIAL_N
    i = 0
    bias = _INITIAL_BIAS
    cut = text.rfind(_DELIMITER)
    # Section 6.2: everything before the last delimiter is copied and must be basic;
    # the delimiter itself is consumed only when something preceded it.
    if cut > 0:
        basic = text[:cut]
        if not basic.isascii():
            return None
        output = list(basic)
        pos = cut + 1
    else:
        output = []
        pos = 0
    end = len(text)
    while pos < end:
        oldi = i
        w = 1
        k = _BASE
        while True:
            if pos >= end:
                return None
            digit = _digit_value(text[pos])
            pos += 1
            if digit >= _BASE:
                return None
            i += digit * w
            t = _threshold(k, bias)
            if digit < t:
                break
            w *= _BASE - t
            k += _BASE
            if i > _MAX_CODE_POINT * (end + 1):
                # The code point could no longer fit; stop before integers grow further.
                return None
        count = len(output) + 1
        bias = _adapt(i - oldi, count, oldi == 0)
        n += i // count
        i %= count
        # A decoded code point must be non-basic and a Unicode scalar value.
        if n > _MAX_CODE_POINT or n < _INITIAL_N or 0xD800 <= n <= 0xDFFF:
            return None
        output.insert(i, chr(n))
        i += 1
    return "".join(output)


def encode(text: str) -> str:
    """Encode ``text`` as Punycode (without ``xn--``), lower-case digits."""
    code_points = [ord(c) for c in text]
    output = [c for c in text if ord(c) < _INITIAL_N]
    basic_count = len(output)
    if basic_count:
        output.append(_DELIMITER)
    n = _INITIAL_N
    delta = 0
    bias = _INITIAL_BIAS
    handled = basic_count
    total = len(code_points)
    while handled < total:
        m = min(cp for cp in code_points if cp >= n)
        delta += (m - n) * (handled + 1)
        n = m
        for cp in code_points:
            if cp < n:
                delta += 1
            elif cp == n:
                q = delta
                k = _BASE
                while True:
                    t = _threshold(k, bias)
                    if q < t:
                        break
                    output.append(_digit_char(t + (q - t) % (_BASE - t)))
                    q = (q - t) // (_BASE - t)
                    k += _BASE
                output.append(_digit_char(q))
                bias = _adapt(delta, handled + 1, handled == basic_count)
                delta = 0
                handled += 1
        delta += 1
        n += 1
    return "".join(output)
