"""``openstack allocation candidate explain``: an osc plugin command.

Installed with the ``cli`` extra (entry point in the
``openstack.placement.v1`` namespace, next to osc-placement's commands).
It takes exactly the options of ``openstack allocation candidate list``:
the list command itself builds the query, and this command sends it to
``GET /allocation_candidates/explain`` instead.
"""
from osc_placement.resources import allocation_candidate

EXPLAIN_URL = allocation_candidate.BASE_URL + '/explain'


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


class ExplainAllocationCandidate(allocation_candidate.ListAllocationCandidate):
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
        manager = self.app.client_manager
        client = manager.placement
        manager.placement = _QueryOnly(client)
        try:
            super().take_action(parsed_args)
        except _QueryBuilt as built:
            params = built.params
        finally:
            del manager.placement
        body = client.request('GET', EXPLAIN_URL, params=params).json()
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
