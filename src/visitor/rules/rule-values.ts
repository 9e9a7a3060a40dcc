import { countryName, UNKNOWN_COUNTRY } from '../../visits/visit-capture';

/** The device names GemPixel documents for `devicetarget`, as stored and returned. */
export const DEVICES = [
  'iPhone',
  'iPad',
  'Android',
  'Windows Phone',
  'Windows',
  'Mac',
  'Linux',
  'Chrome OS',
  'Blackberry',
] as const;
export type Device = (typeof DEVICES)[number];

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });

/** English country name -> itself, lower-cased, for every ISO 3166-1 alpha-2 code Node knows. */
const countriesByName: ReadonlyMap<string, string> = (() => {
  const byName = new Map<string, string>();
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  for (const a of letters) {
    for (const b of letters) {
      const name = countryName(a + b);
      if (name !== UNKNOWN_COUNTRY) byName.set(name.toLowerCase(), name);
    }
  }
  return byName;
})();

/** The English country name for an ISO code or a name (any case); null when it names none. */
export function canonicalCountry(location: string): string | null {
  const value = location.trim();
  if (/^[A-Za-z]{2}$/.test(value)) {
    const name = countryName(value);
    return name === UNKNOWN_COUNTRY ? null : name;
  }
  return countriesByName.get(value.toLowerCase()) ?? null;
}

export function canonicalDevice(device: string): Device | null {
  const wanted = device.trim().toLowerCase();
  return DEVICES.find((d) => d.toLowerCase() === wanted) ?? null;
}

/** A lower-case ISO 639 code (`en`, `pt`), from a code or a tag such as `pt-BR`; null if unknown. */
export function canonicalLanguage(language: string): string | null {
  const code = language.trim().toLowerCase().split(/[-_]/)[0] ?? '';
  if (!/^[a-z]{2,3}$/.test(code)) return null;
  try {
    const name = languageNames.of(code);
    return name && name !== code ? code : null;
  } catch {
    return null;
  }
}

/** GemPixel's one device name for what ua-parser-js found (model, lower-cased OS name), or null. */
export function gempixelDeviceOf(model: string | undefined, name: string): Device | null {
  if (model === 'iPhone') return 'iPhone';
  if (model === 'iPad') return 'iPad';
  if (name === 'ios') return 'iPhone';
  if (name === 'android') return 'Android';
  if (name.startsWith('windows phone') || name === 'windows mobile') return 'Windows Phone';
  if (name === 'windows') return 'Windows';
  if (name === 'mac os' || name === 'macos') return 'Mac';
  if (name === 'chromium os' || name === 'chrome os') return 'Chrome OS';
  if (name === 'blackberry' || name === 'rim tablet os') return 'Blackberry';
  if (['linux', 'ubuntu', 'debian', 'fedora', 'arch', 'mint', 'gentoo'].includes(name))
    return 'Linux';
  return null;
}

/** The visitor's most preferred language (highest q in Accept-Language), as an ISO 639 code. */
export function preferredLanguage(acceptLanguage: string | undefined): string | null {
  if (!acceptLanguage) return null;
  let best: { code: string; q: number } | null = null;
  for (const part of acceptLanguage.slice(0, 512).split(',')) {
    const [tag = '', ...params] = part.trim().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    const code = tag === '*' ? null : canonicalLanguage(tag);
    if (code && Number.isFinite(q) && q > 0 && (!best || q > best.q)) best = { code, q };
  }
  return best?.code ?? null;
}
