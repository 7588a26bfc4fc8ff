"""Sphinx configuration of the schemacore documentation site.

Built by CI with warnings as errors and every cross-reference checked::

    sphinx-build -W --keep-going -n -b html docs <output folder>

Nothing is fetched while building: no intersphinx inventories, no remote theme
assets. References into the standard library and third-party packages therefore
cannot resolve and are ignored by module (``nitpick_ignore_regex``); every reference
to a schemacore name must resolve.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.util.nodes import make_refnode

_DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(_DOCS / "_ext"))
sys.path.insert(0, str(_DOCS.parent / "src"))

import schemacore  # noqa: E402

project = "schemacore"
author = "the schemacore authors"
copyright = "the schemacore authors"
release = schemacore.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "clihelp",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", ".venv", "Thumbs.db", ".DS_Store"]

# Markdown: GitHub-style heading anchors, so that the pages' `#section` links (written
# for GitHub's rendering too) resolve here and are checked.
myst_heading_anchors = 4
myst_enable_extensions = ["deflist"]

# The API reference: signatures as written, docstrings in Google style with reST roles.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autodoc_default_options = {"members": True, "show-inheritance": True}
autoclass_content = "both"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# schemacore.Limits groups its fields by what they bound.
napoleon_custom_sections = [("Schema limits", "params_style"), ("Instance limits", "params_style")]

nitpicky = True
# No inventories are fetched, so names of the standard library and of other packages
# cannot be linked: references into them are not checked.
_OUTSIDE = sorted(
    {*sys.stdlib_module_names, "typing_extensions"}
    | {"regex", "mcp", "mcp_types", "anyio", "psycopg", "psycopg_pool", "opentelemetry"}
    | {"referencing", "jsonschema", "pydantic", "bowtie"}
)
nitpick_ignore_regex = [(r"py:.*", rf"({'|'.join(_OUTSIDE)})(\..*)?")]
# Internal names that appear in public signatures (type variables, aliases and helper
# classes of private modules); each is listed, so any other unresolved reference to a
# schemacore name still fails the build.
nitpick_ignore = [
    ("py:class", "schemacore.runtime.boundary.T"),
    ("py:class", "schemacore.compat._checkers._F"),
    ("py:class", "schemacore.runtime.schemalookup.SchemaLookup"),
    ("py:class", "schemacore.units.Unit"),
    ("py:class", "Row"),  # runtime.gateway.postgres: a database row, tuple[Any, ...]
    ("py:class", "ArgumentMode"),  # Gateway(arguments=...): "enforce", "warn" or "off"
    ("py:class", "OutputMode"),  # Gateway(output=...), mcp: "enforce" or "report"
]



def _public_bases(app: object, name: str, obj: object, options: object, bases: list[type]) -> None:
    """Show a class's public bases: a private base (``_ValidatorBase``) is replaced by
    the public classes it derives from."""
    public: list[type] = []
    pending = list(bases)
    while pending:
        base = pending.pop(0)
        if base.__name__.startswith("_"):
            pending[:0] = [b for b in base.__bases__ if b is not object]
        elif base not in public:
            public.append(base)
    bases[:] = public or [object]


def _unique_short_name(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """Resolve a bare name (``:class:`Gateway``` written in a module that only
    re-exports it) to the one documented object of that name, if there is exactly
    one; anything else stays unresolved and fails the build."""
    if node.get("refdomain") != "py" or "." in node["reftarget"]:
        return None
    domain = env.get_domain("py")
    target = node["reftarget"]
    # Each object is listed under its public name and, aliased, under the private
    # module that defines it: only the public names count.
    found = [
        full
        for full, entry in domain.objects.items()
        if full.rsplit(".", 1)[-1] == target and not entry.aliased
    ]
    if len(found) != 1:
        return None
    entry = domain.objects[found[0]]
    return make_refnode(
        app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, found[0]
    )


_PRIVATE_PARAMETER = re.compile(r",\s*_[A-Za-z]\w*[^,()\[\]]*(?=[,)])")


def _public_signature(
    app: Any, what: str, name: str, obj: Any, options: Any, signature: str | None, returns: Any
) -> tuple[str | None, Any]:
    """Leave out the parameters whose names start with an underscore (internal
    switches such as ``Validator(_check_schema=...)``), and the ``(*args, **kwargs)``
    of a protocol class, which is never called."""
    if what == "class" and getattr(obj, "_is_protocol", False):
        return "", returns
    if signature:
        signature = _PRIVATE_PARAMETER.sub("", signature)
    return signature, returns


def _drop_object_base(app: Any, doctree: Any) -> None:
    """``Bases: object`` says nothing: leave it out."""
    for paragraph in list(doctree.findall(nodes.paragraph)):
        parent = paragraph.parent
        if paragraph.astext() == "Bases: object" and isinstance(parent, addnodes.desc_content):
            parent.remove(paragraph)


def setup(app: Any) -> None:
    app.connect("autodoc-process-bases", _public_bases)
    app.connect("autodoc-process-signature", _public_signature)
    app.connect("doctree-read", _drop_object_base)
    app.connect("missing-reference", _unique_short_name)


html_theme = "furo"
html_title = f"schemacore {release}"
html_static_path: list[str] = []
html_show_sourcelink = False
html_copy_source = False
