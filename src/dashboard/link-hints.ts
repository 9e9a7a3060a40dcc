import type { FieldHint } from './form-fields';

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
    kind: 'multiselect',
    optionsFrom: { path: '/pixels', key: 'pixels', value: 'id', label: 'name' },
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
  geotarget: {
    kind: 'json',
    label: 'Country targeting',
    help: 'JSON list, e.g. [{"location":"DE","link":"https://example.de"}]',
  },
  devicetarget: {
    kind: 'json',
    label: 'Device targeting',
    help: 'JSON list, e.g. [{"device":"iPhone","link":"https://example.com/ios"}]',
  },
  languagetarget: {
    kind: 'json',
    label: 'Language targeting',
    help: 'JSON list, e.g. [{"language":"fr","link":"https://example.fr"}]',
  },
  parameters: {
    kind: 'json',
    label: 'Parameters',
    help: 'JSON list, e.g. [{"name":"utm_source","value":"qr"}]',
  },
  metatitle: { label: 'Meta title' },
  metadescription: { label: 'Meta description', kind: 'textarea' },
  metaimage: { label: 'Meta image URL', kind: 'url' },
};
