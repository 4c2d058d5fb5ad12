"""Policy: an operator's policy.yaml is read at start and its edits apply
without a restart, within the enforcer's recheck interval; a file that
does not load changes nothing, in running workers and in workers started
after it (a reload, a crash, a recycled worker)."""
import os
import signal
import time

import httpx
import pytest

from placement.config import conf as placement_conf
from placement.config import context
from placement.config import policy

from support import helpers

RULE = 'placement:resource_providers:list'


def _policy_on_a_clock(tmp_path, monkeypatch, check, policy_dir=None):
    """A policy file giving RULE ``check``, the configuration naming it
    (and ``policy_dir``), and the policy's monotonic clock as a list to
    move on by hand."""
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"%s": %s\n' % (RULE, check))
    conf_file = tmp_path / 'placement.conf'
    conf_file.write_text('[oslo_policy]\npolicy_file = %s\n' % policy_file
                         + ('policy_dirs = %s\n' % policy_dir
                            if policy_dir else ''))
    conf = placement_conf.load(config_files=[str(conf_file)])
    clock = [1000.0]
    monkeypatch.setattr(policy.time, 'monotonic', lambda: clock[0])
    return policy_file, conf, clock


def _edit(policy_file, text):
    """Save ``text`` with an mtime later than the file's last one, as an
    editor saving again some time later would."""
    later = (policy_file.stat().st_mtime + 1 if policy_file.exists()
             else time.time())
    policy_file.write_text(text)
    os.utime(policy_file, (later, later))


def test_policy_file_edit_applies_after_the_recheck_interval(
        tmp_path, monkeypatch):
    policy_file, conf, clock = _policy_on_a_clock(tmp_path, monkeypatch,
                                                  '"@"')
    enforcer = policy.make_enforcer(conf)
    member = context.RequestContext(
        user_id='u', project_id='p', roles=['member'], enforcer=enforcer)

    def allowed():
        return enforcer.authorize(RULE, {}, member, do_raise=False)

    assert allowed()
    _edit(policy_file, '"%s": "!"\n' % RULE)
    # Inside the interval the file is not looked at again...
    clock[0] += policy.Enforcer.RECHECK_SECONDS / 2
    assert allowed()
    # ...after it, the edit applies.
    clock[0] += policy.Enforcer.RECHECK_SECONDS
    assert not allowed()


def test_decisions_are_kept_until_the_recheck(tmp_path, monkeypatch):
    conf_file = tmp_path / 'placement.conf'
    conf_file.write_text('')
    conf = placement_conf.load(config_files=[str(conf_file)])
    clock = [1000.0]
    monkeypatch.setattr(policy.time, 'monotonic', lambda: clock[0])
    enforcer = policy.make_enforcer(conf)
    evaluated = []
    enforce = policy.policy.Enforcer.enforce

    def counting(self, *args, **kwargs):
        evaluated.append(args[0])
        return enforce(self, *args, **kwargs)

    monkeypatch.setattr(policy.policy.Enforcer, 'enforce', counting)

    def allowed(roles, project='p'):
        ctx = context.RequestContext(user_id='u', project_id=project,
                                     roles=roles, enforcer=enforcer)
        return enforcer.authorize(RULE, {'project_id': project}, ctx,
                                  do_raise=False)

    assert allowed(['admin']) and allowed(['admin'])
    assert not allowed(['member']) and not allowed(['member'])
    assert allowed(['admin'], project='q')
    assert len(evaluated) == 3
    clock[0] += policy.Enforcer.RECHECK_SECONDS
    assert allowed(['admin'])
    assert len(evaluated) == 4


def test_policy_file_that_stops_loading_keeps_the_rules_in_force(
        tmp_path, monkeypatch, caplog):
    policy_file, conf, clock = _policy_on_a_clock(tmp_path, monkeypatch,
                                                  '"!"')
    running = policy.make_enforcer(conf)
    _edit(policy_file, '"%s": [\n' % RULE)
    clock[0] += 2 * policy.Enforcer.RECHECK_SECONDS
    admin = context.RequestContext(user_id='u', project_id='p',
                                   roles=['admin'])
    # The running enforcer and a new one given its rules still deny...
    started = policy.make_enforcer(conf, fallback=running.rules)
    for enforcer in (running, started):
        assert not enforcer.authorize(RULE, {}, admin, do_raise=False)
    assert 'does not load' in caplog.text
    # ...a first start without rules to fall back on refuses the file,
    # naming it and what is wrong, on one line.
    with pytest.raises(policy.PolicyFileError) as raised:
        policy.make_enforcer(conf)
    assert str(raised.value) == (
        "the policy file %s does not load: expected the node content, but "
        "found '<stream end>' at line 2, column 1" % policy_file)


def test_rules_apply_only_when_every_policy_file_loads(tmp_path,
                                                        monkeypatch):
    # policy.d's files are applied over policy.yaml's, one by one: when
    # one of them does not load, none of the edits made meanwhile apply.
    other = 'placement:traits:list'
    policy_dir = tmp_path / 'policy.d'
    policy_dir.mkdir()
    extra = policy_dir / 'extra.yaml'
    extra.write_text('"%s": "@"\n' % other)
    policy_file, conf, clock = _policy_on_a_clock(
        tmp_path, monkeypatch, '"@"', policy_dir=policy_dir)
    enforcer = policy.make_enforcer(conf)
    member = context.RequestContext(user_id='u', project_id='p',
                                    roles=['member'])

    def allowed(rule):
        return enforcer.authorize(rule, {}, member, do_raise=False)

    assert allowed(RULE) and allowed(other)
    later = time.time() + 10
    policy_file.write_text('"%s": "!"\n' % RULE)
    extra.write_text('"%s": [\n' % other)
    for path in (policy_file, extra, policy_dir):
        os.utime(path, (later, later))
    clock[0] += policy.Enforcer.RECHECK_SECONDS
    assert allowed(RULE) and allowed(other)
    # Once the broken file is fixed, both edits apply.
    later += 10
    extra.write_text('"%s": "!"\n' % other)
    for path in (extra, policy_dir):
        os.utime(path, (later, later))
    clock[0] += policy.Enforcer.RECHECK_SECONDS
    assert not allowed(RULE) and not allowed(other)


# A member of a project: the built-in defaults refuse it the summary.
MEMBER_HEADERS = dict(helpers.ADMIN_HEADERS, **{
    'x-auth-token': 'member:p', 'x-roles': 'member,reader'})
SUMMARY = 'placement:summary'
# Requests a worker serves before it is replaced, in the recycling case
# (gunicorn adds up to a tenth more at random).
MAX_REQUESTS = 200


def _statuses(server, count, headers=MEMBER_HEADERS):
    # A connection per request, so that no kept-alive one outlives a
    # worker and every request goes to a worker that is there now.
    return [httpx.get(server.url + '/summary', headers=headers).status_code
            for _ in range(count)]


def _wait_for(condition, server, timeout=30):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.2)


def _whole_log(server):
    with open(server.log_path, errors='replace') as log:
        return log.read()


def _sighup_server(server):
    os.kill(server.process.pid, signal.SIGHUP)


def _sigkill_worker(server):
    os.kill(server.workers().pop(), signal.SIGKILL)


def _recycle_worker(server):
    workers = server.workers()
    for _ in range(2 * MAX_REQUESTS):
        if server.workers() != workers:
            return
        httpx.get(server.url + '/')
    raise AssertionError('the worker was not recycled: %s' % server.log())


@pytest.mark.parametrize('restart', [_sighup_server, _sigkill_worker,
                                     _recycle_worker],
                         ids=['server SIGHUP', 'worker SIGKILL',
                              'worker recycled by --max-requests'])
def test_a_revoked_rule_stays_revoked_in_new_workers_after_a_broken_edit(
        tmp_path, restart):
    # Rules and workers, not SQL: SQLite is enough.
    database = helpers.TestDatabase('sqlite', str(tmp_path))
    policy_file = tmp_path / 'policy.yaml'
    _edit(policy_file, '"%s": "@"\n' % SUMMARY)
    helpers.write_config(str(tmp_path), database.url,
                         '[oslo_policy]\npolicy_file = %s\n' % policy_file)
    server = helpers.Server(str(tmp_path),
                            args=['--max-requests', str(MAX_REQUESTS)])
    try:
        assert _statuses(server, 1) == [200]
        _edit(policy_file, '"%s": "role:admin"\n' % SUMMARY)
        _wait_for(lambda: _statuses(server, 1) == [403], server)
        # The server process looks at the file about once a second too.
        time.sleep(3 * policy.Enforcer.RECHECK_SECONDS)
        _edit(policy_file, '"%s": [\n' % SUMMARY)
        # (The worker finds out at its next request.)
        _wait_for(lambda: (_statuses(server, 1) == [403]
                           and 'does not load' in _whole_log(server)),
                  server)
        before = server.workers()
        restart(server)
        _wait_for(lambda: server.workers() and not server.workers() & before,
                  server)
        # The new worker serves the revocation, not the rules the server
        # process started with.
        assert _statuses(server, 6) == [403] * 6
        assert _statuses(server, 1, helpers.ADMIN_HEADERS) == [200]
        assert server.process.poll() is None
    finally:
        server.stop()
        database.drop()
