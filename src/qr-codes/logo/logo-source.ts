import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { LogoError, permanentLogoError } from './logo-errors';
import {
  fetchLogo,
  LOGO_MAX_BYTES,
  parseLogoUrl,
  resolveAllowed,
  type LogoFetchOptions,
} from './logo-fetch';

export interface LogoOptions extends LogoFetchOptions {
  logoDir: string;
}

/** Larger logos are refused before decoding, so a small file cannot expand into a huge bitmap. */
export const LOGO_MAX_PIXELS = 4096 * 4096;

/** A value with a scheme is a URL (and must be http or https); anything else is a path in LOGO_DIR. */
export function isLogoUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(value);
}

function inside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root + path.sep);
}

/** The real path of a logo file, refusing `..` escapes and symlinks that lead out of LOGO_DIR. */
export async function resolveLogoFile(logoDir: string, value: string): Promise<string> {
  if (value.includes('\0')) throw permanentLogoError('logo path is not valid');
  const notFound = () => permanentLogoError('logo file not found in LOGO_DIR');
  const root = await fs.realpath(path.resolve(logoDir)).catch(() => {
    throw notFound();
  });
  const outside = () => permanentLogoError('logo path must stay inside LOGO_DIR');
  if (!inside(root, path.resolve(root, value))) throw outside();
  const real = await fs.realpath(path.resolve(root, value)).catch(() => {
    throw notFound();
  });
  if (!inside(root, real) || real === root) throw outside();
  return real;
}

async function readLogoFile(logoDir: string, value: string, maxBytes: number): Promise<Buffer> {
  const real = await resolveLogoFile(logoDir, value);
  // O_NOFOLLOW: the checked path cannot be swapped for a symlink between the check and the open.
  const handle = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => {
    throw permanentLogoError('logo file cannot be read');
  });
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw permanentLogoError('logo path is not a file');
    if (stat.size > maxBytes) throw permanentLogoError(`logo is larger than ${maxBytes} bytes`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The bytes must decode as a png or jpeg of sane dimensions, whatever a server claimed. */
export async function assertLogoImage(bytes: Buffer): Promise<void> {
  let format: string | undefined;
  try {
    const meta = await sharp(bytes, { limitInputPixels: LOGO_MAX_PIXELS }).metadata();
    format = meta.format;
    if ((meta.width ?? 0) * (meta.height ?? 0) > LOGO_MAX_PIXELS) {
      throw permanentLogoError('logo dimensions are too large (at most 4096x4096)');
    }
  } catch (err) {
    if (err instanceof LogoError) throw err;
    throw permanentLogoError('logo is not a png or jpeg image');
  }
  if (format !== 'png' && format !== 'jpeg') {
    throw permanentLogoError('logo is not a png or jpeg image');
  }
}

/**
 * What the API can tell at once: a URL's scheme and where its host resolves, or a file's place,
 * existence and image type. Transient DNS trouble passes; the worker will retry and decide.
 */
export async function checkLogoAtOnce(value: string, options: LogoOptions): Promise<void> {
  try {
    if (isLogoUrl(value)) {
      await resolveAllowed(parseLogoUrl(value), options);
      return;
    }
    const bytes = await readLogoFile(options.logoDir, value, options.maxBytes ?? LOGO_MAX_BYTES);
    await assertLogoImage(bytes);
  } catch (err) {
    if (err instanceof LogoError && !err.permanent) return;
    throw err;
  }
}

/** The logo's bytes, checked again from scratch (the worker runs this, later and elsewhere). */
export async function loadLogo(value: string, options: LogoOptions): Promise<Buffer> {
  const bytes = isLogoUrl(value)
    ? await fetchLogo(value, options)
    : await readLogoFile(options.logoDir, value, options.maxBytes ?? LOGO_MAX_BYTES);
  await assertLogoImage(bytes);
  return bytes;
}
