"""Start-up with ``sync_on_startup`` under a WSGI server whose workers
each build the application (``placement.wsgi:application``): they all
migrate a fresh database at once, and every one of them must come up."""
import os
import sys

import httpx

from support import helpers

WORKERS = 4


def test_workers_migrating_at_once_all_start(database):
    workdir = os.path.join(database.workdir, 'wsgi-startup')
    os.makedirs(workdir)
    fresh = helpers.TestDatabase(database.backend, workdir)
    try:
        helpers.write_config(workdir, fresh.url)
        port = helpers.free_port()
        url = 'http://127.0.0.1:%d' % port
        server = helpers.BackgroundProcess()
        server.start(
            [sys.executable, '-m', 'gunicorn', '--bind',
             '127.0.0.1:%d' % port, '--workers', str(WORKERS),
             '--timeout', '120', 'placement.wsgi:application'],
            dict(os.environ, OS_PLACEMENT_CONFIG_DIR=workdir),
            os.path.join(workdir, 'server.log'), url + '/', timeout=120)
        try:
            # One request per worker (new connections, no keep-alive):
            # any worker that failed to boot makes gunicorn exit.
            for _ in range(3 * WORKERS):
                try:
                    response = httpx.get(url + '/resource_classes',
                                         headers=helpers.ADMIN_HEADERS)
                except httpx.TransportError as exc:
                    raise AssertionError(server.log()) from exc
                assert response.status_code == 200, response.text
            assert server.process.poll() is None, server.log()
            assert 'Worker failed to boot' not in server.log()
        finally:
            server.stop()
    finally:
        fresh.drop()
