"""Scratch directories: made for one run, removed after it."""
import contextlib
import shutil
import tempfile

from bench.common import web


@contextlib.contextmanager
def directory(prefix, keep=False, parent=None):
    """A new directory, removed when the block ends (even on an error)
    unless ``keep``: then its path is logged."""
    path = tempfile.mkdtemp(prefix=prefix, dir=parent)
    try:
        yield path
    finally:
        if keep:
            web.log('kept %s' % path)
        else:
            shutil.rmtree(path, ignore_errors=True)
