import { expect } from 'chai';
import { rawRequest } from '../support/http';

/** One request exactly as a client puts it on the wire: method, path, headers and raw body. */
export interface WireRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface WireResponse {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

/** Sends a request as the client does (node:http, so a GET may carry a body like theirs do). */
export function replay(baseUrl: string, req: WireRequest): Promise<WireResponse> {
  return rawRequest(baseUrl, req.path, {
    method: req.method,
    headers: req.headers,
    body: req.body,
  });
}

/** The swagger 2.0 types a connector declares for a response property. */
export type Declared =
  'integer' | 'string' | 'boolean' | { [property: string]: Declared } | [Declared];

/**
 * A Power Automate connector's own test of an answer: the properties its swagger declares must
 * parse as their declared types (a string where an integer is declared fails the flow).
 */
export function expectDeclaredShape(value: unknown, declared: Declared, path = 'body'): void {
  if (declared === 'integer') {
    const message = `${path} must be an integer, got ${JSON.stringify(value)}`;
    expect(Number.isInteger(value), message).to.equal(true);
  } else if (declared === 'string' || declared === 'boolean') {
    expect(typeof value, `${path} must be a ${declared}`).to.equal(declared);
  } else if (Array.isArray(declared)) {
    expect(Array.isArray(value), `${path} must be an array`).to.equal(true);
    for (const [i, item] of (value as unknown[]).entries()) {
      expectDeclaredShape(item, declared[0], `${path}[${i}]`);
    }
  } else {
    expect(value, `${path} must be an object`).to.be.an('object');
    for (const [key, type] of Object.entries(declared)) {
      expectDeclaredShape((value as Record<string, unknown>)[key], type, `${path}.${key}`);
    }
  }
}
