"""Date and time formats of RFC 3339: date-time, date, time, duration."""

from __future__ import annotations

import re

__all__ = ["is_date", "is_date_time", "is_duration", "is_time"]

# RFC 3339 section 5.6. Only ASCII digits: "[0-9]" (unlike "\d") matches no others.
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = re.compile(
    r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"  # partial-time
    r"(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))"  # time-offset
)

# RFC 3339 section 5.7 / appendix C: days per month, February of leap years aside.
_MONTH_DAYS = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap_year(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _valid_date(match: re.Match[str]) -> bool:
    year, month, day = int(match[1]), int(match[2]), int(match[3])
    if not 1 <= month <= 12 or day < 1:
        return False
    if month == 2 and _leap_year(year):
        return day <= 29
    return day <= _MONTH_DAYS[month]


def _valid_time(match: re.Match[str]) -> bool:
    hour, minute, second = int(match[1]), int(match[2]), int(match[3])
    if hour > 23 or minute > 59 or second > 60:
        return False
    offset = 0
    if match[4]:
        off_hour, off_minute = int(match[5]), int(match[6])
        if off_hour > 23 or off_minute > 59:
            return False
        offset = off_hour * 60 + off_minute
        if match[4] == "-":
            offset = -offset
    if second == 60:
        # Section 5.7: a leap second is 23:59:60 in UTC, so the local time must be
        # that minute once the offset is taken away.
        return (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59
    return True


def is_date(value: str) -> bool:
    """RFC 3339 full-date: YYYY-MM-DD with the month's day count."""
    match = _DATE.fullmatch(value)
    return match is not None and _valid_date(match)


def is_time(value: str) -> bool:
    """RFC 3339 full-time: partial-time with a required offset (``Z`` or ``+hh:mm``)."""
    match = _TIME.fullmatch(value)
    return match is not None and _valid_time(match)


def is_date_time(value: str) -> bool:
    """RFC 3339 date-time: full-date, ``T`` (either case), full-time."""
    if len(value) < 20 or value[10] not in "Tt":
        return False
    date = _DATE.fullmatch(value, 0, 10)
    if date is None or not _valid_date(date):
        return False
    time = _TIME.fullmatch(value, 11)
    return time is not None and _valid_time(time)


# RFC 3339 appendix A (ISO 8601 durations). ABNF quoted strings are case-insensitive
# (RFC 5234 section 2.3), so the designators are matched in either case, as section
# 5.6 notes for "T" and "Z". Each alternative starts with digits followed by a
# distinct designator, so matching never backtracks more than linearly.
_D = r"[0-9]+"
_DUR_TIME = rf"[Tt](?:{_D}[Hh](?:{_D}[Mm](?:{_D}[Ss])?)?|{_D}[Mm](?:{_D}[Ss])?|{_D}[Ss])"
_DUR_DATE = (
    rf"(?:{_D}[Dd]|{_D}[Mm](?:{_D}[Dd])?|{_D}[Yy](?:{_D}[Mm](?:{_D}[Dd])?)?)(?:{_DUR_TIME})?"
)
_DURATION = re.compile(rf"[Pp](?:{_DUR_DATE}|{_DUR_TIME}|{_D}[Ww])")


def is_duration(value: str) -> bool:
    """RFC 3339 appendix A duration: ``P`` then date, time or week parts, in order."""
    return _DURATION.fullmatch(value) is not None
