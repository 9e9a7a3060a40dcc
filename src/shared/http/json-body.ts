import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';

/** Deeper than any body the API takes (a QR code's data, a link's rules: 3 levels). */
export const MAX_JSON_DEPTH = 32;

export const TOO_DEEP_MESSAGE = `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]);
const CLOSE = new Set([0x5d, 0x7d]);

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, read in one pass over its code
 * units without parsing: brackets inside strings are text. Malformed text is left to the parser.
 * On UTF-8 the bytes themselves are read (no byte of a multi-byte character is ASCII).
 */
export function nestedDeeperThan(text: Uint8Array | string, limit: number): boolean {
  const at: (i: number) => number =
    typeof text === 'string' ? (i) => text.charCodeAt(i) : (i) => text[i] as number;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPEN.has(c)) {
      depth += 1;
      if (depth > limit) return true;
    } else if (CLOSE.has(c)) depth -= 1;
  }
  return false;
}

/**
 * body-parser's `verify` hook: runs on the raw body before JSON.parse, so a 50,000-deep body is
 * refused before anything (the parser, joi, the walkers over the body) recurses into it. One pass
 * over the bytes costs a small fraction of the parse that follows.
 */
function refuseDeepJson(_req: IncomingMessage, _res: unknown, body: Buffer, encoding: string) {
  const utf8 = /^utf-?8$/i.test(encoding);
  const text = utf8 ? body : new TextDecoder(encoding).decode(body);
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error(TOO_DEEP_MESSAGE), { status: 400, type: 'entity.too.deep' });
  }
}

/** The JSON body parser of every route that takes JSON (the API and the dashboard's API). */
export function jsonBody(limit: string): RequestHandler {
  return express.json({ limit, strict: true, verify: refuseDeepJson });
}
