"""What the test_openstack_cli_*.py modules share: the ``openstack`` CLI
(python-openstackclient with osc-placement, the ``cli`` extra) run against
a real server in noauth2 mode, on SQLite (the wire format does not depend
on the database).

Each command runs in this process, through the same entry point as the
``openstack`` script with a fresh shell: a new Python process that imports
the client takes seconds per command.
"""
import contextlib
import importlib.util
import io
import json
import os
import tempfile
import uuid
from unittest import mock

import pytest

from support import helpers

# Each module sets ``pytestmark = support.pytestmark``: without the CLI its
# tests skip and say why.
pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec('osc_placement') is None
        or importlib.util.find_spec('openstackclient') is None,
        reason='the openstack CLI is not installed: pip install -e ".[cli]" '
               '(python-openstackclient, osc-placement)'),
    # The client's libraries warn about their own deprecations.
    pytest.mark.filterwarnings('ignore::DeprecationWarning'),
]

LATEST = '1.39'


class CLIError(Exception):
    pass


@pytest.fixture(scope='module')
def server():
    workdir = tempfile.mkdtemp(prefix='placement-cli-')
    helpers.write_config(
        workdir, 'sqlite:///' + os.path.join(workdir, 'placement.sqlite'))
    srv = helpers.Server(workdir)
    yield srv
    srv.stop()


def _forget_clients():
    """Drop the service clients of the previous command.

    The shell keeps each service's client in a descriptor on its
    ClientManager class, made once per process: a second command in the
    same process would reuse the first one's client, endpoint and
    microversion.
    """
    from openstackclient.common import clientmanager
    from osc_lib.clientmanager import ClientCache
    for cls in clientmanager.ClientManager.__mro__:
        for attr in vars(cls).values():
            if isinstance(attr, ClientCache):
                attr._handle = None


def run_cli(argv, env=None):
    """Run ``openstack ARGV``; return (exit status, stdout, stderr)."""
    from openstackclient import shell

    _forget_clients()
    out, err = io.StringIO(), io.StringIO()
    # The client reads OS_* variables; only the given ones may count.
    clean = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    clean.update(env or {})
    with mock.patch.dict(os.environ, clean, clear=True), \
            _keep_logging(), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = shell.OpenStackShell().run(argv)
        except SystemExit as exc:  # argparse errors
            status = exc.code
    return status, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _keep_logging():
    """The shell reconfigures the root logger; give pytest's back."""
    import logging
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        yield
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


@pytest.fixture
def osc(server):
    """``osc(*args, version=...)`` runs one command as the admin and
    returns its parsed ``-f json`` output (its plain output in any other
    format, None when it prints nothing); a failing command raises
    CLIError with its stderr."""

    def call(*args, version=LATEST):
        argv = ['--os-auth-type', 'admin_token',
                '--os-endpoint', server.url, '--os-token', 'admin',
                '--os-placement-api-version', version] + list(args)
        status, out, err = run_cli(argv)
        if status != 0:
            raise CLIError(err.strip())
        if not out.strip():
            return None
        as_json = '-f' in args and args[args.index('-f') + 1] == 'json'
        return json.loads(out) if as_json else out
    return call


def fails(osc, *args, version=LATEST):
    with pytest.raises(CLIError) as info:
        osc(*args, version=version)
    return str(info.value)


def new_provider(osc, name=None, parent=None, version=LATEST):
    args = ['resource', 'provider', 'create', name or 'rp-' + uuid.uuid4().hex]
    if parent:
        args += ['--parent-provider', parent]
    return osc(*args, '-f', 'json', version=version)


def by_class(rows, key='resource_class'):
    return {row[key]: row for row in rows}
