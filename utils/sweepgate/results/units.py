"""Time units: the one conversion of a duration to milliseconds.

Clients disagree: vLLM and SGLang summaries are ms, their per-request arrays
seconds; AIPerf says "ms", "sec" or "ns" next to each value. Everything
stored is milliseconds (``*_ms``), converted here and nowhere else.
"""

from __future__ import annotations

# unit spelling -> milliseconds per unit
_MS_PER_UNIT = {
    "ns": 1e-6, "nanoseconds": 1e-6,
    "us": 1e-3, "µs": 1e-3, "microseconds": 1e-3,
    "ms": 1.0, "milliseconds": 1.0,
    "s": 1e3, "sec": 1e3, "secs": 1e3, "second": 1e3, "seconds": 1e3,
}
TIME_UNITS = tuple(_MS_PER_UNIT)


def is_time_unit(unit) -> bool:
    return isinstance(unit, str) and unit.strip().lower() in _MS_PER_UNIT


def to_ms(value: float | int | None, unit: str) -> float | None:
    """``value`` measured in ``unit`` (ns, us, ms, s and their spellings), in ms.

    ``None`` stays ``None``; an unknown unit raises ``ValueError`` naming it.
    """
    key = unit.strip().lower() if isinstance(unit, str) else ""
    if key not in _MS_PER_UNIT:
        raise ValueError(f"unknown time unit {unit!r} (known: ns, us, ms, s)")
    if value is None:
        return None
    return float(value) * _MS_PER_UNIT[key]
