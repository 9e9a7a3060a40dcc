import { RULE_DEVICES } from '../visitor/rules/rules.schemas';
import type { FieldHint } from './form-fields';
import type { RuleKeySpec } from './view-types';

/** Every key of a rule's `when` (src/visitor/rules/rules.schemas.ts), as the editor offers it. */
const ruleKeys: RuleKeySpec[] = [
  { name: 'country', label: 'Countries', kind: 'list', help: 'ISO codes, e.g. DE, FR' },
  { name: 'language', label: 'Languages', kind: 'list', help: 'ISO 639 codes, e.g. en, fr' },
  {
    name: 'device',
    label: 'Devices',
    kind: 'devices',
    options: RULE_DEVICES.map((d) => ({ value: d, label: d })),
  },
  { name: 'os', label: 'Systems', kind: 'list', help: 'e.g. iOS, Windows' },
  { name: 'browser', label: 'Browsers', kind: 'list', help: 'e.g. Chrome, Firefox' },
  {
    name: 'query',
    label: 'Query parameters',
    kind: 'query',
    help: 'name=value, joined by &; value * means present with any value',
  },
  { name: 'ip', label: 'IP addresses', kind: 'list', help: 'addresses or CIDR ranges' },
  { name: 'after', label: 'From', kind: 'datetime', help: 'your local time' },
  { name: 'before', label: 'Until', kind: 'datetime', help: 'your local time' },
  { name: 'referrer', label: 'Referrer hosts', kind: 'list', help: 'e.g. news.example.com' },
];

/** The link form's redirect rules, A/B variants, click limit and monitoring (issue 24). */
export const ruleHints: Record<string, FieldHint> = {
  rules: {
    kind: 'rules',
    label: 'Redirect rules',
    rowLabel: 'rule',
    help: 'Tried in order, before the country, device and language targeting below; the first rule whose filled conditions all match sends the visitor to its URL.',
    ruleKeys,
  },
  variants: {
    label: 'A/B variants',
    rowLabel: 'variant',
    help: 'Each new visitor gets one by weight (the weights add up to 100) and keeps it.',
    columns: { url: { label: 'URL' }, weight: { label: 'Weight (%)' } },
  },
  maxclicks: { label: 'Click limit', help: 'The link expires after this many clicks.' },
  expiredurl: {
    label: 'Once expired, send to',
    kind: 'url',
    help: 'Empty: visitors of an expired link get the expired page.',
  },
  monitor: { label: 'Watch the destination and tell me when it breaks' },
  fallback: {
    label: 'While the destination is broken, send to',
    kind: 'url',
    help: 'Empty: visitors keep going to the destination.',
  },
};
