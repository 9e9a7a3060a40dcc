import type {
  EmailData,
  EventData,
  GeoData,
  QrContent,
  SmsData,
  VcardData,
  WifiData,
} from './qr-content';

/**
 * Turns a QR code's content into the text its symbol encodes, in the de facto formats the camera
 * apps of iOS and Android and ZXing-based scanners understand. Pure, so each format is unit-tested
 * against known payloads.
 */
export function encodeQrPayload(
  content: QrContent,
  dynamicUrl: string,
  now: Date = new Date(),
): string {
  switch (content.type) {
    case 'text':
      return content.data;
    case 'app':
    case 'link':
      // Dynamic: the symbol keeps pointing at us, so the target can change without reprinting.
      return dynamicUrl;
    case 'phone':
      return `tel:${dialString(content.data)}`;
    case 'email':
      return encodeEmail(content.data);
    case 'sms':
      return encodeSms(content.data);
    case 'wifi':
      return encodeWifi(content.data);
    case 'vcard':
      return encodeVcard(content.data);
    case 'geo':
      return encodeGeo(content.data);
    case 'event':
      return encodeEvent(content.data, dynamicUrl, now);
  }
}

/** A `geo:` URI (RFC 5870): WGS-84 latitude, longitude and optional altitude in metres. */
function encodeGeo({ latitude, longitude, altitude }: GeoData): string {
  const n = (v: number) => String(Number(v.toFixed(7)));
  return `geo:${n(latitude)},${n(longitude)}${altitude === undefined ? '' : `,${n(altitude)}`}`;
}

/** RFC 5545 section 3.3.11 TEXT: backslash, semicolon, comma and line breaks escaped. */
export function escapeIcalText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** UTC form of RFC 5545 DATE-TIME: 20260501T173000Z. */
export function icalTime(value: string | Date): string {
  return new Date(value)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * An iCalendar object with one VEVENT (RFC 5545): CRLF line ends, lines folded at 75 octets,
 * times in UTC. The UID is the code's own address, unique and stable across re-renders.
 */
function encodeEvent(event: EventData, uid: string, now: Date): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//linkqr//QR event//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    `DTSTAMP:${icalTime(now)}`,
    `DTSTART:${icalTime(event.start)}`,
    `DTEND:${icalTime(event.end)}`,
    `SUMMARY:${escapeIcalText(event.summary)}`,
  ];
  if (event.location) lines.push(`LOCATION:${escapeIcalText(event.location)}`);
  if (event.description) lines.push(`DESCRIPTION:${escapeIcalText(event.description)}`);
  lines.push('END:VEVENT', 'END:VCALENDAR');
  return lines.map(foldVcardLine).join('\r\n') + '\r\n';
}

/** RFC 3966 allows no spaces; keeping only `+` and digits is what every dialer accepts. */
export function dialString(phone: string): string {
  const trimmed = phone.trim();
  return (trimmed.startsWith('+') ? '+' : '') + trimmed.replace(/[^0-9]/g, '');
}

/**
 * `mailto:` (RFC 6068) rather than DoCoMo's `MATMSG:`: it is a standard URI scheme that the
 * iOS camera, Android and desktop decoders all open, while MATMSG is a vendor format with no
 * escaping rules and patchy support.
 */
function encodeEmail({ email, subject, body }: EmailData): string {
  const address = encodeURIComponent(email).replace(/%40/g, '@');
  const fields: string[] = [];
  if (subject) fields.push(`subject=${encodeURIComponent(subject)}`);
  // RFC 6068 section 5: line breaks in a body are CRLF, percent-encoded.
  if (body) fields.push(`body=${encodeURIComponent(body.replace(/\r?\n/g, '\r\n'))}`);
  return `mailto:${address}${fields.length ? `?${fields.join('&')}` : ''}`;
}

/** ZXing's `SMSTO:number:message`; the message runs to the end, so it needs no escaping. */
function encodeSms({ phone, message }: SmsData): string {
  return `SMSTO:${dialString(phone)}${message ? `:${message}` : ''}`;
}

/** The `WIFI:` format: `\ ; , : "` are special inside its fields and are backslash-escaped. */
export function escapeWifi(value: string): string {
  return value.replace(/[\\;,:"]/g, (c) => `\\${c}`);
}

function encodeWifi({ ssid, password, encryption, hidden }: WifiData): string {
  let out = `WIFI:T:${encryption};S:${escapeWifi(ssid)};`;
  if (encryption !== 'nopass' && password) out += `P:${escapeWifi(password)};`;
  if (hidden) out += 'H:true;';
  return `${out};`;
}

/** vCard 3.0 TEXT escaping (RFC 2426 section 4): backslash, comma, semicolon and line breaks. */
export function escapeVcardText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/,/g, '\\,')
    .replace(/;/g, '\\;')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** Folds a content line at 75 octets (RFC 2426 section 2.6), never inside a UTF-8 sequence. */
export function foldVcardLine(line: string): string {
  const parts: string[] = [];
  let current = '';
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char, 'utf8');
    const limit = parts.length === 0 ? 75 : 74; // continuation lines start with one space
    if (octets + size > limit) {
      parts.push(current);
      current = '';
      octets = 0;
    }
    current += char;
    octets += size;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

function encodeVcard(card: VcardData): string {
  const e = (v: string | undefined) => escapeVcardText(v ?? '');
  const fullName = [card.firstname, card.lastname].filter(Boolean).join(' ') || card.org || '';
  const lines = [
    'BEGIN:VCARD',
    'VERSION:3.0',
    `N:${e(card.lastname)};${e(card.firstname)};;;`,
    `FN:${e(fullName)}`,
  ];
  if (card.org) lines.push(`ORG:${e(card.org)}`);
  if (card.title) lines.push(`TITLE:${e(card.title)}`);
  if (card.phone) lines.push(`TEL;TYPE=VOICE:${dialString(card.phone)}`);
  if (card.email) lines.push(`EMAIL;TYPE=INTERNET:${card.email}`);
  // URL is a URI value, not TEXT: escaping its commas would change the address.
  if (card.url) lines.push(`URL:${card.url}`);
  // The free-form address goes in the street component of the seven ADR components.
  if (card.address) lines.push(`ADR:;;${e(card.address)};;;;`);
  lines.push('END:VCARD');
  return lines.map(foldVcardLine).join('\r\n') + '\r\n';
}
