"""min / median / max of repeated measurements, formatted for the tables."""

import statistics


def summary(values):
    """(n, min, median, max) of the non-None values; Nones are dropped."""
    vals = [v for v in values if v is not None]
    if not vals:
        return 0, None, None, None
    return len(vals), min(vals), statistics.median(vals), max(vals)


def fmt(value, unit="s", digits=2):
    if value is None:
        return "–"
    return f"{value:.{digits}f} {unit}".rstrip()


def fmt_summary(values, unit="s", digits=2):
    """'min / median / max' or '–' when nothing was measured."""
    n, lo, mid, hi = summary(values)
    if n == 0:
        return "–"
    if n == 1:
        return fmt(lo, unit, digits)
    return f"{lo:.{digits}f} / {mid:.{digits}f} / {hi:.{digits}f} {unit}".rstrip()
