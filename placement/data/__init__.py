"""The data layer: the database engine with its transactions and retries
(db.py), the tables (tables.py), migrations (migration.py), and the
standard-library helpers rows and parsers share (timestamps.py,
uuids.py).  It imports no resource: no object, handler or engine
module."""
