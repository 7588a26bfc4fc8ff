"""Known deviations from the JSON-Schema-Test-Suite: the only place to list them.

Each key is a case id, a group id or a file id, exactly as pytest shows them:

- case:  ``draft2020-12/ref.json::<group description>::<test description>``
- group: ``draft2020-12/ref.json::<group description>``
- file:  ``draft2020-12/optional/format/idn-hostname.json``

and each value is the reason, which pytest prints.

``SKIP``: the case is not run at all. Only for cases that cannot be run (they would
hang or crash the session). Everything else belongs in ``XFAIL``.

``XFAIL``: the case runs as a *strict* expected failure: if it passes, the test run
fails, so fixed entries must be removed and the list cannot go stale. A group or
file key applies to every case in it, so each of those cases must fail; list
single cases when only some do.

``test_suite.py::test_expectations_are_not_stale`` fails when a key matches no
suite case, when a key is in both dicts, or when a case is covered twice.

Entries for the required directory start (and should stay) at none.
"""

from __future__ import annotations

SKIP: dict[str, str] = {}

XFAIL: dict[str, str] = {}
