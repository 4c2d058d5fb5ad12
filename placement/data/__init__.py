"""The data layer: the database engine with its transactions and retries
(db.py), the tables (tables.py, and own_tables.py of our own migration
history), migrations (migration.py), the change feed (feed.py), and the
standard-library helpers rows and parsers share (timestamps.py,
uuids.py).  It imports no resource: no object, handler or engine
module."""
