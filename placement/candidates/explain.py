"""Why GET /allocation_candidates answers what it does, counted by the
same checks, reader and combiner as the list itself.

- Per group, every provider is counted at the first check of the group's
  stack it fails: the census (census.py, from the read step's source)
  evaluates each check's own condition per provider, with the figures
  the words need.  An empty answer's summary (the INFO line) reuses the
  trees the list read.
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
import itertools
import typing

from placement.candidates import candidate_search
from placement.candidates import checks as checks_mod
from placement.candidates import nearest as nearest_mod

# The weighed candidates an explanation lists, and the digits of their
# scores.
WEIGHED = 50
SCORE_DIGITS = 4


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
