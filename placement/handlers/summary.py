"""Handler of GET /summary, the whole cloud in one read (an addition of
this service, for the console's overview and operators' scripts)."""
from placement import util
from placement.objects import summary as summary_obj
from placement.schemas import summary as schema


@util.handler
def get_summary(req):
    ctx = util.context(req)
    ctx.can('placement:summary')
    util.validate_query(req, schema.QUERY)
    return util.json_response(req, ctx.database.read(summary_obj.read))
