"""GET and POST /capacity over real HTTP, and the oracle the capacity
tests hold them to: what a scheduler does, GET /allocation_candidates
and PUT /allocations with the first candidate, again until there is
none."""
import sqlalchemy as sa

from placement.data import tables
from support import helpers
from support.helpers import SHARING

PATH = '/capacity'


def capacity(client, version='1.39', **params):
    response = client.get(PATH, params=params,
                          headers=helpers.version(version))
    assert response.status_code == 200, response.text
    return response.json()


def shapes(client, body, version='1.39'):
    response = client.post(PATH, json=body,
                           headers=helpers.version(version))
    assert response.status_code == 200, response.text
    return response.json()


def place_until_full(client, params, version='1.39'):
    """The oracle: [allocations {uuid: resources}] placed one after
    another, each the first candidate of the list."""
    placed = []
    while True:
        body = helpers.get_candidates(client, version, limit='1', **params)
        if not body['allocation_requests']:
            return placed
        allocations = {
            rp: value['resources'] for rp, value in
            body['allocation_requests'][0]['allocations'].items()}
        response = helpers.put(client, helpers.new_uuid(), allocations)
        assert response.status_code == 204, response.text
        placed.append(allocations)


def free_left(world, client, classes):
    """{class: free space over every inventory of the cloud}, as the
    usages now say, rounded down."""
    free = dict.fromkeys(classes, 0.0)
    for info in world.providers.values():
        usages = client.get('/resource_providers/%s/usages'
                            % info['uuid']).json()['usages']
        for rc, row in info['inventory'].items():
            if rc in free:
                room = ((row['total'] - row['reserved'])
                        * row['allocation_ratio'] - usages.get(rc, 0))
                free[rc] += max(room, 0)
    return {rc: int(amount // 1) for rc, amount in free.items()}


def fits_by_root(answer):
    """{root name: fits} of a shape's answer."""
    return {p['name']: p['fits'] for p in answer['providers']}


def placed_by_root(world, placed):
    """{root name: instances} of the oracle's ``placed``: an instance
    counts for the tree it took from, not for a sharing provider serving
    that tree; None when one took from sharing providers only (it counts
    for the tree it was listed under, which the list does not say)."""
    counts = {}
    for allocations in placed:
        infos = [world.providers[world.name_of(rp)] for rp in allocations]
        roots = {info['root'] for info in infos
                 if SHARING not in info['traits']}
        if not roots:
            return None
        (root,) = roots
        name = next(name for name, info in world.providers.items()
                    if info['id'] == root)
        counts[name] = counts.get(name, 0) + 1
    return counts


def pinned_fits(world, client, params, uuid, version='1.39'):
    """The oracle's count of ``params`` pinned to aggregate ``uuid`` as
    nova pins an availability zone (``member_of`` on the unsuffixed
    group, beside any it has); what it placed is taken back."""
    allocations = tables.allocations
    with world.engine.connect() as conn:
        last = conn.execute(sa.select(sa.func.max(allocations.c.id))
                            ).scalar() or 0
    member_of = params.get('member_of')
    pinned = dict(params, member_of=uuid if member_of is None
                  else [member_of, uuid])
    fits = len(place_until_full(client, pinned, version))
    with world.engine.begin() as conn:
        conn.execute(allocations.delete().where(allocations.c.id > last))
    return fits


def by_aggregate(world, answer):
    """{aggregate uuid: fits} of a shape's ``aggregates`` entries, with
    every aggregate of the world (0 where none is listed)."""
    fits = {entry['uuid']: entry['fits'] for entry in answer['aggregates']}
    return {uuid: fits.get(uuid, 0) for _, uuid in world.aggs.values()}
