"""Protocol v1 of the arena: messages, the msgpack codec with hard limits, the Python bot SDK."""

from protocol.bot import Bot
from protocol.codec import ProtocolError, decode, encode
from protocol.messages import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, Reason

__all__ = ["MAX_MESSAGE_BYTES", "PROTOCOL_VERSION", "Bot", "ProtocolError", "Reason", "decode", "encode"]
