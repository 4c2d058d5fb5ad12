"""placement-api: serve the service with gunicorn.

    placement-api [--bind 127.0.0.1:8778] [--workers N] [--timeout S]

Configuration comes from ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` (or
``--config-file``).  The database is prepared once here, before the workers
start, so that they do not race each other migrating it.
"""
import argparse
import multiprocessing
import os
import sys

from gunicorn.app import base as gunicorn_base

from placement import conf as placement_conf
from placement import db
from placement import deploy
from placement.objects import bootstrap


class _Server(gunicorn_base.BaseApplication):

    def __init__(self, conf, options):
        self._conf = conf
        self._options = options
        super().__init__()

    def load_config(self):
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self):
        return deploy.loadapp(self._conf)


def default_workers():
    return min(4, multiprocessing.cpu_count())


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog='placement-api', description='Serve the Placement API.')
    parser.add_argument('--bind', default='0.0.0.0:8778',
                        help='address:port to listen on (default %(default)s)')
    parser.add_argument('--workers', type=int, default=default_workers(),
                        help='worker processes (default: cores, at most 4)')
    parser.add_argument('--timeout', type=int, default=120,
                        help='seconds before a silent worker is restarted')
    parser.add_argument('--config-file', action='append', default=None,
                        help='placement.conf to read (repeatable)')
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        conf = placement_conf.load(config_files=args.config_file)
        deploy.setup_logging(conf)
        database = db.Database(conf)
        bootstrap.prepare_database(
            database, migrate=conf.placement_database.sync_on_startup)
        database.engine.dispose()
    except (placement_conf.ConfigError, bootstrap.SchemaNotReady) as exc:
        sys.stderr.write('placement-api: %s\n' % exc)
        return 1
    if args.config_file:
        os.environ['OS_PLACEMENT_CONFIG_DIR'] = os.path.dirname(
            os.path.abspath(args.config_file[0]))
    options = {
        'bind': args.bind,
        'workers': args.workers,
        'timeout': args.timeout,
        'graceful_timeout': 10,
        'worker_class': 'sync',
        # The service writes its own access line per request.
        'accesslog': None,
        'proc_name': 'placement-api',
    }
    _Server(conf, options).run()
    return 0


if __name__ == '__main__':
    sys.exit(main())
