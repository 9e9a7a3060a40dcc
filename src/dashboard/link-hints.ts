import { DEVICES } from '../visitor/rules/rule-values';
import { countryName, UNKNOWN_COUNTRY } from '../visits/visit-capture';
import type { FieldHint } from './form-fields';
import { ruleHints } from './rule-hints';
import type { FieldOption } from './view-types';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const pairs = [...LETTERS].flatMap((a) => [...LETTERS].map((b) => a + b));

/** Every country by its English name, the form the API stores and answers (it takes codes too). */
const countries: FieldOption[] = pairs
  .map((code) => countryName(code.toUpperCase()))
  .filter((name) => name !== UNKNOWN_COUNTRY)
  .sort((a, b) => a.localeCompare(b, 'en'))
  .map((name) => ({ value: name, label: name }));

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
/** ISO 639-1 codes with their English names, as the API stores them (`fr`, `pt`). */
const languages: FieldOption[] = pairs
  .map((code) => ({ value: code, label: languageNames.of(code) ?? code }))
  .filter((option) => option.label !== option.value)
  .sort((a, b) => a.label.localeCompare(b.label, 'en'));

const targetLink = { label: 'Send to' };

/** How the link form presents each field the API's link schemas accept (see form-fields.ts). */
export const linkHints: Record<string, FieldHint> = {
  url: { label: 'Destination URL', kind: 'url' },
  type: {
    kind: 'select',
    label: 'What visitors get',
    options: [
      { value: 'direct', label: 'Direct redirect' },
      { value: 'frame', label: 'The page in a frame (pixels fire)' },
      { value: 'splash', label: 'A splash page first' },
      { value: 'overlay', label: 'The page with a CTA overlay' },
    ],
  },
  custom: {
    label: 'Alias',
    help: '3-64 letters, digits, hyphens or underscores; random when empty.',
  },
  domain: {
    label: 'Domain',
    kind: 'select',
    optionsFrom: { path: '/domains', key: 'domains', value: 'domain', label: 'domain' },
    help: 'Empty: the service’s own domain.',
  },
  title: { label: 'Title' },
  description: { kind: 'textarea' },
  expiry: { kind: 'datetime', label: 'Expires', help: 'Your local time.' },
  password: { kind: 'password', label: 'Password', help: 'Visitors must enter it first.' },
  pixels: {
    label: 'Pixels',
    rowLabel: 'pixel',
    help: 'Tracking pixels fired on the pages this link shows visitors.',
    columns: {
      '': {
        label: 'Pixel',
        kind: 'select',
        optionsFrom: { path: '/pixels', key: 'pixels', value: 'id', label: 'name' },
      },
    },
  },
  splash: {
    kind: 'select',
    label: 'Splash page',
    optionsFrom: { path: '/splash', key: 'splash', value: 'id', label: 'name' },
  },
  overlay: {
    kind: 'select',
    label: 'CTA overlay',
    optionsFrom: { path: '/overlay', key: 'cta', value: 'id', label: 'name' },
  },
  // GemPixel's three maps are rules of one key: the rules editor shows them as sections of its
  // own, after the rules (the order the engine tries them in), and saves them back to the maps
  // so that API clients read them where GemPixel puts them.
  geotarget: {
    label: 'Country targeting (GemPixel’s geotarget)',
    rowLabel: 'country rule',
    help: 'A country a rule, tried after the rules above; the first rule for a country wins. API clients read these as the link’s geotarget.',
    within: 'rules',
    columns: {
      location: { label: 'Country', kind: 'suggest', options: countries },
      link: targetLink,
    },
  },
  devicetarget: {
    label: 'Device targeting (GemPixel’s devicetarget)',
    rowLabel: 'device rule',
    help: 'A device a rule, by GemPixel’s device names, tried after the country targeting. API clients read these as the link’s devicetarget.',
    within: 'rules',
    columns: {
      device: {
        label: 'Device',
        kind: 'select',
        options: DEVICES.map((d) => ({ value: d, label: d })),
      },
      link: targetLink,
    },
  },
  languagetarget: {
    label: 'Language targeting (GemPixel’s languagetarget)',
    rowLabel: 'language rule',
    help: 'A language a rule (the one the browser prefers), tried last. API clients read these as the link’s languagetarget.',
    within: 'rules',
    columns: {
      language: { label: 'Language', kind: 'suggest', options: languages },
      link: targetLink,
    },
  },
  ...ruleHints,
  parameters: {
    label: 'Parameters',
    rowLabel: 'parameter',
    help: 'Added to the destination’s query string, e.g. utm_source = qr.',
    columns: { name: { label: 'Name' }, value: { label: 'Value' } },
  },
  metatitle: { label: 'Meta title' },
  metadescription: { label: 'Meta description', kind: 'textarea' },
  metaimage: { label: 'Meta image URL', kind: 'url' },
};
