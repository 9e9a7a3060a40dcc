import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record, urlJson } from '../shared/http/responses';
import { QR_STATUSES, type QrCodeRecord } from './qr-code.model';
import { styleSchema } from './design/style';
import { IMAGE_FORMATS } from './qr-variants';

export function qrLink(publicUrl: string, alias: string): string {
  return `${publicUrl}/qr/${alias}`;
}

/** The spec's QR code (part 2): id, link, scans, name, date. */
export function presentQr(qr: QrCodeRecord, scans: number, publicUrl: string) {
  return {
    id: qr.id,
    link: qrLink(publicUrl, qr.alias),
    scans,
    name: qr.name,
    date: formatDateTime(qr.createdAt),
  };
}

/** A single QR code's `details`: the spec's fields plus the render state and, once failed, why. */
export function presentQrDetails(qr: QrCodeRecord, scans: number, publicUrl: string) {
  return {
    ...presentQr(qr, scans, publicUrl),
    status: qr.status,
    reason: qr.status === 'failed' ? (qr.failureReason ?? 'rendering failed') : null,
    style: qr.style ?? null,
    formats: Object.fromEntries(
      IMAGE_FORMATS.map((format) => [format, `${qrLink(publicUrl, qr.alias)}.${format}`]),
    ),
  };
}

const qrFields = {
  id: idJson,
  link: urlJson.example('https://go.example.com/qr/Ab3dE9x').description('the image'),
  scans: Joi.number().integer().min(0),
  name: Joi.string().allow(''),
  date: dateTimeJson,
};

export const qrJson = record(qrFields);

export const qrDetailsJson = record({
  ...qrFields,
  status: Joi.string().valid(...QR_STATUSES),
  reason: Joi.string().allow(null).description('why rendering failed, once it has'),
  style: styleSchema
    .options({ presence: 'optional' })
    .description('the design, as set on create or update; null when plain'),
  formats: record(Object.fromEntries(IMAGE_FORMATS.map((format) => [format, urlJson]))).description(
    'the image URL of each format (`.png?size=`, `.pdf?cmyk=1&bleed=3`, `?download=1`)',
  ),
});
