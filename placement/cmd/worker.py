"""The gunicorn worker of placement-api: threads that only ever get a request
that has fully arrived.

gunicorn's threaded worker ("gthread") hands a connection to a thread as
soon as it is readable, and the thread then blocks reading the headers: a
client that sends half a request and stalls holds that thread, and as many
such clients as there are threads stop the worker from answering anyone.
Here the worker's event loop reads each request itself, without blocking,
until its headers and its body (when its length is declared and small) are
in, and only then gives it to a thread, with the bytes already read pushed
back into the request parser.  A client that sends ``Expect: 100-continue``
holds its body back until it is told to go on, so its request goes to a
thread as soon as its headers are in (gunicorn answers the expectation).
A request that has not arrived within ``request_read_timeout`` seconds is
dropped.  Idle kept-alive connections are gunicorn's own business
(``keepalive``).

A request answered before its body was read (a 413 for a body over
``[api] max_request_body_size``, or any answer that did not need the
body) leaves the rest of the body on its way.  Closing the connection then
would make the kernel reset it, and a client that writes its whole body
before it reads (Python's http.client, for one) would get a broken pipe
instead of the answer waiting in its receive buffer.  So the event loop
reads and throws away the rest of a body of up to ``DISCARDED_BODIES``
times that limit, within ``request_read_timeout`` seconds, and then
closes the connection; a larger body is cut off as gunicorn does.

A worker that stops takes the connections already queued on the listening
socket and then closes its copy of it at once, rather than once its last
request is done: gunicorn only stops watching it, and the kernel keeps
completing connections into its queue until the last copy closes, then
resets every one still queued.  A client that connected meanwhile would
see its request fail instead of being served or refused.

This uses the internals of gunicorn 27's ThreadWorker (``enqueue_req``,
``murder_keepalived``, ``_keepalive_after``, ``finish_request``, the
connection's parser); tests/operations/test_worker_model.py and
tests/operations/test_limits.py fail if a gunicorn release changes them.
"""
import re
import select
import selectors
import time

from gunicorn.http import body as gunicorn_body
from gunicorn.workers import gthread

# Bytes of request line and headers read in the event loop at most; a
# longer head goes to a thread as it is, so that gunicorn's parser gives
# its usual answer to over-long request lines and fields.
MAX_HEAD = 64 * 1024
# Bodies up to this size are read in the event loop too; larger (or
# chunked) ones are read by the thread.
MAX_BODY = 1024 * 1024
READ_SIZE = 64 * 1024
# The rest of a body answered unread is thrown away up to this many times
# [api] max_request_body_size (the whole body), in reads of DISCARD_SIZE.
DISCARDED_BODIES = 4
DISCARD_SIZE = 256 * 1024

_HEAD_END = re.compile(rb'\r?\n\r?\n')
_EXPECT_CONTINUE = re.compile(rb'^expect[ \t]*:[ \t]*100-continue[ \t]*\r?$',
                              re.IGNORECASE | re.MULTILINE)
_CONTENT_LENGTH = re.compile(rb'^content-length[ \t]*:[ \t]*(\d+)[ \t]*\r?$',
                             re.IGNORECASE | re.MULTILINE)


def _arrived(data):
    """Whether ``data`` holds a whole request (or all we wait for)."""
    end = _HEAD_END.search(data)
    if end is None:
        return len(data) > MAX_HEAD
    length = _CONTENT_LENGTH.search(data, 0, end.start() + 1)
    if length is None:
        return True
    length = int(length.group(1))
    return (length > MAX_BODY or len(data) - end.end() >= length
            or _EXPECT_CONTINUE.search(data, 0, end.start() + 1) is not None)


def _declared_length(request):
    """The Content-Length of a parsed request (None without one); the
    parser has checked that it is a number."""
    for name, value in request.headers:
        if name == 'CONTENT-LENGTH':
            return int(value)
    return None


def _body_on_its_way(parser):
    """Bytes of the current request's declared body that have not been
    received yet (0 for a chunked body: its end is not known here)."""
    body = getattr(parser.mesg, 'body', None)
    if body is None or not isinstance(body.reader, gunicorn_body.LengthReader):
        return 0
    return max(0, body.reader.length - _buffered(parser))


def _buffered(parser):
    """Bytes received that the parser holds unparsed."""
    return parser.unreader.buf.getbuffer().nbytes


class _Arrival:
    """A request still arriving: the bytes read so far."""
    __slots__ = ('data', 'deadline', 'watched')

    def __init__(self, deadline):
        self.data = b''
        self.deadline = deadline
        self.watched = False


class _Discard:
    """The rest of a body answered unread: how many bytes are to come."""
    __slots__ = ('left', 'deadline', 'watched')

    def __init__(self, left, deadline):
        self.left = left
        self.deadline = deadline
        self.watched = False


def worker_class(request_read_timeout, max_request_body_size):
    """The worker class, dropping requests that take longer than
    ``request_read_timeout`` seconds to arrive, for an application that
    refuses bodies over ``max_request_body_size`` bytes unread."""
    return type('BufferingThreadWorker', (BufferingThreadWorker,),
                {'request_read_timeout': request_read_timeout,
                 'max_request_body_size': max_request_body_size})


class BufferingThreadWorker(gthread.ThreadWorker):

    request_read_timeout = 10.0
    max_request_body_size = 16 * 1024 * 1024

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Connections read by the event loop: an _Arrival or a _Discard
        # each (event loop only).
        self.reading = {}
        self.discard_buffer = bytearray(DISCARD_SIZE)

    def enqueue_req(self, conn):
        pending = conn.parser is not None and _buffered(conn.parser)
        if self.cfg.is_ssl or pending:
            # TLS is read by the thread; bytes already held by the parser
            # (a pipelined request) need no socket read.
            super().enqueue_req(conn)
            return
        self.reading[conn] = _Arrival(
            time.monotonic() + self.request_read_timeout)
        conn.sock.setblocking(False)
        self._read(conn)

    def _read(self, conn, _sock=None):
        arrival = self.reading[conn]
        try:
            data = conn.sock.recv(READ_SIZE)
        except (BlockingIOError, InterruptedError):
            data = None
        except OSError:
            data = b''
        if data == b'':
            # The client went away before its request was complete.
            self._drop(conn)
            return
        if data:
            arrival.data += data
            if _arrived(arrival.data):
                self._hand_over(conn)
                return
        self._watch(conn, arrival, self._read)

    def _watch(self, conn, reading, read):
        # ``read(conn)`` again once the socket has more.
        if not reading.watched:
            self.poller.register(conn.sock, selectors.EVENT_READ,
                                 lambda sock: read(conn, sock))
            reading.watched = True

    def _forget(self, conn):
        reading = self.reading.pop(conn)
        if reading.watched:
            self.poller.unregister(conn.sock)
        return reading

    def _hand_over(self, conn):
        arrival = self._forget(conn)
        conn.init()
        conn.parser.unreader.unread(arrival.data)
        super().enqueue_req(conn)

    def _drop(self, conn):
        self._forget(conn)
        self.nr_conns -= 1
        conn.close()

    def handle_request(self, req, conn):
        # A thread.  The application refuses such a body without reading
        # it: the connection cannot serve another request, and the answer
        # says so.
        length = _declared_length(req)
        if length is not None and length > self.max_request_body_size:
            req.must_close = True
        return super().handle_request(req, conn)

    def _keepalive_after(self, conn, keepalive):
        # A thread, once the answer is sent.  A body gunicorn gave up on
        # (it drains a little in the thread) is left to the event loop:
        # a _Discard instead of False, for finish_request.
        if super()._keepalive_after(conn, keepalive):
            return True
        left = _body_on_its_way(conn.parser)
        if (not left or self.cfg.is_ssl
                or _declared_length(conn.parser.mesg)
                > DISCARDED_BODIES * self.max_request_body_size):
            return False
        return _Discard(left, time.monotonic() + self.request_read_timeout)

    def finish_request(self, conn, fs):
        # The event loop, with what the thread's _keepalive_after said.
        discard = (not fs.cancelled() and fs.exception() is None
                   and fs.result())
        if not isinstance(discard, _Discard):
            super().finish_request(conn, fs)
            return
        self.reading[conn] = discard
        conn.sock.setblocking(False)
        self._discard(conn)

    def _discard(self, conn, _sock=None):
        discard = self.reading[conn]
        try:
            got = conn.sock.recv_into(self.discard_buffer,
                                      min(discard.left, DISCARD_SIZE))
        except (BlockingIOError, InterruptedError):
            got = None
        except OSError:
            got = 0
        if got is not None:
            discard.left -= got
            if got == 0 or discard.left == 0:
                # All of it (or the client left): closing now resets
                # nothing.
                self._drop(conn)
                return
        self._watch(conn, discard, self._discard)

    def set_accept_enabled(self, enabled):
        if enabled or self.alive:
            super().set_accept_enabled(enabled)
        elif self.sockets:
            self._stop_listening()

    def _stop_listening(self):
        """Take the connections queued on the listeners, then close them
        (see the module docstring); once, when the worker stops."""
        for listener in self.sockets:
            while (self.nr_conns < self.worker_connections
                   and select.select([listener], [], [], 0)[0]):
                self.accept(listener)
        super().set_accept_enabled(False)
        for listener in self.sockets:
            listener.close()
        self.sockets = []

    def murder_keepalived(self, force=False):
        super().murder_keepalived(force)
        now = time.monotonic()
        for conn, reading in list(self.reading.items()):
            if force or reading.deadline <= now:
                self._drop(conn)
