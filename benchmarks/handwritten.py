"""A plain-Python checker written by hand for the tool-call schema (workload ``tool-args``).

It is the practical speed limit for pure Python: straight-line ``type``/``len``/``in``
checks with no interpretation of a schema at run time. It answers valid/invalid only.
It must mean exactly what ``workloads.tool_call_schema()`` means; the runner checks that
it agrees with schemacore on every instance before timing it. JSON semantics kept on
purpose: ``True`` is not a number, ``2.0`` is an integer, lengths count code points.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["check_tool_call"]

_MISSING: Any = object()

# fullmatch is ECMA-262's ^...$ (Python's $ would also match before a final newline).
_DATE = re.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}").fullmatch
_TIME = re.compile("([01][0-9]|2[0-3]):[0-5][0-9]").fullmatch
_EMAIL = re.compile("[^@ ]+@[^@ ]+[.][a-z]{2,}").fullmatch
_UPPER3 = re.compile("[A-Z]{3}").fullmatch
_CALL_ID = re.compile("call_[A-Za-z0-9]{8,32}").fullmatch
_IDENT = re.compile("[a-z][a-z0-9_]{0,62}").fullmatch
_REPO = re.compile("[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+").fullmatch
_LOGIN = re.compile("[A-Za-z0-9-]{1,39}").fullmatch
_LANG = re.compile("[a-z]{2}(-[A-Z]{2})?").fullmatch
_TICKER = re.compile("[A-Z]{1,5}").fullmatch
_COLOUR = re.compile("#[0-9a-fA-F]{6}").fullmatch
_DOC_ID = re.compile("doc_[a-z0-9]{12}").fullmatch
_TZ = re.compile("[A-Za-z]+/[A-Za-z_]+").fullmatch
_CONTACT = re.compile("c_[0-9]{6,12}").fullmatch
_PHONE = re.compile("[+][1-9][0-9]{6,14}").fullmatch
_COUNTRY = re.compile("[A-Z]{2}").fullmatch


def _int(v: Any, lo: int, hi: int) -> bool:
    t = type(v)
    if t is not int and not (t is float and v.is_integer()):
        return False
    return bool(lo <= v <= hi)


def _num(v: Any) -> bool:
    t = type(v)
    return t is int or t is float


def _str(v: Any, lo: int, hi: int) -> bool:
    return type(v) is str and lo <= len(v) <= hi


def _date(v: Any) -> bool:
    return type(v) is str and _DATE(v) is not None


def _email(v: Any) -> bool:
    return type(v) is str and len(v) <= 254 and _EMAIL(v) is not None


def _currency(v: Any) -> bool:
    return type(v) is str and _UPPER3(v) is not None


def _path(v: Any) -> bool:
    return type(v) is str and 1 <= len(v) <= 1024 and v.startswith("/")


def _url(v: Any) -> bool:
    return type(v) is str and len(v) <= 2048 and v.startswith(("http://", "https://"))


_MONEY = frozenset(("amount", "currency"))


def _money(v: Any) -> bool:
    if type(v) is not dict or v.keys() != _MONEY:
        return False
    amount = v["amount"]
    return _num(amount) and 0 <= amount <= 1_000_000 and _currency(v["currency"])


_PERSON = frozenset(("name", "email"))


def _person(v: Any) -> bool:
    if type(v) is not dict or not v.keys() <= _PERSON or "name" not in v:
        return False
    if not _str(v["name"], 1, 100):
        return False
    e = v.get("email", _MISSING)
    return e is _MISSING or _email(e)


_GEO = frozenset(("lat", "lon"))


def _geo(v: Any) -> bool:
    if type(v) is not dict or v.keys() != _GEO:
        return False
    lat, lon = v["lat"], v["lon"]
    return _num(lat) and -90 <= lat <= 90 and _num(lon) and -180 <= lon <= 180


def _emails(v: Any, lo: int, hi: int) -> bool:
    if type(v) is not list or not lo <= len(v) <= hi:
        return False
    for e in v:
        if not _email(e):
            return False
    return True


# --- one function per tool ------------------------------------------------------------

_K_WEATHER = frozenset(("location", "units", "days"))


def _get_weather(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_WEATHER or "location" not in a:
        return False
    if not _str(a["location"], 1, 100):
        return False
    v = a.get("units", _MISSING)
    if v is not _MISSING and v not in ("metric", "imperial"):
        return False
    v = a.get("days", _MISSING)
    return v is _MISSING or _int(v, 1, 14)


_K_SEARCH = frozenset(("query", "max_results", "safe_search", "recency"))


def _search_web(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_SEARCH or "query" not in a:
        return False
    if not _str(a["query"], 1, 400):
        return False
    v = a.get("max_results", _MISSING)
    if v is not _MISSING and not _int(v, 1, 50):
        return False
    v = a.get("safe_search", _MISSING)
    if v is not _MISSING and type(v) is not bool:
        return False
    v = a.get("recency", _MISSING)
    return v is _MISSING or v in ("day", "week", "month", "any")


_K_EMAIL = frozenset(("to", "cc", "subject", "body", "importance"))


def _send_email(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_EMAIL or "to" not in a or "subject" not in a or "body" not in a:
        return False
    if not _emails(a["to"], 1, 20):
        return False
    v = a.get("cc", _MISSING)
    if v is not _MISSING and not _emails(v, 0, 20):
        return False
    if not _str(a["subject"], 1, 200) or not _str(a["body"], 1, 20_000):
        return False
    v = a.get("importance", _MISSING)
    return v is _MISSING or v in ("low", "normal", "high")


_K_EVENT = frozenset(("title", "date", "start_time", "duration_minutes", "attendees", "location"))


def _create_calendar_event(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_EVENT or "title" not in a or "date" not in a:
        return False
    if "start_time" not in a:
        return False
    if not _str(a["title"], 1, 200) or not _date(a["date"]):
        return False
    v = a["start_time"]
    if type(v) is not str or _TIME(v) is None:
        return False
    v = a.get("duration_minutes", _MISSING)
    if v is not _MISSING and not _int(v, 5, 1440):
        return False
    v = a.get("attendees", _MISSING)
    if v is not _MISSING:
        if type(v) is not list or len(v) > 50:
            return False
        for p in v:
            if not _person(p):
                return False
    v = a.get("location", _MISSING)
    return v is _MISSING or _geo(v)


_K_READ = frozenset(("path", "encoding", "max_bytes"))


def _read_file(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_READ or "path" not in a or not _path(a["path"]):
        return False
    v = a.get("encoding", _MISSING)
    if v is not _MISSING and v not in ("utf-8", "latin-1", "ascii"):
        return False
    v = a.get("max_bytes", _MISSING)
    return v is _MISSING or _int(v, 1, 10_000_000)


_K_WRITE = frozenset(("path", "content", "mode", "create_dirs"))


def _write_file(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_WRITE or "path" not in a or "content" not in a:
        return False
    if not _path(a["path"]) or not _str(a["content"], 0, 1_000_000):
        return False
    v = a.get("mode", _MISSING)
    if v is not _MISSING and v not in ("overwrite", "append"):
        return False
    v = a.get("create_dirs", _MISSING)
    return v is _MISSING or type(v) is bool


_K_SQL = frozenset(("database", "query", "params", "timeout_seconds"))
_SQL_PARAM_TYPES = (str, int, float, bool, type(None))


def _run_sql_query(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_SQL or "database" not in a or "query" not in a:
        return False
    v = a["database"]
    if type(v) is not str or _IDENT(v) is None or not _str(a["query"], 1, 10_000):
        return False
    v = a.get("params", _MISSING)
    if v is not _MISSING:
        if type(v) is not list or len(v) > 100:
            return False
        for p in v:
            if type(p) not in _SQL_PARAM_TYPES:
                return False
    v = a.get("timeout_seconds", _MISSING)
    return v is _MISSING or (_num(v) and 0 < v <= 300)


_K_ISSUE = frozenset(("repository", "title", "body", "labels", "assignees", "priority"))


def _create_issue(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_ISSUE or "repository" not in a or "title" not in a:
        return False
    v = a["repository"]
    if type(v) is not str or _REPO(v) is None or not _str(a["title"], 1, 256):
        return False
    v = a.get("body", _MISSING)
    if v is not _MISSING and not _str(v, 0, 65_536):
        return False
    v = a.get("labels", _MISSING)
    if v is not _MISSING:
        if type(v) is not list or len(v) > 10:
            return False
        for label in v:
            if not _str(label, 1, 50):
                return False
        if len(set(v)) != len(v):
            return False
    v = a.get("assignees", _MISSING)
    if v is not _MISSING:
        if type(v) is not list or len(v) > 10:
            return False
        for login in v:
            if type(login) is not str or _LOGIN(login) is None:
                return False
    v = a.get("priority", _MISSING)
    return v is _MISSING or v in ("p0", "p1", "p2", "p3")


_K_TRANSLATE = frozenset(("text", "source_language", "target_language", "formality"))


def _translate_text(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_TRANSLATE or "text" not in a or "target_language" not in a:
        return False
    if not _str(a["text"], 1, 5000):
        return False
    v = a["target_language"]
    if type(v) is not str or _LANG(v) is None:
        return False
    v = a.get("source_language", _MISSING)
    if v is not _MISSING and (type(v) is not str or _LANG(v) is None):
        return False
    v = a.get("formality", _MISSING)
    return v is _MISSING or v in ("default", "more", "less")


_K_FLIGHT = frozenset(
    ("origin", "destination", "departure_date", "return_date", "passengers", "cabin", "max_price")
)
_K_PASSENGER = frozenset(("first_name", "last_name", "birth_date", "seat_preference"))


def _book_flight(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_FLIGHT:
        return False
    if "origin" not in a or "destination" not in a or "departure_date" not in a:
        return False
    if "passengers" not in a:
        return False
    if not _currency(a["origin"]) or not _currency(a["destination"]):  # same pattern
        return False
    if not _date(a["departure_date"]):
        return False
    v = a.get("return_date", _MISSING)
    if v is not _MISSING and not _date(v):
        return False
    v = a["passengers"]
    if type(v) is not list or not 1 <= len(v) <= 9:
        return False
    for p in v:
        if type(p) is not dict or not p.keys() <= _K_PASSENGER:
            return False
        if "first_name" not in p or "last_name" not in p or "birth_date" not in p:
            return False
        if not _str(p["first_name"], 1, 60) or not _str(p["last_name"], 1, 60):
            return False
        if not _date(p["birth_date"]):
            return False
        s = p.get("seat_preference", _MISSING)
        if s is not _MISSING and s not in ("window", "aisle", "none"):
            return False
    v = a.get("cabin", _MISSING)
    if v is not _MISSING and v not in ("economy", "premium_economy", "business", "first"):
        return False
    v = a.get("max_price", _MISSING)
    return v is _MISSING or _money(v)


_K_REMINDER = frozenset(("text", "at", "repeat"))
_K_AT = frozenset(("date", "time"))


def _set_reminder(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_REMINDER or "text" not in a or "at" not in a:
        return False
    if not _str(a["text"], 1, 500):
        return False
    v = a["at"]
    if type(v) is not dict or v.keys() != _K_AT or not _date(v["date"]):
        return False
    t = v["time"]
    if type(t) is not str or _TIME(t) is None:
        return False
    v = a.get("repeat", _MISSING)
    return v is _MISSING or v in ("none", "daily", "weekly", "monthly")


_K_QUOTE = frozenset(("symbols", "fields"))
_QUOTE_FIELDS = ("price", "volume", "change", "market_cap")


def _get_stock_quote(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_QUOTE or "symbols" not in a:
        return False
    v = a["symbols"]
    if type(v) is not list or not 1 <= len(v) <= 25:
        return False
    for s in v:
        if type(s) is not str or _TICKER(s) is None:
            return False
    if len(set(v)) != len(v):
        return False
    v = a.get("fields", _MISSING)
    if v is _MISSING:
        return True
    if type(v) is not list or len(v) > 4:
        return False
    for f in v:
        if f not in _QUOTE_FIELDS:
            return False
    return len(set(v)) == len(v)


_K_CONVERT = frozenset(("amount", "from", "to", "date"))


def _convert_currency(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_CONVERT or "amount" not in a or "from" not in a or "to" not in a:
        return False
    v = a["amount"]
    if not _num(v) or v <= 0:
        return False
    if not _currency(a["from"]) or not _currency(a["to"]):
        return False
    v = a.get("date", _MISSING)
    return v is _MISSING or _date(v)


_K_RESIZE = frozenset(("url", "width", "height", "format", "keep_aspect", "background"))


def _resize_image(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_RESIZE or "url" not in a or "width" not in a or "height" not in a:
        return False
    if not _url(a["url"]) or not _int(a["width"], 1, 8192) or not _int(a["height"], 1, 8192):
        return False
    v = a.get("format", _MISSING)
    if v is not _MISSING and v not in ("png", "jpeg", "webp"):
        return False
    v = a.get("keep_aspect", _MISSING)
    if v is not _MISSING and type(v) is not bool:
        return False
    v = a.get("background", _MISSING)
    return v is _MISSING or (type(v) is str and _COLOUR(v) is not None)


_K_HTTP = frozenset(("method", "url", "headers", "body", "timeout_ms"))


def _http_request(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_HTTP or "method" not in a or "url" not in a:
        return False
    if a["method"] not in ("GET", "POST", "PUT", "PATCH", "DELETE") or not _url(a["url"]):
        return False
    v = a.get("headers", _MISSING)
    if v is not _MISSING:
        if type(v) is not dict or len(v) > 50:
            return False
        for h in v.values():
            if not _str(h, 0, 8192):
                return False
    v = a.get("body", _MISSING)
    if v is not _MISSING and not _str(v, 0, 1_000_000):
        return False
    v = a.get("timeout_ms", _MISSING)
    return v is _MISSING or _int(v, 1, 120_000)


_K_LIST = frozenset(("path", "recursive", "include_hidden", "glob", "limit"))


def _list_directory(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_LIST or "path" not in a or not _path(a["path"]):
        return False
    v = a.get("recursive", _MISSING)
    if v is not _MISSING and type(v) is not bool:
        return False
    v = a.get("include_hidden", _MISSING)
    if v is not _MISSING and type(v) is not bool:
        return False
    v = a.get("glob", _MISSING)
    if v is not _MISSING and not _str(v, 0, 256):
        return False
    v = a.get("limit", _MISSING)
    return v is _MISSING or _int(v, 1, 10_000)


_K_SUMMARY = frozenset(("document_id", "max_words", "style", "focus"))


def _summarize_document(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_SUMMARY or "document_id" not in a:
        return False
    v = a["document_id"]
    if type(v) is not str or _DOC_ID(v) is None:
        return False
    v = a.get("max_words", _MISSING)
    if v is not _MISSING and not _int(v, 10, 2000):
        return False
    v = a.get("style", _MISSING)
    if v is not _MISSING and v not in ("bullet", "paragraph", "tldr"):
        return False
    v = a.get("focus", _MISSING)
    if v is _MISSING:
        return True
    if type(v) is not list or len(v) > 5:
        return False
    for f in v:
        if not _str(f, 1, 80):
            return False
    return True


_K_MEETING = frozenset(("participants", "window", "duration_minutes", "timezone"))
_K_WINDOW = frozenset(("start_date", "end_date"))


def _schedule_meeting(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_MEETING or "participants" not in a or "duration_minutes" not in a:
        return False
    v = a["participants"]
    if type(v) is not list or not 2 <= len(v) <= 30:
        return False
    for p in v:
        if not _person(p):
            return False
    v = a["duration_minutes"]
    if not _int(v, 15, 480) or v % 15:
        return False
    v = a.get("window", _MISSING)
    if v is not _MISSING and (
        type(v) is not dict
        or v.keys() != _K_WINDOW
        or not _date(v["start_date"])
        or not _date(v["end_date"])
    ):
        return False
    v = a.get("timezone", _MISSING)
    return v is _MISSING or (type(v) is str and _TZ(v) is not None)


_K_INVOICE = frozenset(("customer", "lines", "due_date", "notes"))
_K_LINE = frozenset(("description", "quantity", "unit_price"))


def _create_invoice(a: dict[str, Any]) -> bool:
    if not a.keys() <= _K_INVOICE or "customer" not in a or "lines" not in a:
        return False
    if not _person(a["customer"]):
        return False
    v = a["lines"]
    if type(v) is not list or not 1 <= len(v) <= 100:
        return False
    for line in v:
        if type(line) is not dict or line.keys() != _K_LINE:
            return False
        if not _str(line["description"], 1, 200) or not _int(line["quantity"], 1, 10_000):
            return False
        if not _money(line["unit_price"]):
            return False
    v = a.get("due_date", _MISSING)
    if v is not _MISSING and not _date(v):
        return False
    v = a.get("notes", _MISSING)
    return v is _MISSING or _str(v, 0, 2000)


_K_CONTACT = frozenset(("contact_id", "changes"))
_K_CHANGES = frozenset(("name", "email", "phone", "address"))
_K_ADDRESS = frozenset(("street", "city", "postal_code", "country"))


def _update_contact(a: dict[str, Any]) -> bool:
    if a.keys() != _K_CONTACT:
        return False
    v = a["contact_id"]
    if type(v) is not str or _CONTACT(v) is None:
        return False
    c = a["changes"]
    if type(c) is not dict or not c or not c.keys() <= _K_CHANGES:
        return False
    v = c.get("name", _MISSING)
    if v is not _MISSING and not _str(v, 1, 100):
        return False
    v = c.get("email", _MISSING)
    if v is not _MISSING and not _email(v):
        return False
    v = c.get("phone", _MISSING)
    if v is not _MISSING and (type(v) is not str or _PHONE(v) is None):
        return False
    v = c.get("address", _MISSING)
    if v is _MISSING:
        return True
    if type(v) is not dict or not v.keys() <= _K_ADDRESS:
        return False
    if "street" not in v or "city" not in v or "country" not in v:
        return False
    if not _str(v["street"], 1, 120) or not _str(v["city"], 1, 60):
        return False
    p = v.get("postal_code", _MISSING)
    if p is not _MISSING and not _str(p, 1, 12):
        return False
    country = v["country"]
    return type(country) is str and _COUNTRY(country) is not None


_TOOLS = {
    "get_weather": _get_weather,
    "search_web": _search_web,
    "send_email": _send_email,
    "create_calendar_event": _create_calendar_event,
    "read_file": _read_file,
    "write_file": _write_file,
    "run_sql_query": _run_sql_query,
    "create_issue": _create_issue,
    "translate_text": _translate_text,
    "book_flight": _book_flight,
    "set_reminder": _set_reminder,
    "get_stock_quote": _get_stock_quote,
    "convert_currency": _convert_currency,
    "resize_image": _resize_image,
    "http_request": _http_request,
    "list_directory": _list_directory,
    "summarize_document": _summarize_document,
    "schedule_meeting": _schedule_meeting,
    "create_invoice": _create_invoice,
    "update_contact": _update_contact,
}
_K_CALL = frozenset(("id", "name", "arguments"))


def check_tool_call(call: Any) -> bool:
    """Whether ``call`` is valid against ``workloads.tool_call_schema()``."""
    if type(call) is not dict or call.keys() != _K_CALL:
        return False
    v = call["id"]
    if type(v) is not str or _CALL_ID(v) is None:
        return False
    name = call["name"]
    tool = _TOOLS.get(name) if type(name) is str else None
    arguments = call["arguments"]
    return tool is not None and type(arguments) is dict and tool(arguments)
