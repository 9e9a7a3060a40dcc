import { spawnSync } from 'node:child_process';
import type { LinkTarget } from '../src/links/link-cache';
import { destinationOf } from '../src/visitor/redirect';
import { compileRules } from '../src/visitor/rules/rules';
import { factsOf } from '../src/visitor/rules/visitor-facts';
import type { RuleInput } from '../src/visitor/rules/rules.schemas';

/**
 * What choosing a destination costs per visit: a cached link with 10 rules (every kind of key,
 * the visitor matching only the last, so all are tried) against the same link without rules, in
 * one process pinned to core 0, in interleaved rounds. The end-to-end figure is link-pages'.
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const N = 200_000;
const hasTaskset = spawnSync('taskset', ['-V']).status === 0;

const RULES: RuleInput[] = [
  { url: 'https://example.com/r1', when: { query: { utm_source: 'newsletter' } } },
  { url: 'https://example.com/r2', when: { ip: ['10.0.0.0/8', '2001:db8::/32'] } },
  { url: 'https://example.com/r3', when: { country: ['CA', 'MX'], device: ['mobile'] } },
  { url: 'https://example.com/r4', when: { language: ['fr', 'de'] } },
  { url: 'https://example.com/r5', when: { referrer: ['news.example.org'] } },
  {
    url: 'https://example.com/r6',
    when: { after: '2020-01-01T00:00:00+01:00', before: '2020-01-03T00:00:00+01:00' },
  },
  { url: 'https://example.com/r7', when: { device: ['iphone', 'ipad'] } },
  { url: 'https://example.com/r8', when: { os: ['ios', 'android'] } },
  { url: 'https://example.com/r9', when: { browser: ['firefox'], os: ['windows'] } },
  { url: 'https://example.com/r10', when: { browser: ['chrome'], device: ['desktop'] } },
];

const plain: LinkTarget = {
  id: 1,
  url: 'https://example.com/landing',
  expiresAt: null,
  passwordHash: null,
  direct: true,
};
const ruled: LinkTarget = {
  ...plain,
  rules: compileRules(RULES, { geotarget: [], devicetarget: [], languagetarget: [] }),
};
const req = {
  url: '/abcdefg',
  ip: '203.0.113.7',
  headers: {
    'user-agent':
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    'accept-language': 'en-GB,en;q=0.8',
  },
} as unknown as Parameters<typeof factsOf>[0];

/** Nanoseconds per destination choice. */
function time(target: LinkTarget): number {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < N; i += 1) {
    const now = Date.now();
    sink += destinationOf(target, () => factsOf(req, undefined, now)).length;
  }
  const ns = Number(process.hrtime.bigint() - start) / N;
  if (sink === 0) throw new Error('nothing chosen');
  return ns;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

if (hasTaskset && process.env.BENCH_PINNED !== '1') {
  const again = spawnSync(
    'taskset',
    ['-c', '0', process.execPath, ...process.execArgv, __filename],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_PINNED: '1' },
    },
  );
  process.exit(again.status ?? 1);
}
if (destinationOf(ruled, () => factsOf(req, undefined, Date.now())) !== 'https://example.com/r10')
  throw new Error('the bench visitor should match the tenth rule only');
time(plain);
time(ruled);
const plainNs: number[] = [];
const ruledNs: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  plainNs.push(time(plain));
  ruledNs.push(time(ruled));
}
const us = (ns: number) => (ns / 1000).toFixed(2);
console.log(
  `${ROUNDS} interleaved rounds of ${N.toLocaleString('en-US')} choices${hasTaskset ? ' on core 0' : ''}`,
);
console.log(`  no rules: ${us(median(plainNs))} µs a visit (rounds ${plainNs.map(us).join(', ')})`);
console.log(`  10 rules: ${us(median(ruledNs))} µs a visit (rounds ${ruledNs.map(us).join(', ')})`);
console.log(`10 rules add ${us(median(ruledNs) - median(plainNs))} µs a visit`);
