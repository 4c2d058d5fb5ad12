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

A worker that stops takes the connections already queued on the listening
socket and then closes its copy of it at once, rather than once its last
request is done: gunicorn only stops watching it, and the kernel keeps
completing connections into its queue until the last copy closes, then
resets every one still queued.  A client that connected meanwhile would
see its request fail instead of being served or refused.

This uses the internals of gunicorn 27's ThreadWorker (``enqueue_req``,
``murder_keepalived``, the connection's parser);
tests/operations/test_worker_model.py fails if a gunicorn release changes them.
"""
import re
import select
import selectors
import time

from gunicorn.workers import gthread

# Bytes of request line and headers read in the event loop at most; a
# longer head goes to a thread as it is, so that gunicorn's parser gives
# its usual answer to over-long request lines and fields.
MAX_HEAD = 64 * 1024
# Bodies up to this size are read in the event loop too; larger (or
# chunked) ones are read by the thread.
MAX_BODY = 1024 * 1024
READ_SIZE = 64 * 1024

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


class _Arrival:
    __slots__ = ('data', 'deadline', 'watched')

    def __init__(self, deadline):
        self.data = b''
        self.deadline = deadline
        self.watched = False


def worker_class(request_read_timeout):
    """The worker class, dropping requests that take longer than
    ``request_read_timeout`` seconds to arrive."""
    return type('BufferingThreadWorker', (BufferingThreadWorker,),
                {'request_read_timeout': request_read_timeout})


class BufferingThreadWorker(gthread.ThreadWorker):

    request_read_timeout = 10.0

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Connections whose request is still arriving (event loop only).
        self.arriving = {}

    def enqueue_req(self, conn):
        pending = (conn.parser is not None
                   and conn.parser.unreader.buf.getbuffer().nbytes)
        if self.cfg.is_ssl or pending:
            # TLS is read by the thread; bytes already held by the parser
            # (a pipelined request) need no socket read.
            super().enqueue_req(conn)
            return
        self.arriving[conn] = _Arrival(
            time.monotonic() + self.request_read_timeout)
        conn.sock.setblocking(False)
        self._read(conn)

    def _read(self, conn, _sock=None):
        arrival = self.arriving[conn]
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
        if not arrival.watched:
            self.poller.register(conn.sock, selectors.EVENT_READ,
                                 lambda sock: self._read(conn, sock))
            arrival.watched = True

    def _forget(self, conn):
        arrival = self.arriving.pop(conn)
        if arrival.watched:
            self.poller.unregister(conn.sock)
        return arrival

    def _hand_over(self, conn):
        arrival = self._forget(conn)
        conn.init()
        conn.parser.unreader.unread(arrival.data)
        super().enqueue_req(conn)

    def _drop(self, conn):
        self._forget(conn)
        self.nr_conns -= 1
        conn.close()

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
        for conn, arrival in list(self.arriving.items()):
            if force or arrival.deadline <= now:
                self._drop(conn)
