"""Checkers for the formats of the Draft 2020-12 format vocabulary.

Each checker takes a string, returns whether it is valid for the format, and never
raises. The engine only calls them for string instances.
"""

from __future__ import annotations

from collections.abc import Callable

from .dates import is_date, is_date_time, is_duration, is_time
from .email import is_email, is_idn_email
from .misc import is_regex, is_uuid
from .network import is_hostname, is_idn_hostname, is_ipv4, is_ipv6
from .pointers import is_json_pointer, is_relative_json_pointer
from .uris import is_iri, is_iri_reference, is_uri, is_uri_reference, is_uri_template

__all__ = ["CHECKERS"]

CHECKERS: dict[str, Callable[[str], bool]] = {
    "date-time": is_date_time,
    "date": is_date,
    "time": is_time,
    "duration": is_duration,
    "email": is_email,
    "idn-email": is_idn_email,
    "hostname": is_hostname,
    "idn-hostname": is_idn_hostname,
    "ipv4": is_ipv4,
    "ipv6": is_ipv6,
    "uri": is_uri,
    "uri-reference": is_uri_reference,
    "iri": is_iri,
    "iri-reference": is_iri_reference,
    "uuid": is_uuid,
    "uri-template": is_uri_template,
    "json-pointer": is_json_pointer,
    "relative-json-pointer": is_relative_json_pointer,
    "regex": is_regex,
}
