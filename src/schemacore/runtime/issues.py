"""Tool-argument issues, kept as an import path: the work is done by

* :mod:`.argissue`: the issue types (:class:`ToolArgIssue`, the verdict);
* :mod:`.issuewording`: engine errors worded as value-safe issues;
* :mod:`.argcheck`: checking arguments (:func:`validate_tool_args` and friends);
* :mod:`.toolresult`: the model-visible text and the MCP ``isError`` result.
"""

from __future__ import annotations

from .argcheck import check_arguments, validate_property_value, validate_tool_args
from .argissue import ISSUE_META_KEY, STRING_SHAPE_KEYWORDS, ToolArgIssue, ToolArgValidationResult
from .toolresult import format_tool_arg_issues, tool_error_result

__all__ = [
    "ISSUE_META_KEY",
    "STRING_SHAPE_KEYWORDS",
    "ToolArgIssue",
    "ToolArgValidationResult",
    "check_arguments",
    "format_tool_arg_issues",
    "tool_error_result",
    "validate_property_value",
    "validate_tool_args",
]
