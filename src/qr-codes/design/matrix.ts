import QRCode from 'qrcode';
import type { ErrorCorrection } from './style';

export interface Matrix {
  data: Uint8Array;
  /** 1 where a module is a function pattern (finder, timing, alignment, format, version). */
  reserved: Uint8Array;
  modules: number;
  version: number;
  errorCorrection: ErrorCorrection;
}

/** The symbol's modules; undefined when the payload fits no QR version at this level. */
export function qrMatrix(
  payload: string,
  errorCorrection: ErrorCorrection,
  /** A fixed mask skips the mask scoring: for checks that need the layout, not the image. */
  maskPattern?: QRCode.QRCodeMaskPattern,
): Matrix | undefined {
  try {
    const symbol = QRCode.create(payload, { errorCorrectionLevel: errorCorrection, maskPattern });
    const bits = symbol.modules as unknown as { data: Uint8Array; reservedBit: Uint8Array };
    return {
      data: bits.data,
      reserved: bits.reservedBit,
      modules: symbol.modules.size,
      version: symbol.version,
      errorCorrection,
    };
  } catch {
    return undefined;
  }
}
