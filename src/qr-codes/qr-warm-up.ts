import type { Request, Response } from 'express';
import mongoose from 'mongoose';
import { summariseChanges } from '../audit/audit-summary';
import { validate } from '../shared/http/validate';
import { qrLink } from './qr-codes.presenter';
import { qrCreateSchema, type QrCreate } from './qr-codes.schemas';
import { rehearseCreateQr } from './qr-codes.service';

/**
 * Made-up creates the API runs before it listens. V8 compiles a function on its first call and
 * optimises it only after many, so the first batch of codes after a start ran the create's
 * validation, content parsing and QR layout cold (issue 28). Sixty rounds of the usual
 * kinds get those to optimised code.
 */
export const QR_WARM_UP_CREATES = 60;

/** The kinds of code the rounds cycle through: mostly links, the kind most codes are. */
const BODIES: Array<(i: number) => Record<string, unknown>> = [
  (i) => ({ type: 'link', data: `https://example.com/warm-up/${i}`, size: 512 }),
  (i) => ({ type: 'text', data: `warm-up ${i}`, foreground: 'rgb(0,0,0)', name: 'Warm-up' }),
  (i) => ({ type: 'link', data: `https://example.com/w/${i}?utm_source=a`, format: 'svg' }),
];

/**
 * Runs the pure part of POST /api/qr/add `rounds` times: the route's body validation, the
 * service's checks and record, its render job, the driver's BSON encoding of the record, the
 * audit summary and the answer. Touches no database, queue or cache.
 */
export function warmUpQrCreate(publicUrl: string, rounds = QR_WARM_UP_CREATES): void {
  const checkBody = validate({ body: qrCreateSchema });
  for (let i = 0; i < rounds; i += 1) {
    const body = BODIES[i % BODIES.length] as (i: number) => Record<string, unknown>;
    const req: { params: object; query: object; body: unknown } = {
      params: {},
      query: {},
      body: body(i),
    };
    const res = { locals: {} };
    let failure: unknown;
    checkBody(req as unknown as Request, res as unknown as Response, (err?: unknown) => {
      failure = err;
    });
    if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
    const input = req.body as QrCreate;
    const { record, job } = rehearseCreateQr(input, publicUrl);
    const { BSON } = mongoose.mongo;
    BSON.deserialize(BSON.serialize(record));
    JSON.stringify(job);
    summariseChanges(input);
    JSON.stringify({ error: 0, id: record.id, link: qrLink(publicUrl, record.alias) });
  }
}
