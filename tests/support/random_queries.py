"""Random GET /allocation_candidates queries over a ``worlds.World``
for the tests that hold the snapshot to the database below HTTP:
hypothesis strategies of requests (traits and aggregates by name, an
in_tree provider by index) and the query string of one."""
from hypothesis import strategies as st

from support import random_clouds

TRAITS = random_clouds.TRAITS + ('CUSTOM_NEVER_MADE',)

group_st = st.fixed_dictionaries({
    'resources': st.dictionaries(
        st.sampled_from(random_clouds.RCS + ('MEMORY_MB',)),
        st.integers(1, 8), min_size=1, max_size=2),
    'required': st.sets(st.sampled_from(TRAITS), max_size=2),
    'forbidden': st.sets(st.sampled_from(TRAITS), max_size=1),
    'member_of': st.sampled_from([None, 'A', 'B', '!A', 'in:A,B']),
})
request_st = st.fixed_dictionaries({
    'groups': st.lists(group_st, min_size=1, max_size=3),
    'isolate': st.booleans(),
    'in_tree': st.one_of(st.none(), st.integers(0, 7)),
    'root_required': st.sampled_from([None, 'CUSTOM_A', '!CUSTOM_B']),
    'same_subtree': st.booleans(),
    'limit': st.sampled_from([None, 1, 3]),
})


def member_of_param(world, drawn):
    """A member_of value with the world's uuids for names A and B."""
    prefix = ''
    for head in ('!', 'in:'):
        if drawn.startswith(head):
            prefix, drawn = head, drawn[len(head):]
    uuids = [world.aggs[name][1] if name in world.aggs
             else '00000000-0000-0000-0000-00000000000%d' % len(name)
             for name in drawn.split(',')]
    return prefix + ','.join(uuids)


def query_string(world, names, drawn):
    """The query string of a ``request_st`` example on the providers
    ``names`` of ``world``."""
    parts = []
    suffixes = ['', '1', '2'][:len(drawn['groups'])]
    for suffix, group in zip(suffixes, drawn['groups']):
        parts.append('resources%s=%s' % (suffix, ','.join(
            '%s:%d' % item for item in sorted(group['resources'].items()))))
        traits = sorted(group['required']) + sorted(
            '!' + name for name in group['forbidden'] - group['required'])
        if traits:
            parts.append('required%s=%s' % (suffix, ','.join(traits)))
        if group['member_of']:
            parts.append('member_of%s=%s' % (
                suffix, member_of_param(world, group['member_of'])))
    if len(suffixes) > 1:
        parts.append('group_policy=' + ('isolate' if drawn['isolate']
                                        else 'none'))
        if drawn['same_subtree']:
            parts.append('same_subtree=' + ','.join('_' + s
                                                    for s in suffixes[1:]))
    if drawn['in_tree'] is not None and drawn['in_tree'] < len(names):
        parts.append('in_tree=' + world.uuid(names[drawn['in_tree']]))
    if drawn['root_required']:
        parts.append('root_required=' + drawn['root_required'])
    if drawn['limit']:
        parts.append('limit=%d' % drawn['limit'])
    return '&'.join(parts)
