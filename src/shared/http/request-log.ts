import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the caller's `X-Request-Id` when it is sane, else a new UUID. */
    id: string;
    /** A logger bound to the request id, created on first use. */
    log: Logger;
  }
}

export const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** The request's id: the caller's `X-Request-Id` when it is sane, else a new UUID. */
export function requestIdOf(req: Pick<IncomingMessage, 'headers'>): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** What the access log says of one request. */
export interface AccessEntry {
  reqId: string;
  method: string;
  /** Without the query string. */
  path: string;
  status: number;
  ms: number;
}

/** Requests in one batched access-log line at most: a line stays a bounded size. */
export const REQUESTS_PER_LINE = 100;

/** How long a batch of the access log waits for more requests (pino's own buffer waits as long). */
export const ACCESS_BATCH_MS = 100;

/**
 * Batches not yet written. At exit they are written first (a prepended listener), so that pino's
 * own exit handler, which writes out what its destination still buffers, writes them too.
 */
const unwritten = new Set<() => void>();
let flushesAtExit = false;

/**
 * The access log of requests answered before the middleware chain (the redirect fast path): up to
 * `REQUESTS_PER_LINE` requests, gathered for at most `ACCESS_BATCH_MS`, are written as one line,
 * `requests completed`, holding each request's entry. A pino line costs about 7 µs, most of a
 * cached redirect's own work; in batches it costs about 1 µs a request.
 */
export function batchedAccessLog(
  logger: Logger,
  everyMs = ACCESS_BATCH_MS,
): (entry: AccessEntry) => void {
  // An entry holds only what this module wrote into it (no header, query or body): the secret
  // paths' redaction, which copies the entries it walks, has nothing to find there.
  const lines = logger.child({}, { redact: [] });
  let pending: AccessEntry[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    unwritten.delete(flush);
    if (pending.length === 0) return;
    const requests = pending;
    pending = [];
    lines.info({ requests }, 'requests completed');
  };
  return (entry) => {
    if (!logger.isLevelEnabled('info')) return;
    const count = pending.push(entry);
    if (count >= REQUESTS_PER_LINE) return flush();
    if (count > 1) return;
    // Unreferenced: a batch never keeps the process alive; the exit listener writes it.
    timer = setTimeout(flush, everyMs).unref();
    unwritten.add(flush);
    if (!flushesAtExit) {
      flushesAtExit = true;
      process.prependListener('exit', () => {
        for (const write of [...unwritten]) write();
      });
    }
  };
}

const BASE_LOGGER = Symbol('linkqr.baseLogger');
const CHILD_LOGGER = Symbol('linkqr.requestLogger');

type LoggedRequest = { id?: string; [CHILD_LOGGER]?: Logger };

/**
 * `req.log` as one getter on the requests' prototype (an app's `request`), installed on its first
 * request: a child logger bound to the request id, made on first use. A getter defined on each
 * request instead gave every request a hidden class of its own (its getter a new closure), so
 * every property V8 read or wrote on it afterwards, in Express, Node's HTTP code and ours, missed
 * its inline caches and built new maps: the costliest line of a cached list. A request that
 * never passed `requestLog` (no id) has no `log`, as before.
 */
function logGetterOn(proto: object, logger: Logger): void {
  if (Object.prototype.hasOwnProperty.call(proto, BASE_LOGGER)) return;
  Object.defineProperty(proto, BASE_LOGGER, { value: logger });
  Object.defineProperty(proto, 'log', {
    configurable: true,
    get(this: LoggedRequest & { [BASE_LOGGER]: Logger }): Logger | undefined {
      if (this.id === undefined) return undefined;
      return (this[CHILD_LOGGER] ??= this[BASE_LOGGER].child({ reqId: this.id }));
    },
  });
}

/**
 * Request ids and one access-log line per request (method, path, status, duration; never headers,
 * query strings or bodies, which can carry keys and passwords). Cheaper than a child logger per
 * request: the short-link redirect runs through here thousands of times a second.
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = requestIdOf(req);
    res.setHeader('X-Request-Id', id);
    req.id = id;
    logGetterOn(Object.getPrototypeOf(req) as object, logger);
    if (logger.isLevelEnabled('info')) {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const entry = {
          reqId: id,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        };
        if (res.statusCode >= 500) logger.error(entry, 'request failed');
        else logger.info(entry, 'request completed');
      });
    }
    next();
  };
}
