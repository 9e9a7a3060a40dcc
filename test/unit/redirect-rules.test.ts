import { expect } from 'chai';
import Joi from 'joi';
import { compileRules, pickRule, type GempixelTargeting } from '../../src/visitor/rules/rules';
import { MAX_RULES, rulesField, type RuleWhen } from '../../src/visitor/rules/rules.schemas';
import { VisitorFacts, type VisitorSource } from '../../src/visitor/rules/visitor-facts';

const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  windows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  firefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
};

const NOW = Date.parse('2026-11-27T12:00:00Z');
const NO_MAPS: GempixelTargeting = { geotarget: [], devicetarget: [], languagetarget: [] };

function visitor(source: Partial<VisitorSource> = {}, now = NOW): VisitorFacts {
  return new VisitorFacts(
    {
      ip: '203.0.113.9',
      userAgent: UA.windows,
      acceptLanguage: undefined,
      referer: undefined,
      query: '',
      countryHeader: undefined,
      ...source,
    },
    now,
  );
}

/** Whether a single rule with this `when` sends the visitor to its URL. */
function matches(when: RuleWhen, who: VisitorFacts): boolean {
  const compiled = compileRules([{ url: 'https://rule.test/', when }], NO_MAPS);
  return compiled !== null && pickRule(compiled, who) === 'https://rule.test/';
}

/** The `when` as the API stores it after validation (codes upper-cased, names lower-cased...). */
function validated(when: Record<string, unknown>): RuleWhen {
  const { error, value } = rulesField.validate([{ url: 'https://rule.test/', when }]);
  if (error) throw error;
  return (value as Array<{ when: RuleWhen }>)[0]!.when;
}

describe('redirect rules (pure)', () => {
  it('country: ISO codes against the visitor country', () => {
    const when = validated({ country: ['ca', 'MX'] });
    expect(matches(when, visitor({ countryHeader: 'CA' }))).to.equal(true);
    expect(matches(when, visitor({ countryHeader: 'mx' }))).to.equal(true);
    expect(matches(when, visitor({ countryHeader: 'US' }))).to.equal(false);
    expect(matches(when, visitor())).to.equal(false);
  });

  it('language: the primary tag of the most preferred Accept-Language', () => {
    const when = validated({ language: ['fr'] });
    expect(matches(when, visitor({ acceptLanguage: 'fr-CH, en;q=0.5' }))).to.equal(true);
    expect(matches(when, visitor({ acceptLanguage: 'en, fr;q=0.5' }))).to.equal(false);
    expect(matches(when, visitor())).to.equal(false);
  });

  it('device: an iPhone is iphone and mobile, an iPad ipad and tablet, a PC desktop', () => {
    const on = (device: string, userAgent: string) =>
      matches(validated({ device: [device] }), visitor({ userAgent }));
    expect(on('iphone', UA.iphone)).to.equal(true);
    expect(on('mobile', UA.iphone)).to.equal(true);
    expect(on('tablet', UA.iphone)).to.equal(false);
    expect(on('ipad', UA.ipad)).to.equal(true);
    expect(on('tablet', UA.ipad)).to.equal(true);
    expect(on('android', UA.android)).to.equal(true);
    expect(on('mobile', UA.android)).to.equal(true);
    expect(on('desktop', UA.windows)).to.equal(true);
    expect(on('desktop', UA.android)).to.equal(false);
    expect(on('desktop', '')).to.equal(false);
  });

  it('os and browser: the parser’s names, without regard to case', () => {
    expect(matches(validated({ os: ['iOS'] }), visitor({ userAgent: UA.iphone }))).to.equal(true);
    expect(matches(validated({ os: ['WINDOWS'] }), visitor())).to.equal(true);
    expect(matches(validated({ os: ['windows'] }), visitor({ userAgent: UA.iphone }))).to.equal(
      false,
    );
    expect(matches(validated({ browser: ['chrome'] }), visitor())).to.equal(true);
    const firefox = visitor({ userAgent: UA.firefox });
    expect(matches(validated({ browser: ['Firefox'] }), firefox)).to.equal(true);
    expect(matches(validated({ browser: ['Chrome'] }), firefox)).to.equal(false);
  });

  it('query: a value, or "*" for present with any value', () => {
    const when = validated({ query: { utm_source: 'newsletter' } });
    expect(matches(when, visitor({ query: 'utm_source=newsletter&x=1' }))).to.equal(true);
    expect(matches(when, visitor({ query: 'utm_source=ads' }))).to.equal(false);
    expect(matches(when, visitor())).to.equal(false);
    const any = validated({ query: { ref: '*' } });
    expect(matches(any, visitor({ query: 'ref=' }))).to.equal(true);
    expect(matches(any, visitor({ query: 'ref=abc' }))).to.equal(true);
    expect(matches(any, visitor({ query: 'other=1' }))).to.equal(false);
  });

  it('ip: IPv4 addresses and ranges', () => {
    const when = validated({ ip: ['10.0.0.0/8', '198.51.100.7'] });
    expect(matches(when, visitor({ ip: '10.20.30.40' }))).to.equal(true);
    expect(matches(when, visitor({ ip: '198.51.100.7' }))).to.equal(true);
    expect(matches(when, visitor({ ip: '198.51.100.8' }))).to.equal(false);
    expect(matches(when, visitor({ ip: '11.0.0.1' }))).to.equal(false);
  });

  it('ip: IPv6 ranges, and an IPv4-mapped IPv6 client against IPv4 ranges', () => {
    const v6 = validated({ ip: ['2001:db8:abcd::/48'] });
    expect(matches(v6, visitor({ ip: '2001:db8:abcd:12::1' }))).to.equal(true);
    expect(matches(v6, visitor({ ip: '2001:db8:abce::1' }))).to.equal(false);
    expect(matches(v6, visitor({ ip: '10.0.0.1' }))).to.equal(false);
    const v4 = validated({ ip: ['192.168.0.0/16'] });
    expect(matches(v4, visitor({ ip: '::ffff:192.168.4.5' }))).to.equal(true);
    expect(matches(v4, visitor({ ip: '::ffff:192.169.4.5' }))).to.equal(false);
    const mapped = validated({ ip: ['::ffff:172.16.0.0/108'] });
    expect(matches(mapped, visitor({ ip: '172.16.9.9' }))).to.equal(true);
    expect(matches(v4, visitor({ ip: '' }))).to.equal(false);
  });

  it('after and before: a window crossing midnight in Tokyo', () => {
    // 23:00 on the 27th to 02:00 on the 28th, Tokyo time (UTC+9): 14:00 to 17:00 UTC.
    const when = validated({
      after: '2026-11-27T23:00:00+09:00',
      before: '2026-11-28T02:00:00+09:00',
    });
    const at = (iso: string) => matches(when, visitor({}, Date.parse(iso)));
    expect(at('2026-11-27T13:59:59Z')).to.equal(false);
    expect(at('2026-11-27T14:00:00Z')).to.equal(true);
    expect(at('2026-11-27T15:30:00Z')).to.equal(true); // 00:30 on the 28th in Tokyo
    expect(at('2026-11-27T16:59:59Z')).to.equal(true);
    expect(at('2026-11-27T17:00:00Z')).to.equal(false);
    expect(
      matches(
        validated({ after: '2026-11-27T23:00:00+09:00' }),
        visitor({}, Date.parse('2030-01-01T00:00:00Z')),
      ),
    ).to.equal(true);
  });

  it('referrer: the host of the Referer header', () => {
    const when = validated({ referrer: ['News.Example.com'] });
    expect(matches(when, visitor({ referer: 'https://news.example.com/a?b' }))).to.equal(true);
    expect(matches(when, visitor({ referer: 'https://example.com/' }))).to.equal(false);
    expect(matches(when, visitor({ referer: 'not a url' }))).to.equal(false);
    expect(matches(when, visitor())).to.equal(false);
  });

  it('every key of a rule must match, and the first matching rule wins', () => {
    const compiled = compileRules(
      [
        { url: 'https://a.test/', when: validated({ country: ['CA'], device: ['iphone'] }) },
        { url: 'https://b.test/', when: validated({ country: ['CA'] }) },
        { url: 'https://c.test/', when: validated({ os: ['windows'] }) },
      ],
      NO_MAPS,
    )!;
    expect(pickRule(compiled, visitor({ countryHeader: 'CA', userAgent: UA.iphone }))).to.equal(
      'https://a.test/',
    );
    expect(pickRule(compiled, visitor({ countryHeader: 'CA' }))).to.equal('https://b.test/');
    expect(pickRule(compiled, visitor({ countryHeader: 'US' }))).to.equal('https://c.test/');
    expect(pickRule(compiled, visitor({ userAgent: UA.android }))).to.equal(null);
  });

  it('runs GemPixel’s maps after the rules: country, then device, then language', () => {
    const compiled = compileRules([{ url: 'https://rule.test/', when: { query: { r: '*' } } }], {
      geotarget: [{ location: 'Canada', url: 'https://geo.test/' }],
      devicetarget: [
        { device: 'iPhone', url: 'https://iphone.test/' },
        { device: 'Windows', url: 'https://windows.test/' },
      ],
      languagetarget: [{ language: 'fr', url: 'https://fr.test/' }],
    })!;
    const pick = (source: Partial<VisitorSource>) => pickRule(compiled, visitor(source));
    expect(pick({ countryHeader: 'CA', query: 'r=1' })).to.equal('https://rule.test/');
    expect(pick({ countryHeader: 'CA', userAgent: UA.iphone })).to.equal('https://geo.test/');
    expect(pick({ userAgent: UA.iphone, acceptLanguage: 'fr' })).to.equal('https://iphone.test/');
    expect(pick({ acceptLanguage: 'fr' })).to.equal('https://windows.test/');
    expect(pick({ userAgent: UA.android, acceptLanguage: 'fr' })).to.equal('https://fr.test/');
    expect(pick({ userAgent: UA.android })).to.equal(null);
  });

  it('derives nothing the rules do not ask for', () => {
    const compiled = compileRules(
      [{ url: 'https://q.test/', when: { query: { a: '1' } } }],
      NO_MAPS,
    )!;
    const who = visitor({ query: 'a=2' });
    expect(pickRule(compiled, who)).to.equal(null);
    expect((who as unknown as { agentValue: unknown }).agentValue).to.equal(undefined);
  });
});

describe('redirect rules validation (pure)', () => {
  const schema = Joi.object({ rules: rulesField });
  function errorOf(rules: unknown): string | undefined {
    return schema.validate({ rules }).error?.message.replace(/"/g, '');
  }
  const ok = { url: 'https://ok.test/', when: { country: ['US'] } };

  it('names the rule and the key of the value it refuses', () => {
    expect(errorOf([ok, ok, { url: 'https://x.test/', when: { ip: ['10.0.0.300'] } }])).to.equal(
      'rules[2].when.ip[0] must be an IP address or a CIDR range',
    );
    expect(errorOf([{ url: 'https://x.test/', when: { ip: ['10.0.0.0/8', '::1/129'] } }])).to.equal(
      'rules[0].when.ip[1] must be an IP address or a CIDR range',
    );
    expect(errorOf([ok, { url: 'https://x.test/', when: { country: ['XX'] } }])).to.equal(
      'rules[1].when.country[0] must be an ISO 3166 country code',
    );
    expect(errorOf([{ url: 'https://x.test/', when: { device: ['toaster'] } }])).to.match(
      /^rules\[0\]\.when\.device\[0\] must be one of iphone, ipad/,
    );
    expect(errorOf([{ url: 'https://x.test/', when: { language: ['zz'] } }])).to.equal(
      'rules[0].when.language[0] must be an ISO 639 language code',
    );
    expect(errorOf([{ url: 'https://x.test/', when: { referrer: ['not a host'] } }])).to.equal(
      'rules[0].when.referrer[0] must be a host name',
    );
    expect(errorOf([{ url: 'https://x.test/', when: { after: '2026-11-27T23:00:00' } }])).to.match(
      /^rules\[0\]\.when\.after must be an ISO 8601 date-time with a zone/,
    );
    expect(
      errorOf([
        {
          url: 'https://x.test/',
          when: { after: '2026-11-28T00:00:00Z', before: '2026-11-27T00:00:00Z' },
        },
      ]),
    ).to.equal('rules[0].when.before must be later than after');
    expect(errorOf([{ url: 'ftp://x.test/', when: { os: ['ios'] } }])).to.equal(
      'rules[0].url must be an http or https URL, or an app URL (myapp://...)',
    );
    expect(errorOf([{ url: 'https://x.test/', when: {} }])).to.equal(
      'rules[0].when must name at least one key',
    );
    expect(errorOf([{ url: 'https://x.test/', when: { colour: ['red'] } }])).to.equal(
      'rules[0].when.colour is not allowed',
    );
  });

  it('takes at most 50 rules', () => {
    expect(errorOf(Array.from({ length: MAX_RULES }, () => ok))).to.equal(undefined);
    expect(errorOf(Array.from({ length: MAX_RULES + 1 }, () => ok))).to.equal(
      'rules must contain less than or equal to 50 items',
    );
  });
});
