"""``{clihelp}`` directive: the command line's own ``--help`` text, run at build time.

``{clihelp}`` with no argument prints ``schemacore --help``; ``{clihelp} validate``
prints ``schemacore validate --help``. The page therefore cannot fall behind the
parser. The build also warns (an error under ``-W``) when a subcommand of the parser
has no ``{clihelp}`` block on any page, so a new subcommand cannot go undocumented.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

_LOG = logging.getLogger(__name__)


def _help(*command: str) -> str:
    environment = dict(os.environ, COLUMNS="88", PYTHONIOENCODING="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "schemacore", *command, "--help"],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(
            f"schemacore {' '.join(command)} --help exited {completed.returncode}: "
            f"{completed.stderr.strip()}"
        )
    return completed.stdout.rstrip()


def subcommands() -> list[str]:
    """The subcommands the top-level usage lists (``{validate,example,...}``), or the
    names in its COMMAND list."""
    text = _help()
    braces = re.search(r"\{([a-z0-9,-]+)\}", text)
    if braces:
        return braces.group(1).split(",")
    listed = text.split("positional arguments:", 1)[-1].split("options:", 1)[0]
    return re.findall(r"^ {4}([a-z][a-z0-9-]*)\b", listed, flags=re.MULTILINE)


class CliHelp(SphinxDirective):
    optional_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        command = self.arguments[0] if self.arguments else None
        try:
            text = _help(command) if command else _help()
        except RuntimeError as failure:
            raise self.error(str(failure)) from failure
        documented = self.env.domaindata.setdefault("clihelp", {})
        documented.setdefault(command or "", set()).add(self.env.docname)
        shown = "$ schemacore " + (f"{command} " if command else "") + "--help\n" + text
        block = nodes.literal_block(shown, shown)
        block["language"] = "text"
        return [block]


def _purge(app: Sphinx, env: Any, docname: str) -> None:
    for pages in env.domaindata.get("clihelp", {}).values():
        pages.discard(docname)


def _merge(app: Sphinx, env: Any, docnames: Any, other: Any) -> None:
    mine = env.domaindata.setdefault("clihelp", {})
    for command, pages in other.domaindata.get("clihelp", {}).items():
        mine.setdefault(command, set()).update(pages)


def _check(app: Sphinx, env: Any) -> None:
    documented = {name for name, pages in env.domaindata.get("clihelp", {}).items() if pages}
    for command in subcommands():
        if command not in documented:
            _LOG.warning("the CLI subcommand %r has no {clihelp} %s block on any page",
                         command, command)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("clihelp", CliHelp)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-check-consistency", _check)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
