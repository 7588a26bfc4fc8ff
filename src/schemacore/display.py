"""How an instance value appears in an error message: short, and never an error itself."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["show"]


def show(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters. An integer too long for Python to
    convert to text (``sys.get_int_max_str_digits``) is described by its size instead:
    formatting a message must not raise where validating did not."""
    try:
        text = repr(value)
    except ValueError:
        digits = int(abs(value).bit_length() * math.log10(2)) + 1
        return f"an integer of about {digits} digits"
    return text if len(text) <= limit else text[: limit - 3] + "..."
