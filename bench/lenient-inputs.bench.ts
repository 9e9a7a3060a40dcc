import type Joi from 'joi';
import { linkCreateSchema, linkListQuerySchema } from '../src/links/links.schemas';
import { blankStripper } from '../src/shared/http/lenient';

/**
 * The cost of GemPixel's leniency on the request path: validating a `url/add` body and a
 * `GET /api/urls` query with the blanks stripped first (what `validate()` does) against joi alone
 * (the baseline), in interleaved rounds on the same core. Pure CPU, no I/O: run it pinned, e.g.
 * `taskset -c 0 npm run bench -- lenient`.
 */

const ROUNDS = 7;
const WARMUP_ROUNDS = 2;
const CALLS = 50_000;
const options: Joi.ValidationOptions = { abortEarly: true, convert: true };

const body = {
  url: 'https://example.com/a/b?c=d',
  custom: 'abc-123',
  title: 'Hello',
  description: '',
  expiry: '2031-01-02 03:04:05',
  password: null,
};
const query = { limit: '20', page: '2', order: 'click', short: '' };
const stripBody = blankStripper(linkCreateSchema);
const stripQuery = blankStripper(linkListQuerySchema);
// Like for like: the baseline validates what a strict client sends, the request without blanks.
const strictBody = { ...body, password: undefined };
const strictQuery = { limit: '20', page: '2', order: 'click' };
const queryOptions = { ...options, stripUnknown: true };

const cases: Record<string, () => unknown> = {
  'url/add body, joi alone (baseline)': () => linkCreateSchema.validate(strictBody, options),
  'url/add body, blanks stripped + joi': () => linkCreateSchema.validate(stripBody(body), options),
  'urls query, joi alone (baseline)': () => linkListQuerySchema.validate(strictQuery, queryOptions),
  'urls query, blanks stripped + joi': () =>
    linkListQuerySchema.validate(stripQuery(query), queryOptions),
};

const samples = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, call] of Object.entries(cases)) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i += 1) call();
    const perCall = Number(process.hrtime.bigint() - start) / CALLS;
    if (round >= WARMUP_ROUNDS) samples.set(name, [...(samples.get(name) ?? []), perCall]);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const medians = new Map([...samples].map(([name, values]) => [name, median(values)]));
for (const [name, ns] of medians) console.log(`${name}: ${(ns / 1000).toFixed(1)} µs/request`);
const ratio = (a: string, b: string) => ((medians.get(a) ?? 0) / (medians.get(b) ?? 1)).toFixed(3);
console.log(
  `ratio body lenient/baseline: ${ratio('url/add body, blanks stripped + joi', 'url/add body, joi alone (baseline)')}`,
);
console.log(
  `ratio query lenient/baseline: ${ratio('urls query, blanks stripped + joi', 'urls query, joi alone (baseline)')}`,
);
