"""The two servers tools/differential.py compares, each on a fresh
database of its own."""
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import httpx


HERE = os.path.dirname(os.path.abspath(__file__))
UPSTREAM_VENV = os.environ.get(
    'PLACEMENT_UPSTREAM_VENV',
    os.path.expanduser('~/.cache/placement-test-upstream-venv'))


def _fresh_db_url(template, name, workdir):
    if not template:
        return 'sqlite:///' + os.path.join(workdir, 'placement.sqlite')
    import sqlalchemy
    engine = sqlalchemy.create_engine(template, isolation_level='AUTOCOMMIT')
    with engine.connect() as conn:
        conn.exec_driver_sql('DROP DATABASE IF EXISTS ' + name)
        conn.exec_driver_sql('CREATE DATABASE ' + name)
    engine.dispose()
    url = sqlalchemy.engine.make_url(template).set(database=name)
    return url.render_as_string(hide_password=False)


def _drop_db(template, url):
    if not template:
        return
    import sqlalchemy
    name = sqlalchemy.engine.make_url(url).database
    engine = sqlalchemy.create_engine(template, isolation_level='AUTOCOMMIT')
    with engine.connect() as conn:
        conn.exec_driver_sql('DROP DATABASE IF EXISTS ' + name)
    engine.dispose()


class Server:
    """One server in a process group of its own, on a fresh database."""

    def __init__(self, kind, port, workdir, db_url):
        self.kind = kind
        self.db_url = db_url
        self.url = 'http://127.0.0.1:%d' % port
        os.makedirs(workdir, exist_ok=True)
        # This service reads the database: some steps change rows by SQL
        # (null timestamps), which a snapshot sees only at its next check
        # of the fleet; upstream ignores the option.
        with open(os.path.join(workdir, 'placement.conf'), 'w') as conf:
            conf.write('[api]\nauth_strategy = noauth2\n'
                       '[placement]\nread_source = database\n'
                       '[placement_database]\nconnection = %s\n'
                       'sync_on_startup = True\n' % db_url)
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir)
        if kind == 'upstream':
            argv = [os.path.join(UPSTREAM_VENV, 'bin', 'gunicorn'),
                    '--bind', '127.0.0.1:%d' % port, '--workers', '1',
                    'placement.wsgi.api:application']
        else:
            argv = [sys.executable, '-m', 'placement.cmd.api',
                    '--bind', '127.0.0.1:%d' % port, '--workers', '1']
            env['PYTHONPATH'] = os.path.dirname(HERE)
        self.log_path = os.path.join(workdir, 'server.log')
        # In the work directory, so that upstream's gunicorn does not
        # import this repository's placement package.
        with open(self.log_path, 'wb') as log:
            self.process = subprocess.Popen(
                argv, cwd=workdir, env=env, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)
        self._wait()

    def _wait(self, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(self.url + '/', timeout=5).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.2)
        self.stop()
        with open(self.log_path) as log:
            raise RuntimeError('%s did not start:\n%s'
                               % (self.kind, log.read()[-3000:]))

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def upstream_installed():
    return os.path.exists(os.path.join(UPSTREAM_VENV, 'bin', 'gunicorn'))


@contextlib.contextmanager
def servers(port, db_url_template=None):
    workdir = tempfile.mkdtemp(prefix='placement-differential-')
    started = []
    try:
        for offset, kind in enumerate(('ours', 'upstream')):
            name = 'pdiff_%s_%d' % (kind, os.getpid())
            path = os.path.join(workdir, kind)
            os.makedirs(path)
            started.append(Server(kind, port + offset, path,
                                  _fresh_db_url(db_url_template, name,
                                                path)))
        yield started
    finally:
        for server in started:
            server.stop()
            _drop_db(db_url_template, server.db_url)
        shutil.rmtree(workdir, ignore_errors=True)
