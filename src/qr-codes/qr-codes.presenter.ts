import { formatDateTime } from '../shared/format/dates';
import type { QrCodeRecord } from './qr-code.model';

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
  };
}
