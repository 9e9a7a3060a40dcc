import { generateSecret, generateURI, verifySync } from 'otplib';
import { buildDesign } from '../qr-codes/design/design';
import { qrMatrix } from '../qr-codes/design/matrix';
import { designSvg } from '../qr-codes/design/svg';
import { parseRgb, type Rgb } from '../qr-codes/qr-colors';

export const TOTP_ISSUER = 'linkqr';
/** One step (30 s) either side: a phone's clock a little off still signs in (RFC 6238, 6). */
const TOLERANCE_SECONDS = 30;

/** 160 random bits, base32, as authenticator apps expect (RFC 4226 recommends 160). */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The otpauth:// URI an authenticator app reads from the enrolment QR code. */
export function otpauthUri(secret: string, account: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: account, secret });
}

/**
 * The time step a code matches (within one step of now), or undefined. Steps at or before
 * `afterStep` are refused: a code seen once is never accepted again.
 */
export function matchTotp(
  secret: string,
  code: string,
  afterStep: number,
  now = Date.now(),
): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = verifySync({
    secret,
    token: code,
    epoch: Math.floor(now / 1000),
    epochTolerance: TOLERANCE_SECONDS,
    afterTimeStep: afterStep > 0 ? afterStep : undefined,
  });
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}

const BLACK = parseRgb('rgb(0,0,0)') as Rgb;
const WHITE = parseRgb('rgb(255,255,255)') as Rgb;

/** The enrolment QR code, drawn by linkqr's own QR renderer as an SVG of `width` pixels. */
export function enrolmentQrSvg(uri: string, width = 240): string {
  const matrix = qrMatrix(uri, 'M');
  if (!matrix) throw new Error('the otpauth URI does not fit in a QR code');
  const design = buildDesign({
    data: matrix.data,
    modules: matrix.modules,
    style: null,
    foreground: BLACK,
    background: WHITE,
    hasLogo: false,
  });
  return designSvg(design, width);
}
