import { isWebUrl } from '../shared/http/web-url';

export const PIXEL_TYPES = [
  'gtmpixel',
  'gapixel',
  'fbpixel',
  'adsnetworkpixel',
  'professionalpixel',
  'microblogpixel',
  'retargetpixel',
  'qapixel',
  'pinboard',
  'searchengine',
  'messenger',
  'forum',
  'shortvideo',
] as const;
export type PixelType = (typeof PIXEL_TYPES)[number];

interface TagFormat {
  pattern: RegExp;
  /** What the message says the tag must be. */
  expected: string;
  letterCase?: 'upper' | 'lower';
}

/**
 * Printable ASCII without spaces, quotes, backslashes, ampersands or angle brackets: tags end up
 * in tracking snippets on visitor pages, and such a value cannot break out of an HTML attribute
 * or a script string there.
 */
const PRINTABLE = /^[A-Za-z0-9!#$%()*+,\-./:;=?@[\]^_{|}~]{1,128}$/;
const PRINTABLE_EXPECTED =
  '1 to 128 printable characters without spaces, quotes, backslashes, ampersands or angle brackets';

const URL_TAG_EXPECTED = 'a URL tag must have a valid host name or address as its host';

/** The types whose identifiers have a well-known format; the others are bounded printable strings. */
export const KNOWN_TAG_FORMATS: Partial<Record<PixelType, TagFormat>> = {
  gtmpixel: {
    pattern: /^GTM-[A-Z0-9]{4,12}$/,
    expected: 'a container id such as GTM-AB12CD3',
    letterCase: 'upper',
  },
  gapixel: {
    pattern: /^(?:G-[A-Z0-9]{4,16}|UA-\d{4,12}-\d{1,4})$/,
    expected: 'a measurement id such as G-AB12CD34EF or a property id such as UA-1234567-1',
    letterCase: 'upper',
  },
  fbpixel: { pattern: /^\d{10,20}$/, expected: 'a numeric pixel id of 10 to 20 digits' },
  adsnetworkpixel: {
    pattern: /^AW-\d{6,14}$/,
    expected: 'a conversion id such as AW-123456789',
    letterCase: 'upper',
  },
  professionalpixel: { pattern: /^\d{3,12}$/, expected: 'a numeric partner id of 3 to 12 digits' },
  qapixel: {
    pattern: /^[0-9a-f]{32}$/,
    expected: 'a pixel id of 32 hexadecimal characters',
    letterCase: 'lower',
  },
  pinboard: { pattern: /^\d{10,16}$/, expected: 'a numeric tag id of 10 to 16 digits' },
  searchengine: { pattern: /^\d{4,12}$/, expected: 'a numeric tag id of 4 to 12 digits' },
  shortvideo: {
    pattern: /^[A-Z0-9]{16,24}$/,
    expected: 'a pixel id of 16 to 24 letters and digits',
    letterCase: 'upper',
  },
};

/** The tag as stored (trimmed, case normalised where the format has one), or why it is refused. */
export function checkTag(
  type: PixelType,
  tag: string,
): { ok: true; tag: string } | { ok: false; message: string } {
  const format = KNOWN_TAG_FORMATS[type];
  let value = tag.trim();
  if (format?.letterCase === 'upper') value = value.toUpperCase();
  if (format?.letterCase === 'lower') value = value.toLowerCase();
  const pattern = format?.pattern ?? PRINTABLE;
  if (/^https?:/i.test(value) && !isWebUrl(value)) {
    return { ok: false, message: `tag for ${type}: ${URL_TAG_EXPECTED}` };
  }
  if (pattern.test(value)) return { ok: true, tag: value };
  return {
    ok: false,
    message: `tag for ${type} must be ${format?.expected ?? PRINTABLE_EXPECTED}`,
  };
}
