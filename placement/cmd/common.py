"""What the command-line tools share: configuration problems and database
errors end the command with one readable line on stderr, never a traceback,
because operators meet them first when something is mis-configured."""
import sys

from alembic import util as alembic_util
from sqlalchemy import exc as sa_exc

from placement.config import conf as placement_conf
from placement.objects import bootstrap


def _first_line(text):
    lines = str(text).strip().splitlines()
    return lines[0] if lines else ''


def error_line(exc):
    """One line describing an error a command cannot recover from."""
    if isinstance(exc, sa_exc.NoSuchModuleError):
        return 'unknown database type in [placement_database] connection: %s' % (
            _first_line(exc))
    if isinstance(exc, sa_exc.ArgumentError):
        # The message would quote the whole URL, password included.
        return 'cannot parse the [placement_database] connection URL'
    if isinstance(exc, ImportError):
        return 'the database driver is not installed: %s' % _first_line(exc)
    if isinstance(exc, sa_exc.DBAPIError) and exc.orig is not None:
        return 'database error: %s' % _first_line(exc.orig)
    if isinstance(exc, sa_exc.SQLAlchemyError):
        return 'database error: %s' % _first_line(exc)
    return _first_line(exc) or type(exc).__name__


# The errors a command reports as one line; anything else is a bug and
# keeps its traceback.
EXPECTED_ERRORS = (placement_conf.ConfigError, sa_exc.SQLAlchemyError,
                   alembic_util.CommandError, bootstrap.SchemaNotReady,
                   ImportError, OSError)


def fail(prog, exc, code=1):
    """Report ``exc`` as one line on stderr; return the exit code."""
    sys.stderr.write('%s: %s\n' % (prog, error_line(exc)))
    return code


def run(prog, func, *args, failure_code=1):
    """``func(*args)``'s exit code, or ``failure_code`` after one line on
    stderr when it raised one of ``EXPECTED_ERRORS``."""
    try:
        return func(*args)
    except EXPECTED_ERRORS as exc:
        return fail(prog, exc, failure_code)
