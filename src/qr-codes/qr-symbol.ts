import QRCode from 'qrcode';

/** Modules of light margin around the symbol, as ISO/IEC 18004 requires. */
export const QUIET_ZONE = 4;
/** Below two pixels per module, neither our decoder nor a phone reliably reads the image. */
export const MIN_MODULE_PIXELS = 2;

/** Level H (30 % recoverable) when a logo covers the centre, M (15 %) otherwise. */
export function errorCorrectionFor(hasLogo: boolean): QRCode.QRCodeErrorCorrectionLevel {
  return hasLogo ? 'H' : 'M';
}

/**
 * Width of the symbol in modules, quiet zone included, or undefined when the payload is too
 * long for any QR version. A fixed mask skips the costly mask scoring: the version (and so the
 * width) does not depend on it, so this stays cheap enough for the API to call.
 */
export function symbolWidth(payload: string, hasLogo: boolean): number | undefined {
  try {
    const symbol = QRCode.create(payload, {
      errorCorrectionLevel: errorCorrectionFor(hasLogo),
      maskPattern: 0,
    });
    return symbol.modules.size + 2 * QUIET_ZONE;
  } catch {
    return undefined;
  }
}

/** Whole pixels per module at an image size; the remainder widens the quiet zone. */
export function modulePixels(imageSize: number, width: number): number {
  return Math.floor(imageSize / width);
}
