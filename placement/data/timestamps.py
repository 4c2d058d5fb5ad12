"""Timestamps of answers: ``Last-Modified`` from the rows they show.

Standard library only: handlers and objects alike may use it.
"""
import datetime


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)


def newest(*timestamps):
    """The latest of some (possibly naive) timestamps; None (a row without
    one) counts as now, as upstream counts it, and so do no timestamps."""
    found = [t for t in timestamps if t is not None]
    if not found or len(found) < len(timestamps):
        return utcnow()
    try:
        # Timestamps of one database are alike (all naive or all aware):
        # compared as they are, only the newest is converted, not
        # thousands of them in a long listing.
        latest = max(found)
    except TypeError:
        latest = max(_aware(t) for t in found)
    return _aware(latest)


def _aware(timestamp):
    if timestamp.tzinfo is None:
        return timestamp.replace(tzinfo=datetime.timezone.utc)
    return timestamp


def last_change(rows):
    """The newest ``updated_at or created_at`` of ``rows``; None if there
    are no rows.  A row with neither (written by an older release, or a
    standard trait or class) counts as changed now, as upstream counts it.
    """
    stamps = [row.updated_at or row.created_at for row in rows]
    if any(stamp is None for stamp in stamps):
        return utcnow()
    return max(stamps, default=None)


def rows_modified(rows):
    """Last-Modified of a listing: the newest change among its rows
    (objects with ``created_at`` and ``updated_at``); now if empty."""
    return newest(last_change(rows))
