"""What a rolling swap (bench/run swap) did to clients and data.

Everything is judged from the calls the mix logged and the database at
the end: failed requests as clients saw them, acknowledged writes missing
or different, allocations nobody acknowledged, over-commit with the kind
of node behind it, and every table the mix does not own against its
state before the mix.
"""
import collections

import sqlalchemy as sa

# Tables whose rows are the mix's own writes: checked against the
# acknowledged writes instead of the copy taken before.
MIX_TABLES = {'allocations', 'consumers', 'consumer_types', 'projects',
              'users'}
# This service's change feed: a row per provider each of its writes
# touched, so it grows with the mix's writes (docs/operators.md, "Our own
# migration history").
FEED_TABLES = {'placement_changes'}
# Columns the mix changes in the other tables (a claim bumps the provider
# generation; the inventory refresh changes max_unit).
MIX_COLUMNS = {'created_at', 'updated_at', 'generation', 'max_unit'}


def snapshot(engine):
    """{table: sorted rows} of the tables and columns the mix leaves."""
    meta = sa.MetaData()
    meta.reflect(engine)
    out = {}
    with engine.connect() as conn:
        for name, table in sorted(meta.tables.items()):
            if name in MIX_TABLES | FEED_TABLES:
                continue
            columns = [c for c in table.c if c.name not in MIX_COLUMNS]
            out[name] = sorted(tuple(row) for row in conn.execute(
                sa.select(*columns)))
    return out


def _amounts(allocations):
    return {rp: dict(record['resources'])
            for rp, record in allocations.items()}


def replay(calls):
    """(consumer -> {rp: {class: amount}} acknowledged last, consumers
    whose last write has no known outcome, consumer -> call index of the
    write that set its allocations)."""
    expected, unknown, setter = {}, set(), {}
    writes = sorted((call for call in calls
                     if call[0] in ('claim', 'move', 'delete')),
                    key=lambda call: call[3])
    for index, (op, status, _, _, _, _, path, body) in enumerate(writes):
        consumers = (list(body) if op == 'move'
                     else [path.rsplit('/', 1)[1]])
        if status is None or status >= 500:
            unknown.update(consumers)
            continue
        if status != 204:
            continue
        for consumer in consumers:
            unknown.discard(consumer)
            if op == 'delete':
                expected.pop(consumer, None)
                continue
            allocations = body[consumer]['allocations'] if op == 'move' \
                else body['allocations']
            expected[consumer] = _amounts(allocations)
            setter[consumer] = writes[index]
    return expected, unknown, setter


def allocations_in(engine):
    rows = sa.text(
        'SELECT a.consumer_id, rp.uuid, rc.name, a.used FROM allocations a '
        'JOIN resource_providers rp ON rp.id = a.resource_provider_id '
        'JOIN resource_classes rc ON rc.id = a.resource_class_id')
    found = collections.defaultdict(lambda: collections.defaultdict(dict))
    with engine.connect() as conn:
        for consumer, rp, rc, used in conn.execute(rows):
            found[consumer][rp][rc] = used
    return {consumer: {rp: dict(amounts) for rp, amounts in rps.items()}
            for consumer, rps in found.items()}


def overcommitted(engine):
    """[(provider uuid, class, used, capacity)] over capacity."""
    query = sa.text(
        'SELECT rp.uuid, rc.name, SUM(a.used), '
        '(i.total - i.reserved) * i.allocation_ratio '
        'FROM inventories i '
        'JOIN resource_providers rp ON rp.id = i.resource_provider_id '
        'JOIN resource_classes rc ON rc.id = i.resource_class_id '
        'JOIN allocations a ON a.resource_provider_id = i.resource_provider_id'
        ' AND a.resource_class_id = i.resource_class_id '
        'GROUP BY rp.uuid, rc.name, i.total, i.reserved, i.allocation_ratio '
        'HAVING SUM(a.used) > (i.total - i.reserved) * i.allocation_ratio')
    with engine.connect() as conn:
        return [(rp, rc, int(used), float(capacity))
                for rp, rc, used, capacity in conn.execute(query)]


def blame(over, actual, setter, writes, kind_of):
    """Who crossed capacity on one over-committed provider and class: of
    the writes that put today's allocations there, in the order they were
    answered, the one that took the sum over; and every write on that
    provider running at the same time.  'ours' only when all of them were
    served by this service."""
    rp, rc, used, capacity = over
    holders = sorted(((setter[consumer], rps[rp][rc])
                      for consumer, rps in actual.items()
                      if rc in rps.get(rp, {}) and consumer in setter),
                     key=lambda holder: holder[0][4])
    total, crossing = 0, None
    for call, amount in holders:
        total += amount
        if total > capacity:
            crossing = call
            break
    if crossing is None:
        return {'provider': rp, 'class': rc, 'used': used,
                'capacity': capacity, 'blame': 'unknown', 'kinds': []}
    racing = [call for call in writes if call is not crossing
              and call[0] in ('claim', 'move') and call[1] == 204
              and call[3] <= crossing[4] and call[4] >= crossing[3]
              and rp in str(call[7])]
    kinds = sorted({kind_of(call) for call in [crossing] + racing})
    return {'provider': rp, 'class': rc, 'used': used, 'capacity': capacity,
            'crossing': kind_of(crossing), 'kinds': kinds,
            'blame': kinds[0] if len(kinds) == 1 else 'mixed'}


def audit(engine, before, mix, fleet):
    calls = list(mix.calls)

    def kind_of(call):
        node = fleet.by_name.get(call[2])
        return node.kind_between(call[3], call[4]) if node else 'none'

    failed = [{'op': call[0], 'status': call[1], 'node': call[2],
               'kind': kind_of(call),
               'at_s': round(call[3] - mix.start_at, 1)}
              for call in calls if call[1] is None or call[1] >= 500]
    served = collections.Counter(kind_of(call) for call in calls)
    writes_by_kind = collections.Counter(
        (call[0], kind_of(call)) for call in calls
        if call[0] in ('claim', 'move', 'delete') and call[1] == 204)
    latency = collections.defaultdict(list)
    for call in calls:
        if call[1] is not None and call[1] < 500:
            latency[call[0], kind_of(call)].append(call[4] - call[3])
    expected, unknown, setter = replay(calls)
    actual = allocations_in(engine)
    lost = sorted(consumer for consumer, amounts in expected.items()
                  if consumer not in unknown
                  and actual.get(consumer) != amounts)
    unacknowledged = sorted(set(actual) - set(expected) - unknown)
    with engine.connect() as conn:
        consumers = {row[0] for row in conn.exec_driver_sql(
            'SELECT uuid FROM consumers')}
    after = snapshot(engine)
    changed = sorted(table for table in set(before) | set(after)
                     if before.get(table) != after.get(table))
    writes = [call for call in calls if call[0] in ('claim', 'move')]
    over = [blame(item, actual, setter, writes, kind_of)
            for item in overcommitted(engine)]
    return {
        'requests': len(calls), 'served_by_kind': dict(served),
        'acknowledged_writes_by_kind': {'%s %s' % key: count for key, count
                                        in sorted(writes_by_kind.items())},
        'latency_ms_by_kind': {
            '%s %s' % key: _percentiles(values)
            for key, values in sorted(latency.items())},
        'failed': failed, 'acknowledged_live': len(expected),
        'unknown_outcome': len(unknown), 'lost': lost,
        'unacknowledged': unacknowledged,
        'consumers_without_allocations': len(consumers - set(actual)),
        'changed_tables': changed, 'overcommit': over}


def _percentiles(values):
    values = sorted(values)
    return {'count': len(values),
            'p50': round(1000 * values[len(values) // 2]),
            'p99': round(1000 * values[min(len(values) - 1,
                                           len(values) * 99 // 100)])}


def passed(result):
    return (not result['failed'] and not result['lost']
            and not result['unacknowledged'] and not result['changed_tables']
            and len(set(result['revisions'])) == 1
            and all(swap['graceful'] for swap in result['swaps'])
            and not [item for item in result['overcommit']
                     if item['blame'] == 'ours']
            and not result.get('snapshot_reads', {}).get('mismatches'))


def report(result):
    lines = ['%d computes; %d requests through HAProxy in %.0f s; load '
             '%s at the start, %s at the end' % (
                 result['computes'], result['requests'], result['wall_s'],
                 ' '.join(result['load_start']),
                 ' '.join(result['load_end']))]
    lines.append('schema revision after upstream / our db sync: %s'
                 % ' / '.join(result['revisions']))
    for phase in result['phases']:
        lines.append('%s to %s: %.0f s, load %s at its start' % (
            phase['phase'], phase['to'], phase['end'] - phase['start'],
            ' '.join(phase['load'])))
    for swap in result['swaps']:
        lines.append('  %(node)s %(from)s -> %(to)s: drained in %(drain_s)'
                     '.1f s, out of service %(out_of_service_s).1f s, '
                     'graceful stop %(graceful)s' % swap)
    lines.append('served by kind: %s' % result['served_by_kind'])
    for op in ('candidates', 'claim', 'inventories'):
        lines.append('%s ms by kind: %s' % (op, {
            key.split()[1]: value for key, value
            in result['latency_ms_by_kind'].items()
            if key.split()[0] == op}))
    lines.append('acknowledged writes by kind: %s'
                 % result['acknowledged_writes_by_kind'])
    lines.append('failed requests seen by clients: %d %s' % (
        len(result['failed']), result['failed'][:10]))
    backend = result['haproxy'].get('BACKEND', {})
    lines.append('HAProxy: %s retries, %s redispatches, %s connection '
                 'errors, %s 5xx answers' % (
                     backend.get('wretr'), backend.get('wredis'),
                     backend.get('econ'), backend.get('hrsp_5xx')))
    lines.append('acknowledged instances live at the end: %d; missing or '
                 'different: %d; unknown outcome: %d; in the database '
                 'unacknowledged: %d; consumers without allocations: %d' % (
                     result['acknowledged_live'], len(result['lost']),
                     result['unknown_outcome'],
                     len(result['unacknowledged']),
                     result['consumers_without_allocations']))
    lines.append('tables changed besides the mix\'s own writes: %s'
                 % (result['changed_tables'] or 'none'))
    reads = result.get('snapshot_reads')
    if reads:
        lines.append(
            'reads from memory under the mixed fleet, in %d rounds: %d '
            'compared with the database\'s past the %.1f s bound, %d '
            'different %s; snapshots loaded again on the fleet check: %d'
            % (len(reads['rounds']), reads['compared'], reads['bound_s'],
               len(reads['mismatches']), reads['mismatches'][:5],
               reads['fleet_check_reloads']))
    blamed = collections.Counter(item['blame']
                                 for item in result['overcommit'])
    lines.append('over-committed provider classes: %d %s' % (
        len(result['overcommit']), dict(blamed)))
    for item in result['overcommit']:
        lines.append('  %s' % item)
    table = result['table']
    rows = ['  %-14s %6d served, p50 %s ms, p99 %s ms, 409s %d' % (
        op, figures['count'], '%.0f' % figures['p50_ms']
        if figures['p50_ms'] is not None else '-',
        '%.0f' % figures['p99_ms'] if figures['p99_ms'] is not None
        else '-', figures['conflicts'])
        for op, figures in sorted(table.items()) if not op.startswith('_')]
    return '\n'.join(lines + ['after the warm-up, per operation:'] + rows)
