/**
 * Why a logo cannot be used. `permanent` failures (a private address, not an image, too large)
 * will fail the same way on every retry; the others (timeouts, 5xx, refused connections) may not.
 */
export class LogoError extends Error {
  override name = 'LogoError';

  constructor(
    message: string,
    readonly permanent: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const permanentLogoError = (message: string) => new LogoError(message, true);
export const transientLogoError = (message: string, cause?: unknown) =>
  new LogoError(message, false, { cause });
