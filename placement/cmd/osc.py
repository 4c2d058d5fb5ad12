"""``openstack allocation candidate explain``, ``openstack capacity
show`` and ``openstack allocation claim``: osc plugin commands.

Installed with the ``cli`` extra (entry points in the
``openstack.placement.v1`` namespace, next to osc-placement's commands).
All take the options of ``openstack allocation candidate list``: the
list command itself builds the query, and these commands send it to
``GET /allocation_candidates/explain`` or ``GET /capacity``, or as the
shape of ``POST /claims``, instead.
"""
from cliff import columns
from osc_lib.command import command
from osc_placement.resources import allocation_candidate
from osc_placement import version

EXPLAIN_URL = allocation_candidate.BASE_URL + '/explain'
CAPACITY_URL = '/capacity'
CLAIMS_URL = '/claims'


class _QueryBuilt(Exception):
    """Carries the query parameters out of the list command."""

    def __init__(self, params):
        super().__init__()
        self.params = params


class _QueryOnly:
    """Stands in for the placement client while the list command builds
    its query: answers everything as the client does, but stops the
    request itself and hands its parameters back."""

    def __init__(self, client):
        self._client = client

    def __getattr__(self, name):
        return getattr(self._client, name)

    def request(self, method, url, params=None, **kwargs):
        raise _QueryBuilt(params)


class _ListQuery(allocation_candidate.ListAllocationCandidate):
    """The list command's options, its query sent elsewhere."""

    def _query(self, parsed_args):
        """The query parameters the list command builds from
        ``parsed_args``."""
        manager = self.app.client_manager
        manager.placement = _QueryOnly(manager.placement)
        try:
            super().take_action(parsed_args)
        except _QueryBuilt as built:
            return built.params
        finally:
            del manager.placement

    def _shape(self, parsed_args):
        """The query as a shape of POST /capacity or POST /claims: its
        parameters as a query string would carry them (an empty list not
        at all)."""
        return {name: value if isinstance(value, list) else str(value)
                for name, value in self._query(parsed_args).items()
                if value not in ([], None)}

    def _send(self, parsed_args, url):
        """The JSON answer of ``url`` to the query the list command
        builds from ``parsed_args``."""
        return self.app.client_manager.placement.request(
            'GET', url, params=self._query(parsed_args)).json()


class ExplainAllocationCandidate(_ListQuery):
    """Explain why an allocation candidates query finds what it finds.

    Takes the options of ``openstack allocation candidate list`` and shows,
    per request group, how many resource providers each rule removed
    (resource inventory, units and capacity, traits, aggregates, tree),
    then the same over whole trees for the rules spanning groups.  The
    table view starts with a one-line summary, the number of candidates
    and the providers that missed by a single rule.  Needs the
    ``placement:allocation_candidates:explain`` policy (admin by default).
    """

    def take_action(self, parsed_args):
        body = self._send(parsed_args, EXPLAIN_URL)
        if parsed_args.formatter == 'table':
            lines = [body['summary'], 'Candidates: %d' % body['candidates']]
            lines += ['Nearest: %s (%s) group %r: %s' % (
                near['name'], near['uuid'], near['group'], near['detail'])
                for near in body['nearest']]
            self.app.stdout.write('\n'.join(lines) + '\n')
        rows = [(group['suffix'], step['check'], step['removed'],
                 step['remaining'])
                for group in body['groups'] for step in group['steps']]
        rows += [('(trees)', step['check'], step['removed'],
                  step['remaining'])
                 for step in body['combination']['steps']]
        return ('group', 'check', 'removed', 'remaining'), rows


class _Entries(columns.FormattableColumn):
    """A mapping or a list of objects of an answer: as the answer gives
    it in json and yaml, one line of ``key=value`` per object in a
    table."""

    def human_readable(self):
        entries = self._value if isinstance(self._value, list) else [
            self._value]
        return '\n'.join(_line(entry) for entry in entries)

    def machine_readable(self):
        return self._value


def _line(entry):
    if not isinstance(entry, dict):
        return str(entry)
    return ', '.join(
        '%s=%s' % (key, ','.join(map(str, value))
                   if isinstance(value, list) else value)
        for key, value in entry.items())


# ShowOne first: the answer is one object (its output formats win over the
# list command's, which only lends its query options).
class ShowCapacity(command.ShowOne, _ListQuery):
    """Count how many more instances of a shape fit, and where.

    Takes the options of ``openstack allocation candidate list`` (the
    shape: what the scheduler asks for one instance) and shows the answer
    of ``GET /capacity``: the total (``fits``), the root providers that
    can take some, most first, with the classes that run out first, the
    count per aggregate (an availability zone is one) and the free space
    the shape cannot use (``stranded``), in every output format
    (``-f value -c fits`` prints the total alone); ``--limit`` cuts the
    providers listed, not the count.  What if: ``--without-root`` and
    ``--without-aggregate`` take trees out, ``--with LIKE=N`` adds N
    copies of the tree of root LIKE, ``--evacuate`` moves the consumers
    of the trees taken out first (``POST /capacity``; the answer then
    adds ``evacuation``), ``--survive`` plays the loss of each root
    provider (of those in ``--survive-member-of``'s aggregate, if given;
    the answer adds ``survive``, the roots whose loss cannot be
    absorbed).  Needs the ``placement:capacity`` policy (admin by
    default).
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--without-root', metavar='<uuid>', action='append', default=[],
            help='What if the tree of this root provider were taken out; '
                 'repeatable.')
        parser.add_argument(
            '--without-aggregate', metavar='<uuid>', action='append',
            default=[], help='What if the trees with a provider in this '
                             'aggregate were taken out; repeatable.')
        parser.add_argument(
            '--with', metavar='<root uuid>=<count>', dest='copies',
            action='append', default=[], type=_copies,
            help='What if <count> trees like that of this root were '
                 'added, nothing allocated; repeatable.')
        parser.add_argument(
            '--evacuate', action='store_true',
            help='Move the consumers of the trees taken out first.')
        parser.add_argument(
            '--survive', action='store_true',
            help='N+1: could the consumers of each root provider go '
                 'elsewhere if it were lost?')
        parser.add_argument(
            '--survive-member-of', metavar='<aggregate uuid>',
            help='With --survive, only the roots with a provider in this '
                 'aggregate.')
        return parser

    def take_action(self, parsed_args):
        changes = _changes(parsed_args)
        if changes:
            answer = self.app.client_manager.placement.request(
                'POST', CAPACITY_URL, json=dict(
                    changes, shapes={'shape': self._shape(parsed_args)})
            ).json()
            body = answer['shapes']['shape']
            for found in ('evacuation', 'survive'):
                if found in answer:
                    body[found] = answer[found]
        else:
            body = self._send(parsed_args, CAPACITY_URL)
        # Every field of the answer, so that new ones show up too.
        return tuple(body), tuple(
            _Entries(value) if isinstance(value, (dict, list)) else value
            for value in body.values())


def _copies(value):
    """``--with``'s ``<root uuid>=<count>`` as POST /capacity's entry."""
    like, _, count = value.partition('=')
    if not count.isdigit():
        raise ValueError(value)
    return {'like': like, 'count': int(count)}


def _changes(parsed_args):
    """The what-if members of POST /capacity's body the options ask for
    ({} for none)."""
    changes = {}
    without = {}
    if parsed_args.without_root:
        without['roots'] = parsed_args.without_root
    if parsed_args.without_aggregate:
        without['aggregates'] = parsed_args.without_aggregate
    if without:
        changes['without'] = without
    if parsed_args.copies:
        changes['with'] = parsed_args.copies
    if parsed_args.evacuate:
        changes['evacuate'] = True
    if parsed_args.survive_member_of:
        changes['survive'] = {'each_root': True,
                              'member_of': parsed_args.survive_member_of}
    elif parsed_args.survive:
        changes['survive'] = 'each_root'
    return changes


class ClaimAllocations(_ListQuery):
    """Choose and write allocations for new consumers in one call.

    Takes the options of ``openstack allocation candidate list`` (the
    shape: what one instance needs) and gives each ``--consumer`` one
    instance of it through ``POST /claims``: all of them or none
    (``--roots distinct`` puts each in another provider tree, ``same``
    all in one).  Lists each consumer's allocation with the root
    provider of its tree; with ``--alternates N`` also the next best
    candidates nobody claimed.  Needs ``--os-placement-api-version
    1.28`` or greater and the ``placement:claims`` policy (admin or
    service by default).
    """

    def get_parser(self, prog_name):
        parser = super().get_parser(prog_name)
        parser.add_argument(
            '--consumer', metavar='<uuid>', action='append', required=True,
            help='A new consumer to claim one instance for; repeat for a '
                 'group.')
        parser.add_argument('--project', metavar='<project id>',
                            required=True, help='The consumers\' project.')
        parser.add_argument('--user', metavar='<user id>', required=True,
                            help='The consumers\' user.')
        parser.add_argument(
            '--consumer-type', metavar='<type>', default='INSTANCE',
            help='The consumers\' type (from 1.38; default INSTANCE).')
        parser.add_argument('--roots', choices=('any', 'distinct', 'same'),
                            default='any')
        parser.add_argument('--order', choices=('default', 'spread', 'pack'),
                            help='The candidates\' order (default: the '
                                 'service\'s candidate_order).')
        parser.add_argument('--alternates', metavar='<count>', type=int,
                            default=0, help='Unclaimed next best candidates '
                                            'to list, 0 to 10.')
        return parser

    @version.check(version.ge('1.28'))
    def take_action(self, parsed_args):
        owner = {'project_id': parsed_args.project,
                 'user_id': parsed_args.user, 'consumer_generation': None}
        if self.compare_version(version.ge('1.38')):
            owner['consumer_type'] = parsed_args.consumer_type
        body = {'shape': self._shape(parsed_args),
                'consumers': dict.fromkeys(parsed_args.consumer, owner),
                'roots': parsed_args.roots,
                'alternates': parsed_args.alternates}
        if parsed_args.order:
            body['order'] = parsed_args.order
        answer = self.app.client_manager.placement.request(
            'POST', CLAIMS_URL, json=body).json()
        rows = []
        for consumer, claimed in answer['allocations'].items():
            rows.append((consumer, 'claimed', claimed['root'],
                         _Entries(_amounts(claimed['allocations']))))
            rows += [(consumer, 'alternate', '',
                      _Entries(_amounts(alternate['allocations'])))
                     for alternate in answer['alternates'][consumer]]
        return ('consumer', 'kind', 'root provider', 'allocation'), rows


def _amounts(allocations):
    """[{provider: 'class=amount,...'}] of an allocation request."""
    return [{rp: ','.join('%s=%s' % item
                          for item in entry['resources'].items())}
            for rp, entry in allocations.items()]
