"""Handler for POST /reshaper (1.30)."""
from placement import microversions
from placement.handlers import allocation
from placement.handlers import base
from placement.handlers import inventory
from placement.objects import reshaper as reshaper_obj
from placement.schemas import reshaper as schema
from placement.web import negotiation
from placement.web import responses
from placement.web import validation


@base.handler
@negotiation.since(microversions.RESHAPER)
@validation.require_json_content
def reshape(req):
    ctx = base.context(req)
    ctx.can('placement:reshaper:reshape')
    data = validation.extract_json(req, schema.POST.at(negotiation.get(req)))
    inventories = {}
    for uuid, body in data['inventories'].items():
        uuid = validation.body_uuid(uuid)
        inventories[uuid] = (
            body['resource_provider_generation'],
            {name: inventory.record_from_request(fields)
             for name, fields in body['inventories'].items()})
    writes = allocation.consumer_writes(req, data['allocations'])
    ctx.database.write(reshaper_obj.reshape, inventories, writes)
    return responses.empty_response(req)
