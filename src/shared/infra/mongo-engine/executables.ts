import fs from 'node:fs';
import path from 'node:path';

/** Resolves when `file` is a regular file this process may execute; rejects saying why not. */
export async function checkExecutable(file: string): Promise<void> {
  const stat = await fs.promises.stat(file).catch(() => {
    throw new Error('no such file');
  });
  if (!stat.isFile()) throw new Error('not a file');
  await fs.promises.access(file, fs.constants.X_OK).catch(() => {
    throw new Error('not executable');
  });
}

/** The first executable `name` in the directories of `pathVariable` (the PATH), like `which`. */
export async function findOnPath(
  name: string,
  pathVariable: string | undefined,
  check: (file: string) => Promise<void> = checkExecutable,
): Promise<string | undefined> {
  const names = process.platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of (pathVariable ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const candidate of names) {
      const file = path.resolve(dir, candidate);
      const runnable = await check(file).then(
        () => true,
        () => false,
      );
      if (runnable) return file;
    }
  }
  return undefined;
}
