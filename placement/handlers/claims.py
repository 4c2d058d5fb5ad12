"""Handler: POST /claims, choose and write allocations in one call."""
from placement import microversions
from placement.candidates import claiming
from placement.candidates import stacks
from placement.handlers import allocation
from placement.handlers import base
from placement.objects import allocation as alloc_obj
from placement.schemas import claims as schema
from placement.web import gc_pause
from placement.web import negotiation
from placement.web import responses
from placement.web import shapes
from placement.web import validation

RULE = 'placement:claims'


@base.handler
@negotiation.since(microversions.CONSUMER_GENERATIONS)
@validation.require_json_content
def claim(req):
    ctx = base.context(req)
    ctx.can(RULE)
    version = negotiation.get(req)
    data = validation.extract_json(req, schema.CLAIM.at(version))
    shape = shapes.parse('', data['shape'], version)
    consumers = allocation.named_once([alloc_obj.ConsumerWrite(
        uuid=validation.body_uuid(uuid), allocations={},
        project_id=body['project_id'], user_id=body['user_id'],
        generation=body['consumer_generation'],
        consumer_type=body.get('consumer_type'))
        for uuid, body in data['consumers'].items()])
    conf = ctx.config.placement
    request = claiming.Claim(
        shape, consumers, data.get('roots', 'any'),
        data.get('order', conf.candidate_order), data.get('alternates', 0))
    # The engine runs here too, with as many small objects.
    with gc_pause.collection_paused():
        body = stacks.claim(ctx.database, ctx.snapshot(), request,
                            version, conf)
    return responses.json_response(req, body)
