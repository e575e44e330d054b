"""Numbers, sizes, durations and dates as the user's locale writes them.

Every panel that shows a figure goes through here, so "1.5 GiB" is "1,5 GiB" under de_DE and a
token count reads "12,345" / "12.345" / "12,345" under en_US / de_DE / zh_CN. The locale is
``QLocale()`` (the default that ``console.ui.app`` sets from the settings or the system), or one
passed in (tests). Sizes are binary (IEC units, as the planner counts them).
"""

from __future__ import annotations

import datetime as _dt

from PySide6.QtCore import QCoreApplication, QDateTime, QLocale

DASH = "—"


def _loc(locale: QLocale | None) -> QLocale:
    return locale if locale is not None else QLocale()


def format_bytes(n: float | None, precision: int = 1, locale: QLocale | None = None) -> str:
    """``1.5 GiB`` with the locale's decimal separator; "—" for nothing."""
    if not n:
        return DASH
    return _loc(locale).formattedDataSize(int(n), precision, QLocale.DataSizeFormat.DataSizeIecFormat)


def format_rate(bytes_per_s: float, locale: QLocale | None = None) -> str:
    """A transfer speed: ``12.3 MiB/s``."""
    return QCoreApplication.translate("Format", "{0}/s").format(format_bytes(max(bytes_per_s, 1), 1, locale))


def format_count(n: int | float, locale: QLocale | None = None) -> str:
    """An integer with the locale's grouping: ``12,345`` / ``12.345``."""
    return _loc(locale).toString(int(round(n)))


def format_number(x: float, decimals: int = 1, locale: QLocale | None = None) -> str:
    """A decimal number: ``3.5`` / ``3,5``, grouped when large."""
    return _loc(locale).toString(float(x), "f", decimals)


def format_params(n: int | None, locale: QLocale | None = None) -> str:
    """A parameter count: ``135.0M``, ``7.6B`` (locale decimal)."""
    if not n:
        return DASH
    for div, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if n >= div:
            return format_number(n / div, 1, locale) + suffix
    return format_count(n, locale)


def format_duration(seconds: float | None) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 10 min`` (units translated); "—" when unknown."""
    tr = QCoreApplication.translate
    if seconds is None or seconds != seconds or seconds < 0:
        return DASH
    s = int(round(seconds))
    if s < 60:
        return tr("Format", "{0} s").format(s)
    if s < 3600:
        return tr("Format", "{0} min {1} s").format(s // 60, f"{s % 60:02d}")
    return tr("Format", "{0} h {1} min").format(s // 3600, f"{s % 3600 // 60:02d}")


def format_datetime(value: str | float | _dt.datetime | None, locale: QLocale | None = None) -> str:
    """A moment in the locale's short date-and-time format, in local time. Accepts an ISO 8601
    string (how the core stores times), epoch seconds or a datetime; anything unreadable is
    returned as given."""
    if value is None or value == "":
        return DASH
    try:
        if isinstance(value, str):
            moment = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        elif isinstance(value, _dt.datetime):
            moment = value
        else:
            moment = _dt.datetime.fromtimestamp(float(value), _dt.timezone.utc)
    except (TypeError, ValueError, OverflowError):
        return str(value)
    if moment.tzinfo is None:
        moment = moment.astimezone()  # naive: already local
    qdt = QDateTime.fromSecsSinceEpoch(int(moment.timestamp())).toLocalTime()
    return _loc(locale).toString(qdt, QLocale.FormatType.ShortFormat)


__all__ = [
    "format_bytes",
    "format_count",
    "format_datetime",
    "format_duration",
    "format_number",
    "format_params",
    "format_rate",
]
