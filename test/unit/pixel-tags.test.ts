import { expect } from 'chai';
import {
  checkTag,
  KNOWN_TAG_FORMATS,
  PIXEL_TYPES,
  type PixelType,
} from '../../src/pixels/pixel-tags';

describe('checkTag', () => {
  const valid: Array<[PixelType, string, string]> = [
    ['gtmpixel', 'GTM-AB12CD3', 'GTM-AB12CD3'],
    ['gtmpixel', ' gtm-ab12cd3 ', 'GTM-AB12CD3'],
    ['gapixel', 'G-AB12CD34EF', 'G-AB12CD34EF'],
    ['gapixel', 'UA-1234567-1', 'UA-1234567-1'],
    ['fbpixel', '123456789012345', '123456789012345'],
    ['adsnetworkpixel', 'aw-123456789', 'AW-123456789'],
    ['professionalpixel', '1234567', '1234567'],
    ['qapixel', '0123456789ABCDEF0123456789abcdef', '0123456789abcdef0123456789abcdef'],
    ['pinboard', '2612345678901', '2612345678901'],
    ['searchengine', '12345678', '12345678'],
    ['shortvideo', 'c4abcdefgh1234567890', 'C4ABCDEFGH1234567890'],
    ['microblogpixel', 'o1a2b', 'o1a2b'],
    ['retargetpixel', 'ADV123:PIX456', 'ADV123:PIX456'],
    ['messenger', '0f1e2d3c-aaaa-bbbb-cccc-000011112222', '0f1e2d3c-aaaa-bbbb-cccc-000011112222'],
    ['forum', 't2_abc123', 't2_abc123'],
  ];
  for (const [type, tag, stored] of valid) {
    it(`accepts ${JSON.stringify(tag)} for ${type}, stored as ${stored}`, () => {
      expect(checkTag(type, tag)).to.deep.equal({ ok: true, tag: stored });
    });
  }

  const invalid: Array<[PixelType, string, string]> = [
    ['gtmpixel', 'AB12CD3', 'a container id such as GTM-AB12CD3'],
    ['gtmpixel', 'GTM-AB', 'a container id such as GTM-AB12CD3'],
    [
      'gapixel',
      'GTM-AB12CD3',
      'a measurement id such as G-AB12CD34EF or a property id such as UA-1234567-1',
    ],
    ['fbpixel', '12345abc', 'a numeric pixel id of 10 to 20 digits'],
    ['adsnetworkpixel', '123456789', 'a conversion id such as AW-123456789'],
    ['professionalpixel', 'li-123', 'a numeric partner id of 3 to 12 digits'],
    ['qapixel', 'xyz', 'a pixel id of 32 hexadecimal characters'],
    ['pinboard', '123', 'a numeric tag id of 10 to 16 digits'],
    ['searchengine', 'uet-1', 'a numeric tag id of 4 to 12 digits'],
    ['shortvideo', 'C4AB-CDEF', 'a pixel id of 16 to 24 letters and digits'],
  ];
  for (const [type, tag, expected] of invalid) {
    it(`refuses ${JSON.stringify(tag)} for ${type}`, () => {
      expect(checkTag(type, tag)).to.deep.equal({
        ok: false,
        message: `tag for ${type} must be ${expected}`,
      });
    });
  }

  const printable =
    'tag for forum must be 1 to 128 printable characters without spaces, quotes, backslashes, ampersands or angle brackets';
  for (const tag of [
    '',
    'a b',
    'a"b',
    "a'b",
    'a`b',
    'a\\b',
    'a<b',
    'a>b',
    'a&b',
    'é',
    'x'.repeat(129),
  ]) {
    it(`refuses ${JSON.stringify(tag.slice(0, 20))} for a type without a known format`, () => {
      expect(checkTag('forum', tag)).to.deep.equal({ ok: false, message: printable });
    });
  }

  it('accepts 128 printable characters for a type without a known format', () => {
    expect(checkTag('forum', 'x'.repeat(128))).to.deep.equal({ ok: true, tag: 'x'.repeat(128) });
  });

  it('has a known format for exactly the types listed in the README', () => {
    expect(PIXEL_TYPES.filter((t) => KNOWN_TAG_FORMATS[t] === undefined)).to.deep.equal([
      'microblogpixel',
      'retargetpixel',
      'messenger',
      'forum',
    ]);
  });
});
