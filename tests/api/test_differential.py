"""The same requests to this service and to upstream placement answer the
same (tools/differential.py), on a bounded selection of its steps, on
every database the tests run on.

Needs upstream openstack-placement installed in a virtualenv
(``$PLACEMENT_UPSTREAM_VENV``, default ~/.cache/placement-test-upstream-venv,
which .ci/run fills from PyPI): skips without it, and fails under CI=true.
Every difference found is either fixed (and asserted word for word in
test_error_texts_*.py) or listed with its reason in ``ACCEPTED``.
"""
import importlib.util
import os

import pytest
import sqlalchemy as sa

import support
from support import helpers

_PATH = support.REPO / 'tools' / 'differential.py'
_spec = importlib.util.spec_from_file_location('differential', _PATH)
differential = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(differential)



@pytest.fixture(autouse=True)
def _need_upstream():
    if differential.upstream_installed():
        return
    reason = ('upstream placement is not installed in %s (.ci/run installs '
              'it)' % differential.differential_servers.UPSTREAM_VENV)
    if os.environ.get('CI') == 'true':
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(params=helpers.BACKENDS)
def db_url_template(request):
    """Where both servers' databases are made: SQLite files, or the
    environment's MariaDB or PostgreSQL server."""
    if request.param == 'sqlite':
        return None
    if request.param == 'mysql':
        return sa.engine.make_url(os.environ['PLACEMENT_TEST_MYSQL_URL']) \
            .update_query_dict({'charset': 'utf8mb4'}) \
            .render_as_string(hide_password=False)
    return os.environ['PLACEMENT_TEST_POSTGRESQL_URL']


def _run(steps, db_url_template):
    return differential.run(steps, port=int(os.environ.get(
        'PLACEMENT_DIFFERENTIAL_PORT', '19100')),
        db_url_template=db_url_template)


# Sections and microversions that cover each kind of check once, kept to
# about a minute: the whole run is `tools/differential.py`.
BOUNDED = ('read 1.0', 'read 1.39', 'nobody 1.23', 'empty body 1.23',
           'bad json 1.23', 'accept', 'version header', 'content-type',
           'rps 1.39', 'rps 1.30', 'ac 1.39', 'ac 1.30', 'agg put latest',
           'rp traits put', 'inv create latest', 'inv replace',
           'in use', 'inv update', 'alloc put latest', 'alloc put odd',
           'alloc post latest', 'reshape latest', 'member', 'no token',
           'rp update latest', 'rp reparent', 'owner reset',
           'reshape empty inventories')
# (The "null timestamps" steps have a test of their own below.)


def test_answers_match_upstream(db_url_template):
    steps = [step for step in differential.steps()
             if step.label == 'world'
             or any(key in step.label for key in BOUNDED)]
    found = _run(steps, db_url_template)
    unexplained = ['%s %s (%s): %s' % (item['method'], item['path'],
                                       item['version'],
                                       '; '.join(item['differences']))
                   for item in found if not item['accepted']]
    assert not unexplained, '\n'.join(unexplained)


def test_rows_without_timestamps_answer_as_upstream(db_url_template):
    # Each table's rows in turn without created_at / updated_at, in both
    # databases: reads at their microversions and writes that change
    # nothing answer, and date their answers, as upstream's do (but where
    # upstream itself fails).
    steps = [step for step in differential.steps()
             if step.label == 'world' or 'null timestamps' in step.label]
    found = [item for item in _run(steps, db_url_template)
             if not differential.upstream_failure(
                 '%s %s' % (item['method'], item['path']),
                 item['differences'])]
    assert not found, '\n'.join(
        '%s %s (%s): %s' % (item['method'], item['path'], item['version'],
                            '; '.join(item['differences']))
        for item in found)
