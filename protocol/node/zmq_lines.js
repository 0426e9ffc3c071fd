// Serves a Node.js bot written for pipes (JSON lines on stdin/stdout, protocol/SPEC.md section 10)
// over ZeroMQ with msgpack (sections 1-9), in its own process and with no package:
//
//   ARENA_ENDPOINT=ipc://… ARENA_TOKEN=… node --require protocol/node/zmq_lines.js bot.js
//
// It speaks ZMTP 3.0 (the ZeroMQ wire protocol, NULL mechanism) as a DEALER on the ipc socket,
// says hello with the token, turns every message from the referee into one JSON line on the
// bot's process.stdin, and every line the bot writes to process.stdout into one msgpack frame.
// A line that is not JSON goes out as it is, so the referee quotes it in its protocol failure.
// Without ARENA_ENDPOINT it does nothing: the bot keeps its pipes.
"use strict";

const net = require("net");
const path = require("path");
const { PassThrough } = require("stream");

const endpoint = process.env.ARENA_ENDPOINT || "";

// ---- msgpack: the plain values of protocol v1 (nil, booleans, numbers, strings, arrays, maps)

function pack(value, out) {
  if (value === null || value === undefined) out.push(Buffer.from([0xc0]));
  else if (value === true || value === false) out.push(Buffer.from([value ? 0xc3 : 0xc2]));
  else if (typeof value === "number") {
    if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER) {
      const b = Buffer.alloc(9);
      b[0] = value < 0 ? 0xd3 : 0xcf;
      if (value < 0) b.writeBigInt64BE(BigInt(value), 1);
      else b.writeBigUInt64BE(BigInt(value), 1);
      if (value >= 0 && value < 128) out.push(Buffer.from([value]));
      else if (value < 0 && value >= -32) out.push(Buffer.from([value & 0xff]));
      else out.push(b);
    } else {
      const b = Buffer.alloc(9);
      b[0] = 0xcb;
      b.writeDoubleBE(value, 1);
      out.push(b);
    }
  } else if (typeof value === "string") {
    const s = Buffer.from(value, "utf8");
    const head = Buffer.alloc(5);
    head[0] = 0xdb;
    head.writeUInt32BE(s.length, 1);
    out.push(head, s);
  } else if (Array.isArray(value)) {
    const head = Buffer.alloc(5);
    head[0] = 0xdd;
    head.writeUInt32BE(value.length, 1);
    out.push(head);
    for (const item of value) pack(item, out);
  } else if (typeof value === "object") {
    const keys = Object.keys(value);
    const head = Buffer.alloc(5);
    head[0] = 0xdf;
    head.writeUInt32BE(keys.length, 1);
    out.push(head);
    for (const key of keys) {
      pack(key, out);
      pack(value[key], out);
    }
  } else throw new Error(`cannot pack a ${typeof value}`);
  return out;
}

function unpack(buf) {
  let at = 0;
  const need = (n) => {
    if (at + n > buf.length) throw new Error("msgpack value cut short");
  };
  const str = (n) => { need(n); const s = buf.toString("utf8", at, at + n); at += n; return s; };
  const arr = (n) => { const a = []; for (let i = 0; i < n; i++) a.push(value()); return a; };
  const map = (n) => { const m = {}; for (let i = 0; i < n; i++) { const k = value(); m[k] = value(); } return m; };
  function value() {
    need(1);
    const t = buf[at++];
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if ((t & 0xe0) === 0xa0) return str(t & 0x1f);
    if ((t & 0xf0) === 0x90) return arr(t & 0x0f);
    if ((t & 0xf0) === 0x80) return map(t & 0x0f);
    const read = (n, f) => { need(n); const v = f(at); at += n; return v; };
    switch (t) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xca: return read(4, (i) => buf.readFloatBE(i));
      case 0xcb: return read(8, (i) => buf.readDoubleBE(i));
      case 0xcc: return read(1, (i) => buf.readUInt8(i));
      case 0xcd: return read(2, (i) => buf.readUInt16BE(i));
      case 0xce: return read(4, (i) => buf.readUInt32BE(i));
      case 0xcf: return Number(read(8, (i) => buf.readBigUInt64BE(i)));
      case 0xd0: return read(1, (i) => buf.readInt8(i));
      case 0xd1: return read(2, (i) => buf.readInt16BE(i));
      case 0xd2: return read(4, (i) => buf.readInt32BE(i));
      case 0xd3: return Number(read(8, (i) => buf.readBigInt64BE(i)));
      case 0xd9: return str(read(1, (i) => buf.readUInt8(i)));
      case 0xda: return str(read(2, (i) => buf.readUInt16BE(i)));
      case 0xdb: return str(read(4, (i) => buf.readUInt32BE(i)));
      case 0xdc: return arr(read(2, (i) => buf.readUInt16BE(i)));
      case 0xdd: return arr(read(4, (i) => buf.readUInt32BE(i)));
      case 0xde: return map(read(2, (i) => buf.readUInt16BE(i)));
      case 0xdf: return map(read(4, (i) => buf.readUInt32BE(i)));
      default: throw new Error(`msgpack type 0x${t.toString(16)} is not a plain value`);
    }
  }
  return value();
}

// ---- ZMTP 3.0 framing

function frame(body, command) {
  const flags = command ? 0x04 : 0x00;
  if (body.length < 256) return Buffer.concat([Buffer.from([flags, body.length]), body]);
  const head = Buffer.alloc(9);
  head[0] = flags | 0x02;
  head.writeBigUInt64BE(BigInt(body.length), 1);
  return Buffer.concat([head, body]);
}

function greeting() {
  const g = Buffer.alloc(64);
  g[0] = 0xff;
  g[9] = 0x7f;
  g[10] = 3;
  g.write("NULL", 12, "ascii");
  return g;
}

function ready() {
  const prop = (name, value) => {
    const v = Buffer.from(value, "ascii");
    const len = Buffer.alloc(4);
    len.writeUInt32BE(v.length);
    return Buffer.concat([Buffer.from([name.length]), Buffer.from(name, "ascii"), len, v]);
  };
  return frame(Buffer.concat([Buffer.from("\x05READY", "ascii"), prop("Socket-Type", "DEALER"),
    prop("Identity", "")]), true);
}

function serve() {
  const sock = net.createConnection(endpoint.slice("ipc://".length));
  const lines = new PassThrough();
  Object.defineProperty(process, "stdin", { configurable: true, enumerable: true, get: () => lines });
  let pending = Buffer.alloc(0);
  let greeted = false;
  let readied = false;
  const queued = []; // frames the bot wrote before the referee's READY
  const send = (body) => (readied ? sock.write(frame(body, false)) : queued.push(body));
  send(Buffer.concat(pack({ type: "hello", protocol: 1, token: process.env.ARENA_TOKEN || "",
    name: path.basename(process.argv[1] || "node") }, [])));
  let partial = "";
  process.stdout.write = (chunk, encoding, callback) => {
    partial += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    let end;
    while ((end = partial.indexOf("\n")) >= 0) {
      const line = partial.slice(0, end);
      partial = partial.slice(end + 1);
      if (!line.trim()) continue;
      let body;
      try {
        body = Buffer.concat(pack(JSON.parse(line), []));
      } catch (err) {
        body = Buffer.from(line, "utf8"); // not a message: the referee quotes these bytes
      }
      send(body);
    }
    if (typeof encoding === "function") encoding();
    else if (typeof callback === "function") callback();
    return true;
  };
  sock.on("data", (data) => {
    pending = Buffer.concat([pending, data]);
    if (!greeted) {
      if (pending.length < 64) return;
      pending = pending.subarray(64);
      greeted = true;
    }
    while (pending.length >= 2) {
      const flags = pending[0];
      let size = pending[1];
      let head = 2;
      if (flags & 0x02) {
        if (pending.length < 9) return;
        size = Number(pending.readBigUInt64BE(1));
        head = 9;
      }
      if (pending.length < head + size) return;
      const body = pending.subarray(head, head + size);
      pending = pending.subarray(head + size);
      if (flags & 0x04) {
        const name = body.toString("ascii", 1, 1 + body[0]);
        if (name === "READY" && !readied) {
          readied = true;
          for (const queuedBody of queued.splice(0)) sock.write(frame(queuedBody, false));
        } else if (name === "PING") {
          sock.write(frame(Buffer.concat([Buffer.from("\x04PONG", "ascii"), body.subarray(1 + body[0] + 2)]), true));
        }
        continue;
      }
      const message = unpack(body);
      if (message.type === "welcome") continue; // the pipes protocol has none
      lines.write(JSON.stringify(message) + "\n");
      if (message.type === "bye") lines.end();
    }
  });
  sock.on("close", () => process.exit(0)); // the referee is gone
  sock.on("error", (err) => {
    process.stderr.write(`zmq_lines.js: ${err.message}\n`);
    process.exit(3);
  });
  sock.write(Buffer.concat([greeting(), ready()]));
}

if (endpoint.startsWith("ipc://")) serve();
