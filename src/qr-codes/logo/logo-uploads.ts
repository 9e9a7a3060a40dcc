import { readdir, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { QrCode } from '../qr-code.model';

/** Logos one account may keep uploaded (the dashboard's QR form); older unused ones make room. */
export const LOGO_UPLOAD_QUOTA = 20;

export const uploadsDirOf = (logoDir: string, userId: number) =>
  path.resolve(logoDir, 'uploads', String(userId));

/**
 * Makes room for one more upload: deletes the oldest uploads no QR code of the user names until
 * fewer than the quota remain. Answers false when every upload is in use and the quota is full.
 */
export async function makeRoomForUpload(logoDir: string, userId: number): Promise<boolean> {
  const dir = uploadsDirOf(logoDir, userId);
  const names = await readdir(dir).catch(() => [] as string[]);
  if (names.length < LOGO_UPLOAD_QUOTA) return true;
  const codes = await QrCode.find({ userId }, { logo: 1 }).lean();
  const used = new Set(codes.map((c) => c.logo).filter((l): l is string => !!l));
  const files = await Promise.all(
    names.map(async (name) => ({ name, mtime: (await stat(path.join(dir, name))).mtimeMs })),
  );
  const unused = files
    .filter((f) => !used.has(`uploads/${userId}/${f.name}`))
    .sort((a, b) => a.mtime - b.mtime);
  let count = names.length;
  for (const file of unused) {
    if (count < LOGO_UPLOAD_QUOTA) break;
    await unlink(path.join(dir, file.name)).catch(() => undefined);
    count -= 1;
  }
  return count < LOGO_UPLOAD_QUOTA;
}

/** An account's uploads go with it. */
export function deleteUploads(logoDir: string, userId: number): Promise<void> {
  return rm(uploadsDirOf(logoDir, userId), { recursive: true, force: true });
}
