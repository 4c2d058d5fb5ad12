"""Rows in bulk, for every step of the pipeline: all rows of a statement
as the driver's plain tuples, and the rows for a set of ids (a range, IN
lists or the whole table, whichever reads least)."""
from placement.objects import base

# How rows are looked up by id (see rows_for): a range when the ids fill
# at least 1/DENSE of it; else up to SCAN ids in IN lists (base.chunks);
# else whole tables, filtered in Python.
DENSE = 4
SCAN = 5000


def fetch(conn, stmt):
    """All rows of ``stmt`` as the driver's plain tuples: the columns read
    here need no conversion, and building SQLAlchemy rows for tens of
    thousands of them would cost more than the query."""
    result = conn.execute(stmt)
    try:
        return result.cursor.fetchall()
    finally:
        result.close()


def rows_for(conn, stmt, ids, column, wrap=lambda clause: clause):
    """Rows of ``stmt`` including those whose ``column`` is in ``ids``
    (callers filter the others out); ``wrap`` turns the condition on
    ``column`` into the statement's condition."""
    low, high = min(ids), max(ids)
    if high - low < DENSE * len(ids):
        return fetch(conn, stmt.where(wrap(column.between(low, high))))
    if len(ids) > SCAN:
        return fetch(conn, stmt)
    rows = []
    for chunk in base.chunks(sorted(ids)):
        rows += fetch(conn, stmt.where(wrap(column.in_(chunk))))
    return rows
