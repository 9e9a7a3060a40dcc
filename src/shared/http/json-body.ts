import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';

/** Deeper than any body the API takes (a QR code's data, a link's rules: 3 levels). */
export const MAX_JSON_DEPTH = 32;

export const TOO_DEEP_MESSAGE = `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, read in one pass over its code
 * units without parsing: brackets inside strings are text. Malformed text is left to the parser.
 * UTF-8 bytes are read as they are (no byte of a multi-byte character is ASCII). Written as
 * plain comparisons in one loop: it runs on every JSON body, before JSON.parse.
 */
export function nestedDeeperThan(bytes: Uint8Array, limit: number): boolean {
  const length = bytes.length;
  let depth = 0;
  for (let i = 0; i < length; i += 1) {
    const c = bytes[i];
    if (c === QUOTE) {
      // Skip to the string's closing quote, stepping over escapes.
      for (i += 1; i < length; i += 1) {
        const d = bytes[i];
        if (d === BACKSLASH) i += 1;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth -= 1;
  }
  return false;
}

/**
 * body-parser's `verify` hook: runs on the raw body before JSON.parse, so a 50,000-deep body is
 * refused before anything (the parser, joi, the walkers over the body) recurses into it. One pass
 * over the bytes costs a small fraction of the parse that follows.
 */
function refuseDeepJson(_req: IncomingMessage, _res: unknown, body: Buffer, encoding: string) {
  // UTF-16 and UTF-32 bodies (JSON allows them) are read as UTF-8 too: ASCII bytes are brackets.
  const utf8 = /^utf-?8$/i.test(encoding)
    ? body
    : Buffer.from(new TextDecoder(encoding).decode(body), 'utf8');
  if (nestedDeeperThan(utf8, MAX_JSON_DEPTH)) {
    throw Object.assign(new Error(TOO_DEEP_MESSAGE), { status: 400, type: 'entity.too.deep' });
  }
}

/** The JSON body parser of every route that takes JSON (the API and the dashboard's API). */
export function jsonBody(limit: string): RequestHandler {
  return express.json({ limit, strict: true, verify: refuseDeepJson });
}
