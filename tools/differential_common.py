"""What every step of tools/differential.py is built from: the fixed
names both servers are asked about, the microversions tried, and the
Step and Sql classes."""

# Fixed names, so that both servers are asked about the same things.
RP = 'd1ff0000-0000-4000-8000-000000000001'     # root with inventory
RP2 = 'd1ff0000-0000-4000-8000-000000000002'    # second root, sharing
CH = 'd1ff0000-0000-4000-8000-000000000003'     # child of RP
GC = 'd1ff0000-0000-4000-8000-000000000004'     # grandchild of RP
EMPTY = 'd1ff0000-0000-4000-8000-000000000005'  # root without inventory
SCRATCH = 'd1ff0000-0000-4000-8000-000000000006'  # created and deleted
PROBE = 'd1ff0000-0000-4000-8000-000000000007'  # a probe's own provider
C1 = 'd1ff0000-0000-4000-8000-00000000c001'     # consumer on RP
C2 = 'd1ff0000-0000-4000-8000-00000000c002'     # consumer on CH
C3 = 'd1ff0000-0000-4000-8000-00000000c003'     # a probe's own consumer
AGG = 'd1ff0000-0000-4000-8000-00000000a001'
AGG2 = 'd1ff0000-0000-4000-8000-00000000a002'
NOPE = 'd1ff0000-0000-4000-8000-00000000ffff'   # exists nowhere
PROJECT = 'd1ff0000-0000-4000-8000-0000000000e1'
USER = 'd1ff0000-0000-4000-8000-0000000000e2'
# [placement] incomplete_consumer_project_id and _user_id by default.
INCOMPLETE = '00000000-0000-0000-0000-000000000000'
KNOWN_UUIDS = {RP, RP2, CH, GC, EMPTY, SCRATCH, PROBE, C1, C2, C3, AGG,
               AGG2, NOPE, PROJECT, USER, INCOMPLETE}

ADMIN = {'x-auth-token': 'admin'}
SERVICE = {'x-auth-token': 'nova', 'x-roles': 'service'}
MEMBER = {'x-auth-token': 'user1', 'x-roles': 'member'}

# Microversions where some behaviour changes, plus the ends.
VERSIONS = ('1.0', '1.3', '1.4', '1.5', '1.6', '1.7', '1.8', '1.9',
            '1.10', '1.11', '1.12', '1.13', '1.14', '1.15', '1.16',
            '1.17', '1.18', '1.19', '1.20', '1.21', '1.22', '1.23',
            '1.24', '1.25', '1.26', '1.27', '1.28', '1.29', '1.30',
            '1.31', '1.32', '1.33', '1.34', '1.35', '1.36', '1.37',
            '1.38', '1.39')
EDGES = ('1.0', '1.14', '1.20', '1.23', '1.28', '1.33', '1.35', '1.38',
         '1.39')


class Step:
    """One request: sent to both servers in order."""

    def __init__(self, label, method, path, body=None, version='latest',
                 headers=None, raw=None):
        self.label = label
        self.method = method
        self.path = path
        self.body = body
        self.raw = raw
        self.version = version
        self.headers = headers

    def send(self, http):
        headers = dict(ADMIN)
        if self.version is not None:
            headers['openstack-api-version'] = 'placement ' + self.version
        headers.update(self.headers or {})
        if self.raw is not None:
            headers.setdefault('content-type', 'application/json')
            return http.request(self.method, self.path, content=self.raw,
                                headers=headers)
        if self.body is not None:
            return http.request(self.method, self.path, json=self.body,
                                headers=headers)
        return http.request(self.method, self.path, headers=headers)


class Sql(Step):
    """Statements run on both servers' databases, not a request."""

    def __init__(self, label, statements):
        super().__init__(label, 'SQL', '; '.join(statements))
        self.statements = statements

    def execute(self, db_url):
        import sqlalchemy
        engine = sqlalchemy.create_engine(db_url)
        try:
            with engine.begin() as conn:
                for statement in self.statements:
                    conn.exec_driver_sql(statement)
        finally:
            engine.dispose()


def alloc_body(resources, rp=RP, gen=None, **extra):
    body = {'allocations': {rp: {'resources': resources}},
            'project_id': PROJECT, 'user_id': USER,
            'consumer_generation': gen, 'consumer_type': 'INSTANCE'}
    body.update(extra)
    return body
