"""Policy: an operator's policy.yaml is read at start and its edits apply
without a restart, within the enforcer's recheck interval."""
import os
import time

import pytest

from placement.config import conf as placement_conf
from placement.config import context
from placement.config import policy

RULE = 'placement:resource_providers:list'


def _policy_on_a_clock(tmp_path, monkeypatch, check):
    """A policy file giving RULE ``check``, the configuration naming it,
    and the policy's monotonic clock as a list to move on by hand."""
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"%s": %s\n' % (RULE, check))
    conf_file = tmp_path / 'placement.conf'
    conf_file.write_text('[oslo_policy]\npolicy_file = %s\n' % policy_file)
    conf = placement_conf.load(config_files=[str(conf_file)])
    clock = [1000.0]
    monkeypatch.setattr(policy.time, 'monotonic', lambda: clock[0])
    return policy_file, conf, clock


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
    policy_file.write_text('"%s": "!"\n' % RULE)
    later = time.time() + 10  # a new mtime, whatever the clock's grain
    os.utime(policy_file, (later, later))
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
    policy_file.write_text('"%s": [\n' % RULE)
    later = time.time() + 10
    os.utime(policy_file, (later, later))
    clock[0] += 2 * policy.Enforcer.RECHECK_SECONDS
    admin = context.RequestContext(user_id='u', project_id='p',
                                   roles=['admin'])
    # The running enforcer and a new one given its rules still deny...
    started = policy.make_enforcer(conf, fallback=running.rules)
    for enforcer in (running, started):
        assert not enforcer.authorize(RULE, {}, admin, do_raise=False)
    assert 'does not load' in caplog.text
    # ...a first start without rules to fall back on refuses the file.
    with pytest.raises(ValueError):
        policy.make_enforcer(conf)
