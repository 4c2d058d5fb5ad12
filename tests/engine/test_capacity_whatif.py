"""POST /capacity's what-if (``without``, ``with``, ``evacuate``) held to
its oracle on generated clouds: the changes really made through the API
(support/whatif_oracle.py), then the plain count; and its 400s."""
import hypothesis
from hypothesis import strategies as st

from support import capacity_oracle as oracle
from support import helpers
from support import whatif_oracle as whatif
from support.random_clouds import (TRAITS, group_st, over_http,
                                   provider_st)


def _params(groups, isolate, member_of=None, traits=True):
    params = {}
    for index, group in enumerate(groups):
        if not traits:
            group = dict(group, required=set())
        suffix = '' if index == 0 else str(index)
        params['resources' + suffix] = ','.join(
            '%s:%d' % item for item in sorted(group['resources'].items()))
        required = sorted(group['required'])
        if required:
            params['required' + suffix] = ','.join(required)
    if len(groups) > 2:
        params['group_policy'] = 'isolate' if isolate else 'none'
    if member_of is not None:
        params['member_of'] = member_of
    return params


def _more(params):
    """``params`` with one more of each class (a shape alike but for its
    amounts: read at once with it)."""
    return dict(params, **{key: ','.join(
        '%s:%d' % (rc, int(amount) + 1) for rc, amount in (
            item.split(':') for item in value.split(',')))
        for key, value in params.items() if key.startswith('resources')})


def _counted(answer):
    """What the oracle compares of a capacity answer: per shape its fits,
    its roots' fits and what ends them, its aggregates' fits and the
    space stranded; the space no shape uses."""
    return {'stranded': answer['stranded'],
            'stranded_elsewhere': answer['stranded_elsewhere'],
            **{name: {'fits': shape['fits'],
                      'providers': sorted(
                          (entry['uuid'], entry['fits'], entry['limited_by'])
                          for entry in shape['providers']),
                      'aggregates': sorted((entry['uuid'], entry['fits'])
                                           for entry in shape['aggregates']),
                      'stranded': shape['stranded'],
                      'stranded_elsewhere': shape['stranded_elsewhere']}
               for name, shape in answer['shapes'].items()}}


@over_http(100)
@hypothesis.given(
    providers=st.lists(provider_st, min_size=2, max_size=6),
    groups=st.lists(group_st, min_size=1, max_size=2),
    isolate=st.booleans(),
    pinned=st.booleans(),
    traits=st.booleans(),
    out_roots=st.sets(st.integers(0, 5), max_size=2),
    out_aggregates=st.sets(st.sampled_from(['A', 'B']), max_size=1),
    copies=st.lists(st.tuples(st.integers(0, 5), st.integers(1, 2)),
                    max_size=2))
def test_without_and_with_count_as_the_cloud_really_changed(
        client, world, providers, groups, isolate, pinned, traits, out_roots,
        out_aggregates, copies):
    world.clear()
    names = world.add_random(providers)
    with world.engine.begin() as conn:
        for trait in TRAITS:
            world._trait(conn, trait)
    roots = [name for name in names if world.providers[name]['parent'] is None]
    out_names = sorted(names[index] for index in out_roots
                       if index < len(names))
    copies = [(roots[index % len(roots)], count) for index, count in copies]
    world_aggs = {agg: uuid for agg, (_, uuid) in world.aggs.items()}
    member_of = world_aggs.get('A') if pinned else None
    params = _params(groups, isolate, member_of, traits)
    shapes = {'shape': params, 'more': _more(params)}
    body = {'shapes': shapes}
    out_roots_uuids = sorted({world.uuid(whatif.root_name(world, name))
                              for name in out_names})
    aggs = sorted(world_aggs[agg] for agg in out_aggregates
                  if agg in world_aggs)
    if out_roots_uuids or aggs:
        body['without'] = {'roots': out_roots_uuids, 'aggregates': aggs}
    if copies:
        body['with'] = [{'like': world.uuid(like), 'count': count}
                        for like, count in copies]
    hypothesis.assume('without' in body or 'with' in body)
    asked = oracle.shapes(client, body)
    out = whatif.taken_out(world, out_names, [
        agg for agg in out_aggregates if agg in world_aggs])
    labels = whatif.add_copies(world, copies)
    whatif.take_out(world, client, out)
    really = whatif.as_labelled(oracle.shapes(client, {'shapes': shapes}),
                                world, labels)
    hypothesis.event('taken out: %d' % len(out))
    hypothesis.event('copies: %d' % sum(count for _, count in copies))
    hypothesis.event('fits: %d' % min(asked['shapes']['shape']['fits'], 3))
    hypothesis.target(min(asked['shapes']['shape']['fits'], 5))
    assert _counted(asked) == _counted(really)


def _refused(client, body):
    """The detail of POST /capacity's 400 to ``body`` (in upstream's
    error format: the words after webob's own)."""
    response = client.post('/capacity', json=body,
                           headers=helpers.version('1.39'))
    assert response.status_code == 400, response.text
    return helpers.error(response)['detail'].split('\n\n')[-1].strip()


def test_unknown_or_inner_providers_and_aggregates_are_400s(client, w):
    w.add('cn', inventory={'VCPU': 4}, aggs=['az'])
    w.add('numa', parent='cn', inventory={'VCPU': 4})
    shapes = {'one': 'resources=VCPU:1'}
    nobody = helpers.new_uuid()
    assert _refused(client, {'shapes': shapes, 'without': {
        'roots': [nobody]}}) == (
        'without.roots: no resource provider with uuid %s.' % nobody)
    assert _refused(client, {'shapes': shapes, 'without': {
        'aggregates': [nobody]}}) == (
        'without.aggregates: no aggregate with uuid %s.' % nobody)
    assert _refused(client, {'shapes': shapes, 'with': [
        {'like': nobody, 'count': 1}]}) == (
        'with.like: no resource provider with uuid %s.' % nobody)
    assert _refused(client, {'shapes': shapes, 'with': [
        {'like': w.uuid('numa'), 'count': 1}]}) == (
        'with.like: %s is not the root provider of its tree.'
        % w.uuid('numa'))
    assert 'count' in _refused(client, {'shapes': shapes, 'with': [
        {'like': w.uuid('cn'), 'count': 1001}]})
    assert _refused(client, {'shapes': shapes, 'with': [
        {'like': w.uuid('cn'), 'count': 600}] * 2}) == (
        'with: at most 1000 copies in all.')
    assert _refused(client, {'shapes': shapes, 'evacuate': True}) == (
        'evacuate needs without: the trees whose consumers move.')
    assert _refused(client, {'shapes': shapes, 'without': {'roots': []},
                             'shapes_of': {nobody: 'resources=VCPU:1'}}) == (
        'shapes_of needs evacuate: true or survive.')
    assert 'Shape of %s' % nobody in _refused(client, {
        'shapes': shapes, 'without': {'roots': []}, 'evacuate': True,
        'shapes_of': {nobody: 'resources=VCPU:0'}})


def test_answers_without_changes_stay_as_they_were(client, w):
    w.add('cn1', inventory={'VCPU': 8}, aggs=['az'])
    w.add('cn2', inventory={'VCPU': 4}, used={'VCPU': 1})
    body = {'shapes': {'one': 'resources=VCPU:2', 'two': 'resources=VCPU:3'}}
    plain = oracle.shapes(client, body)
    assert 'evacuation' not in plain
    assert plain['shapes']['one']['fits'] == 4 + 1
    # An empty change counts the cloud as it is.
    assert oracle.shapes(client, dict(body, without={'roots': []})) == plain


def test_a_copy_is_named_after_its_original_and_fills_last(client, w):
    w.add('cn1', inventory={'VCPU': 4}, used={'VCPU': 3}, aggs=['az'])
    w.add('cn2', inventory={'VCPU': 2}, used={'VCPU': 2})
    answer = oracle.shapes(client, {
        'shapes': {'one': 'resources=VCPU:1'},
        'without': {'roots': [w.uuid('cn2')]},
        'with': [{'like': w.uuid('cn1'), 'count': 1},
                 {'like': w.uuid('cn2'), 'count': 1},
                 {'like': w.uuid('cn1'), 'count': 1}]})
    shape = answer['shapes']['one']
    assert shape['fits'] == 1 + 4 + 2 + 4
    assert [(entry['uuid'], entry['name'], entry['fits'])
            for entry in shape['providers']] == [
        (w.uuid('cn1') + '#1', 'cn1#1', 4), (w.uuid('cn1') + '#2',
                                              'cn1#2', 4),
        (w.uuid('cn2') + '#1', 'cn2#1', 2), (w.uuid('cn1'), 'cn1', 1)]
    assert shape['aggregates'] == [{'uuid': w.aggs['az'][1], 'fits': 9}]


host_st = st.fixed_dictionaries({
    'vcpu': st.lists(st.integers(1, 6), min_size=1, max_size=2),
    'nested': st.booleans(),
    'aggs': st.sets(st.sampled_from(['A', 'B'])),
})
consumer_st = st.fixed_dictionaries({
    'host': st.integers(0, 4),
    'numa': st.integers(0, 1),
    'vcpu': st.integers(1, 2),
    'disk': st.booleans(),
    'migration': st.sampled_from([False, False, False, True]),
})


def _evacuation_cloud(client, world, hosts, pool_aggs, consumers):
    """Hosts (flat: VCPU on the root; nested: memory on the root, VCPU on
    one or two children), a disk pool in ``pool_aggs``, and consumers
    placed on them through the API.  {consumer uuid: {provider name:
    resources}}; [uuid of the MIGRATION consumers]."""
    world.clear()
    world.add('pool', inventory={'DISK_GB': 40},
              traits=[helpers.SHARING], aggs=pool_aggs)
    for index, host in enumerate(hosts):
        name = 'host%d' % index
        if not host['nested']:
            world.add(name, inventory={'VCPU': sum(host['vcpu'])},
                      aggs=host['aggs'])
            continue
        world.add(name, inventory={'MEMORY_MB': 8}, aggs=host['aggs'])
        for numa, vcpu in enumerate(host['vcpu']):
            world.add('%s-numa%d' % (name, numa), parent=name,
                      inventory={'VCPU': vcpu})
    made, migrations = {}, []
    for spec in consumers:
        index = spec['host'] % len(hosts)
        host = hosts[index]
        name = 'host%d' % index
        if host['nested']:
            numa = spec['numa'] % len(host['vcpu'])
            allocations = {'%s-numa%d' % (name, numa): {'VCPU': spec['vcpu']},
                           name: {'MEMORY_MB': 1}}
        else:
            allocations = {name: {'VCPU': spec['vcpu']}}
        if spec['disk']:
            allocations['pool'] = {'DISK_GB': 1}
        consumer = helpers.new_uuid()
        kind = 'MIGRATION' if spec['migration'] else 'INSTANCE'
        response = helpers.put(client, consumer, {
            world.uuid(rp): resources
            for rp, resources in allocations.items()}, consumer_type=kind)
        if response.status_code == 409:
            continue
        assert response.status_code == 204, response.text
        made[consumer] = allocations
        if spec['migration']:
            migrations.append(consumer)
    return made, migrations


@over_http(60)
@hypothesis.given(
    hosts=st.lists(host_st, min_size=2, max_size=5),
    pool_aggs=st.sets(st.sampled_from(['A', 'B'])),
    consumers=st.lists(consumer_st, min_size=1, max_size=8),
    out=st.sets(st.integers(0, 4), min_size=1, max_size=2),
    copies=st.lists(st.tuples(st.integers(0, 4), st.integers(1, 2)),
                    max_size=1),
    given=st.one_of(st.none(), st.integers(1, 3)))
def test_evacuation_moves_as_a_scheduler_would(
        client, world, hosts, pool_aggs, consumers, out, copies, given):
    made, migrations = _evacuation_cloud(client, world, hosts, pool_aggs,
                                         consumers)
    out_names = sorted({'host%d' % (index % len(hosts)) for index in out})
    copies = [('host%d' % (index % len(hosts)), count)
              for index, count in copies]
    shapes = {'vm': 'resources=VCPU:1', 'vm-disk':
              'resources=VCPU:1,DISK_GB:1', 'big': 'resources=VCPU:2'}
    out_ids = whatif.taken_out(world, out_names)
    moving = {}
    for consumer, allocations in sorted(made.items()):
        held = {rp: resources for rp, resources in allocations.items()
                if world.providers[rp]['root'] in out_ids}
        if held:
            moving[consumer] = whatif.recorded_shape(world, held)
    body = {'shapes': shapes, 'evacuate': True,
            'without': {'roots': [world.uuid(name) for name in out_names]}}
    if copies:
        body['with'] = [{'like': world.uuid(like), 'count': count}
                        for like, count in copies]
    if given is not None and moving:
        first = sorted(moving)[0]
        moving[first] = 'resources1=VCPU:%d' % given
        body['shapes_of'] = {first: moving[first]}
    asked = oracle.shapes(client, body)
    labels = whatif.add_copies(world, copies)
    whatif.take_out(world, client, out_ids)
    moved = whatif.evacuate(world, client, out_ids, moving, moving,
                            dropped=migrations)
    really = whatif.as_labelled(oracle.shapes(client, {'shapes': shapes}),
                                world, labels)
    assert _counted(asked) == _counted(really)
    copy_label = {info['id']: labels[name] for name, info
                  in world.providers.items() if name in labels}
    expected = {consumer: {
        'to': None if root is None else copy_label.get(root) or next(
            info['uuid'] for info in world.providers.values()
            if info['id'] == root),
        'by': 'given' if consumer in body.get('shapes_of', {})
        else 'recorded'} for consumer, root in moved.items()}
    assert asked['evacuation'] == {
        'moved': sum(1 for root in moved.values() if root is not None),
        'nowhere': sum(1 for root in moved.values() if root is None),
        'dropped': len(set(migrations) & set(moving)),
        'consumers': expected}
    hypothesis.event('moved: %d' % min(asked['evacuation']['moved'], 3))
    hypothesis.event('nowhere: %d' % min(asked['evacuation']['nowhere'], 3))
    hypothesis.target(asked['evacuation']['moved'])


def test_a_consumer_moves_past_the_trees_first_read(client, w):
    # The trees are read page by page as first fit needs them: a
    # consumer goes to the first tree with room, however far.
    for index in range(150):
        w.add('cn%03d' % index, inventory={'VCPU': 2},
              used={'VCPU': 2} if 0 < index < 140 else {})
    consumer = helpers.new_uuid()
    assert helpers.put(client, consumer, {
        w.uuid('cn000'): {'VCPU': 1}}).status_code == 204
    answer = oracle.shapes(client, {
        'shapes': {'one': 'resources=VCPU:1'}, 'evacuate': True,
        'without': {'roots': [w.uuid('cn000')]},
        'with': [{'like': w.uuid('cn000'), 'count': 1}]})
    assert answer['evacuation'] == {
        'moved': 1, 'nowhere': 0, 'dropped': 0,
        'consumers': {consumer: {'to': w.uuid('cn140'), 'by': 'recorded'}}}
    assert answer['shapes']['one']['fits'] == 10 * 2 - 1 + 2


def test_a_copy_is_in_no_tree_in_tree_names(client, w):
    w.add('cn1', inventory={'VCPU': 4})
    answer = oracle.shapes(client, {
        'shapes': {'one': 'resources=VCPU:3&in_tree=%s' % w.uuid('cn1')},
        'with': [{'like': w.uuid('cn1'), 'count': 1}]})
    shape = answer['shapes']['one']
    # The copy's 4 VCPU are out of the shape's reach.
    assert shape['fits'] == 1
    assert shape['stranded'] == {'VCPU': 1}
    assert shape['stranded_elsewhere'] == {'VCPU': 4}


def test_a_copy_keeps_no_room_of_a_group_naming_a_tree(client, w):
    """Two groups of one class, the first naming cn1's tree: cn1 itself
    serves the first group only, so of the copy of cn1 nothing of cn1's
    is left to any group, and no instance fits the copy."""
    w.add('cn1', inventory={'VCPU': 4})
    w.add('numa', parent='cn1', inventory={'VCPU': 4}, traits=['CUSTOM_B'])
    answer = oracle.shapes(client, {
        'shapes': {'two': 'resources1=VCPU:1&in_tree1=%s&resources2=VCPU:1'
                          '&required2=CUSTOM_B&group_policy=none'
                          % w.uuid('cn1')},
        'with': [{'like': w.uuid('cn1'), 'count': 1}]})
    shape = answer['shapes']['two']
    assert [(entry['uuid'], entry['fits']) for entry in shape['providers']
            ] == [(w.uuid('cn1'), 4)]


@over_http(40)
@hypothesis.given(
    hosts=st.lists(host_st, min_size=2, max_size=5),
    pool_aggs=st.sets(st.sampled_from(['A', 'B'])),
    consumers=st.lists(consumer_st, min_size=1, max_size=8),
    scoped=st.booleans(),
    given=st.one_of(st.none(), st.integers(1, 3)))
def test_n_plus_one_is_every_roots_evacuation_alone(
        client, world, hosts, pool_aggs, consumers, scoped, given):
    made, _ = _evacuation_cloud(client, world, hosts, pool_aggs, consumers)
    shapes = {'vm': 'resources=VCPU:1'}
    body = {'shapes': shapes, 'survive': 'each_root'}
    names = ['host%d' % index for index in range(len(hosts))]
    if scoped:
        # The hosts in aggregate A (none may be: then nothing fails).
        body['survive'] = {'each_root': True,
                           'member_of': world.aggs['A'][1]} \
            if 'A' in world.aggs else 'each_root'
        if 'A' in world.aggs:
            names = [name for index, name in enumerate(names)
                     if 'A' in hosts[index]['aggs']]
    if given is not None and made:
        body['shapes_of'] = {sorted(made)[0]: 'resources1=VCPU:%d' % given}
    answer = oracle.shapes(client, body)
    expected = []
    for name in names:
        alone = dict(body, without={'roots': [world.uuid(name)]},
                     evacuate=True)
        del alone['survive']
        nowhere = oracle.shapes(client, alone)['evacuation']['nowhere']
        if nowhere:
            expected.append({'uuid': world.uuid(name), 'nowhere': nowhere})
    assert answer['survive'] == {
        'failing': sorted(expected, key=lambda entry: entry['uuid'])}
    # N+1 changes no count.
    assert _counted(answer) == _counted(oracle.shapes(
        client, {'shapes': shapes}))
    hypothesis.event('failing: %d' % min(len(expected), 2))


def test_n_plus_one_errors(client, w):
    w.add('cn1', inventory={'VCPU': 2})
    for survive, detail in (
            ({'each_root': True, 'member_of': helpers.new_uuid()},
             'survive.member_of: no aggregate with uuid'),
            ('each_host', 'Body field /survive must be one of each_root or '
                          'an object'),
            ({'each_root': False}, '/survive')):
        response = client.post('/capacity', json={
            'shapes': {'vm': 'resources=VCPU:1'}, 'survive': survive})
        assert response.status_code == 400, response.text
        assert detail in helpers.error(response)['detail']
