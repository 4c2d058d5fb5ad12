"""The reshaper: new inventories and allocations for several providers,
all in one transaction.

Inventories are written twice.  First each provider gets the union of its
current and its new inventory, so that no class still holding allocations
disappears and every class the new allocations need exists; then the
allocations are replaced (with the usual capacity checks); then each
provider gets exactly its new inventory, which refuses to drop a class
still in use by a consumer the request did not move.  Each step bumps the
generation of the providers it writes, as upstream does; like upstream,
the first step skips a provider whose new inventory is empty (the union
would be its current inventory), so that step does not bump it.  The
reshaper exists from 1.30, so a class may be reserved in full (1.26).
"""
from placement import errors
from placement.objects import allocation as alloc_obj
from placement.objects import base
from placement.objects import inventory as inv_obj


def reshape(conn, inventories, writes):
    """``inventories``: {provider uuid: (client generation, {class: record})};
    ``writes``: ``alloc_obj.ConsumerWrite`` list."""
    provider_ids = base.lock_providers_by_uuid(
        conn, set(inventories) | alloc_obj.providers_named(writes))
    generations = base.lock_providers(conn, provider_ids.values())
    for uuid, (given, _records) in inventories.items():
        if uuid not in provider_ids:
            raise errors.BadRequest(
                'Resource provider %s in inventories not found: %s'
                % (uuid, base.provider_not_found(uuid).detail),
                code=errors.RESOURCE_PROVIDER_NOT_FOUND)
        actual = generations[provider_ids[uuid]]
        if given != actual:
            raise errors.Conflict(
                'resource provider generation conflict for provider %s: '
                'actual: %s, given: %s' % (uuid, actual, given),
                code=errors.CONCURRENT_UPDATE,
                kind=errors.PROVIDER_GENERATION)
    for uuid, (_given, records) in inventories.items():
        if not records:
            continue
        _generation, current, _modified = inv_obj.get_all(conn, uuid)
        inv_obj.replace_all(conn, uuid, None, dict(current, **records),
                            report=inv_obj.RESHAPE_ERRORS,
                            check_capacity=False,
                            reserved_can_be_total=True)
    alloc_obj.apply(conn, writes, provider_ids)
    for uuid, (_given, records) in inventories.items():
        inv_obj.replace_all(conn, uuid, None, records,
                            report=inv_obj.RESHAPE_ERRORS,
                            reserved_can_be_total=True)
