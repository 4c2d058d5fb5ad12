"""The request context: who is asking, and the policy check against it."""
from oslo_context import context
from oslo_policy import policy as oslo_policy

from placement import errors


class RequestContext(context.RequestContext):
    """oslo.context's context plus the service's database and policy."""

    def __init__(self, *args, database=None, enforcer=None, config=None,
                 memory=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.database = database
        self.enforcer = enforcer
        self.config = config
        # The worker's memory.source.Source with read_source = snapshot.
        self.memory = memory

    def snapshot(self):
        """The worker's snapshot, current as of now, or None when reads
        come from the database (by configuration, or while it loads)."""
        return None if self.memory is None else self.memory.current()

    def can(self, action, target=None):
        """Raise 403 unless policy allows ``action`` on ``target``."""
        if target is None:
            target = {'project_id': self.project_id,
                      'user_id': self.user_id}
        try:
            allowed = self.enforcer.authorize(
                action, target, self, do_raise=False)
        except oslo_policy.InvalidScope:
            allowed = False
        if not allowed:
            raise errors.Forbidden(
                'Policy does not allow %s to be performed.' % action)
