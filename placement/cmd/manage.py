"""placement-manage: database administration.

    placement-manage [--config-file F] db sync
    placement-manage [--config-file F] db version
    placement-manage [--config-file F] db stamp [REVISION]
    placement-manage [--config-file F] db online_data_migrations [--max-count N]
    placement-manage [--config-file F] snapshot reload

The configuration is read as the service reads it
(``$OS_PLACEMENT_CONFIG_DIR/placement.conf``, then
``/etc/placement/placement.conf``), unless ``--config-file`` names one.
"""
import argparse
import sys

from placement.cmd import common
from placement.cmd import status
from placement.config import conf as placement_conf
from placement.data import db
from placement.data import feed
from placement.data import migration
from placement.objects import bootstrap
from placement.objects import upgrade


def db_sync(database, args):
    # The same work the service does at start-up with sync_on_startup:
    # migrate, verify the head, add the standard classes and traits.
    bootstrap.prepare_database(database, migrate=True)
    print('database is at revision %s' % migration.current(database.engine))
    print('own history is at revision %s'
          % migration.own_current(database.engine))
    return 0


def db_version(database, args):
    # First line: upstream's history, as deployment tools read it.
    print(migration.current(database.engine) or 'None')
    print('own history: %s' % (migration.own_current(database.engine)
                               or 'None'))
    return 0


def db_stamp(database, args):
    migration.stamp(database.engine, args.revision)
    print('database stamped at revision %s'
          % migration.current(database.engine))
    return 0


# Upstream's names, so that deployment tools that run them keep working.
ONLINE_MIGRATIONS = [
    ('set_root_provider_ids', upgrade.set_root_provider_ids),
    ('create_incomplete_consumers', upgrade.create_incomplete_consumers),
]


def db_online_data_migrations(database, args):
    """Exit 0 when nothing is left to migrate, 1 when --max-count stopped
    before the end (run again)."""
    max_count = args.max_count or sys.maxsize
    rows = []
    for name, migrate in ONLINE_MIGRATIONS:
        found, done = database.write(migrate, database.conf, max_count)
        rows.append((name, found, done))
    print(status.format_rows(('Migration', 'Total Found', 'Completed'),
                             rows))
    return 0 if all(found == done for _name, found, done in rows) else 1


def snapshot_reload(database, args):
    """Every worker of every node reads its whole snapshot again at its
    next read (read_source = snapshot): after changes made without the
    service, which its change feed never saw."""
    if not database.feed_on:
        print('the change feed is not set up: run "placement-manage db '
              'sync" first', file=sys.stderr)
        return 1
    database.write(feed.touch_everything)
    print('every snapshot reads the database again at its next read')
    return 0


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog='placement-manage',
        description='Administer the Placement database.')
    parser.add_argument('--config-file', action='append', default=None,
                        help='placement.conf to read (repeatable)')
    categories = parser.add_subparsers(dest='category', required=True,
                                       metavar='CATEGORY')
    db_parser = categories.add_parser('db', help='database schema')
    actions = db_parser.add_subparsers(dest='action', required=True,
                                       metavar='ACTION')
    actions.add_parser(
        'sync', help='create or upgrade the schema to the newest revision '
                     'and add the standard resource classes and traits'
    ).set_defaults(func=db_sync)
    actions.add_parser(
        'version', help='print the revision the database is at (a second '
        'line: its own history\'s)'
    ).set_defaults(func=db_version)
    stamp = actions.add_parser(
        'stamp', help='record REVISION as the current one without '
                      'running migrations')
    stamp.add_argument('revision', nargs='?', default='head',
                       help='revision id or "head" (default)')
    stamp.set_defaults(func=db_stamp)
    online = actions.add_parser(
        'online_data_migrations',
        help='fill in data that old releases left incomplete (root '
             'provider ids, consumer records)')
    online.add_argument('--max-count', type=int, default=None,
                        metavar='N', help='migrate at most N rows of each '
                                          'kind; exit 1 while more remain')
    online.set_defaults(func=db_online_data_migrations)
    snapshot = categories.add_parser(
        'snapshot', help='the workers\' in-memory copies of the cloud')
    snapshot.add_subparsers(dest='action', required=True,
                            metavar='ACTION').add_parser(
        'reload', help='make every worker read its snapshot again from '
                       'the database (after changes made by hand)'
    ).set_defaults(func=snapshot_reload)
    return parser.parse_args(argv)


def _run(args):
    conf = placement_conf.load(config_files=args.config_file)
    database = db.Database(conf)
    try:
        # Its writes (online data migrations, a reload) go into the
        # change feed, as the service's do.
        bootstrap.feed_ready(database)
        return args.func(database, args)
    finally:
        database.dispose()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    return common.run('placement-manage', _run, args)


if __name__ == '__main__':
    sys.exit(main())
