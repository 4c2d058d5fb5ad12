"""placement-api: serve the service with gunicorn.

    placement-api [--bind 127.0.0.1:8778] [--workers N] [--threads N]
                  [--worker-connections N] [--request-timeout S]
                  [--timeout S] [--max-requests N]

Configuration comes from ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` (or
``--config-file``).  The database is prepared once here, before the workers
start, so that they do not race each other migrating it.  SIGHUP reads the
configuration (and policy) again and replaces the workers with workers
that use it, as upstream's re-imported WSGI module does; a configuration
that does not load is logged and the server keeps the one it has.

The server process re-reads the policy files on change as the workers
do, and every worker it starts (after a SIGHUP, a crash or
``--max-requests``) begins with its rules: the last that loaded in full.
A policy file that does not load is logged and changes nothing, in the
server and in every worker; only at the first start does it stop the
server.
"""
import argparse
import logging
import multiprocessing
import os
import shutil
import sys
import tempfile

from gunicorn.app import base as gunicorn_base
from gunicorn import arbiter

from placement.cmd import common
from placement.cmd import http_errors
from placement.cmd import worker
from placement.config import conf as placement_conf
from placement.config import policy
from placement.data import db
from placement.metrics import metrics
from placement.objects import bootstrap
from placement.web import deploy


# Settings that older gunicorn releases do not know.
OPTIONAL_SETTINGS = ('control_socket_disable',)


LOG = logging.getLogger(__name__)


class _Arbiter(arbiter.Arbiter):
    """gunicorn's server process, keeping its policy rules as current as
    the workers': it manages the workers about once a second, and before
    it starts one."""

    def manage_workers(self):
        self.app.enforcer.load_rules()
        super().manage_workers()


class _Server(gunicorn_base.BaseApplication):

    def __init__(self, args, prepared, options):
        self._args = args
        self._conf, self.enforcer, self._feed_on = prepared
        self._options = options
        super().__init__()

    def run(self):
        _Arbiter(self).run()

    def reload(self):
        # SIGHUP, in the server process, before the new workers fork.  Any
        # error is caught: raised here it would stop the whole server.
        try:
            self._conf, self.enforcer, self._feed_on = prepare(
                self._args, self.enforcer.rules)
        except Exception:
            LOG.exception('Configuration not reloaded, keeping the running '
                          'one')
        super().reload()

    def load_config(self):
        for key, value in self._options.items():
            if key in OPTIONAL_SETTINGS and key not in self.cfg.settings:
                continue
            self.cfg.set(key, value)
        # The settings placement.conf gives, read again on SIGHUP.
        api_conf = self._conf.api
        # Threads that only get requests that have fully arrived: slow or
        # idle clients never hold one (see placement/cmd/worker.py).
        self.cfg.set('worker_class', worker.worker_class(
            self._args.request_timeout, api_conf.max_request_body_size))
        # A worker that stops (SIGTERM, SIGHUP to the server, or
        # --max-requests) first finishes the requests it holds, for up to
        # this many seconds.
        self.cfg.set('graceful_timeout', api_conf.graceful_timeout)

    def load(self):
        # Runs in each worker after the fork: its own engine and pool, but
        # logging and the database were already prepared by main().  The
        # enforcer is the server's copy as of the fork: its rules, and
        # the policy files as it last read them.
        return deploy.build_app(
            self._conf, db.Database(self._conf, feed_on=self._feed_on),
            self.enforcer)


# Chosen by measuring the request mix of `bench/run mix http`, see
# docs/operators.md.
DEFAULT_THREADS = 4
# Connections one worker holds at most, and so the requests a SIGKILL of
# it can lose; stalled or idle clients use them up too (docs/operators.md).
DEFAULT_WORKER_CONNECTIONS = 64
DEFAULT_REQUEST_TIMEOUT = 10.0


def default_workers():
    return min(4, multiprocessing.cpu_count())


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog='placement-api', description='Serve the Placement API.')
    parser.add_argument('--bind', default='0.0.0.0:8778',
                        help='address:port to listen on (default %(default)s)')
    parser.add_argument('--workers', type=int, default=default_workers(),
                        help='worker processes (default: cores, at most 4)')
    parser.add_argument('--threads', type=int, default=DEFAULT_THREADS,
                        help='request threads per worker (default %(default)s)')
    parser.add_argument('--worker-connections', type=int,
                        default=DEFAULT_WORKER_CONNECTIONS,
                        help='connections a worker holds at most, idle and '
                        'arriving ones included; more wait for a worker '
                        '(default %(default)s)')
    parser.add_argument('--request-timeout', type=float,
                        default=DEFAULT_REQUEST_TIMEOUT,
                        help='seconds a request may take to arrive before '
                        'its connection is dropped (default %(default)s)')
    parser.add_argument('--timeout', type=int, default=120,
                        help='seconds before a silent worker is restarted')
    parser.add_argument('--max-requests', type=int, default=0,
                        help='restart a worker (gracefully) after about this '
                        'many requests; 0, the default, never does')
    parser.add_argument('--config-file', action='append', default=None,
                        help='placement.conf to read (repeatable)')
    return parser.parse_args(argv)


def prepare(args, policy_rules=None):
    """Configuration and database work done once, before forking: the
    configuration, the policy enforcer (with ``policy_rules``, those in
    force so far, if the policy files do not load) and whether the change
    feed is on (see ``bootstrap.prepare_database``)."""
    conf = placement_conf.load(config_files=args.config_file)
    deploy.setup_logging(conf)
    database = db.Database(conf)
    try:
        # Build the pipeline once here so that a bad policy file, auth
        # configuration or capacity shape stops the start with one line
        # (before the database is touched), not in every worker.
        enforcer = policy.make_enforcer(conf, policy_rules)
        deploy.build_app(conf, database, enforcer)
        feed_on = bootstrap.prepare_database(
            database, migrate=conf.placement_database.sync_on_startup)
    finally:
        database.dispose()
    return conf, enforcer, feed_on


def _child_exit(server, worker):
    metrics.worker_exited(worker.pid)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # The workers' metric files, private to this server: named before
    # anything creates a metric, removed when the server stops.
    metrics_dir = tempfile.mkdtemp(prefix='placement-api-metrics-')
    os.environ[metrics.MULTIPROC_ENV] = metrics_dir
    server_pid = os.getpid()
    try:
        return _serve(args)
    finally:
        # gunicorn forks the workers inside _serve, and a worker that stops
        # gracefully leaves through here too (SystemExit): only the server
        # may remove the directory, or the next worker cannot start and
        # gunicorn shuts the whole server down.
        if os.getpid() == server_pid:
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _serve(args):
    try:
        prepared = prepare(args)
    except common.EXPECTED_ERRORS as exc:
        return common.fail('placement-api', exc)
    options = {
        'bind': args.bind,
        'workers': args.workers,
        'timeout': args.timeout,
        'max_requests': args.max_requests,
        # So that workers started together do not all restart together.
        'max_requests_jitter': args.max_requests // 10,
        'threads': args.threads,
        'worker_connections': args.worker_connections,
        # The service writes its own access line per request.
        'accesslog': None,
        'proc_name': 'placement-api',
        # Newer gunicorn opens a control socket at one fixed path per user;
        # several services (or test servers) on one host would fight over it.
        'control_socket_disable': True,
        'child_exit': _child_exit,
        # gunicorn's maximum: long member_of/in_tree queries are legitimate.
        'limit_request_line': 8190,
    }
    # What gunicorn refuses by itself is answered in the JSON error format.
    http_errors.install()
    _Server(args, prepared, options).run()
    return 0


if __name__ == '__main__':
    sys.exit(main())
