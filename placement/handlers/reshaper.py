"""Handler for POST /reshaper (1.30)."""
from placement import microversion
from placement import microversions
from placement import util
from placement.handlers import allocation
from placement.handlers import inventory
from placement.objects import reshaper as reshaper_obj
from placement.schemas import reshaper as schema


@util.handler
@microversion.since(microversions.RESHAPER)
@util.require_json_content
def reshape(req):
    ctx = util.context(req)
    ctx.can('placement:reshaper:reshape')
    data = util.extract_json(req, schema.POST.at(microversion.get(req)))
    inventories = {}
    for uuid, body in data['inventories'].items():
        uuid = util.body_uuid(uuid)
        inventories[uuid] = (
            body['resource_provider_generation'],
            {name: inventory.record_from_request(fields)
             for name, fields in body['inventories'].items()})
    writes = allocation.consumer_writes(req, data['allocations'])
    ctx.database.write(reshaper_obj.reshape, inventories, writes)
    return util.empty_response(req)
