import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A stand-in for mongod where none can be installed: it speaks mongod's command line and
 * structured log, and records what it was given. Its behaviour comes from `fake-mode` in --dbpath:
 * `ready` (default), `in-use` (fails as mongod does on a locked data directory) or `stubborn`
 * (ignores SIGTERM).
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
const server = net.createServer((socket) => socket.destroy());
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
  fs.writeFileSync(file, `#!${process.execPath}\n${script}`, { mode: 0o755 });
  return file;
}

export function readFakeStart(dataDir: string): FakeStart {
  return JSON.parse(fs.readFileSync(path.join(dataDir, 'fake-start.json'), 'utf8')) as FakeStart;
}
