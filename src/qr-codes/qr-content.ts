import Joi from 'joi';
import { validation } from '../shared/errors/app-error';
import type { QrType } from './qr-code.model';
import { cleanUrlHost } from '../shared/http/web-url';

export interface EmailData {
  email: string;
  subject?: string;
  body?: string;
}
export interface SmsData {
  phone: string;
  message?: string;
}
export const WIFI_ENCRYPTIONS = ['WPA', 'WEP', 'nopass'] as const;
export interface WifiData {
  ssid: string;
  password?: string;
  encryption: (typeof WIFI_ENCRYPTIONS)[number];
  hidden?: boolean;
}
export interface VcardData {
  firstname?: string;
  lastname?: string;
  phone?: string;
  email?: string;
  org?: string;
  title?: string;
  url?: string;
  address?: string;
}

export interface GeoData {
  latitude: number;
  longitude: number;
  altitude?: number;
}
export interface EventData {
  summary: string;
  /** ISO 8601 with a zone (`Z` or an offset), stored as given. */
  start: string;
  end: string;
  location?: string;
  description?: string;
}
/** One code for an app: App Store for iPhones and iPads, Google Play for Android, else `web`. */
export interface AppData {
  ios?: string;
  android?: string;
  web: string;
}

/** What a QR code says, by type; `link` holds the target URL its `/s/{alias}` redirects to. */
export type QrContent =
  | { type: 'text'; data: string }
  | { type: 'link'; data: string }
  | { type: 'phone'; data: string }
  | { type: 'email'; data: EmailData }
  | { type: 'sms'; data: SmsData }
  | { type: 'wifi'; data: WifiData }
  | { type: 'vcard'; data: VcardData }
  | { type: 'geo'; data: GeoData }
  | { type: 'event'; data: EventData }
  | { type: 'app'; data: AppData };

// Visual separators are allowed on input; the encoders keep only `+` and digits.
const phone = Joi.string()
  .trim()
  .pattern(/^\+?[0-9][0-9 ()./-]{1,30}$/)
  .messages({ 'string.pattern.base': '{#label} must be a phone number such as +15551234567' });
const url = Joi.string()
  .trim()
  .max(2048)
  .uri({ scheme: ['http', 'https'] })
  .custom(cleanUrlHost)
  .messages({ 'string.uriCustomScheme': '{#label} must be an http(s) URL' });
const email = Joi.string().trim().email({ tlds: false }).max(254);
const text = (max: number) => Joi.string().max(max);

const emailObject = Joi.object<EmailData>({
  email: email.required(),
  subject: text(255).allow(''),
  body: text(1000).allow(''),
});
const smsObject = Joi.object<SmsData>({ phone: phone.required(), message: text(500).allow('') });

/** ISO 8601 date and time with a zone: a code printed today must mean the same hour everywhere. */
const zonedTime = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/)
  .custom((value: string, helpers) =>
    Number.isNaN(Date.parse(value)) ? helpers.error('string.pattern.base') : value,
  )
  .messages({
    'string.pattern.base':
      '{#label} must be an ISO 8601 date and time with a zone, such as 2026-05-01T19:30:00+02:00',
  });

const schemas: Record<QrType, Joi.Schema> = {
  text: Joi.string().min(1).max(2000).required(),
  link: Joi.alternatives(url, Joi.object({ url: url.required() })).required(),
  phone: Joi.alternatives(phone, Joi.object({ phone: phone.required() })).required(),
  email: Joi.alternatives(email, emailObject).required(),
  sms: Joi.alternatives(phone, smsObject).required(),
  wifi: Joi.object<WifiData>({
    ssid: Joi.string().min(1).max(32).required(),
    encryption: Joi.string()
      .valid(...WIFI_ENCRYPTIONS)
      .required(),
    password: Joi.when('encryption', {
      is: 'nopass',
      then: Joi.forbidden().messages({
        'any.unknown': '{#label} is not allowed without encryption',
      }),
      otherwise: Joi.string().min(1).max(63).required(),
    }),
    hidden: Joi.boolean(),
  }).required(),
  vcard: Joi.object<VcardData>({
    firstname: text(100),
    lastname: text(100),
    phone,
    email,
    org: text(200),
    title: text(100),
    url,
    address: text(300),
  })
    .or('firstname', 'lastname', 'org')
    .messages({ 'object.missing': '{#label} needs at least one of firstname, lastname or org' })
    .required(),
  geo: Joi.object<GeoData>({
    latitude: Joi.number().min(-90).max(90).required(),
    longitude: Joi.number().min(-180).max(180).required(),
    altitude: Joi.number().min(-11000).max(100000),
  }).required(),
  event: Joi.object<EventData>({
    summary: text(255).min(1).required(),
    start: zonedTime.required(),
    end: zonedTime
      .custom((value: string, helpers) => {
        const start = (helpers.state.ancestors as Array<{ start?: string }>)[0]?.start;
        return start && Date.parse(value) < Date.parse(start)
          ? helpers.error('event.order')
          : value;
      })
      .messages({ 'event.order': '{#label} must not be before start' })
      .required(),
    location: text(255).allow(''),
    description: text(1000).allow(''),
  }).required(),
  app: Joi.object<AppData>({ ios: url, android: url, web: url.required() })
    .or('ios', 'android')
    .messages({ 'object.missing': '{#label} needs at least one of ios or android' })
    .required(),
};

/** A single-value type accepts the bare string; store the object form where one exists. */
function normalise(type: QrType, value: unknown): QrContent['data'] {
  if (typeof value === 'string') {
    if (type === 'email') return { email: value };
    if (type === 'sms') return { phone: value };
    return value;
  }
  const object = value as Record<string, unknown>;
  if (type === 'link') return object.url as string;
  if (type === 'phone') return object.phone as string;
  return value as QrContent['data'];
}

/** Validates `data` against its type (422 naming the field) and returns the stored form. */
export function parseQrContent(type: QrType, data: unknown): QrContent {
  const { error, value } = schemas[type].validate(data, {
    abortEarly: true,
    convert: true,
    errors: { wrap: { label: false } },
  });
  if (error) {
    const detail = error.details[0];
    const path = ['data', ...(detail?.path ?? [])].join('.');
    const label = detail?.context?.label ?? 'value';
    const message = detail?.message ?? error.message;
    throw validation(
      message.startsWith(label) ? path + message.slice(label.length) : `${path}: ${message}`,
      path,
    );
  }
  return { type, data: normalise(type, value) } as QrContent;
}
