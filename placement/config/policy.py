"""Policy: upstream rule names and defaults, enforced with oslo.policy.

Every rule is scoped to projects.  The four base rules carry the legacy
``role:admin`` check as their deprecated form, so with
``[oslo_policy] enforce_new_defaults = False`` a plain admin still passes,
and with it True the secure-RBAC defaults apply.  An operator's
``policy.yaml`` overrides any rule by name.
"""
import logging
import time

from oslo_context import context
from oslo_policy import policy

from placement.config import conf as placement_conf

LOG = logging.getLogger(__name__)

ADMIN_API = 'admin_api'
SERVICE_API = 'service_api'
ADMIN_OR_SERVICE_API = 'admin_or_service_api'
PROJECT_READER_API = 'project_reader_api'
ADMIN_OR_PROJECT_READER_OR_SERVICE_API = (
    'admin_or_project_reader_or_service_api')

_LEGACY_ADMIN = policy.DeprecatedRule(
    name=ADMIN_API, check_str='role:admin',
    deprecated_reason='Placement now uses the admin, service and reader '
                      'roles with project scope.',
    deprecated_since='W')


def _base(name, check, description):
    return policy.RuleDefault(name, check, description,
                              deprecated_rule=_LEGACY_ADMIN)


BASE_RULES = [
    policy.RuleDefault(ADMIN_API, 'role:admin',
                       'Administrators of the deployment.'),
    _base(SERVICE_API, 'role:service', 'Other OpenStack services.'),
    _base(ADMIN_OR_SERVICE_API, 'role:admin or role:service',
          'Administrators or other services.'),
    _base(PROJECT_READER_API, 'role:reader and project_id:%(project_id)s',
          'Readers of the project named in the request.'),
    _base(ADMIN_OR_PROJECT_READER_OR_SERVICE_API,
          'role:admin or rule:project_reader_api or role:service',
          'Administrators, services, or readers of the named project.'),
]

# (rule name, base rule, description, [(method, path), ...])
_API_RULES = [
    ('resource_providers:list', ADMIN_OR_SERVICE_API, 'List providers.',
     [('GET', '/resource_providers')]),
    ('resource_providers:create', ADMIN_OR_SERVICE_API, 'Create a provider.',
     [('POST', '/resource_providers')]),
    ('resource_providers:show', ADMIN_OR_SERVICE_API, 'Show a provider.',
     [('GET', '/resource_providers/{uuid}')]),
    ('resource_providers:update', ADMIN_OR_SERVICE_API, 'Update a provider.',
     [('PUT', '/resource_providers/{uuid}')]),
    ('resource_providers:delete', ADMIN_OR_SERVICE_API, 'Delete a provider.',
     [('DELETE', '/resource_providers/{uuid}')]),
    ('resource_classes:list', ADMIN_OR_SERVICE_API, 'List resource classes.',
     [('GET', '/resource_classes')]),
    ('resource_classes:create', ADMIN_OR_SERVICE_API,
     'Create a resource class.', [('POST', '/resource_classes')]),
    ('resource_classes:show', ADMIN_OR_SERVICE_API, 'Show a resource class.',
     [('GET', '/resource_classes/{name}')]),
    ('resource_classes:update', ADMIN_OR_SERVICE_API,
     'Create or rename a resource class.',
     [('PUT', '/resource_classes/{name}')]),
    ('resource_classes:delete', ADMIN_OR_SERVICE_API,
     'Delete a resource class.', [('DELETE', '/resource_classes/{name}')]),
    ('resource_providers:inventories:list', ADMIN_OR_SERVICE_API,
     'List inventories.', [('GET', '/resource_providers/{uuid}/inventories')]),
    ('resource_providers:inventories:create', ADMIN_OR_SERVICE_API,
     'Create one inventory.',
     [('POST', '/resource_providers/{uuid}/inventories')]),
    ('resource_providers:inventories:show', ADMIN_OR_SERVICE_API,
     'Show one inventory.',
     [('GET', '/resource_providers/{uuid}/inventories/{resource_class}')]),
    ('resource_providers:inventories:update', ADMIN_OR_SERVICE_API,
     'Replace inventories.',
     [('PUT', '/resource_providers/{uuid}/inventories'),
      ('PUT', '/resource_providers/{uuid}/inventories/{resource_class}')]),
    ('resource_providers:inventories:delete', ADMIN_OR_SERVICE_API,
     'Delete inventories.',
     [('DELETE', '/resource_providers/{uuid}/inventories'),
      ('DELETE', '/resource_providers/{uuid}/inventories/{resource_class}')]),
    ('resource_providers:aggregates:list', ADMIN_OR_SERVICE_API,
     'List provider aggregates.',
     [('GET', '/resource_providers/{uuid}/aggregates')]),
    ('resource_providers:aggregates:update', ADMIN_OR_SERVICE_API,
     'Replace provider aggregates.',
     [('PUT', '/resource_providers/{uuid}/aggregates')]),
    ('resource_providers:usages', ADMIN_OR_SERVICE_API,
     'List provider usages.', [('GET', '/resource_providers/{uuid}/usages')]),
    ('usages', ADMIN_OR_PROJECT_READER_OR_SERVICE_API,
     'List usages of a project.', [('GET', '/usages')]),
    ('traits:list', ADMIN_OR_SERVICE_API, 'List traits.',
     [('GET', '/traits')]),
    ('traits:show', ADMIN_OR_SERVICE_API, 'Show a trait.',
     [('GET', '/traits/{name}')]),
    ('traits:update', ADMIN_OR_SERVICE_API, 'Create a trait.',
     [('PUT', '/traits/{name}')]),
    ('traits:delete', ADMIN_OR_SERVICE_API, 'Delete a trait.',
     [('DELETE', '/traits/{name}')]),
    ('resource_providers:traits:list', ADMIN_OR_SERVICE_API,
     'List provider traits.', [('GET', '/resource_providers/{uuid}/traits')]),
    ('resource_providers:traits:update', ADMIN_OR_SERVICE_API,
     'Replace provider traits.',
     [('PUT', '/resource_providers/{uuid}/traits')]),
    ('resource_providers:traits:delete', ADMIN_OR_SERVICE_API,
     'Remove provider traits.',
     [('DELETE', '/resource_providers/{uuid}/traits')]),
    ('allocations:manage', ADMIN_OR_SERVICE_API,
     'Write allocations of several consumers.', [('POST', '/allocations')]),
    ('allocations:list', ADMIN_OR_SERVICE_API, 'Show consumer allocations.',
     [('GET', '/allocations/{consumer_uuid}')]),
    ('allocations:update', ADMIN_OR_SERVICE_API,
     'Replace consumer allocations.',
     [('PUT', '/allocations/{consumer_uuid}')]),
    ('allocations:delete', ADMIN_OR_SERVICE_API,
     'Delete consumer allocations.',
     [('DELETE', '/allocations/{consumer_uuid}')]),
    ('resource_providers:allocations:list', ADMIN_OR_SERVICE_API,
     'List allocations against a provider.',
     [('GET', '/resource_providers/{uuid}/allocations')]),
    ('allocation_candidates:list', ADMIN_OR_SERVICE_API,
     'List allocation candidates.', [('GET', '/allocation_candidates')]),
    ('allocation_candidates:explain', ADMIN_API,
     'Explain which rules of an allocation candidates query remove which '
     'providers (names every provider, so administrators only).',
     [('GET', '/allocation_candidates/explain')]),
    ('capacity', ADMIN_API,
     'Count how many more instances of given shapes fit, where, and the '
     'free space they cannot use (names every provider, so '
     'administrators only).', [('GET', '/capacity'), ('POST', '/capacity')]),
    ('claims', ADMIN_OR_SERVICE_API,
     'Choose and write the allocations of one or more consumers in one '
     'call.', [('POST', '/claims')]),
    ('metrics', ADMIN_API, 'Read the Prometheus metrics.',
     [('GET', '/metrics')]),
    ('summary', ADMIN_API,
     'Read capacity and usage of the whole cloud, and the provider list '
     'a page at a time (names providers and projects, so administrators '
     'only).', [('GET', '/summary'), ('GET', '/summary/providers')]),
    ('reshaper:reshape', SERVICE_API,
     'Move inventories and allocations within a tree.',
     [('POST', '/reshaper')]),
]

API_RULES = [
    policy.DocumentedRuleDefault(
        name='placement:' + name, check_str='rule:' + base,
        description=description,
        operations=[{'method': m, 'path': p} for m, p in operations],
        scope_types=['project'])
    for name, base, description, operations in _API_RULES
]


def list_rules():
    return BASE_RULES + API_RULES


class PolicyFileError(placement_conf.ConfigError):
    """A policy file that does not load, named, with what is wrong in it
    on one line."""

    def __init__(self, path, error):
        super().__init__('the policy file %s does not load: %s'
                         % (path, _one_line(error)))


def _one_line(error):
    # oslo.policy turns a YAML error into a ValueError of its text, which
    # spans several lines and quotes the file; the YAML error itself says
    # where.
    cause = error.__context__
    mark = getattr(cause, 'problem_mark', None)
    if mark is not None:
        return '%s at line %d, column %d' % (
            cause.problem or cause.context, mark.line + 1, mark.column + 1)
    return ' '.join(str(error).split()) or type(error).__name__


class Enforcer(policy.Enforcer):
    """oslo.policy's Enforcer, looking for edits to the policy files at
    most once every ``RECHECK_SECONDS``, and keeping its decisions until
    then.

    oslo.policy searches the configuration directories for the policy file
    and stats it and every policy directory on each check: a few system
    calls per request, a few per cent of a worker's time under load.  An
    operator's edit still takes effect within the interval, without a
    restart.  Evaluating a rule inspects the signature of each check in
    it, some 60 microseconds a request, for a decision that depends only
    on the rule, the target and the caller's policy values: those few
    combinations are decided once per interval.

    Rules apply only as a whole: when any policy file (``policy.d``'s
    included) does not load, the error is logged and the rules in force
    before stay, all of them: this enforcer's own, or, for a new one,
    ``fallback``.  Without either, ``PolicyFileError`` is raised.
    """

    RECHECK_SECONDS = 1.0
    # Decisions kept per interval at most, whoever calls.
    MAX_DECISIONS = 1024

    def __init__(self, *args, fallback=None, **kwargs):
        self._decisions = {}
        self._fallback = fallback
        super().__init__(*args, **kwargs)
        self._next_check = 0.0

    def load_rules(self, force_reload=False):
        now = time.monotonic()
        if force_reload or now >= self._next_check:
            # Set first: threads arriving meanwhile skip rather than pile in.
            self._next_check = now + self.RECHECK_SECONDS
            # A copy: oslo.policy changes the rules in place, file by file.
            in_force = policy.Rules(self.rules or self._fallback or {},
                                    self.default_rule)
            try:
                super().load_rules(force_reload)
            except PolicyFileError as exc:
                if not in_force:
                    raise
                LOG.error('%s; the rules in force stay until it is fixed',
                          exc)
                # oslo.policy re-reads the file only once it changes again.
                self.set_rules(in_force, use_conf=True)
            self._decisions = {}

    def _load_policy_file(self, path, force_reload, overwrite=True):
        # Where oslo.policy reads and parses each policy file.
        try:
            return super()._load_policy_file(path, force_reload, overwrite)
        except Exception as exc:
            raise PolicyFileError(path, exc) from exc

    def authorize(self, rule, target, creds, do_raise=False, *args,
                  **kwargs):
        key = None
        if not (do_raise or args or kwargs
                or policy.LOG.isEnabledFor(logging.DEBUG)):
            # (At DEBUG every evaluation is logged, as oslo.policy does.)
            key = _decision_key(rule, target, creds)
        if key is None:
            return super().authorize(rule, target, creds, do_raise, *args,
                                     **kwargs)
        self.load_rules()
        decisions = self._decisions
        allowed = decisions.get(key, _UNDECIDED)
        if allowed is _UNDECIDED:
            allowed = super().authorize(rule, target, creds)
            if len(decisions) < self.MAX_DECISIONS:
                decisions[key] = allowed
        return allowed


_UNDECIDED = object()


def _decision_key(rule, target, creds):
    """What a decision depends on besides the rules, or None if that
    cannot be a dictionary key."""
    if not isinstance(creds, context.RequestContext):
        return None
    try:
        return (rule, frozenset(target.items()), frozenset(
            (name, tuple(value) if isinstance(value, list) else value)
            for name, value in creds.to_policy_values().items()))
    except (AttributeError, TypeError):
        return None


def make_enforcer(conf, fallback=None):
    """An enforcer with the rules of the configured policy files, or with
    ``fallback`` (the rules in force so far) if they do not load; without
    ``fallback`` a file that does not load raises ``PolicyFileError``."""
    enforcer = Enforcer(conf, fallback=fallback)
    enforcer.register_defaults(list_rules())
    # Read policy.yaml now, so that a broken file stops the start-up.
    enforcer.load_rules()
    return enforcer
