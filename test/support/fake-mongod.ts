import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A stand-in for mongod where none can be installed: it speaks mongod's command line and
 * structured log, and records what it was given. Its behaviour comes from `fake-mode` in --dbpath:
 * `ready` (default), `in-use` (fails as mongod does on a locked data directory), `stubborn`
 * (ignores SIGTERM) or `no-primary` (a replica set member that never becomes primary).
 *
 * It answers the wire protocol (OP_QUERY for the driver's handshake, OP_MSG after) for what the
 * launcher's replica-set step sends: hello, replSetGetConfig, replSetInitiate, replSetReconfig
 * (with mongod's errors: NotYetInitialized, AlreadyInitialized, a reconfig of a non-primary
 * without force). The set's config is kept in --dbpath across starts, as mongod keeps it in its
 * local database, and a member whose address is not in it reports itself removed (no primary).
 * Every command is appended to fake-commands.jsonl.
 */
const script = String.raw`
const fs = require('fs');
const net = require('net');
const path = require('path');
const args = process.argv.slice(2);
const arg = (name) => args[args.indexOf(name) + 1];
const dbpath = arg('--dbpath');
const lock = path.join(dbpath, 'mongod.lock');
const read = (file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null);
const mode = (read(path.join(dbpath, 'fake-mode')) || 'ready').trim();
fs.writeFileSync(path.join(dbpath, 'fake-start.json'), JSON.stringify({ args, lockBefore: read(lock) }));
const log = (entry) => process.stdout.write(JSON.stringify({ t: { $date: new Date().toISOString() }, ...entry }) + '\n');
log({ s: 'I', c: 'CONTROL', id: 4615611, msg: 'MongoDB starting', attr: { pid: process.pid } });
if (mode === 'in-use') {
  log({ s: 'E', c: 'STORAGE', id: 20557, msg: 'DBException in initAndListen, terminating', attr: { error: 'DBPathInUse: Unable to lock the lock file: ' + lock + ' (Resource temporarily unavailable). Another mongod instance is already running on the ' + dbpath + ' directory' } });
  process.exit(100);
}
fs.writeFileSync(lock, String(process.pid));
const replSet = args.includes('--replSet') ? arg('--replSet') : null;
const me = arg('--bind_ip') + ':' + arg('--port');
const configFile = path.join(dbpath, 'fake-replset.json');
const readConfig = () => JSON.parse(read(configFile) || 'null');
const isPrimary = () => {
  if (!replSet) return true;
  const config = readConfig();
  return mode !== 'no-primary' && !!config && config.members.some((m) => m.host === me);
};
const failure = (code, codeName, errmsg) => ({ ok: 0, code, codeName, errmsg });
function answer(cmd) {
  const name = Object.keys(cmd)[0];
  fs.appendFileSync(path.join(dbpath, 'fake-commands.jsonl'), JSON.stringify({ [name]: cmd[name], force: cmd.force }) + '\n');
  if (name === 'hello' || name.toLowerCase() === 'ismaster') {
    const config = replSet ? readConfig() : null;
    const primary = isPrimary();
    return {
      ismaster: primary, isWritablePrimary: primary, secondary: false,
      ...(replSet ? (primary ? { setName: replSet, setVersion: config.version, hosts: [me], primary: me, me } : { isreplicaset: true }) : {}),
      maxBsonObjectSize: 16777216, maxMessageSizeBytes: 48000000, maxWriteBatchSize: 100000,
      localTime: new Date(), logicalSessionTimeoutMinutes: 30, connectionId: 1,
      minWireVersion: 0, maxWireVersion: 21, readOnly: false, ok: 1,
    };
  }
  if (!replSet && name.startsWith('replSet')) return failure(76, 'NoReplicationEnabled', 'not running with --replSet');
  if (name === 'replSetGetConfig') {
    const config = readConfig();
    return config ? { config, ok: 1 } : failure(94, 'NotYetInitialized', 'no replset config has been received');
  }
  if (name === 'replSetInitiate') {
    if (readConfig()) return failure(23, 'AlreadyInitialized', 'already initialized');
    fs.writeFileSync(configFile, JSON.stringify({ ...cmd.replSetInitiate, version: 1 }));
    return { ok: 1 };
  }
  if (name === 'replSetReconfig') {
    if (!isPrimary() && cmd.force !== true) return failure(10107, 'NotWritablePrimary', 'replSetReconfig should only be run on a writable PRIMARY');
    fs.writeFileSync(configFile, JSON.stringify(cmd.replSetReconfig));
    return { ok: 1 };
  }
  return { ok: 1 };
}
function frame(opCode, responseTo, body) {
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + body.length, 0);
  header.writeInt32LE(Math.floor(Math.random() * 2 ** 31), 4);
  header.writeInt32LE(responseTo, 8);
  header.writeInt32LE(opCode, 12);
  return Buffer.concat([header, body]);
}
const docAt = (msg, at) => BSON.deserialize(msg.subarray(at, at + msg.readInt32LE(at)));
const server = net.createServer((socket) => {
  let pending = Buffer.alloc(0);
  socket.on('error', () => {});
  socket.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
      const msg = pending.subarray(0, pending.readInt32LE(0));
      pending = pending.subarray(msg.length);
      const requestId = msg.readInt32LE(4);
      const opCode = msg.readInt32LE(12);
      if (opCode === 2004) {
        // OP_QUERY (the handshake): flags, a C string (the namespace), skip, return, the query.
        const at = msg.indexOf(0, 20) + 1 + 8;
        const query = docAt(msg, at);
        const reply = BSON.serialize(answer(query.$query || query));
        const head = Buffer.alloc(20);
        head.writeInt32LE(1, 16);
        socket.write(frame(1, requestId, Buffer.concat([head, reply])));
      } else if (opCode === 2013) {
        // OP_MSG: flag bits, then a kind-0 section holding the command.
        const reply = BSON.serialize(answer(docAt(msg, 21)));
        socket.write(frame(2013, requestId, Buffer.concat([Buffer.alloc(5), reply])));
      } else socket.destroy();
    }
  });
});
server.listen(Number(arg('--port')), arg('--bind_ip'), () => {
  log({ s: 'I', c: 'NETWORK', id: 23016, ctx: 'listener', msg: 'Waiting for connections', attr: { port: Number(arg('--port')), ssl: 'off' } });
});
const shutdown = (signal) => {
  if (mode === 'stubborn') return;
  fs.writeFileSync(lock, '');
  fs.writeFileSync(path.join(dbpath, 'fake-stopped'), signal);
  process.exit(0);
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
`;

export interface FakeStart {
  args: string[];
  lockBefore: string | null;
}

/** Writes the fake into a fresh directory and returns its path, executable like a real mongod. */
export function fakeMongod(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'linkqr-fake-mongod-'));
  const file = path.join(dir, 'mongod');
  const bson = `const BSON = require(${JSON.stringify(require.resolve('bson'))});`;
  fs.writeFileSync(file, `#!${process.execPath}\n${bson}\n${script}`, { mode: 0o755 });
  return file;
}

export function readFakeStart(dataDir: string): FakeStart {
  return JSON.parse(fs.readFileSync(path.join(dataDir, 'fake-start.json'), 'utf8')) as FakeStart;
}

/** The commands the stand-in answered, in order (name, argument, and `force` when given). */
export function readFakeCommands(dataDir: string): Array<Record<string, unknown>> {
  const file = path.join(dataDir, 'fake-commands.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
