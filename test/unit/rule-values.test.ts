import { expect } from 'chai';
import {
  canonicalCountry,
  canonicalDevice,
  canonicalLanguage,
  preferredLanguage,
} from '../../src/visitor/rules/rule-values';
import { withParameters } from '../../src/links/link-parameters';
import { compileRules } from '../../src/visitor/rules/rules';
import { agentOf } from '../../src/visitor/rules/visitor-facts';

const deviceOf = (ua: string) => agentOf(ua).gempixel;
import {
  contactTokenValid,
  issueContactToken,
  CONTACT_TOKEN_TTL_MS,
} from '../../src/overlays/contact-token';

const UA = {
  iphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  android:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  windows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
  linux: 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  chromeos:
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
};

describe('link targeting (pure)', () => {
  it('names countries from ISO codes and English names, in any case', () => {
    expect(canonicalCountry('ca')).to.equal('Canada');
    expect(canonicalCountry(' united states ')).to.equal('United States');
    expect(canonicalCountry('XX')).to.equal(null);
    expect(canonicalCountry('Atlantis')).to.equal(null);
  });

  it('knows GemPixel’s device names and ISO 639 languages', () => {
    expect(canonicalDevice('IPHONE')).to.equal('iPhone');
    expect(canonicalDevice('toaster')).to.equal(null);
    expect(canonicalLanguage('pt-BR')).to.equal('pt');
    expect(canonicalLanguage('zz')).to.equal(null);
  });

  it('maps User-Agents to one device each', () => {
    expect(deviceOf(UA.iphone)).to.equal('iPhone');
    expect(deviceOf(UA.ipad)).to.equal('iPad');
    expect(deviceOf(UA.android)).to.equal('Android');
    expect(deviceOf(UA.windows)).to.equal('Windows');
    expect(deviceOf(UA.mac)).to.equal('Mac');
    expect(deviceOf(UA.linux)).to.equal('Linux');
    expect(deviceOf(UA.chromeos)).to.equal('Chrome OS');
    expect(deviceOf('')).to.equal(null);
  });

  it('reads the most preferred language, ignoring q=0 and wildcards', () => {
    expect(preferredLanguage('de;q=0.2, fr-CH, fr;q=0.9')).to.equal('fr');
    expect(preferredLanguage('*, en;q=0')).to.equal(null);
    expect(preferredLanguage(undefined)).to.equal(null);
  });

  it('appends parameters without touching the query or fragment the target has', () => {
    const p = [{ name: 'utm source', value: 'a&b' }];
    expect(withParameters('https://x.test/', p)).to.equal('https://x.test/?utm%20source=a%26b');
    expect(withParameters('https://x.test/?a=%7E#f', p)).to.equal(
      'https://x.test/?a=%7E&utm%20source=a%26b#f',
    );
    expect(withParameters('https://x.test/?', p)).to.equal('https://x.test/?utm%20source=a%26b');
    expect(withParameters('https://x.test/?utm%20source=own', p)).to.equal(
      'https://x.test/?utm%20source=own',
    );
  });

  it('compiles nothing for a link without rules (it stays a bare redirect)', () => {
    const none = { geotarget: [], devicetarget: [], languagetarget: [] };
    expect(compileRules([], none)).to.equal(null);
  });
});

describe('contact form tokens (pure)', () => {
  const hash = (text: string) => Buffer.from(text).toString('base64url').slice(-22);
  it('accept their own link and overlay within the TTL only', () => {
    const now = 1_700_000_000_000;
    const token = issueContactToken(hash, 1, 2, now);
    expect(contactTokenValid(hash, token, 1, 2, now + 1000)).to.equal(true);
    expect(contactTokenValid(hash, token, 1, 3, now)).to.equal(false);
    expect(contactTokenValid(hash, token, 9, 2, now)).to.equal(false);
    expect(contactTokenValid(hash, token, 1, 2, now + CONTACT_TOKEN_TTL_MS + 1)).to.equal(false);
    expect(contactTokenValid(hash, token, 1, 2, now - 1)).to.equal(false);
    expect(contactTokenValid(hash, 'garbage', 1, 2, now)).to.equal(false);
  });
});
