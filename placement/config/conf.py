"""Configuration: upstream placement.conf section and option names.

The file is found at ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` and then
``/etc/placement/placement.conf``; with neither, every option keeps its
default and the database is an SQLite file under a per-user state directory,
so a fresh machine can run the service with no set-up at all.
"""
import os

from oslo_config import cfg
from oslo_config import types
from oslo_middleware import cors
from oslo_policy import opts as policy_opts

DEFAULT_CONFIG_DIR = '/etc/placement'
CONFIG_NAME = 'placement.conf'
# Seconds a stopping worker of placement-api gives the requests it holds.
DEFAULT_GRACEFUL_TIMEOUT = 10

api_opts = [
    cfg.StrOpt('auth_strategy', default='keystone',
               choices=('keystone', 'noauth2'),
               help='keystone validates tokens through keystonemiddleware; '
                    'noauth2 trusts X-Auth-Token (development and tests).'),
    # 20,000 consumers in one POST /allocations (nova's bulk moves) take
    # 6 to 9 MB of JSON, 12 MB pretty-printed.
    cfg.IntOpt('max_request_body_size', default=16 * 1024 * 1024, min=1,
               help='Largest request body accepted, in bytes; a larger '
                    'one is answered 413 before it is read (under '
                    'placement-api, the rest of a body of up to 4 times '
                    'this size is then read and thrown away, so that a '
                    'client sending all of it first still reads the '
                    'answer).'),
    cfg.IntOpt('graceful_timeout', default=DEFAULT_GRACEFUL_TIMEOUT,
               min=0,
               help='Under placement-api: seconds a worker that is told '
                    'to stop (SIGTERM or SIGHUP to the server, '
                    '--max-requests) lets the requests it holds finish; '
                    'when the server stops, those still running then are '
                    'cut off.'),
    cfg.BoolOpt('console', default=True,
                help='Serve the read-only web console at /console/. Its '
                     'files are public; the data it shows comes from the '
                     'API with the user\'s own token.'),
    cfg.BoolOpt('access_log', default=True,
                help='Log one line per request (placement.access, at '
                     'INFO). Off saves a few per cent of the CPU time of '
                     'a small request, where a proxy in front logs '
                     'requests already.'),
]

placement_opts = [
    cfg.BoolOpt('randomize_allocation_candidates', default=False,
                help='Shuffle allocation candidates before applying limit.'),
    cfg.StrOpt('incomplete_consumer_project_id',
               default='00000000-0000-0000-0000-000000000000',
               help='Project recorded for consumers written before 1.8.'),
    cfg.StrOpt('incomplete_consumer_user_id',
               default='00000000-0000-0000-0000-000000000000',
               help='User recorded for consumers written before 1.8.'),
    cfg.IntOpt('allocation_conflict_retry_count', default=10, min=0,
               help='Internal retries of a write that lost a race.'),
    cfg.IntOpt('max_allocation_candidates', default=-1,
               help='Upper bound on candidates built per request; '
                    '-1 means no bound.'),
    cfg.StrOpt('allocation_candidates_generation_strategy',
               default='depth-first', choices=('depth-first', 'breadth-first'),
               help='Order in which candidates are generated when bounded.'),
    cfg.StrOpt('candidate_order', default='default',
               choices=('default', 'spread', 'pack'),
               help='Order of allocation candidates before limit applies: '
                    'default is upstream\'s (provider order, or shuffled '
                    'with randomize_allocation_candidates); spread puts '
                    'the trees with the most weighted free space first, '
                    'pack those with the least.'),
    cfg.Opt('weight_multipliers',
            type=types.Dict(value_type=types.Float(min=0)),
            default={'VCPU': 1.0, 'MEMORY_MB': 1.0, 'DISK_GB': 1.0},
            help='With spread or pack: how much the free space of each '
                 'resource class counts in a candidate\'s weight, '
                 'e.g. VCPU:1.0,MEMORY_MB:1.0,DISK_GB:0.5 (classes not '
                 'named count nothing).'),
    cfg.FloatOpt('weight_tolerance', default=0.01, min=0, max=1,
                 help='With spread or pack: trees whose weights (0 to 1) '
                      'are within this of the best of their band are '
                      'shuffled per request, so that schedulers asking at '
                      'once start on different trees.'),
    cfg.IntOpt('change_feed_gap_seconds', default=60, min=1,
               help='How long a reader of the change feed waits for a '
                    'missing id (a write still committing) before taking '
                    'it for a rolled-back one; far above the time a '
                    'commit takes.'),
    cfg.BoolOpt('explain_empty_results', default=True,
                help='When GET /allocation_candidates finds nothing, log '
                     'at INFO why (the summary of its explanation) with '
                     'the request ids.'),
    cfg.StrOpt('read_source', default='snapshot',
               choices=('database', 'snapshot'),
               help='Where reads come from: snapshot answers the provider '
                    'list, allocation candidates, their explanation and '
                    'the capacity count from a copy of the cloud in each '
                    'worker\'s memory, kept current by the change feed of '
                    'this service\'s writes (docs/operators.md, "Reads '
                    'from memory"); writes that record no change '
                    '(upstream nodes) are noticed within a second. '
                    'database reads every answer from SQL: the way back, '
                    'and the reference the snapshot is tested against.'),
]

database_opts = [
    cfg.StrOpt('connection', secret=True,
               help='SQLAlchemy URL of the placement database.'),
    cfg.StrOpt('connection_parameters', default='',
               help='Extra query parameters appended to the URL.'),
    cfg.BoolOpt('sqlite_synchronous', default=True),
    cfg.StrOpt('slave_connection', secret=True),
    cfg.StrOpt('mysql_sql_mode', default='TRADITIONAL'),
    cfg.IntOpt('connection_recycle_time', default=3600),
    cfg.IntOpt('max_pool_size', min=1),
    cfg.IntOpt('max_retries', default=10, min=-1),
    cfg.IntOpt('retry_interval', default=10),
    cfg.IntOpt('max_overflow', min=0),
    cfg.IntOpt('connection_debug', default=0, min=0, max=100),
    cfg.BoolOpt('connection_trace', default=False),
    cfg.IntOpt('pool_timeout', min=1),
    cfg.BoolOpt('sync_on_startup', default=False,
                help='Run the schema migrations when the service starts.'),
]

default_opts = [
    cfg.BoolOpt('debug', default=False, help='Log at DEBUG level.'),
    cfg.StrOpt('log_file', help='Write logs to this file instead of stderr.'),
    cfg.StrOpt('state_path', help='Directory for the default SQLite file.'),
    cfg.StrOpt('tempdir'),
    cfg.StrOpt('pybasedir'),
]

metrics_opts = [
    cfg.BoolOpt('enabled', default=True,
                help='Count requests and serve them at GET /metrics in the '
                     'Prometheus text format.'),
    cfg.BoolOpt('require_auth', default=True,
                help='GET /metrics needs a token allowed by the '
                     'placement:metrics policy rule (admin by default); '
                     'False serves it to anyone who can reach the service, '
                     'e.g. a Prometheus scraper on the management network.'),
    cfg.IntOpt('cache_seconds', default=15, min=0,
               help='How long the capacity and usage figures, computed by '
                    'SQL at scrape time, are reused.'),
    cfg.BoolOpt('per_provider', default=False,
                help='Also report capacity and usage of every provider '
                     '(one series per provider and class).'),
    cfg.MultiStrOpt('capacity_shape', default=[],
                    help='A shape whose capacity GET /metrics reports, as '
                         'POST /capacity counts it: a name, a space and the '
                         'query string of GET /allocation_candidates, e.g. '
                         '"m1.large resources=VCPU:4,MEMORY_MB:8192,'
                         'DISK_GB:80". Repeat the option for each shape; '
                         'all are counted together once per '
                         'cache_seconds.'),
    cfg.BoolOpt('capacity_per_aggregate', default=False,
                help='Also report each capacity_shape\'s fits per '
                     'aggregate (an availability zone is one).'),
]

workarounds_opts = [
    cfg.BoolOpt('optimize_for_wide_provider_trees', default=False),
]


class ConfigError(Exception):
    """A configuration problem, reported as one line at start-up."""


def register_opts(conf):
    conf.register_opts(default_opts)
    conf.register_opts(api_opts, group='api')
    conf.register_opts(placement_opts, group='placement')
    conf.register_opts(database_opts, group='placement_database')
    conf.register_opts(workarounds_opts, group='workarounds')
    conf.register_opts(metrics_opts, group='metrics')
    policy_opts.set_defaults(conf)
    # The reference always enforces scope; accept the option so that an
    # operator's file naming it still loads.
    conf.register_opts([cfg.BoolOpt('enforce_scope', default=True)],
                       group='oslo_policy')
    cors.set_defaults(allow_headers=[])
    conf.register_opts(cors.CORS_OPTS, group='cors')


def find_config_files():
    config_dir = os.environ.get('OS_PLACEMENT_CONFIG_DIR')
    for directory in (config_dir, DEFAULT_CONFIG_DIR):
        if directory:
            path = os.path.join(directory, CONFIG_NAME)
            if os.path.exists(path):
                return [path]
    return []


def state_dir():
    base = os.environ.get('XDG_STATE_HOME') or os.path.join(
        os.path.expanduser('~'), '.local', 'state')
    return os.path.join(base, 'placement')


def default_connection(conf):
    directory = conf.state_path or state_dir()
    os.makedirs(directory, exist_ok=True)
    return 'sqlite:///' + os.path.join(directory, 'placement.sqlite')


def _check_value(group_conf, group, name):
    try:
        getattr(group_conf, name)
    except (cfg.Error, ValueError) as exc:
        # oslo.config's text names the option through a LocationInfo repr;
        # keep only the reason after it.
        reason = str(exc).rpartition(' is not valid: ')[2]
        raise ConfigError(f'invalid configuration: [{group}] {name}: '
                          f'{reason}') from None


def load(args=None, config_files=None):
    """Build and parse a ConfigOpts; raise ConfigError on any problem."""
    conf = cfg.ConfigOpts()
    register_opts(conf)
    if config_files is None:
        config_files = find_config_files()
    try:
        conf(args or [], project='placement',
             default_config_files=config_files,
             default_config_dirs=[])
    except (cfg.Error, ValueError) as exc:
        raise ConfigError(f'invalid configuration: {exc}') from None
    # Touch every registered option so type errors surface now.
    for group in ('api', 'placement', 'placement_database',
                  'oslo_policy', 'cors', 'workarounds', 'metrics'):
        for name in conf[group]:
            _check_value(conf[group], group, name)
    for name in ('debug', 'log_file', 'state_path'):
        _check_value(conf, 'DEFAULT', name)
    if not conf.placement_database.connection:
        # A private SQLite file nobody else migrates: create it on start.
        conf.set_override('connection', default_connection(conf),
                          group='placement_database')
        conf.set_override('sync_on_startup', True,
                          group='placement_database')
    return conf
