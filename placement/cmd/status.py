"""placement-status: is this deployment ready for the new code?

    placement-status [--config-file F] upgrade check

Runs every check, prints a table and exits with the worst result:
0 all succeeded, 1 a warning (works, but needs attention), 2 a failure
(the service will not work until it is fixed).  A configuration or
database problem that stops the checks from running at all also exits 2.
"""
import argparse
import collections
import json
import sys

from placement.cmd import common
from placement.config import conf as placement_conf
from placement.config import policy
from placement.data import db
from placement.data import migration
from placement.objects import upgrade

SUCCESS, WARNING, FAILURE = 0, 1, 2
RESULT_NAMES = {SUCCESS: 'Success', WARNING: 'Warning', FAILURE: 'Failure'}

Result = collections.namedtuple('Result', 'code details')


def check_schema(conf, engine):
    current = migration.current(engine)
    head = migration.head()
    if current == head:
        return Result(SUCCESS, 'schema is at revision %s' % head)
    if current is None:
        return Result(FAILURE, 'the database has no placement schema; run '
                               '"placement-manage db sync"')
    return Result(FAILURE, 'schema is at revision %s, this code needs %s; '
                           'run "placement-manage db sync"' % (current, head))


def check_own_schema(conf, engine):
    """This service's own history: behind, the service still serves, but
    without the change feed."""
    current = migration.own_current(engine)
    head = migration.own_head()
    if current == head:
        return Result(SUCCESS, 'own history is at revision %s' % head)
    return Result(WARNING, 'own history is at revision %s, this code needs '
                           '%s: the change feed is off until '
                           '"placement-manage db sync"' % (current, head))


def check_root_providers(conf, engine):
    with engine.connect() as conn:
        missing = upgrade.count(conn, upgrade.rootless_providers())
    if missing:
        return Result(FAILURE, '%d resource providers have no root provider '
                               'id; run "placement-manage db '
                               'online_data_migrations"' % missing)
    return Result(SUCCESS, 'every resource provider has a root provider id')


def check_incomplete_consumers(conf, engine):
    """Consumers written before microversion 1.8 carry placeholder project
    and user ids, and very old allocations may have no consumer row."""
    with engine.connect() as conn:
        incomplete = upgrade.count_consumers_of_project(
            conn, conf.placement.incomplete_consumer_project_id)
        orphaned = upgrade.count(conn, upgrade.orphaned_consumers())
    problems = []
    if incomplete:
        problems.append(
            '%d consumers have the placeholder project %s (written before '
            'microversion 1.8); they are completed when their allocations '
            'are next written with a project and user'
            % (incomplete, conf.placement.incomplete_consumer_project_id))
    if orphaned:
        problems.append('%d consumers have allocations but no consumer '
                        'record; run "placement-manage db '
                        'online_data_migrations"' % orphaned)
    if problems:
        return Result(WARNING, '; '.join(problems))
    return Result(SUCCESS, 'no incomplete consumers')


def check_policy(conf, engine):
    try:
        enforcer = policy.make_enforcer(conf)
    except policy.PolicyFileError as exc:
        return Result(FAILURE, str(exc))
    if not enforcer.policy_path:
        return Result(SUCCESS, 'no policy file; the built-in defaults apply')
    unknown = sorted(set(enforcer.file_rules) - set(enforcer.registered_rules))
    if unknown:
        return Result(WARNING, '%s names rules this service does not have: '
                               '%s' % (enforcer.policy_path,
                                       ', '.join(unknown)))
    if _is_json(enforcer.policy_path):
        return Result(WARNING, '%s is JSON; oslo.policy prefers YAML '
                               '(oslopolicy-convert-json-to-yaml converts it)'
                      % enforcer.policy_path)
    return Result(SUCCESS, '%s loads' % enforcer.policy_path)


def _is_json(path):
    try:
        with open(path) as f:
            json.load(f)
    except ValueError:
        return False
    return True


# (name, check, needs the schema at head)
CHECKS = [
    ('Database schema', check_schema, False),
    ('Change feed schema', check_own_schema, False),
    ('Root provider ids', check_root_providers, True),
    ('Incomplete consumers', check_incomplete_consumers, True),
    ('Policy file', check_policy, False),
]


def run_checks(conf, engine):
    results = []
    schema_ready = True
    for name, check, needs_schema in CHECKS:
        if needs_schema and not schema_ready:
            result = Result(FAILURE, 'not checked: the schema is not at head')
        else:
            result = check(conf, engine)
        if check is check_schema:
            schema_ready = result.code == SUCCESS
        results.append((name, result))
    return results


def format_rows(header, rows):
    """A plain-text table, every cell as str()."""
    rows = [[str(cell) for cell in row] for row in [header] + list(rows)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    rule = '+' + '+'.join('-' * (w + 2) for w in widths) + '+'
    lines = [rule]
    for index, row in enumerate(rows):
        lines.append('| ' + ' | '.join(
            cell.ljust(width) for cell, width in zip(row, widths)) + ' |')
        if index == 0:
            lines.append(rule)
    lines.append(rule)
    return '\n'.join(lines)


def format_table(results):
    return format_rows(('Check', 'Result', 'Details'), [
        (name, RESULT_NAMES[result.code], result.details)
        for name, result in results])


def upgrade_check(conf):
    database = db.Database(conf)
    try:
        results = run_checks(conf, database.engine)
    finally:
        database.dispose()
    print(format_table(results))
    return max(result.code for _name, result in results)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog='placement-status',
        description='Check that the deployment is ready for this release.')
    parser.add_argument('--config-file', action='append', default=None,
                        help='placement.conf to read (repeatable)')
    categories = parser.add_subparsers(dest='category', required=True,
                                       metavar='CATEGORY')
    upgrade = categories.add_parser('upgrade', help='upgrade readiness')
    actions = upgrade.add_subparsers(dest='action', required=True,
                                     metavar='ACTION')
    actions.add_parser('check', help='run the upgrade checks')
    return parser.parse_args(argv)


def _run(args):
    conf = placement_conf.load(config_files=args.config_file)
    return upgrade_check(conf)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    return common.run('placement-status', _run, args, failure_code=FAILURE)


if __name__ == '__main__':
    sys.exit(main())
