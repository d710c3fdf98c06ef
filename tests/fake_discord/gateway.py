"""One gateway websocket connection as seen from the fake Discord's side."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import zlib
from typing import Any

from aiohttp import web

from .models import JSON

_log = logging.getLogger(__name__)

# Gateway opcodes.
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_PRESENCE = 3
OP_VOICE_STATE = 4
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Intent bits the fake honours when deciding which events to send.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9

ZLIB_SUFFIX = b"\x00\x00\xff\xff"

_Outgoing = tuple[JSON, "asyncio.Future[float] | None"]


class GatewaySession:
    """Serialises outgoing frames through one writer task, so ``send`` never blocks callers.

    A single writer keeps the zlib stream (one compressor per connection, shared by every
    frame) in order, and lets injections from many concurrent tasks stay cheap.
    """

    def __init__(self, ws: web.WebSocketResponse, *, number: int, zlib_stream: bool) -> None:
        self.ws = ws
        self.number = number
        self.zlib_stream = zlib_stream
        self.session_id = secrets.token_hex(16)
        self.sequence = 0
        self.identify: JSON | None = None
        self.intents = 0
        self.ready = False
        self.closed = False
        #: (shard_id, shard_count) from IDENTIFY; None for an unsharded session.
        self.shard: tuple[int, int] | None = None
        self.connected_at = time.perf_counter()
        self._compressor = zlib.compressobj() if zlib_stream else None
        self._queue: asyncio.Queue[_Outgoing | None] = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name=f"fake-gateway-{number}")

    def covers(self, guild_id: int) -> bool:
        """Whether this session receives the guild's events (Discord's shard formula)."""
        return self.shard is None or (guild_id >> 22) % self.shard[1] == self.shard[0]

    def send_op(self, op: int, data: Any) -> asyncio.Future[float]:
        return self._enqueue({"op": op, "d": data, "s": None, "t": None})

    def dispatch(self, event: str, data: JSON) -> asyncio.Future[float]:
        """Queue a DISPATCH; the future resolves to the perf_counter time it hit the socket."""
        self.sequence += 1
        return self._enqueue({"op": OP_DISPATCH, "d": data, "s": self.sequence, "t": event})

    def _enqueue(self, payload: JSON) -> asyncio.Future[float]:
        fut: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if self.closed:
            fut.set_exception(ConnectionError("gateway session is closed"))
        else:
            self._queue.put_nowait((payload, fut))
        return fut

    def _encode(self, payload: JSON) -> bytes | str:
        text = json.dumps(payload, separators=(",", ":"))
        if self._compressor is None:
            return text
        data = self._compressor.compress(text.encode())
        return data + self._compressor.flush(zlib.Z_SYNC_FLUSH)

    async def _write_loop(self) -> None:
        while True:
            item = await self._queue.get()
            if item is None:
                return
            payload, fut = item
            try:
                frame = self._encode(payload)
                if isinstance(frame, bytes):
                    await self.ws.send_bytes(frame)
                else:
                    await self.ws.send_str(frame)
            except Exception as exc:  # a dead socket fails every pending frame
                self._fail_pending(fut, exc)
                return
            if fut is not None and not fut.done():
                fut.set_result(time.perf_counter())

    def _fail_pending(self, first: asyncio.Future[float] | None, exc: Exception) -> None:
        self.closed = True
        error = ConnectionError(f"gateway send failed: {exc!r}")
        futures = [first]
        while not self._queue.empty():
            item = self._queue.get_nowait()
            if item is not None:
                futures.append(item[1])
        for fut in futures:
            if fut is not None and not fut.done():
                fut.set_exception(error)
                fut.exception()  # mark retrieved: fire-and-forget dispatches may never await it

    async def close(self, code: int = 1000, message: str = "") -> None:
        """Flush queued frames, then close the socket with ``code``."""
        if not self.closed:
            self._queue.put_nowait(None)
            # Bounded wait for the writer to drain; it is cancelled by shutdown() if stuck.
            await asyncio.wait({self._writer}, timeout=2.0)
        await self.shutdown(code, message)

    async def shutdown(self, code: int = 1000, message: str = "") -> None:
        self.closed = True
        if not self._writer.done():
            self._writer.cancel()
        self._fail_pending(None, ConnectionError("closed"))
        if not self.ws.closed:
            try:
                await self.ws.close(code=code, message=message.encode())
            except Exception:  # closing an already broken socket
                _log.debug("closing gateway socket %s failed", self.number, exc_info=True)
