"""The model test_candidate_search_property.py checks the combiner against:
a small world of providers, the values the reader would hand the combiner
for a request on it (the filters SQL applies are modelled here), and a
brute-force enumerator of its candidates that works from the model alone."""
import itertools

from placement.candidates import candidate_search as cs
from placement.candidates import tree_rules


# -- the model ----------------------------------------------------------------

SHARES = 'SHARES'


class World:
    """Providers by id (1..n, parents before children): {'parent',
    'root', 'traits', 'aggs', 'inv': {rc: {room, min, max, step}}}."""

    def __init__(self, specs):
        self.rps = {}
        for index, spec in enumerate(specs):
            rp = index + 1
            parent = spec['parent']
            parent = parent + 1 if parent is not None and parent < index \
                else None
            traits = set(spec['traits'])
            if spec['sharing'] and parent is None:
                traits.add(SHARES)
            self.rps[rp] = {
                'parent': parent,
                'root': rp if parent is None else self.rps[parent]['root'],
                'traits': traits, 'aggs': set(spec['aggs']),
                'inv': spec['inv']}

    def fits(self, rp, rc, amount):
        inv = self.rps[rp]['inv'].get(rc)
        return (inv is not None and inv['min'] <= amount <= inv['max']
                and amount % inv['step'] == 0 and amount <= inv['room'])

    def limit(self, rp, rc):
        inv = self.rps[rp]['inv'][rc]
        return min(inv['room'], inv['max'])

    def roots(self):
        return sorted({info['root'] for info in self.rps.values()})

    def sharing(self):
        return [rp for rp, info in self.rps.items() if SHARES in info['traits']]

    def served_by(self, sharer):
        """Roots of the trees a sharing provider serves."""
        aggs = self.rps[sharer]['aggs']
        return {info['root'] for info in self.rps.values()
                if info['aggs'] & aggs}

    def passes(self, rp, group, via_root):
        """The filters SQL applies to a provider for a group (traits of the
        unsuffixed group aside: they are a mask)."""
        info = self.rps[rp]
        if info['traits'] & group['forbidden']:
            return False
        if not group['spread'] and not all(
                info['traits'] & any_of for any_of in group['required']):
            return False
        aggs = set(info['aggs'])
        if via_root:
            aggs |= self.rps[info['root']]['aggs']
        if not all(aggs & any_of for any_of in group['member_of']):
            return False
        if aggs & group['not_member_of']:
            return False
        named = group['in_tree']
        if named is not None and (named not in self.rps or info['root']
                                  != self.rps[named]['root']):
            return False
        return True

    def root_ok(self, root, root_required):
        return root_required <= self.rps[root]['traits']


def reader_values(world, groups, root_required, isolate, same_subtree,
                  one_per_tree):
    """What the reader would hand the combiner: Request and Trees."""
    specs = [cs.Group(g['suffix'], g['amounts'], g['spread'],
                      len(g['required']) if g['spread'] else 0)
             for g in groups]
    requested = [rc for g in groups for rc in g['amounts']]
    with_limits = len(requested) != len(set(requested))

    def rows(group, rps):
        """(rp, fit, limits, traits) as the group's statement gives."""
        found = []
        for rp in rps:
            if not world.passes(rp, group, group['spread']):
                continue
            fit = 0
            limits = {}
            for bit, (rc, amount) in enumerate(group['amounts'].items()):
                if world.fits(rp, rc, amount):
                    fit |= 1 << bit
                    if with_limits:
                        limits[(rp, rc)] = world.limit(rp, rc)
            if group['amounts'] and not fit:
                continue
            traits = 0
            if group['spread']:
                for bit, any_of in enumerate(group['required']):
                    if world.rps[rp]['traits'] & any_of:
                        traits |= 1 << bit
            found.append((rp, fit, limits, traits))
        return found

    sharing = cs.Sharing({}, [{} for _ in groups], {}, {})
    sharers = world.sharing()
    for index, group in enumerate(groups):
        if not group['amounts']:
            continue
        for rp, fit, limits, traits in rows(group, sharers):
            own = world.rps[rp]['root']
            sharing.roots[rp] = own
            sharing.limits.update(limits)
            if traits:
                sharing.masks[rp] = traits
            for anchor in sorted(world.served_by(rp)):
                if anchor != own:
                    sharing.serving[index].setdefault(anchor, []).append(
                        (rp, fit))
    anchored = {anchor for serving in sharing.serving for anchor in serving}
    trees = []
    for root in world.roots():
        members = []
        limits = {}
        masks = {}
        tree_rps = [rp for rp, info in world.rps.items()
                    if info['root'] == root]
        for group in groups:
            found = rows(group, tree_rps) \
                if world.root_ok(root, root_required) else []
            members.append({rp: fit for rp, fit, _, _ in found})
            for rp, _, group_limits, traits in found:
                limits.update(group_limits)
                if traits:
                    masks[rp] = traits
        if not any(members) and not (
                root in anchored and world.root_ok(root, root_required)):
            continue
        parents = {rp: world.rps[rp]['parent'] for rp in tree_rps} \
            if same_subtree else None
        trees.append(cs.Tree(root, members, limits, masks, parents))
    index = {g['suffix']: i for i, g in enumerate(groups)}
    request = cs.Request(
        specs, isolate=tree_rules.Isolate() if isolate else None,
        same_subtree=tuple(tree_rules.SameSubtree(
            suffixes, tuple(index[s] for s in suffixes))
            for suffixes in same_subtree),
        one_per_tree=one_per_tree, sharing=sharing)
    return request, trees


# -- brute force, from the model alone ----------------------------------------

def brute_force(world, groups, root_required, isolate, same_subtree,
                one_per_tree):
    """[candidates of each tree] in product order, each candidate as
    (allocations {rp: {rc: amount}}, mappings {suffix: (rp, ...)}); see
    ``once`` for the repeats."""
    per_tree = []
    sharers = world.sharing()
    for root in world.roots():
        if not world.root_ok(root, root_required):
            continue
        tree = [rp for rp, info in world.rps.items() if info['root'] == root]
        extra = [rp for rp in sharers if world.rps[rp]['root'] != root
                 and root in world.served_by(rp)]
        options = []
        for group in groups:
            usable = [rp for rp in tree + extra
                      if world.passes(rp, group, group['spread'])]
            if group['spread']:
                classes = list(group['amounts'])
                per_class = [[rp for rp in usable
                              if world.fits(rp, rc, group['amounts'][rc])]
                             for rc in classes]
                choices = []
                for picks in itertools.product(*per_class):
                    have = set().union(*(world.rps[rp]['traits']
                                         for rp in picks))
                    if all(have & any_of for any_of in group['required']):
                        choices.append(list(zip(picks, classes)))
            elif group['amounts']:
                choices = [[(rp, rc) for rc in group['amounts']]
                           for rp in usable if all(
                               world.fits(rp, rc, amount)
                               for rc, amount in group['amounts'].items())]
            else:
                choices = [[(rp, None)] for rp in usable if rp in tree]
            options.append(choices)
        found = []
        for combo in itertools.product(*options):
            mappings = {}
            totals = {}
            for group, parts in zip(groups, combo):
                mappings[group['suffix']] = tuple(dict.fromkeys(
                    rp for rp, _ in parts))
                for rp, rc in parts:
                    if rc is not None:
                        totals[(rp, rc)] = (totals.get((rp, rc), 0)
                                            + group['amounts'][rc])
            singles = [mappings[g['suffix']][0] for g in groups
                       if not g['spread']]
            if isolate and len(set(singles)) != len(singles):
                continue
            if not all(amount <= world.limit(rp, rc)
                       for (rp, rc), amount in totals.items()):
                continue
            if not all(any(all(descends(world, mappings[s][0], top)
                               for s in suffixes)
                           for top in (mappings[s][0] for s in suffixes))
                       for suffixes in same_subtree):
                continue
            allocations = {}
            for (rp, rc), amount in totals.items():
                allocations.setdefault(rp, {})[rc] = amount
            if one_per_tree:
                roots = [world.rps[rp]['root'] for rp in allocations]
                if len(set(roots)) != len(roots):
                    continue
            found.append((allocations, mappings))
        per_tree.append(found)
    return per_tree


def once(candidates, sharers):
    """Without the repeats of candidates made of sharing providers only
    (the same from every tree they serve)."""
    seen = set()
    for candidate in candidates:
        if all(rp in sharers for rps in candidate[1].values() for rp in rps):
            key = canonical(candidate)
            if key in seen:
                continue
            seen.add(key)
        yield candidate


def descends(world, rp, top):
    while rp is not None:
        if rp == top:
            return True
        rp = world.rps[rp]['parent']
    return False


def canonical(candidate):
    allocations, mappings = candidate
    return (tuple(sorted((rp, tuple(sorted(amounts.items())))
                         for rp, amounts in allocations.items())),
            tuple(sorted(mappings.items())))
