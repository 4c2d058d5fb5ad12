"""Why GET /allocation_candidates answers what it does: a counting funnel.

Every rule of a request group becomes a ``Check``.  The facts - which
provider fails which check, and by how much - are read in a few bulk
statements built from the same ``provider_filter`` conditions the
candidates engine uses (``gather``).  Everything after that is pure
(``explain_facts``): per group, the providers are run through the checks
in order and each is counted at the first check it fails; whole trees are
then run through the rules that span groups (every group served in the
tree, ``root_required``, and the combining of groups by the engine:
isolation, ``same_subtree``, capacity summed across groups, traits spread
over several providers).  Providers failing exactly one check are the
``nearest`` misses.

The number of candidates always comes from the engine itself
(``allocation_candidate.list_candidates``), never from this module.
"""
import dataclasses
import heapq

import sqlalchemy as sa

from placement import query as query_mod
from placement import tables
from placement.objects import allocation_candidate
from placement.objects import base
from placement.objects import figures
from placement.objects import provider_filter

RP = tables.resource_providers
INV = tables.inventories
RPT = tables.resource_provider_traits
RPA = tables.resource_provider_aggregates

SHARING_TRAIT = allocation_candidate.SHARING_TRAIT
NEAREST = 5
# Check kinds that decide whether a provider may serve the unsuffixed group
# at all (the others say which of its classes and traits it brings).
_FILTER_KINDS = frozenset(
    ('in_tree', 'member_of', 'forbidden_aggregates', 'forbidden_trait'))


@dataclasses.dataclass(frozen=True)
class Check:
    """One rule of a request group, in evaluation order.

    ``kind`` is one of in_tree, member_of, forbidden_aggregates, trait,
    forbidden_trait, inventory, units, capacity; ``label`` names it as the
    query string does; ``names`` holds the aggregate UUIDs or trait names
    it is about, ``rc``/``amount`` are set for the resource kinds.
    """
    kind: str
    label: str
    names: frozenset = frozenset()
    rc: str = None
    amount: int = None


@dataclasses.dataclass
class Provider:
    id: int
    uuid: str
    name: str
    root: int


@dataclasses.dataclass
class Facts:
    """What ``explain_facts`` needs: the checks per group; the providers
    by id; per group the providers failing a check {rp: {check index:
    detail}} (the others pass them all; see ``_detail_text``); the sharing providers serving
    each tree {root: {rp, ...}}; the roots failing ``root_required``; and
    the roots holding at least one candidate (None when the engine's
    answer was cut by a limit)."""
    checks: dict
    providers: dict
    failures: dict
    sharing: dict
    root_failures: frozenset
    root_check: str
    candidate_roots: frozenset
    spanning: str


# -- the checks of a request ---------------------------------------------

def _list_label(prefix, names):
    """``member_of=in:A,B`` style: ``in:`` only for more than one name."""
    names = sorted(names)
    return prefix + ('in:' if len(names) > 1 else '') + ','.join(names)


def group_checks(group):
    """The Checks of one query.RequestGroup, in evaluation order: tree,
    aggregates, traits, then each resource class's inventory, units and
    capacity."""
    checks = []
    if group.in_tree:
        checks.append(Check('in_tree', 'in_tree=' + group.in_tree))
    for any_of in group.member_of.required:
        checks.append(Check('member_of', _list_label('member_of=', any_of),
                            any_of))
    if group.member_of.forbidden:
        checks.append(Check('forbidden_aggregates', _list_label(
            'member_of=!', group.member_of.forbidden),
            group.member_of.forbidden))
    for any_of in group.traits.required:
        checks.append(Check('trait', _list_label('required=', any_of),
                            any_of))
    for name in sorted(group.traits.forbidden):
        checks.append(Check('forbidden_trait', 'required=!' + name,
                            frozenset([name])))
    for rc, amount in group.resources.items():
        request = 'resources=%s:%d' % (rc, amount)
        for kind, what in (('inventory', 'inventory'),
                           ('units', 'min_unit, max_unit, step_size'),
                           ('capacity', 'capacity')):
            checks.append(Check(kind, '%s (%s)' % (request, what),
                                rc=rc, amount=amount))
    return checks


# -- reading the facts ------------------------------------------------------

def gather(conn, query, version, conf, candidates=None):
    """Facts about every provider for the parsed CandidateQuery.

    ``candidates`` is the engine's Result for the same query when the
    caller already has it (the empty answer of GET /allocation_candidates);
    otherwise the engine is asked here.  Returns (Facts, number of
    candidates).
    """
    if candidates is None:
        candidates = allocation_candidate.list_candidates(
            conn, query, version, conf)
    count = len(candidates.candidates)
    ids = _Ids(conn, query)
    checks = {suffix: group_checks(group)
              for suffix, group in query.groups.items()}
    columns = []       # (suffix, check index, SQL condition a provider meets)
    for suffix, group in query.groups.items():
        for index, check in enumerate(checks[suffix]):
            clause = _condition(conn, group, check, ids)
            if clause is not None:
                columns.append((suffix, index, clause))
    root_clause = _root_clause(query, ids)
    stmt = sa.select(
        RP.c.id, RP.c.uuid, RP.c.name, RP.c.root_provider_id,
        sa.case((root_clause, 1), else_=0),
        *(sa.case((column[2], 1), else_=0) for column in columns))
    providers = {}
    failures = {suffix: {} for suffix in checks}
    root_failures = set()
    for row in conn.execute(stmt).all():
        rp = row[0]
        providers[rp] = Provider(rp, row[1], row[2], row[3])
        if not row[4]:
            root_failures.add(row[3])
        if all(row[5:]):
            continue
        for (suffix, index, _), passed in zip(columns, row[5:]):
            if not passed:
                failures[suffix].setdefault(rp, {})[index] = None
    _resource_failures(conn, checks, ids.rc, failures)

    candidate_roots = None
    complete = ((query.limit is None or count < query.limit)
                and (conf.max_allocation_candidates <= 0
                     or count < conf.max_allocation_candidates))
    if complete:
        by_uuid = {rp.uuid: rp.root for rp in providers.values()}
        candidate_roots = frozenset(
            by_uuid[uuid] for _, _, uuid in candidates.providers.values()
            if uuid in by_uuid)
    facts = Facts(checks, providers, failures,
                  _sharing(conn, ids.trait[SHARING_TRAIT]),
                  frozenset(root_failures),
                  _root_label(query.root_required), candidate_roots,
                  _spanning_label(query))
    return facts, count


class _Ids:
    """The database ids of the traits, aggregates and resource classes a
    query names."""

    def __init__(self, conn, query):
        groups = query.groups.values()
        names = [SHARING_TRAIT, *query.root_required.names()]
        for group in groups:
            names += group.traits.names()
        self.trait = base.resolve_traits(conn, names)
        self.agg = provider_filter.resolve_aggregates(
            conn, {uuid for group in groups
                   for uuids in group.member_of.required
                   + (group.member_of.forbidden,) for uuid in uuids})
        self.rc = provider_filter.resolve_resource_classes(
            conn, {name for group in groups for name in group.resources})


def _root_clause(query, ids):
    """The condition a provider's root meets for ``root_required``."""
    if not query.root_required:
        return sa.true()
    return provider_filter.traits_clause(
        RP.c.root_provider_id, *provider_filter.trait_id_filter(
            query.root_required, ids.trait))


def _condition(conn, group, check, ids, inventories=None):
    """The condition a provider meets to pass ``check``.  The units and
    capacity checks are read by ``_resource_failures`` with their figures
    (None here) unless ``inventories`` {class: the provider's inventory
    of it, outer-joined} asks for the resource conditions on those."""
    trait_ids, agg_ids, rc_ids = ids.trait, ids.agg, ids.rc
    spread = group.suffix == ''
    if check.kind == 'in_tree':
        return provider_filter.in_tree_clause(
            RP.c.root_provider_id,
            provider_filter.root_of(conn, group.in_tree))
    if check.kind in ('member_of', 'forbidden_aggregates'):
        agg_filter = (
            query_mod.AggregateFilter(required=(check.names,))
            if check.kind == 'member_of'
            else query_mod.AggregateFilter(forbidden=check.names))
        # The unsuffixed group also accepts the aggregates of the root,
        # as the engine does.
        return provider_filter.member_of_clause(
            RP.c.id, agg_filter, agg_ids,
            root_id=RP.c.root_provider_id if spread else None)
    if inventories is not None and check.kind in ('inventory', 'units',
                                                  'capacity'):
        inv = inventories[check.rc]
        if check.kind == 'inventory':
            return inv.c.id.isnot(None)
        if check.kind == 'units':
            return provider_filter.units_clause(inv, check.amount)
        return provider_filter.room_clause(
            inv, figures.used(inv), check.amount)
    if check.kind == 'inventory':
        return sa.exists().where(INV.c.resource_provider_id == RP.c.id,
                                 INV.c.resource_class_id == rc_ids[check.rc])
    if check.kind in ('units', 'capacity'):
        return None
    ids = frozenset(trait_ids[name] for name in check.names)
    if check.kind == 'trait':
        return provider_filter.traits_clause(RP.c.id, (ids,), ())
    return provider_filter.traits_clause(RP.c.id, (), ids)


def _resource_failures(conn, checks, rc_ids, failures):
    """Add the units and capacity failures and their figures: only the
    inventories that cannot take the amount are read."""
    used = figures.used(INV)
    free = figures.free(INV, used)
    rows = {}
    for rc, amount in {(check.rc, check.amount) for group in checks.values()
                       for check in group if check.kind == 'capacity'}:
        stmt = (sa.select(
            INV.c.resource_provider_id,
            sa.case((provider_filter.units_clause(INV, amount), 1), else_=0),
            sa.case((provider_filter.room_clause(INV, used, amount), 1),
                    else_=0),
            free, INV.c.min_unit, INV.c.max_unit, INV.c.step_size)
            .where(INV.c.resource_class_id == rc_ids[rc],
                   ~provider_filter.fits_clause(INV, used, amount)))
        rows[(rc, amount)] = conn.execute(stmt).all()
    for suffix, group in checks.items():
        failing = failures[suffix]
        for index, check in enumerate(group):
            if check.kind not in ('units', 'capacity'):
                continue
            for rp, units_ok, room_ok, free_, min_unit, max_unit, step in \
                    rows[(check.rc, check.amount)]:
                if check.kind == 'units' and not units_ok:
                    failing.setdefault(rp, {})[index] = (min_unit, max_unit,
                                                         step)
                elif check.kind == 'capacity' and not room_ok:
                    failing.setdefault(rp, {})[index] = Shortfall(
                        check.rc, check.amount, max(int(free_), 0))


@dataclasses.dataclass(frozen=True)
class Shortfall:
    """A capacity failure: what is free against what was requested."""
    rc: str
    requested: int
    free: int

    def __str__(self):
        return '%s: %d free, %d requested' % (self.rc, self.free,
                                              self.requested)


def _sharing(conn, sharing_trait):
    """{root: {sharing provider ids serving that tree}}: a sharing provider
    serves every tree with a provider in one of its aggregates."""
    member = RP.alias('member')
    mine = RPA.alias('mine')
    theirs = RPA.alias('theirs')
    stmt = (sa.select(member.c.root_provider_id, RPT.c.resource_provider_id)
            .select_from(
                RPT.join(mine, mine.c.resource_provider_id
                         == RPT.c.resource_provider_id)
                .join(theirs, theirs.c.aggregate_id == mine.c.aggregate_id)
                .join(member, member.c.id == theirs.c.resource_provider_id))
            .where(RPT.c.trait_id == sharing_trait)
            .distinct())
    served = {}
    for root, rp in conn.execute(stmt):
        served.setdefault(root, set()).add(rp)
    return served


def _root_label(root_required):
    if not root_required:
        return None
    names = sorted(name for any_of in root_required.required
                   for name in any_of)
    names += sorted('!' + name for name in root_required.forbidden)
    return 'root_required=' + ','.join(names)


def _spanning_label(query):
    """Names of the rules the engine applies when it combines groups."""
    rules = []
    if query.group_policy == 'isolate':
        rules.append('group_policy=isolate')
    rules += ['same_subtree=' + ','.join(suffixes)
              for suffixes in query.same_subtree]
    if len(query.groups) > 1:
        rules.append('capacity summed across groups')
    if any(len(group.traits.required) and not group.suffix
           for group in query.groups.values()):
        rules.append('required traits over the providers used')
    return 'combining groups' + (' (%s)' % ', '.join(rules) if rules else '')


# -- the pure part ---------------------------------------------------------

def funnel(checks, providers, failures):
    """Steps of one group over ``providers`` (how many); each provider of
    ``failures`` {rp: {check index: detail}} is counted at the first check
    it fails.  Returns (steps, {provider id: index of its first
    failure})."""
    removed = [0] * len(checks)
    first = {}
    for rp, failed in failures.items():
        index = min(failed)
        removed[index] += 1
        first[rp] = index
    remaining = providers
    steps = []
    for check, count in zip(checks, removed):
        remaining -= count
        steps.append({'check': check.label, 'removed': count,
                      'remaining': remaining})
    return steps, first


def tree_serves(checks, pool, failures, spread):
    """Whether the providers ``pool`` (a tree plus the sharing providers
    serving it) can serve a group whose failing providers are
    ``failures``.

    A suffixed group needs one provider passing every check.  The
    unsuffixed group (``spread``) may spread: among the providers passing
    its filters, each resource class and each required trait needs one
    provider."""
    if not spread or len(pool) == 1:
        return any(rp not in failures for rp in pool)
    eligible = [failures.get(rp, {}) for rp in pool]
    eligible = [failed for failed in eligible if not any(
        checks[index].kind in _FILTER_KINDS for index in failed)]
    needs = _needs(checks)
    if not needs:
        return bool(eligible)
    return all(any(not indexes & failed.keys() for failed in eligible)
               for indexes in needs.values())


def _needs(checks):
    """What a spread group needs from some provider of the tree passing its
    filters: {name: check indexes that one provider must pass}.  A class
    needs its inventory, units and capacity on one provider."""
    needs = {}
    for index, check in enumerate(checks):
        if check.kind not in _FILTER_KINDS:
            needs.setdefault(check.rc or check.label, set()).add(index)
    return needs


def tree_rules(suffixes, root_check, spanning):
    """The rules over whole trees, in order: (label, summary clause with
    the keys of ``_tree_words``).  ``spanning`` is None when the engine's
    answer was cut by a limit."""
    rules = [("group '%s' in one tree with its sharing providers" % suffix,
              "%%(n)s %%(noun)s cannot serve group '%s'" % suffix)
             for suffix in suffixes]
    if root_check:
        rules.append((root_check,
                      '%%(n)s %%(noun)s %%(fail)s %s' % root_check))
    if spanning:
        rules.append((spanning, '%%(n)s %%(noun)s %%(are)s left without a '
                      'candidate by %s' % spanning))
    return rules


def combination(facts, noun='trees'):
    """The steps over whole trees of the rules spanning groups.  Returns
    (the JSON part, the roots left, summary clauses of the steps that
    removed trees, calling them ``noun``)."""
    trees = {}
    for rp in facts.providers.values():
        trees.setdefault(rp.root, []).append(rp.id)
    remaining = set(trees)
    steps = []
    reasons = []

    rules = iter(tree_rules(
        facts.checks, facts.root_check,
        facts.spanning if facts.candidate_roots is not None else None))

    def step(keep):
        nonlocal remaining
        label, reason = next(rules)
        left = {root for root in remaining if keep(root)}
        removed = len(remaining) - len(left)
        steps.append({'check': label, 'removed': removed,
                      'remaining': len(left)})
        if removed:
            reasons.append(reason % _tree_words(removed, noun))
        remaining = left

    for suffix, checks in facts.checks.items():
        failures = facts.failures[suffix]
        # Any tree with (or served by) a provider passing every check
        # serves the group: only the others need a closer look.
        passing = {rp.root for rp in facts.providers.values()
                   if rp.id not in failures}
        passing.update(root for root, sharing in facts.sharing.items()
                       if any(rp not in failures for rp in sharing))

        def serves(root, suffix=suffix, checks=checks, failures=failures,
                   passing=passing):
            if root in passing:
                return True
            if len(trees[root]) == 1 and root not in facts.sharing:
                return False    # its only provider fails a check
            pool = trees[root] + [
                rp for rp in facts.sharing.get(root, ())
                if facts.providers[rp].root != root]
            return tree_serves(checks, pool, failures, spread=not suffix)
        step(serves)
    if facts.root_check:
        step(lambda root: root not in facts.root_failures)
    if facts.candidate_roots is not None:
        step(lambda root: root in facts.candidate_roots)
    return {'considered': len(trees), 'steps': steps}, remaining, reasons


def nearest(facts):
    """Up to NEAREST providers failing exactly one check of a group, the
    smallest capacity shortfalls first."""
    misses = {}
    for suffix, failures in facts.failures.items():
        for rp, failed in failures.items():
            if len(failed) != 1 or rp in misses:
                continue
            (index, detail), = failed.items()
            if isinstance(detail, Shortfall):
                rank = (detail.requested - detail.free) / detail.requested
            else:
                rank = 1.0
            misses[rp] = (rank, facts.providers[rp].name, suffix, index, rp)
    found = []
    for _, name, suffix, index, rp in heapq.nsmallest(NEAREST,
                                                      misses.values()):
        check = facts.checks[suffix][index]
        detail = facts.failures[suffix][rp][index]
        found.append({'uuid': facts.providers[rp].uuid, 'name': name,
                      'group': suffix, 'check': check.label,
                      'detail': _detail_text(check, detail)})
    return found


def _detail_text(check, detail):
    """How a provider misses ``check``; ``detail`` is what the facts kept:
    a Shortfall for capacity, (min_unit, max_unit, step_size) for units,
    None otherwise."""
    if check.kind == 'capacity':
        return str(detail)
    if check.kind == 'units':
        return '%s: %d requested, min_unit %d, max_unit %d, step_size %d' % (
            (check.rc, check.amount) + tuple(detail))
    if check.kind == 'inventory':
        return '%s: no inventory' % check.rc
    return {
        'in_tree': 'outside the tree',
        'member_of': 'not in the aggregate(s)',
        'forbidden_aggregates': 'in a forbidden aggregate',
        'trait': 'lacks the trait(s)',
        'forbidden_trait': 'has the forbidden trait',
    }[check.kind] + ' (%s)' % check.label


def _reason(check, count, largest_free):
    """One clause of the summary: ``count`` providers removed by ``check``;
    ``largest_free`` is the most any of them has free (capacity only)."""
    n = _number(count)
    one = count == 1
    names = ', '.join(sorted(check.names))
    if check.kind == 'capacity':
        return '%s %s capacity for %s (largest free %d, requested %d)' % (
            n, 'lacks' if one else 'lack', check.rc, largest_free,
            check.amount)
    if check.kind == 'inventory':
        return '%s %s no %s inventory' % (
            n, 'has' if one else 'have', check.rc)
    if check.kind == 'units':
        return ('%s cannot take %s:%d in one allocation (min_unit, '
                'max_unit, step_size)' % (n, check.rc, check.amount))
    are = 'is' if one else 'are'
    if check.kind == 'in_tree':
        return '%s %s outside the tree of %s' % (n, are, check.label[8:])
    if check.kind == 'member_of':
        return '%s %s in none of the aggregates %s' % (n, are, names)
    if check.kind == 'forbidden_aggregates':
        return '%s %s in a forbidden aggregate of %s' % (n, are, names)
    have = 'has' if one else 'have'
    if check.kind == 'forbidden_trait':
        return '%s %s the forbidden trait %s' % (n, have, names)
    if len(check.names) == 1:
        return '%s %s the required trait %s' % (
            n, 'lacks' if one else 'lack', names)
    return '%s %s none of the traits %s' % (n, have, names)


def _tree_words(count, noun):
    """The words of a tree rule's clause for ``count`` trees (or providers:
    ``noun`` is the plural), in agreement."""
    one = count == 1
    return {'n': _number(count), 'noun': noun[:-1] if one else noun,
            'fail': 'fails' if one else 'fail',
            'are': 'is' if one else 'are'}


def _number(count):
    return '{:,}'.format(count)


def _group_reasons(checks, removed, largest_free):
    """The summary's clauses about the groups: ``removed`` {suffix: count
    per check}, ``largest_free`` {(suffix, check index): free}."""
    reasons = []
    for suffix, group in checks.items():
        clauses = [_reason(check, count, largest_free.get((suffix, index)))
                   for index, (check, count)
                   in enumerate(zip(group, removed[suffix])) if count]
        if clauses:
            prefix = '' if len(checks) == 1 else "in group '%s', " % suffix
            reasons.append(prefix + '; '.join(clauses))
    return reasons


def _sentence(reasons, tree_reasons, left, considered, flat):
    """The summary from the groups' clauses and those of the tree steps
    that removed trees.  One group over providers that are each a tree of
    their own, without sharing (``flat``): speak of providers; the group's
    clauses already said which trees cannot serve it."""
    head = '%s of %s %s can satisfy the request' % (
        _number(left), _number(considered),
        'resource providers' if flat else 'provider trees')
    reasons = reasons + tree_reasons
    return head + (': ' + '; '.join(reasons) if reasons else '') + '.'


def explain_facts(facts, candidates):
    """The JSON body of GET /allocation_candidates/explain from Facts and
    the engine's number of candidates."""
    groups = []
    removed = {}
    largest_free = {}
    for suffix, checks in facts.checks.items():
        failures = facts.failures[suffix]
        steps, first = funnel(checks, len(facts.providers), failures)
        groups.append({'suffix': suffix, 'considered': len(facts.providers),
                       'steps': steps})
        removed[suffix] = [step['removed'] for step in steps]
        for rp, index in first.items():
            if checks[index].kind == 'capacity':
                largest_free[(suffix, index)] = max(
                    largest_free.get((suffix, index), 0),
                    failures[rp][index].free)
    flat = (len(facts.checks) == 1 and not facts.sharing and len(
        {rp.root for rp in facts.providers.values()}) == len(facts.providers))
    combined, roots, tree_reasons = combination(
        facts, 'providers' if flat else 'trees')
    if flat and combined['steps'][0]['removed']:
        tree_reasons = tree_reasons[1:]
    summary = _sentence(_group_reasons(facts.checks, removed, largest_free),
                        tree_reasons, len(roots), combined['considered'],
                        flat)
    return {'candidates': candidates, 'summary': summary, 'groups': groups,
            'combination': combined, 'nearest': nearest(facts)}


def explain(conn, query, version, conf, candidates=None):
    """The explanation of a parsed CandidateQuery (see ``gather``)."""
    facts, count = gather(conn, query, version, conf, candidates)
    return explain_facts(facts, count)


def empty_summary(conn, query, version, conf, candidates):
    """The summary sentence alone of an empty answer (the engine's Result
    ``candidates``), as ``explain`` words it, for the log: counted in SQL
    with the same checks, without reading the providers one by one.
    Sharing providers pool trees together: then, and for requests with
    more checks than a bit mask holds, the full explanation runs."""
    ids = _Ids(conn, query)
    checks = {suffix: group_checks(group)
              for suffix, group in query.groups.items()}
    bits = {}      # (suffix, check index): its bit in a provider's mask
    for suffix, group in checks.items():
        for index in range(len(group)):
            bits[(suffix, index)] = len(bits)
    sharing = sa.select(RPT.c.resource_provider_id).join(
        RPA, RPA.c.resource_provider_id == RPT.c.resource_provider_id).where(
        RPT.c.trait_id == ids.trait[SHARING_TRAIT]).limit(1)
    if (candidates.candidates or len(bits) > 62
            or conn.execute(sharing).first()):
        return explain(conn, query, version, conf, candidates)['summary']
    # Per provider, evaluated once (DISTINCT keeps SQLite from copying the
    # conditions into each use): a mask of the checks it passes, whether
    # its root passes root_required, and what it has free of each class
    # asked with a capacity check.
    inventories = {}
    providers = RP
    for n, rc in enumerate(sorted({name for group in query.groups.values()
                                   for name in group.resources})):
        inv = inventories[rc] = INV.alias('inv_%d' % n)
        providers = providers.outerjoin(inv, sa.and_(
            inv.c.resource_provider_id == RP.c.id,
            inv.c.resource_class_id == ids.rc[rc]))
    mask = sa.literal(0)
    capacities = []
    for suffix, group in query.groups.items():
        for index, check in enumerate(checks[suffix]):
            mask = mask + sa.case((_condition(
                conn, group, check, ids, inventories),
                sa.literal(1 << bits[(suffix, index)])), else_=0)
            if check.kind == 'capacity':
                capacities.append((suffix, index))
    rows = sa.select(
        RP.c.id, RP.c.root_provider_id.label('root'), mask.label('mask'),
        sa.case((_root_clause(query, ids), 1), else_=0).label('rooted'),
        *(_free(inventories[checks[suffix][index].rc]).label('free_%d' % n)
          for n, (suffix, index) in enumerate(capacities))
    ).select_from(providers).distinct().subquery()

    rules = tree_rules(checks, _root_label(query.root_required),
                       _spanning_label(query))
    # Each group's funnel: the providers counted by first failing check,
    # with the most free among those stopped at capacity.  Trees of one
    # provider each (no sharing): a tree serves a group when its provider
    # passes all the group's checks, so the masks tell the trees' rules
    # too, without a second pass.
    single = not conn.execute(sa.select(RP.c.id).where(
        RP.c.id != RP.c.root_provider_id).limit(1)).first()
    removed_trees = [0] * len(rules)
    removed = {suffix: [0] * len(group) for suffix, group in checks.items()}
    largest_free = {}
    providers = 0
    for row in conn.execute(sa.select(
            rows.c.mask, rows.c.rooted, sa.func.count(),
            *(sa.func.max(rows.c['free_%d' % n])
              for n in range(len(capacities)))).group_by(rows.c.mask,
                                                         rows.c.rooted)):
        passed, rooted, count = row[:3]
        providers += count
        frees = dict(zip(capacities, row[3:]))
        served = []
        for suffix, group in checks.items():
            failing = [index for index in range(len(group))
                       if not passed & 1 << bits[(suffix, index)]]
            served.append(not failing)
            if failing:
                removed[suffix][failing[0]] += count
                if (suffix, failing[0]) in frees:
                    largest_free[(suffix, failing[0])] = max(
                        largest_free.get((suffix, failing[0]), 0),
                        max(int(frees[(suffix, failing[0])]), 0))
        if single:
            if query.root_required:
                served.append(bool(rooted))
            removed_trees[(served + [False]).index(False)] += count
    if not single:
        _count_trees(conn, rows, checks, bits, query.root_required,
                     removed_trees)
    considered = sum(removed_trees)
    flat = len(checks) == 1 and considered == providers
    noun = 'providers' if flat else 'trees'
    tree_reasons = [reason % _tree_words(count, noun)
                    for (_, reason), count in zip(rules, removed_trees)
                    if count]
    if flat and removed_trees[0]:
        tree_reasons = tree_reasons[1:]
    return _sentence(_group_reasons(checks, removed, largest_free),
                     tree_reasons, 0, considered, flat)


def _count_trees(conn, rows, checks, bits, root_required, removed_trees):
    """Count in ``removed_trees`` the trees by the first rule over whole
    trees they fail (see ``tree_rules``; the last one, the engine
    combining the groups, takes every tree left since the answer is
    empty), from the per-provider ``rows`` of ``empty_summary``."""
    def some(pattern):
        """Whether some provider of the tree passes the checks of
        ``pattern``."""
        return sa.func.max(sa.case((
            rows.c.mask.op('&')(pattern) == pattern, 1), else_=0)) == 1

    fails = []
    for suffix, group in checks.items():
        def pattern(indexes, suffix=suffix):
            return sum(1 << bits[(suffix, index)] for index in indexes)
        if suffix:
            serves = some(pattern(range(len(group))))
        else:
            # As tree_serves: each need met by one provider passing the
            # group's filters.
            filters = {index for index, check in enumerate(group)
                       if check.kind in _FILTER_KINDS}
            serves = sa.and_(sa.true(), *(
                some(pattern(filters | need))
                for need in list(_needs(group).values()) or [set()]))
        fails.append((~serves, len(fails)))
    if root_required:
        fails.append((sa.func.min(rows.c.rooted) == 0, len(fails)))
    trees = sa.select(sa.case(*fails, else_=len(removed_trees) - 1)
                      .label('rule')).group_by(rows.c.root).subquery()
    for rule, count in conn.execute(
            sa.select(trees.c.rule, sa.func.count()).group_by(trees.c.rule)):
        removed_trees[rule] += count


def _free(inv):
    """What an (outer-joined) inventory has free: NULL without one."""
    return figures.free(inv, figures.used(inv))
