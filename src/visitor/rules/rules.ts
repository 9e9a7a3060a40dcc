import ipaddr from 'ipaddr.js';
import { countryName } from '../../visits/visit-capture';
import type { Device } from './rule-values';
import type { RuleInput, RuleWhen } from './rules.schemas';
import type { VisitorFacts } from './visitor-facts';

type Test = (visitor: VisitorFacts) => boolean;

/** A rule ready to run: its destination and one test per key of its `when`. */
export interface CompiledRule {
  url: string;
  tests: readonly Test[];
}

/** A link's rules in the order they are tried; the first whose tests all pass wins. */
export interface CompiledRules {
  rules: readonly CompiledRule[];
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Ranges as ipaddr.js pairs: a bare address is its own /32 or /128, and IPv4-mapped is IPv4. */
function rangeOf(text: string): Range {
  if (text.includes('/')) {
    const [address, bits] = ipaddr.parseCIDR(text);
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96)
      return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
    return [address, bits];
  }
  const address = ipaddr.process(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

function ipTest(values: readonly string[]): Test {
  const ranges = values.map(rangeOf);
  return (v) => {
    const address = v.address;
    if (!address) return false;
    const kind = address.kind();
    return ranges.some(([base, bits]) => base.kind() === kind && address.match(base, bits));
  };
}

function queryTest(query: Readonly<Record<string, string>>): Test {
  const wanted = Object.entries(query);
  return (v) =>
    wanted.every(([name, value]) => {
      if (value === '*') return v.query.has(name);
      return v.query.getAll(name).includes(value);
    });
}

function testsOf(when: RuleWhen): Test[] {
  const tests: Test[] = [];
  // Cheapest first: a window or a query settles most rules before the User-Agent is parsed.
  if (when.after) {
    const from = Date.parse(when.after);
    tests.push((v) => v.now >= from);
  }
  if (when.before) {
    const until = Date.parse(when.before);
    tests.push((v) => v.now < until);
  }
  if (when.query) tests.push(queryTest(when.query));
  if (when.referrer) {
    const hosts = new Set(when.referrer);
    tests.push((v) => v.referrerHost !== null && hosts.has(v.referrerHost));
  }
  if (when.ip) tests.push(ipTest(when.ip));
  if (when.country) {
    const names = new Set(when.country.map((code) => countryName(code)));
    tests.push((v) => names.has(v.country));
  }
  if (when.language) {
    const codes = new Set(when.language);
    tests.push((v) => v.language !== null && codes.has(v.language));
  }
  if (when.device) {
    const devices = when.device;
    tests.push((v) => devices.some((d) => v.agent.devices.has(d)));
  }
  if (when.os) {
    const names = new Set(when.os.map((n) => n.toLowerCase()));
    tests.push((v) => names.has(v.agent.os));
  }
  if (when.browser) {
    const names = new Set(when.browser.map((n) => n.toLowerCase()));
    tests.push((v) => names.has(v.agent.browser));
  }
  return tests;
}

/** GemPixel's three maps, as stored (country by English name, device by GemPixel's names). */
export interface GempixelTargeting {
  geotarget: ReadonlyArray<{ location: string; url: string }>;
  devicetarget: ReadonlyArray<{ device: string; url: string }>;
  languagetarget: ReadonlyArray<{ language: string; url: string }>;
}

/**
 * One ordered list for the evaluator: the link's `rules` first, then GemPixel's country, device
 * and language maps in that order (each map keeps its first-match-wins order, as GemPixel does).
 * Destinations come in final (the link's parameters already appended). Null when there are none.
 */
export function compileRules(
  rules: readonly RuleInput[],
  gempixel: GempixelTargeting,
): CompiledRules | null {
  const compiled: CompiledRule[] = rules.map((r) => ({ url: r.url, tests: testsOf(r.when) }));
  for (const { location, url } of gempixel.geotarget)
    compiled.push({ url, tests: [(v) => v.country === location] });
  for (const { device, url } of gempixel.devicetarget)
    compiled.push({ url, tests: [(v) => v.agent.gempixel === (device as Device)] });
  for (const { language, url } of gempixel.languagetarget)
    compiled.push({ url, tests: [(v) => v.language === language] });
  return compiled.length ? { rules: compiled } : null;
}

/**
 * The destination of the first rule the visitor matches, or null (the link's own URL applies).
 * An app URL (see rules.schemas.ts) is only ever opened through the app page.
 */
export function pickRule(compiled: CompiledRules, visitor: VisitorFacts): string | null {
  outer: for (const rule of compiled.rules) {
    for (const test of rule.tests) if (!test(visitor)) continue outer;
    return rule.url;
  }
  return null;
}
