"""Checks after a load: the tables, read without the service, against
the load's ledger; the assertions every run must pass; its summary line.
"""
import collections
import dataclasses

import sqlalchemy as sa

from placement.data import tables
from support.stress_load import EMPTY


@dataclasses.dataclass
class Check:
    over_committed: list   # (provider, class, used, capacity)
    wrong: list            # (consumer, found state, allowed states)
    usage: dict            # (provider, class) -> used

    @property
    def ok(self):
        return not self.over_committed and not self.wrong


def check_database(db_url, ledger):
    """Compare the tables with ``ledger``; nothing here uses the service."""
    rp, rc = tables.resource_providers, tables.resource_classes
    inv, alloc = tables.inventories, tables.allocations
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as conn:
            capacity = {
                (row.uuid, row.name): (row.total - row.reserved)
                * row.allocation_ratio
                for row in conn.execute(
                    sa.select(rp.c.uuid, rc.c.name, inv.c.total,
                              inv.c.reserved, inv.c.allocation_ratio)
                    .select_from(inv.join(rp, rp.c.id ==
                                          inv.c.resource_provider_id)
                                 .join(rc, rc.c.id ==
                                       inv.c.resource_class_id)))}
            rows = conn.execute(
                sa.select(alloc.c.consumer_id, rp.c.uuid, rc.c.name,
                          alloc.c.used)
                .select_from(alloc.join(rp, rp.c.id ==
                                        alloc.c.resource_provider_id)
                             .join(rc, rc.c.id == alloc.c.resource_class_id))
            ).all()
            orphans = conn.execute(
                sa.select(sa.func.count()).select_from(alloc).where(
                    ~alloc.c.resource_provider_id.in_(sa.select(rp.c.id)))
            ).scalar()
    finally:
        engine.dispose()
    assert not orphans, '%d allocations of vanished providers' % orphans
    usage = collections.Counter()
    found = collections.defaultdict(list)
    for consumer, provider, name, used in rows:
        usage[(provider, name)] += used
        found[consumer].append((provider, name, used))
    over = [(provider, name, used, capacity.get((provider, name), 0))
            for (provider, name), used in sorted(usage.items())
            if used > capacity.get((provider, name), 0)]
    wrong = []
    for consumer in set(found) | set(ledger.states):
        state = tuple(sorted(found.get(consumer, ())))
        allowed = ledger.states.get(consumer, {EMPTY})
        if state not in allowed:
            wrong.append((consumer, state, allowed))
    return Check(over, wrong, dict(usage))


def assert_sound(load, check, server_log='', allow_503=False):
    """What every run must show: no over-commit, the database holding
    exactly what was acknowledged, reads agreeing with it, and only the
    answers a correct service gives (503 only where ``allow_503``)."""
    assert not check.over_committed, check.over_committed
    assert not check.wrong, check.wrong[:5]
    assert not load.read_mismatches, load.read_mismatches[:3]
    bad = load.unexpected()
    if not allow_503:
        bad += [o for o in load.outcomes if o.status == 503]
    assert not bad, (bad[:5], server_log[-3000:])
    assert load.figures()['acknowledged'] > 0


def summary(label, load, check):
    figures = load.figures()
    return ('[stress] %s: claims attempted=%d acknowledged=%d refused_409=%d '
            '(concurrent_update=%d) 5xx=%d (503=%d) no_answer=%d moves=%d/%d '
            'deletes=%d '
            'no_candidates=%d direct_claims=%d inventory_writes=%d/%d '
            'requests=%d over_committed_providers=%d wrong_consumers=%d '
            'reads_checked=%d stale_reads=%d seed=%s' % (
                label, figures['claims'], figures['acknowledged'],
                figures['refused_409'], figures['concurrent_409'],
                figures['5xx'], figures['503'],
                figures['no_answer'], figures['moves_ok'], figures['moves'],
                figures['deletes'], figures['no_candidates'],
                figures['direct_claims'], figures['inventory_ok'],
                figures['inventory_writes'], figures['requests'],
                len({o[0] for o in check.over_committed}),
                len(check.wrong), figures['reads_checked'],
                figures['stale_reads'], load.seed))
