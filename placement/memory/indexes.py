"""Who has what in a snapshot: the providers of each tree, aggregate,
trait and resource class, so that a filtered read visits the providers
it may match rather than all of them.

An index is {key: set of provider ids}, never changed once its snapshot
is published; ``changed`` copies only the sets a change moves.
"""
import typing


class Indexes(typing.NamedTuple):
    trees: dict        # root id -> its providers
    aggregates: dict   # aggregate uuid -> its members
    traits: dict       # trait name -> the providers having it
    classes: dict      # resource class id -> the providers with inventory


def _keys(snap_parts, rp):
    """Per index, the keys provider ``rp`` is filed under."""
    providers, inventories, _usage, traits, aggregates, _holdings = snap_parts
    provider = providers.get(rp)
    return ((provider.root_id,) if provider is not None else (),
            aggregates.get(rp, ()), traits.get(rp, ()),
            inventories.get(rp, {}).keys())


def filed_under(index, keys):
    """The providers ``index`` files under one of ``keys``."""
    found = set()
    for key in keys:
        found.update(index.get(key, ()))
    return found


def build(parts):
    """The Indexes of a snapshot's (providers, inventories, usage,
    traits, aggregates, holdings)."""
    found = Indexes({}, {}, {}, {})
    for rp in parts[0]:
        for index, keys in zip(found, _keys(parts, rp)):
            for key in keys:
                index.setdefault(key, set()).add(rp)
    return found


def changed(old, old_parts, parts, touched):
    """``old`` with the providers of ``touched`` filed as ``parts`` has
    them (``old_parts``: as ``old`` had them)."""
    found = Indexes(*(dict(index) for index in old))
    copied = [set() for _ in found]
    for rp in touched:
        for number, (before, after) in enumerate(zip(
                _keys(old_parts, rp), _keys(parts, rp))):
            before, after = set(before), set(after)
            if before == after:
                continue
            index = found[number]
            for key in before ^ after:
                if key not in copied[number]:
                    index[key] = set(index.get(key, ()))
                    copied[number].add(key)
                if key in after:
                    index[key].add(rp)
                else:
                    index[key].discard(rp)
    # Emptied only now: a key one provider leaves, another may join.
    for index, keys in zip(found, copied):
        for key in keys:
            if not index[key]:
                del index[key]
    return found
