"""UUID strings as clients send them: with or without dashes.

Standard library only, so that parsers (``query.py``) and schemas can use
it without the web stack or the database.
"""
import uuid


def is_uuid(value):
    try:
        uuid.UUID(value)
    except (ValueError, TypeError, AttributeError):
        return False
    return True


def normalize_uuid(value):
    """Canonical dashed form of a UUID string (clients may omit dashes)."""
    return str(uuid.UUID(value))
