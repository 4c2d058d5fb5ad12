"""Handlers for /allocations and /resource_providers/{uuid}/allocations."""
from placement import errors
from placement import microversions
from placement.data import uuids
from placement.handlers import base
from placement.objects import allocation as alloc_obj
from placement.objects import consumer as consumer_obj
from placement.schemas import allocation as schema
from placement.web import negotiation
from placement.web import responses
from placement.web import validation

POLICY = 'placement:allocations:%s'


def _consumer_uuid(req):
    """The consumer UUID of the URL, dashed; None if it is not a UUID."""
    value = req.urlvars['consumer_uuid']
    return uuids.normalize_uuid(value) if uuids.is_uuid(value) else None


def _by_provider(req, allocations):
    """{provider uuid: {class: amount}} from either body format.

    Before 1.12 the allocations are a list of provider/resources pairs
    (a provider listed twice gets the sum of its entries).
    """
    result = {}
    if not negotiation.at_least(req, microversions.DICT_ALLOCATIONS):
        for item in allocations:
            uuid = uuids.normalize_uuid(item['resource_provider']['uuid'])
            resources = result.setdefault(uuid, {})
            for name, amount in item['resources'].items():
                resources[name] = resources.get(name, 0) + amount
        return result
    return {validation.body_uuid(uuid): dict(entry['resources'])
            for uuid, entry in allocations.items()}


def consumer_write(req, consumer_uuid, body):
    """An ``alloc_obj.ConsumerWrite`` from one consumer's request body."""
    write = alloc_obj.ConsumerWrite(
        uuid=consumer_uuid,
        allocations=_by_provider(req, body['allocations']),
        project_id=body.get('project_id'), user_id=body.get('user_id'))
    if not negotiation.at_least(req, microversions.CONSUMER_OWNER):
        conf = base.context(req).config.placement
        write.project_id = conf.incomplete_consumer_project_id
        write.user_id = conf.incomplete_consumer_user_id
    if negotiation.at_least(req, microversions.CONSUMER_GENERATIONS):
        write.generation = body['consumer_generation']
    if negotiation.at_least(req, microversions.CONSUMER_TYPES):
        write.consumer_type = body['consumer_type']
    return write


def consumer_writes(req, data):
    """The writes of a multi-consumer body (POST /allocations, reshaper)."""
    return named_once([consumer_write(req, validation.body_uuid(uuid), body)
                       for uuid, body in data.items()])


def named_once(writes):
    """``writes``; 400 if two name one consumer (spelled differently)."""
    if len({write.uuid for write in writes}) != len(writes):
        raise errors.BadRequest(
            'A consumer is named more than once (spelled differently).')
    return writes


@base.handler
def get_allocations(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'list')
    consumer_uuid = _consumer_uuid(req)
    consumer, allocations, modified = None, {}, None
    if consumer_uuid is not None:
        consumer, allocations, modified = ctx.database.read(
            alloc_obj.get_for_consumer, consumer_uuid)
    body = {'allocations': allocations}
    if consumer is not None:
        if negotiation.at_least(req, microversions.DICT_ALLOCATIONS):
            body['project_id'] = consumer['project_id']
            body['user_id'] = consumer['user_id']
        if negotiation.at_least(req, microversions.CONSUMER_GENERATIONS):
            body['consumer_generation'] = consumer['generation']
        if negotiation.at_least(req, microversions.CONSUMER_TYPES):
            body['consumer_type'] = (consumer['consumer_type']
                                     or consumer_obj.UNKNOWN_TYPE)
    return responses.json_response(req, body, last_modified=modified)


@base.handler
@validation.require_json_content
def set_allocations_for_consumer(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'update')
    consumer_uuid = _consumer_uuid(req)
    if consumer_uuid is None:
        raise errors.BadRequest('Malformed consumer_uuid: %s'
                                % req.urlvars['consumer_uuid'])
    data = validation.extract_json(req, schema.PUT.at(negotiation.get(req)))
    ctx.database.write(alloc_obj.write,
                       [consumer_write(req, consumer_uuid, data)])
    return responses.empty_response(req)


@base.handler
@negotiation.since(microversions.POST_ALLOCATIONS)
@validation.require_json_content
def set_allocations(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'manage')
    data = validation.extract_json(req, schema.POST.at(negotiation.get(req)))
    ctx.database.write(alloc_obj.write, consumer_writes(req, data), True)
    return responses.empty_response(req)


@base.handler
def delete_allocations(req):
    ctx = base.context(req)
    ctx.can(POLICY % 'delete')
    consumer_uuid = _consumer_uuid(req)
    if consumer_uuid is None:
        raise errors.NotFound("No allocations for consumer '%s'"
                              % req.urlvars['consumer_uuid'])
    ctx.database.write(alloc_obj.delete_for_consumer, consumer_uuid)
    return responses.empty_response(req)


@base.handler
def list_for_resource_provider(req):
    ctx = base.context(req)
    ctx.can('placement:resource_providers:allocations:list')
    generation, allocations, consumer_generations, modified = (
        ctx.database.read(alloc_obj.get_for_provider, req.urlvars['uuid']))
    if negotiation.at_least(req, microversions.CONSUMER_GENERATIONS):
        for consumer_uuid, entry in allocations.items():
            entry['consumer_generation'] = consumer_generations.get(
                consumer_uuid)
    return responses.json_response(
        req, {'resource_provider_generation': generation,
              'allocations': allocations}, last_modified=modified)
