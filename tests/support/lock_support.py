"""Requests held in flight by a lock the test takes on the service's
database: shared by the tests of stopping servers."""
import contextlib
import sqlite3


@contextlib.contextmanager
def writes_held(database):
    """Writes to the traits table wait inside the service until the block
    ends: another session holds the table's write lock."""
    if database.backend == 'sqlite':
        lock = sqlite3.connect(database.url[len('sqlite:///'):],
                               isolation_level=None)
        lock.execute('BEGIN IMMEDIATE')
        try:
            yield
        finally:
            lock.execute('ROLLBACK')
            lock.close()
        return
    engine = database.engine()
    try:
        with engine.connect() as conn:
            if database.backend == 'mysql':
                conn.exec_driver_sql('LOCK TABLES traits WRITE')
            else:
                conn.exec_driver_sql('LOCK TABLE traits IN EXCLUSIVE MODE')
            yield
            if database.backend == 'mysql':
                conn.exec_driver_sql('UNLOCK TABLES')
            conn.rollback()
    finally:
        engine.dispose()
