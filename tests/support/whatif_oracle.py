"""The oracle of POST /capacity's what-if (``without``, ``with``,
``evacuate``): the changes really made, through the API where the API
can make them, then counted by the plain capacity count (itself held to
a scheduler by test_capacity_property.py) and moved as a scheduler
would, one consumer at a time through GET /allocation_candidates and
PUT /allocations."""
import urllib.parse

from support import helpers
from support.helpers import SHARING


def root_name(world, name):
    """The name of the root of provider ``name``'s tree."""
    root = world.providers[name]['root']
    return next(other for other, info in world.providers.items()
                if info['id'] == root)


def taken_out(world, roots=(), aggregates=()):
    """{root id} of the world's trees taken out: by name of a provider of
    the tree (``roots``), or with a provider in an aggregate named in
    ``aggregates``."""
    out = {world.providers[name]['root'] for name in roots}
    out.update(info['root'] for info in world.providers.values()
               if info['aggs'] & set(aggregates))
    return out


def take_out(world, client, out):
    """Take the trees of roots ``out`` out, through the API: every
    provider leaves its aggregates and has each inventory reserved
    whole."""
    for info in world.providers.values():
        if info['root'] not in out:
            continue
        path = '/resource_providers/%s' % info['uuid']
        response = client.put(path + '/aggregates', json={
            'aggregates': [], 'resource_provider_generation':
            helpers.generation(client, info['uuid'])})
        assert response.status_code == 200, response.text
        if not info['inventory']:
            continue
        response = client.put(path + '/inventories', json={
            'resource_provider_generation':
            helpers.generation(client, info['uuid']),
            'inventories': {rc: dict(row, reserved=row['total'])
                            for rc, row in info['inventory'].items()}})
        assert response.status_code == 200, response.text


def add_copies(world, copies):
    """Copies of trees, nothing allocated: ``copies`` [(name of a root,
    count)], numbered per root from 1 across entries, created after every
    other provider in that order, named ``<root name>#<n>``.  {copy's
    root name: (the original's uuid)#n}."""
    numbers = {}
    labels = {}
    snapshot = dict(world.providers)
    for like, count in copies:
        root = snapshot[like]['id']
        tree = sorted((info for info in snapshot.values()
                       if info['root'] == root), key=lambda i: i['id'])
        for _ in range(count):
            number = numbers[like] = numbers.get(like, 0) + 1
            named = {}
            for info in tree:
                name = '%s#%d' % (info['name'], number)
                named[info['name']] = name
                world.add(name, parent=named.get(info['parent']),
                          inventory=info['inventory'],
                          traits=info['traits'], aggs=info['aggs'])
            labels['%s#%d' % (like, number)] = '%s#%d' % (
                snapshot[like]['uuid'], number)
    return labels


def as_labelled(answer, world, labels):
    """A capacity answer with copies named as the what-if names them:
    ``providers`` by the original's uuid and #n."""
    for shape in answer['shapes'].values():
        for entry in shape['providers']:
            name = entry['name']
            if name in labels:
                entry['uuid'] = labels[name]
    return answer


def reach(world, info):
    """{root id} of the trees with a provider in one of the aggregates of
    the provider ``info``."""
    return {other['root'] for other in world.providers.values()
            if other['aggs'] & info['aggs']}


def root_of(world, allocations):
    """The root id of the tree a candidate's ``allocations`` {uuid: ...}
    took from (its providers without the sharing trait), or None."""
    roots = {world.providers[world.name_of(rp)]['root']
             for rp in allocations
             if SHARING not in world.providers[world.name_of(rp)]['traits']}
    return roots.pop() if len(roots) == 1 else None


def evacuate(world, client, out, consumers, shapes, dropped=()):
    """Move the consumers holding allocations on the trees ``out`` as the
    what-if says it does: each first rewritten without its part there
    (those of ``dropped`` are left so), then in uuid order placed with
    the first candidate of its query ``shapes[uuid]`` whose tree reaches
    what it holds elsewhere.  {consumer: root id or None}."""
    rest = {}
    for consumer in sorted(consumers):
        held = client.get('/allocations/%s' % consumer).json()
        kept = {rp: value['resources']
                for rp, value in held['allocations'].items()
                if world.providers[world.name_of(rp)]['root'] not in out}
        rest[consumer] = kept
        _write(client, consumer, kept)
    moved = {}
    for consumer in sorted(consumers):
        if consumer in dropped:
            continue
        kept = rest[consumer]
        reaching = None
        for rp in kept:
            found = reach(world, world.providers[world.name_of(rp)])
            reaching = found if reaching is None else reaching & found
        body = helpers.get_candidates(
            client, '1.39', **urllib.parse.parse_qs(shapes[consumer]))
        moved[consumer] = None
        for request in body['allocation_requests']:
            allocations = {rp: value['resources'] for rp, value in
                           request['allocations'].items()}
            root = root_of(world, allocations)
            if reaching is not None and root not in reaching:
                continue
            for rp, resources in kept.items():
                mine = allocations.setdefault(rp, {})
                for rc, amount in resources.items():
                    mine[rc] = mine.get(rc, 0) + amount
            _write(client, consumer, allocations)
            moved[consumer] = root
            break
    return moved


def _write(client, consumer, allocations):
    held = client.get('/allocations/%s' % consumer).json()
    if not allocations:
        response = client.delete('/allocations/%s' % consumer)
        assert response.status_code == 204, response.text
        return
    response = client.put('/allocations/%s' % consumer, json=dict(
        helpers.body(allocations,
                     consumer_generation=held.get('consumer_generation')),
        consumer_type=held.get('consumer_type', 'INSTANCE')))
    assert response.status_code == 204, response.text


def recorded_shape(world, held):
    """The query string of what a consumer holds on the trees taken out
    (``held`` {provider name: resources}): one group per provider in id
    order, isolated when several, in one subtree when one provider is an
    ancestor of the others."""
    names = sorted(held, key=lambda name: world.providers[name]['id'])
    params = []
    for number, name in enumerate(names, 1):
        params.append(('resources%d' % number, ','.join(
            '%s:%d' % item for item in sorted(held[name].items()))))
    if len(names) > 1:
        params.append(('group_policy', 'isolate'))
        if any(all(_below(world, name, top) for name in names)
               for top in names):
            params.append(('same_subtree', ','.join(
                str(number) for number in range(1, len(names) + 1))))
    return urllib.parse.urlencode(params)


def _below(world, name, top):
    while name is not None:
        if name == top:
            return True
        name = world.providers[name]['parent']
    return False
