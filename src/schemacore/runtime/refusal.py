"""The runtime's refusal family: one base for every error that refuses an input.

:class:`BoundaryError` (schemas, arguments, tool definitions) and
:class:`~.contract.ContractError` (tool contracts) share it, so a host can catch
``Refusal`` and read the same four things from either: a stable ``code``, an
``error_class``, the failing ``path`` and whether the same input may be
``retryable``. Messages are written by the runtime from structure; they never quote
argument values, caller-chosen keys or the raw text of a call.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

__all__ = [
    "EXECUTION_FAILURE",
    "UNSUPPORTED_CAPABILITY",
    "VALIDATION",
    "Refusal",
    "reduce_by_state",
]

VALIDATION: Final = "validation"
UNSUPPORTED_CAPABILITY: Final = "unsupported_capability"
EXECUTION_FAILURE: Final = "execution_failure"


def _restore(cls: type[BaseException], args: tuple[Any, ...]) -> BaseException:
    return cls.__new__(cls, *args)  # BaseException.__new__ sets args; no __init__


def reduce_by_state(error: BaseException) -> tuple[Any, ...]:
    """A ``__reduce__`` for exceptions whose constructor takes other arguments than
    the ``args`` it passes to Exception: the default reduce calls ``cls(*args)``,
    which then fails or builds a different error. This rebuilds the error without
    calling ``__init__`` and restores every attribute as it was."""
    return (_restore, (type(error), error.args), dict(vars(error)))


class Refusal(Exception):
    """An input the runtime refused.

    Attributes:
        code: a stable machine-readable code (see ``docs/runtime.md``).
        error_class: ``"validation"``, ``"unsupported_capability"`` or
            ``"execution_failure"`` (a limit was hit; never a plain mismatch).
        path: JSON Pointer of the offending place, ``""`` for the root.
        message: a human sentence that is safe to log or show.
        retryable: whether sending the same input again may succeed: False for
            every refusal of the runtime, whose checks are deterministic.
    """

    retryable: ClassVar[bool] = False

    def __init__(self, code: str, message: str, *, error_class: str = VALIDATION, path: str = ""):
        super().__init__(message)
        self.code = code
        self.message = message
        self.error_class = error_class
        self.path = path

    def __str__(self) -> str:
        where = f" (at {self.path!r})" if self.path else ""
        return f"{self.code}: {self.message}{where}"

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_by_state(self)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.code!r}, error_class={self.error_class!r}, "
            f"path={self.path!r})"
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form (as safe as the message itself)."""
        return {
            "errorClass": self.error_class,
            "code": self.code,
            "path": self.path,
            "message": self.message,
        }
