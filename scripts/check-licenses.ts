/**
 * Fails when a dependency the service ships with (everything `npm ci --omit=dev` installs) is
 * under the GPL or AGPL: linkqr is MIT and runs as a network service, where the AGPL would bind
 * every deployment (ua-parser-js 2.x is AGPL, for one). LGPL (sharp's libvips) is fine: it is
 * linked, not copied. Reads package-lock.json, so it needs no network and no extra package.
 */
import fs from 'node:fs';
import path from 'node:path';

interface LockPackage {
  license?: string;
  dev?: boolean;
  devOptional?: boolean;
}

/** GPL or AGPL of any version; LGPL does not match (the letter before "GPL" is an L). */
const STRONG_COPYLEFT = /(^|[^L])GPL/i;

/** True when the SPDX expression leaves no way to use the package without (A)GPL terms. */
export function requiresCopyleft(expression: string): boolean {
  const alternatives = expression.replace(/[()]/g, ' ').split(/\s+OR\s+/i);
  return alternatives.every((alternative) =>
    alternative.split(/\s+AND\s+/i).some((term) => STRONG_COPYLEFT.test(term.trim())),
  );
}

export function findCopyleft(lock: { packages: Record<string, LockPackage> }): string[] {
  const offenders: string[] = [];
  for (const [location, pkg] of Object.entries(lock.packages)) {
    if (location === '' || pkg.dev || pkg.devOptional) continue;
    if (pkg.license && requiresCopyleft(pkg.license))
      offenders.push(`${location.replace(/^.*node_modules\//, '')}: ${pkg.license}`);
  }
  return offenders;
}

if (require.main === module) {
  const lockFile = path.resolve(__dirname, '..', 'package-lock.json');
  const lock = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as {
    packages: Record<string, LockPackage>;
  };
  const offenders = findCopyleft(lock);
  if (offenders.length > 0) {
    process.stderr.write(
      `GPL/AGPL dependencies are not allowed in linkqr:\n  ${offenders.join('\n  ')}\n`,
    );
    process.exit(1);
  }
  const count = Object.values(lock.packages).filter((p) => !p.dev && !p.devOptional).length - 1;
  process.stdout.write(`licences: ${count} production packages, none GPL or AGPL\n`);
}
