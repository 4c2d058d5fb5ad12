"""Why GET /allocation_candidates answers what it does, counted by the
same checks, reader and combiner as the list itself.

- Per group, every provider is counted at the first check of the group's
  stack it fails: one statement (``census``) evaluates each check's own
  condition per provider, with the figures the words need.  An empty
  answer's summary (the INFO line) reuses the trees the list read.
- Per tree, the combiner says where the tree drops out: the first group
  it has no option for (with the sharing providers it draws from),
  ``root_required``, or the combining of the groups (isolation,
  ``same_subtree``, capacity summed across groups).  The trees are those
  the list's reader reads; the number of candidates is the list's.
- The nearest misses (``nearest.py``) are judged per tree for the
  unsuffixed group, per provider for the others.  The same judgement
  of a tree says when a group fails in it because a sharing provider it
  draws a class from falls short: the summary names that provider.
- With ``candidate_order`` spread or pack, the weights of the first
  candidates of the answer's order, by the list's own weigh stage.
"""
import dataclasses
import itertools
import typing

import sqlalchemy as sa

from placement.candidates import candidate_search
from placement.candidates import checks as checks_mod
from placement.candidates import layouts
from placement.candidates import nearest as nearest_mod
from placement.data import tables
from placement.objects import figures

RP = tables.resource_providers
INV = tables.inventories

# Checks per integer column of the census (well within 64-bit integers).
MASK_BITS = 30
# The weighed candidates an explanation lists, and the digits of their
# scores.
WEIGHED = 50
SCORE_DIGITS = 4


class Found(typing.NamedTuple):
    """What a provider has of a class: free space and allocation units."""
    free: float
    min_unit: int
    max_unit: int
    step_size: int


class Provider(typing.NamedTuple):
    id: int
    uuid: str
    name: str
    root: int


@dataclasses.dataclass
class Census:
    """``providers`` {id: Provider}; per group suffix, the providers
    failing some check {rp: {check index: Found or None}}; the roots
    failing ``root_required``."""
    providers: dict
    failures: dict
    root_failing: frozenset

    def rooted(self, trees):
        """The ``trees`` whose root passes ``root_required``, lazily."""
        return (tree for tree in trees if tree.root not in self.root_failing)


def census(conn, reading, query):
    """Every provider through every check of the request: one statement,
    each check's own condition a bit of its group's mask."""
    names = reading.names
    classes = sorted({rc for group in query.groups.values()
                      for rc in group.resources})
    joined = RP
    inventories = {}
    # Every provider is read: the usage of the classes is summed once,
    # not looked up per inventory row.
    usage = figures.usage_table((names.rc[rc] for rc in classes),
                                reading.released)
    for number, rc in enumerate(classes):
        inv = INV.alias('inv_%d' % number)
        used = usage.alias('used_%d' % number)
        joined = joined.outerjoin(inv, sa.and_(
            inv.c.resource_provider_id == RP.c.id,
            inv.c.resource_class_id == names.rc[rc])).outerjoin(
            used, sa.and_(
                used.c.resource_provider_id == RP.c.id,
                used.c.resource_class_id == names.rc[rc]))
        inventories[rc] = (inv, used.c.used)
    plain = checks_mod.Site(RP.c.id, RP.c.root_provider_id)
    root = checks_mod.root_required(query)
    columns = [RP.c.id, RP.c.uuid, RP.c.name, RP.c.root_provider_id,
               sa.true() if root is None else root.clause(names, plain)]
    # Per group, the checks a provider passes as bits of a few integers
    # (MASK_BITS each): summed in SQL, decoded once per distinct mask.
    stacks = []
    masks = []
    for suffix, group in zip(query.groups, reading.groups):
        stacks.append((suffix, group.stack))
        starts = range(0, len(group.stack), MASK_BITS)
        masks.append(len(starts))
        for start in starts:
            bits = sa.literal(0)
            for bit, check in enumerate(
                    group.stack[start:start + MASK_BITS]):
                site = plain
                if check.rc is not None:
                    inv, used = inventories[check.rc]
                    site = checks_mod.Site(
                        RP.c.id, RP.c.root_provider_id, inventory=inv,
                        used=used, amount=check.amount)
                bits = bits + sa.case((check.clause(names, site), 1 << bit),
                                      else_=0)
            columns.append(bits)
    for rc in classes:
        inv, used = inventories[rc]
        columns += [figures.free(inv, used), inv.c.min_unit, inv.c.max_unit,
                    inv.c.step_size]
    layout = layouts.CensusLayout(masks, classes)
    providers = {}
    failures = {suffix: {} for suffix in query.groups}
    root_failing = set()
    failing = {}      # (group number, mask): [(index, rc)] of failed checks
    shared = {}       # the same, as the detail dict of a provider without
    #                   any inventory of the classes asked (never changed)
    result = conn.execute(sa.select(*columns).select_from(joined))
    for row in result.cursor.fetchall():
        provider = Provider(*layout.provider(row))
        rp = provider.id
        providers[rp] = provider
        if not layout.root_passes(row):
            root_failing.add(provider.root)
        found = {rc: Found(float(free), *units)
                 for rc, (free, *units) in layout.figures(row)}
        for number, (suffix, stack) in enumerate(stacks):
            mask = 0
            for start, value in zip(range(0, len(stack), MASK_BITS),
                                    layout.masks(row, number)):
                mask |= int(value) << start
            if mask == (1 << len(stack)) - 1:
                continue
            key = (number, mask)
            failed = failing.get(key)
            if failed is None:
                failed = failing[key] = [
                    (index, check.figures_class)
                    for index, check in enumerate(stack)
                    if not mask >> index & 1]
            if not found:
                detail = shared.get(key)
                if detail is None:
                    # Without an inventory of a class, only that is said.
                    detail = shared[key] = {index: None
                                            for index, rc in failed
                                            if rc is None}
            else:
                detail = {index: found.get(rc) for index, rc in failed
                          if rc is None or rc in found}
            failures[suffix][rp] = detail
    return Census(providers, failures, frozenset(root_failing))


def cap(query, conf):
    """How many candidates the list would give at most, or None."""
    caps = [cap for cap in (query.limit, conf.max_allocation_candidates)
            if cap is not None and cap > 0]
    return min(caps) if caps else None


def body(query, reading, facts, rules, dropped, count, weighed, conf):
    """The explanation's JSON body from the census ``facts``, the tree
    rules (tree_rules.stack) and where each tree ``dropped`` out, the
    list's ``count`` and its ``weighed`` first candidates (None when the
    order is not weighed)."""
    stacks = {suffix: group.stack
              for suffix, group in zip(query.groups, reading.groups)}
    found = _body(query, reading, facts, stacks, rules.steps, dropped, count)
    if weighed is not None:
        found['weights'] = _weights(weighed, facts, reading, conf)
    return found


def _weights(weighed, facts, reading, conf):
    """The order of the answer weighed (see weigh.py): the first WEIGHED
    candidates of one such order (another request shuffles its bands
    anew), each with its score and per class its share of the score and
    its free space after the claim."""
    names = reading.names.rc_names
    return {
        'order': conf.candidate_order,
        'tolerance': conf.weight_tolerance,
        'multipliers': dict(conf.weight_multipliers),
        'candidates': [{
            'root': facts.providers[item.root].uuid,
            'providers': [facts.providers[rp].uuid
                          for rp in item.candidate[0]],
            'score': round(item.score, SCORE_DIGITS),
            'parts': {names[rc]: round(part, SCORE_DIGITS)
                      for rc, part in item.parts().items()},
            'free': {names[rc]: round(free, SCORE_DIGITS)
                     for rc, free in item.free.items()}}
            for item in weighed[:WEIGHED]]}


def dropped(request, trees, facts, rules, cap, searched=False):
    """({root: index in ``rules.steps`` of the step the tree drops out
    at}, the candidates of the other trees, counted up to ``cap``).
    ``searched``: the list already searched ``trees`` and found none."""
    combining = len(rules.steps) - 1
    root_step = len(request.groups)
    dropped = {}
    count = 0
    for tree in trees:
        group = candidate_search.unserved(request, tree)
        if group is not None:
            dropped[tree.root] = group
        elif rules.root is not None and \
                not rules.root.keeps(tree.root, facts.root_failing):
            dropped[tree.root] = root_step
        elif searched:
            dropped[tree.root] = combining
        else:
            # Past the cap, one candidate still says the tree holds some.
            budget = None if cap is None else max(cap - count, 1)
            held = sum(1 for _ in itertools.islice(
                candidate_search.search_tree(request, tree), budget))
            if not held:
                dropped[tree.root] = combining
            count += held
    read = {tree.root for tree in trees}
    for provider in facts.providers.values():
        # Not read at all: no provider of the tree passes the first
        # group's filters, and no sharing provider serves it.
        if provider.root not in read:
            dropped[provider.root] = 0
    return dropped, count if cap is None else min(count, cap)


def funnel(stack, considered, failures):
    """The steps of one group over ``considered`` providers, each of
    ``failures`` {rp: {check index: ...}} counted at the first check it
    fails.  Returns (steps, {rp: index of its first failure})."""
    removed = [0] * len(stack)
    first = {}
    for rp, failed in failures.items():
        index = min(failed)
        removed[index] += 1
        first[rp] = index
    remaining = considered
    steps = []
    for check, count in zip(stack, removed):
        remaining -= count
        steps.append({'check': check.label, 'outcome': check.outcome,
                      'removed': count, 'remaining': remaining})
    return steps, first


class _Emptied(typing.NamedTuple):
    """The clause of the step that leaves nothing; for a group's step,
    ``need``: its suffix and the need of its check."""
    clause: str
    need: tuple = None


def _body(query, reading, facts, stacks, rules, dropped, count):
    groups = []
    clauses = []
    emptied = None
    for suffix, stack in stacks.items():
        failures = facts.failures[suffix]
        steps, first = funnel(stack, len(facts.providers), failures)
        groups.append({'suffix': suffix, 'considered': len(facts.providers),
                       'steps': steps})
        largest = {}
        for rp, index in first.items():
            left = stack[index].free_left(failures[rp][index])
            if left is not None:
                largest[index] = max(largest.get(index, 0), left)
        prefix = '' if len(stacks) == 1 else "in group '%s', " % suffix
        for index, step in enumerate(steps):
            if step['removed']:
                clause = prefix + stack[index].reason(step['removed'],
                                                      largest.get(index))
                if emptied is None and not step['remaining']:
                    emptied = _Emptied(clause, (suffix, stack[index].need()))
                clauses.append(clause)
    roots = {provider.root for provider in facts.providers.values()}
    flat = (len(stacks) == 1 and not reading.served
            and len(roots) == len(facts.providers))
    noun = 'providers' if flat else 'trees'
    pools = nearest_mod.pools(facts, reading.served)
    of_trees = []
    if '' in stacks:
        of_trees = list(nearest_mod.tree_misses(
            facts, stacks[''], facts.failures[''], pools))
    short = _short_sharing(facts, stacks, rules, pools, of_trees, dropped,
                           noun)
    remaining = len(roots)
    steps = []
    for index, rule in enumerate(rules):
        removed = sum(1 for step in dropped.values() if step == index)
        remaining -= removed
        steps.append({'check': rule.label, 'removed': removed,
                      'remaining': remaining})
        # One group over providers that are trees of their own: its
        # clauses already said which cannot serve it.
        if removed and not (flat and index == 0):
            said = []
            for clause, need, trees in short.get(index, ()):
                said.append(clause)
                removed -= trees
                # The group's own providers came to nothing for want of
                # what the sharing provider was to give them: its
                # shortfall is what leaves nothing.
                if not remaining and emptied is not None \
                        and emptied.need == need:
                    emptied = _Emptied(clause)
            if removed:
                said.append(rule.clause_for(removed, noun))
            if emptied is None and not remaining:
                emptied = _Emptied(said[0])
            clauses += said
    if emptied is not None:
        # The step that leaves nothing leads.
        clauses.remove(emptied.clause)
        clauses.insert(0, emptied.clause)
    head = '%s of %s %s can satisfy the request' % (
        checks_mod.number(remaining), checks_mod.number(len(roots)),
        'resource providers' if flat else 'provider trees')
    summary = head + (': ' + '; '.join(clauses) if clauses else '') + '.'
    return {'candidates': count, 'summary': summary, 'groups': groups,
            'combination': {'considered': len(roots), 'steps': steps},
            'nearest': nearest_mod.nearest(facts, stacks, of_trees)}


def _short_sharing(facts, stacks, rules, pools, of_trees, dropped, noun):
    """{index of a group's tree rule: [(clause, (suffix, need of the
    check), how many trees)]} of the trees that cannot serve the group
    because a sharing provider falls short for them, per provider and
    check, the most trees first.  ``of_trees``: the unsuffixed group's
    tree_misses."""
    said = {}
    for index, suffix in enumerate(stacks):
        stack = stacks[suffix]
        misses = of_trees if suffix == '' else nearest_mod.group_misses(
            facts, stack, facts.failures[suffix], pools,
            [root for root, step in dropped.items() if step == index])
        short = {}
        for root, miss in nearest_mod.on_sharing(facts, misses).items():
            if dropped.get(root) == index:
                short.setdefault((miss.place, miss.index), []).append(miss)
        for (rp, at), found in sorted(short.items(), key=lambda item: (
                -len(item[1]), facts.providers[item[0][0]].name)):
            check = stack[at]
            said.setdefault(index, []).append((rules[index].short_sharing(
                len(found), noun, facts.providers[rp].name, check,
                found[0].detail), (suffix, check.need()), len(found)))
    return said
